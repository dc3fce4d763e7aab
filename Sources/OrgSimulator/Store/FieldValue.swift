import Foundation

/// A field value of a record, as the REST API carries it.
package enum FieldValue: Sendable, Hashable, Codable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)

    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else { self = .string(try c.decode(String.self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        }
    }

    /// From what JSONSerialization gives; nil for arrays and objects, which no Contact field holds.
    init?(json value: Any) {
        switch value {
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber:
            if type(of: value) == Bool.self || String(cString: n.objCType) == "c" {
                self = .bool(n.boolValue)
            } else if ["f", "d"].contains(String(cString: n.objCType)) {
                self = .double(n.doubleValue)
            } else {
                self = .int(n.intValue)
            }
        default: return nil
        }
    }

    var jsonObject: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        }
    }

    var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
}

/// The REST API's datetime format: `2026-11-01T09:30:00.000+0000`, always UTC.
enum SalesforceDate {
    static func string(_ date: Date) -> String {
        let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let (seconds, millis) = ms.quotientAndRemainder(dividingBy: 1000)
        let parts = fields(millis < 0 ? seconds - 1 : seconds)
        // Written digit by digit: every write stamps three of these, and `String(format:)` (here and in the token
        // hash) was about 3% of the machine's CPU under the fleet's load.
        var out = [UInt8]()
        out.reserveCapacity(28)
        digits(Int(parts.tm_year) + 1900, 4, &out); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mon) + 1, 2, &out); out.append(UInt8(ascii: "-"))
        digits(Int(parts.tm_mday), 2, &out); out.append(UInt8(ascii: "T"))
        digits(Int(parts.tm_hour), 2, &out); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_min), 2, &out); out.append(UInt8(ascii: ":"))
        digits(Int(parts.tm_sec), 2, &out); out.append(UInt8(ascii: "."))
        digits(Int(millis < 0 ? millis + 1000 : millis), 3, &out)
        out += Array("+0000".utf8)
        return String(decoding: out, as: UTF8.self)
    }

    /// `yyyy-MM-dd` in UTC, the REST API's date format.
    static func dateString(_ date: Date) -> String { String(string(date).prefix(10)) }

    /// `yyyyMMdd` in UTC.
    static func compactDateString(_ date: Date) -> String {
        let parts = fields(Int64((date.timeIntervalSince1970).rounded(.down)))
        var out = [UInt8]()
        digits(Int(parts.tm_year) + 1900, 4, &out)
        digits(Int(parts.tm_mon) + 1, 2, &out)
        digits(Int(parts.tm_mday), 2, &out)
        return String(decoding: out, as: UTF8.self)
    }

    private static func fields(_ seconds: Int64) -> tm {
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return parts
    }

    /// `value` in at least `width` decimal digits, zero-padded (a negative year keeps its sign first), written in
    /// place: no buffer of its own.
    private static func digits(_ value: Int, _ width: Int, _ out: inout [UInt8]) {
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var count = 1
        var rest = value.magnitude / 10
        while rest > 0 { count += 1; rest /= 10 }
        let start = out.count + max(0, width - count)
        out += repeatElement(UInt8(ascii: "0"), count: max(width, count))
        var v = value.magnitude
        for i in stride(from: start + count - 1, through: start, by: -1) {
            out[i] = UInt8(ascii: "0") + UInt8(v % 10)
            v /= 10
        }
    }

    /// Parses `yyyy-MM-ddTHH:mm:ss[.SSS](Z|+0000|+00:00)` and plain dates `yyyy-MM-dd`.
    static func parse(_ text: String) -> Date? {
        let s = Array(text.utf8)
        func num(_ from: Int, _ len: Int) -> Int? {
            guard from + len <= s.count else { return nil }
            var v = 0
            for b in s[from..<from + len] {
                guard (0x30...0x39).contains(b) else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            return v
        }
        guard let y = num(0, 4), s.count >= 10, s[4] == 0x2D, let mo = num(5, 2), s[7] == 0x2D, let d = num(8, 2) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(y - 1900)
        parts.tm_mon = Int32(mo - 1)
        parts.tm_mday = Int32(d)
        var ms = 0
        var offsetSeconds = 0
        if s.count > 10 {
            guard s[10] == 0x54, let h = num(11, 2), s.count > 13, s[13] == 0x3A, let mi = num(14, 2), s.count > 16, s[16] == 0x3A,
                let se = num(17, 2)
            else { return nil }
            parts.tm_hour = Int32(h)
            parts.tm_min = Int32(mi)
            parts.tm_sec = Int32(se)
            var i = 19
            if i < s.count, s[i] == 0x2E {
                var digits = 0
                i += 1
                while i < s.count, (0x30...0x39).contains(s[i]) {
                    if digits < 3 { ms = ms * 10 + Int(s[i] - 0x30) }
                    digits += 1
                    i += 1
                }
                // Fewer than three digits are tenths or hundredths; more than three are cut to milliseconds.
                if digits < 3 { for _ in digits..<3 { ms *= 10 } }
            }
            guard i < s.count else { return nil }
            if s[i] == 0x5A {
                i += 1
            } else if s[i] == 0x2B || s[i] == 0x2D {
                let sign = s[i] == 0x2D ? -1 : 1
                guard let oh = num(i + 1, 2) else { return nil }
                var j = i + 3
                if j < s.count, s[j] == 0x3A { j += 1 }
                guard let om = num(j, 2) else { return nil }
                offsetSeconds = sign * (oh * 3600 + om * 60)
                i = j + 2
            } else {
                return nil
            }
            guard i == s.count else { return nil }
        }
        let seconds = timegm(&parts)
        return Date(timeIntervalSince1970: Double(seconds - offsetSeconds) + Double(ms) / 1000)
    }
}

extension FieldValue: ExpressibleByStringLiteral {
    package init(stringLiteral value: String) { self = .string(value) }
}
