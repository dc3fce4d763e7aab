import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A fast reader and writer for the XML property lists SharedDefaults keeps (issue "Speed": every
/// write is a read-modify-write of the whole suite, and corelibs Foundation's XML codec was most of
/// its cost). It handles the plist elements and what Foundation, CFPreferences and Python's plistlib
/// write, with comments between elements; anything else (CDATA, comments inside text, odd numbers, a binary
/// plist) makes `decode` return nil and the caller falls back to `PropertyListSerialization`, which stays the
/// authority on what is valid.
enum PlistXML {
    static let header = """
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">

        """

    // MARK: Writing

    /// The dictionary as Foundation writes it (keys sorted, tab indents); nil when a value needs
    /// Foundation's own encoder (a non-finite number, a character XML 1.0 cannot carry).
    static func encode(_ dict: [String: PlistValue]) -> Data? {
        var out = header
        out.reserveCapacity(4096)
        guard write(.dictionary(dict), depth: 0, into: &out) else { return nil }
        out += "</plist>\n"
        return Data(out.utf8)
    }

    private static func write(_ value: PlistValue, depth: Int, into out: inout String) -> Bool {
        let indent = String(repeating: "\t", count: depth)
        switch value {
        case .bool(let b): out += indent + (b ? "<true/>\n" : "<false/>\n")
        case .int(let i): out += indent + "<integer>\(i)</integer>\n"
        case .double(let d):
            guard d.isFinite else { return false }
            out += indent + "<real>\(d)</real>\n"
        case .string(let s):
            guard let escaped = escape(s) else { return false }
            out += indent + "<string>" + escaped + "</string>\n"
        case .data(let d):
            out += indent + "<data>\n" + indent + d.base64EncodedString() + "\n" + indent + "</data>\n"
        case .date(let d):
            guard let text = iso8601(d) else { return false }
            out += indent + "<date>" + text + "</date>\n"
        case .array(let a):
            if a.isEmpty { out += indent + "<array/>\n"; return true }
            out += indent + "<array>\n"
            for element in a { guard write(element, depth: depth + 1, into: &out) else { return false } }
            out += indent + "</array>\n"
        case .dictionary(let d):
            if d.isEmpty { out += indent + "<dict/>\n"; return true }
            out += indent + "<dict>\n"
            for key in d.keys.sorted() {
                guard let escaped = escape(key) else { return false }
                out += indent + "\t<key>" + escaped + "</key>\n"
                guard write(d[key]!, depth: depth + 1, into: &out) else { return false }
            }
            out += indent + "</dict>\n"
        }
        return true
    }

    private static func escape(_ s: String) -> String? {
        var needs = false
        for u in s.unicodeScalars {
            switch u.value {
            case 0x26, 0x3C, 0x3E: needs = true
            case 0x09, 0x0A, 0x0D: continue
            case 0..<0x20, 0xFFFE, 0xFFFF: return nil
            default: continue
            }
        }
        guard needs else { return s }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for c in s.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// Years 1 to 9999 only (a date from a damaged or hostile binary plist can be anything); nil otherwise.
    private static func iso8601(_ date: Date) -> String? {
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds >= -62_135_596_800, seconds < 253_402_300_800 else { return nil }
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min,
            parts.tm_sec)
    }

    // MARK: Reading

    /// The top-level dictionary of an XML property list; nil for anything this reader does not take on.
    static func decode(_ data: Data) -> [String: PlistValue]? {
        data.withUnsafeBytes { raw -> [String: PlistValue]? in
            var reader = Reader(bytes: raw.bindMemory(to: UInt8.self))
            guard reader.skipProlog(), case .dictionary(let dict)? = reader.value(depth: 0) else { return nil }
            reader.skipSpace()
            guard reader.consume("</plist>") else { return nil }
            reader.skipSpace()
            return reader.atEnd ? dict : nil
        }
    }

    /// `yyyy-MM-ddTHH:mm:ssZ`, the form every plist writer uses (and `device.json`'s): read field by field and
    /// given to timegm, without Foundation's date parsing, which a launch pays for on first use.
    static func utcDate(_ s: String) -> Date? {
        let u = Array(s.utf8)
        guard u.count == 20, u[4] == UInt8(ascii: "-"), u[7] == UInt8(ascii: "-"), u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"),
            u[16] == UInt8(ascii: ":"), u[19] == UInt8(ascii: "Z")
        else { return nil }
        func n(_ r: Range<Int>) -> Int32? {
            var v: Int32 = 0
            for k in r {
                guard u[k] >= 0x30, u[k] <= 0x39 else { return nil }
                v = v * 10 + Int32(u[k] - 0x30)
            }
            return v
        }
        guard let y = n(0..<4), let mo = n(5..<7), let d = n(8..<10), let h = n(11..<13), let mi = n(14..<16), let se = n(17..<19),
            (1...12).contains(mo), (1...31).contains(d), h < 24, mi < 60, se < 61
        else { return nil }
        var parts = tm()
        parts.tm_year = y - 1900
        parts.tm_mon = mo - 1
        parts.tm_mday = d
        parts.tm_hour = h
        parts.tm_min = mi
        parts.tm_sec = se
        return Date(timeIntervalSince1970: TimeInterval(timegm(&parts)))
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var i = 0

        var atEnd: Bool { i >= bytes.count }

        /// White space and (unless `comments` is false) the comments between elements, `<!-- … -->`, which
        /// Xcode's and developers' plists carry. A comment this reader does not take on (unterminated, or with
        /// `--` inside, which XML does not allow) is left where it is, so the parse fails and Foundation decides.
        mutating func skipSpace(comments: Bool = true) {
            while true {
                while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x09 || bytes[i] == 0x0A || bytes[i] == 0x0D { i += 1 }
                guard comments, let end = commentEnd() else { return }
                i = end
            }
        }

        /// Where the well-formed comment starting at `i` ends (just past `-->`); nil if none starts there.
        func commentEnd() -> Int? {
            guard i + 4 <= bytes.count, bytes[i] == UInt8(ascii: "<"), bytes[i + 1] == UInt8(ascii: "!"), bytes[i + 2] == UInt8(ascii: "-"),
                bytes[i + 3] == UInt8(ascii: "-")
            else { return nil }
            var k = i + 4
            while k + 1 < bytes.count {
                let b = bytes[k]
                // Characters XML 1.0 does not allow, as in text.
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { return nil }
                if b == UInt8(ascii: "-"), bytes[k + 1] == UInt8(ascii: "-") {
                    guard k + 2 < bytes.count, bytes[k + 2] == UInt8(ascii: ">"),
                        String(validating: UnsafeBufferPointer(rebasing: bytes[(i + 4)..<k]), as: UTF8.self) != nil
                    else { return nil }
                    return k + 3
                }
                k += 1
            }
            return nil
        }

        mutating func consume(_ literal: StaticString) -> Bool {
            let n = literal.utf8CodeUnitCount
            guard i + n <= bytes.count else { return false }
            let p = literal.utf8Start
            for k in 0..<n where bytes[i + k] != p[k] { return false }
            i += n
            return true
        }

        /// `<?xml …?>`, an optional `<!DOCTYPE …>`, then `<plist …>`.
        mutating func skipProlog() -> Bool {
            skipSpace(comments: false)
            // Only the declarations plist writers use; any other goes to Foundation (an unknown encoding,
            // an unterminated declaration: fuzzing found Foundation refuses those).
            if !consume("<?xml version=\"1.0\" encoding=\"UTF-8\"?>"), !consume("<?xml version=\"1.0\"?>") {
                guard i >= bytes.count || bytes[i] != UInt8(ascii: "<") || i + 1 >= bytes.count || bytes[i + 1] != UInt8(ascii: "?") else { return false }
            }
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "<"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "!") {
                // Only Apple's doctype (its two spellings); an internal subset or anything else goes to Foundation.
                guard consume("<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">")
                    || consume("<!DOCTYPE plist PUBLIC \"-//Apple Computer//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">")
                else { return false }
            }
            skipSpace()
            return consume("<plist version=\"1.0\">") || consume("<plist>")
        }

        /// The text up to the next `<`, entities decoded; nil for CDATA or comments inside it.
        mutating func text() -> String? {
            let start = i
            var hasEntity = false
            while i < bytes.count, bytes[i] != UInt8(ascii: "<") {
                let b = bytes[i]
                if b == UInt8(ascii: "&") { hasEntity = true }
                // Characters XML 1.0 does not allow: Foundation refuses the file, so this reader does too.
                if b < 0x20, b != 0x09, b != 0x0A, b != 0x0D { return nil }
                i += 1
            }
            guard i < bytes.count else { return nil }
            let slice = UnsafeBufferPointer(rebasing: bytes[start..<i])
            guard let s = String(validating: slice, as: UTF8.self) else { return nil }
            return hasEntity ? Self.decodeEntities(s) : s
        }

        static func decodeEntities(_ s: String) -> String? {
            var out = ""
            var rest = Substring(s)
            while let amp = rest.firstIndex(of: "&") {
                out += rest[..<amp]
                guard let semi = rest[amp...].firstIndex(of: ";") else { return nil }
                let name = rest[rest.index(after: amp)..<semi]
                switch name {
                case "amp": out += "&"
                case "lt": out += "<"
                case "gt": out += ">"
                case "quot": out += "\""
                case "apos": out += "'"
                default:
                    guard name.hasPrefix("#") else { return nil }
                    let digits = name.dropFirst()
                    let code = digits.hasPrefix("x") ? UInt32(digits.dropFirst(), radix: 16) : UInt32(digits, radix: 10)
                    guard let code, let scalar = Unicode.Scalar(code) else { return nil }
                    out.unicodeScalars.append(scalar)
                }
                rest = rest[rest.index(after: semi)...]
            }
            return out + rest
        }

        /// `<name>` or `<name/>`: the name and whether the element is empty.
        mutating func openTag() -> (name: String, empty: Bool)? {
            skipSpace()
            guard i < bytes.count, bytes[i] == UInt8(ascii: "<") else { return nil }
            i += 1
            let start = i
            while i < bytes.count, bytes[i] != UInt8(ascii: ">"), bytes[i] != UInt8(ascii: "/") { i += 1 }
            guard i < bytes.count, let name = String(validating: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self) else { return nil }
            if bytes[i] == UInt8(ascii: "/") {
                i += 1
                guard i < bytes.count, bytes[i] == UInt8(ascii: ">") else { return nil }
                i += 1
                return (name, true)
            }
            i += 1
            return (name, false)
        }

        /// `</name>`; on anything else nothing is consumed (a half-matched `</array` followed by more elements
        /// was once read as part of the array: found by fuzzing, Foundation refuses it).
        mutating func closeTag(_ name: String) -> Bool {
            let start = i
            guard consume("</") else { return false }
            for b in name.utf8 {
                guard i < bytes.count, bytes[i] == b else {
                    i = start
                    return false
                }
                i += 1
            }
            guard consume(">") else {
                i = start
                return false
            }
            return true
        }

        mutating func value(depth: Int) -> PlistValue? {
            guard depth < 64, let (name, empty) = openTag() else { return nil }
            switch name {
            case "true": return empty ? .bool(true) : nil
            case "false": return empty ? .bool(false) : nil
            case "dict":
                var out: [String: PlistValue] = [:]
                if empty { return .dictionary(out) }
                while true {
                    skipSpace()
                    if closeTag("dict") { return .dictionary(out) }
                    guard let key = openTag(), key.name == "key" else { return nil }
                    let k: String
                    if key.empty { k = "" } else {
                        guard let t = text(), closeTag("key") else { return nil }
                        k = t
                    }
                    guard out[k] == nil, let v = value(depth: depth + 1) else { return nil }
                    out[k] = v
                }
            case "array":
                var out: [PlistValue] = []
                if empty { return .array(out) }
                while true {
                    skipSpace()
                    if closeTag("array") { return .array(out) }
                    guard let v = value(depth: depth + 1) else { return nil }
                    out.append(v)
                }
            case "string", "integer", "real", "date", "data":
                let content: String
                if empty { content = "" } else {
                    guard let t = text(), closeTag(name) else { return nil }
                    content = t
                }
                return scalar(name, content)
            default:
                return nil
            }
        }

        func scalar(_ name: String, _ content: String) -> PlistValue? {
            switch name {
            case "string": return .string(content)
            // Numbers and dates exactly as writers write them, no space around: anything else goes to
            // Foundation (fuzzing found it refuses an integer followed by carriage returns).
            case "integer":
                // An optional minus, then digits.
                let digits = content.hasPrefix("-") ? content.utf8.dropFirst() : content.utf8[...]
                guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
                return Int(content).map(PlistValue.int)
            case "real":
                // Decimal notation only (no hex floats, no words): what Swift's and plistlib's writers produce.
                guard !content.isEmpty, content.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }),
                    let d = Double(content), d.isFinite
                else { return nil }
                return .double(d)
            case "data":
                // Strict base64 (padding only at the end); readers differ on anything looser (found by fuzzing).
                let text = content.utf8.filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
                let body = text.prefix { $0 != UInt8(ascii: "=") }
                let padding = text.count - body.count
                guard text.count % 4 == 0, padding <= 2, text.suffix(padding).allSatisfy({ $0 == UInt8(ascii: "=") }),
                    body.allSatisfy({ ($0 >= 0x41 && $0 <= 0x5A) || ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2F })
                else { return nil }
                return Data(base64Encoded: String(decoding: text, as: UTF8.self)).map(PlistValue.data)
            case "date":
                return Self.date(content).map(PlistValue.date)
            default: return nil
            }
        }

        static func date(_ s: String) -> Date? { PlistXML.utcDate(s) }
    }
}
