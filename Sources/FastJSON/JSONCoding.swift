import Foundation

// SmartStore reads and writes every entry as JSON text, so this is on its hot path; RestClient and
// Mobile Sync read the org's answers and write request bodies with it too (one JSON model). Foundation's
// JSONSerialization on Linux takes ~50 µs to parse one contact and the String-based writer ~19 µs
// to write one; these byte-level versions do the same work in a few µs.

extension JSON {
    /// Compact JSON text. Object keys come in the dictionary's order: sorting them costs a fifth of
    /// writing an entry, and JSON gives key order no meaning.
    package var text: String { String(decoding: utf8Text, as: UTF8.self) }

    /// The same text as UTF-8 bytes.
    package var utf8Text: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        JSONWriter.write(self, to: &out)
        return out
    }

    /// How deep arrays and objects may nest (Foundation's `JSONSerialization` allows the same 512). Deeper input is
    /// refused, not parsed: the reader recurses once per level, and a 40 KB payload of `[` would otherwise
    /// exhaust a thread's stack.
    package static let maxDepth = 512

    /// Why bytes are not a JSON value.
    package enum ParseError: Error, Equatable, CustomStringConvertible {
        case malformed(offset: Int)
        case tooDeep(max: Int)

        package var description: String {
            switch self {
            case .malformed(let offset): return "not valid JSON (at byte \(offset))"
            case .tooDeep(let max): return "JSON nested deeper than \(max) levels"
            }
        }
    }

    /// Parses UTF-8 JSON bytes, saying why they are not JSON.
    package static func parse(_ data: Data) throws(ParseError) -> JSON {
        let result: Result<JSON, ParseError> = data.withUnsafeBytes { raw in
            var parser = JSONParser(bytes: UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
            if let value = parser.parseDocument() { return .success(value) }
            return .failure(parser.tooDeep ? .tooDeep(max: maxDepth) : .malformed(offset: min(parser.i, raw.count)))
        }
        return try result.get()
    }

    /// Parses UTF-8 JSON bytes (an HTTP body); nil if they are not JSON (or nest deeper than `maxDepth`).
    package init?(data: Data) {
        guard let value = data.withUnsafeBytes({ raw -> JSON? in
            var parser = JSONParser(bytes: UnsafeBufferPointer(start: raw.baseAddress?.assumingMemoryBound(to: UInt8.self), count: raw.count))
            return parser.parseDocument()
        }) else { return nil }
        self = value
    }

    /// The compact text as bytes, for a request body.
    package var data: Data { Data(utf8Text) }

    /// Parses JSON text; nil if it is not JSON.
    package init?(text: String) {
        var text = text
        guard let value = text.withUTF8({ bytes -> JSON? in
            var parser = JSONParser(bytes: bytes)
            return parser.parseDocument()
        }) else { return nil }
        self = value
    }
}

enum JSONWriter {
    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    static func write(_ value: JSON, to out: inout [UInt8]) {
        switch value {
        case .null: out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
        case .bool(let b): out.append(contentsOf: b ? Array("true".utf8) : Array("false".utf8))
        case .int(let i): out.append(contentsOf: String(i).utf8)
        case .double(let d):
            if !d.isFinite {
                out.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
            } else if d == d.rounded(), abs(d) < 1e15 {
                out.append(contentsOf: String(Int64(d)).utf8)
                out.append(contentsOf: [0x2E, 0x30])
            } else {
                out.append(contentsOf: "\(d)".utf8)
            }
        case .string(let s): writeString(s, to: &out)
        case .array(let a):
            out.append(0x5B)
            for (i, v) in a.enumerated() {
                if i > 0 { out.append(0x2C) }
                write(v, to: &out)
            }
            out.append(0x5D)
        case .object(let o):
            out.append(0x7B)
            var first = true
            for (key, member) in o {
                if !first { out.append(0x2C) }
                first = false
                writeString(key, to: &out)
                out.append(0x3A)
                write(member, to: &out)
            }
            out.append(0x7D)
        }
    }

    static func writeString(_ s: String, to out: inout [UInt8]) {
        out.append(0x22)
        var s = s
        let clean = s.withUTF8 { bytes -> Bool in
            // Most strings need no escaping: copy them in one go.
            for byte in bytes where byte < 0x20 || byte == 0x22 || byte == 0x5C { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if clean {
            out.append(0x22)
            return
        }
        for byte in s.utf8 {
            switch byte {
            case 0x22: out.append(contentsOf: [0x5C, 0x22])
            case 0x5C: out.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: out.append(contentsOf: [0x5C, 0x6E])
            case 0x0D: out.append(contentsOf: [0x5C, 0x72])
            case 0x09: out.append(contentsOf: [0x5C, 0x74])
            case ..<0x20:
                out.append(contentsOf: [0x5C, 0x75, 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0xF)]])
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

/// A strict RFC 8259 parser over UTF-8 bytes. Integers that fit in Int64 stay integers.
struct JSONParser {
    let bytes: UnsafeBufferPointer<UInt8>
    var i = 0
    var depth = 0
    /// Set when the input was refused for nesting deeper than `JSON.maxDepth`.
    var tooDeep = false

    private mutating func enter() -> Bool {
        depth += 1
        if depth > JSON.maxDepth { tooDeep = true }
        return !tooDeep
    }

    init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    mutating func parseDocument() -> JSON? {
        guard let value = parseValue() else { return nil }
        skipWhitespace()
        guard i == bytes.count else { return nil }
        return value
    }

    private mutating func skipWhitespace() {
        while i < bytes.count, bytes[i] == 0x20 || bytes[i] == 0x0A || bytes[i] == 0x0D || bytes[i] == 0x09 { i += 1 }
    }

    private mutating func parseValue() -> JSON? {
        skipWhitespace()
        guard i < bytes.count else { return nil }
        switch bytes[i] {
        case 0x7B: return parseObject()
        case 0x5B: return parseArray()
        case 0x22: return parseString().map(JSON.string)
        case 0x74: return literal("true", .bool(true))
        case 0x66: return literal("false", .bool(false))
        case 0x6E: return literal("null", .null)
        default: return parseNumber()
        }
    }

    private mutating func literal(_ word: StaticString, _ value: JSON) -> JSON? {
        let count = word.utf8CodeUnitCount
        guard i + count <= bytes.count else { return nil }
        for k in 0..<count where bytes[i + k] != word.utf8Start[k] { return nil }
        i += count
        return value
    }

    private mutating func parseObject() -> JSON? {
        guard enter() else { return nil }
        defer { depth -= 1 }
        i += 1
        var object: [String: JSON] = [:]
        skipWhitespace()
        if i < bytes.count, bytes[i] == 0x7D {
            i += 1
            return .object(object)
        }
        while true {
            skipWhitespace()
            guard i < bytes.count, bytes[i] == 0x22, let key = parseString() else { return nil }
            skipWhitespace()
            guard i < bytes.count, bytes[i] == 0x3A else { return nil }
            i += 1
            guard let value = parseValue() else { return nil }
            object[key] = value
            skipWhitespace()
            guard i < bytes.count else { return nil }
            if bytes[i] == 0x2C {
                i += 1
            } else if bytes[i] == 0x7D {
                i += 1
                return .object(object)
            } else {
                return nil
            }
        }
    }

    private mutating func parseArray() -> JSON? {
        guard enter() else { return nil }
        defer { depth -= 1 }
        i += 1
        var array: [JSON] = []
        skipWhitespace()
        if i < bytes.count, bytes[i] == 0x5D {
            i += 1
            return .array(array)
        }
        while true {
            guard let value = parseValue() else { return nil }
            array.append(value)
            skipWhitespace()
            guard i < bytes.count else { return nil }
            if bytes[i] == 0x2C {
                i += 1
            } else if bytes[i] == 0x5D {
                i += 1
                return .array(array)
            } else {
                return nil
            }
        }
    }

    private mutating func parseString() -> String? {
        i += 1
        let start = i
        // Fast path: no escapes.
        while i < bytes.count, bytes[i] != 0x22, bytes[i] != 0x5C, bytes[i] >= 0x20 { i += 1 }
        guard i < bytes.count else { return nil }
        if bytes[i] == 0x22 {
            let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
            i += 1
            return s
        }
        var out = Array(bytes[start..<i])
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x22 {
                i += 1
                return String(decoding: out, as: UTF8.self)
            }
            if b < 0x20 { return nil }
            if b != 0x5C {
                out.append(b)
                i += 1
                continue
            }
            i += 1
            guard i < bytes.count else { return nil }
            let e = bytes[i]
            i += 1
            switch e {
            case 0x22: out.append(0x22)
            case 0x5C: out.append(0x5C)
            case 0x2F: out.append(0x2F)
            case 0x62: out.append(0x08)
            case 0x66: out.append(0x0C)
            case 0x6E: out.append(0x0A)
            case 0x72: out.append(0x0D)
            case 0x74: out.append(0x09)
            case 0x75:
                guard var scalar = hex4() else { return nil }
                if (0xD800...0xDBFF).contains(scalar) {
                    guard i + 1 < bytes.count, bytes[i] == 0x5C, bytes[i + 1] == 0x75 else { return nil }
                    i += 2
                    guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                    scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let u = Unicode.Scalar(scalar) else { return nil }
                out.append(contentsOf: String(Character(u)).utf8)
            default: return nil
            }
        }
        return nil
    }

    private mutating func hex4() -> UInt32? {
        guard i + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let b = bytes[i]
            let digit: UInt32
            switch b {
            case 0x30...0x39: digit = UInt32(b - 0x30)
            case 0x61...0x66: digit = UInt32(b - 0x61 + 10)
            case 0x41...0x46: digit = UInt32(b - 0x41 + 10)
            default: return nil
            }
            value = value << 4 | digit
            i += 1
        }
        return value
    }

    private mutating func parseNumber() -> JSON? {
        let start = i
        if i < bytes.count, bytes[i] == 0x2D { i += 1 }
        guard i < bytes.count, (0x30...0x39).contains(bytes[i]) else { return nil }
        if bytes[i] == 0x30 {
            i += 1
        } else {
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        }
        var isInteger = true
        if i < bytes.count, bytes[i] == 0x2E {
            isInteger = false
            i += 1
            guard i < bytes.count, (0x30...0x39).contains(bytes[i]) else { return nil }
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        }
        if i < bytes.count, bytes[i] == 0x65 || bytes[i] == 0x45 {
            isInteger = false
            i += 1
            if i < bytes.count, bytes[i] == 0x2B || bytes[i] == 0x2D { i += 1 }
            guard i < bytes.count, (0x30...0x39).contains(bytes[i]) else { return nil }
            while i < bytes.count, (0x30...0x39).contains(bytes[i]) { i += 1 }
        }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<i]), as: UTF8.self)
        if isInteger, let value = Int64(text) { return .int(value) }
        // A number beyond Double's range would become infinity, which JSON cannot write back: refused,
        // as Foundation's JSONSerialization refuses it.
        guard let value = Double(text), value.isFinite else { return nil }
        return .double(value)
    }
}
