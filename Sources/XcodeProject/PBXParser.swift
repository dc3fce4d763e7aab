import Foundation

/// A value of an old-style (OpenStep) ASCII property list, the format of `project.pbxproj`.
package indirect enum PBXValue: Sendable, Equatable {
    case string(String)
    case data(Data)
    case array([PBXValue])
    case dictionary([String: PBXValue])

    package var string: String? { if case .string(let s) = self { return s } else { return nil } }
    package var array: [PBXValue]? { if case .array(let a) = self { return a } else { return nil } }
    package var dictionary: [String: PBXValue]? { if case .dictionary(let d) = self { return d } else { return nil } }
    package subscript(_ key: String) -> PBXValue? { dictionary?[key] }
}

package struct PBXParseError: Error, Equatable, CustomStringConvertible {
    package var line: Int
    package var column: Int
    package var message: String
    package var description: String { "line \(line), column \(column): \(message)" }
}

/// Parses the old-style property list grammar Xcode writes: dictionaries `{ key = value; }`, arrays
/// `( a, b, )`, quoted strings with escapes (`\n`, `\t`, `\"`, `\\`, octal `\ddd`, `\Uxxxx`), bare
/// strings, `<hex>` data, and `/* */` and `//` comments. Our own parser, not corelibs Foundation's:
/// that one reads this format too, but writes its complaints to stderr and gives only a line; this one
/// gives line and column, and the fuzzer runs it alone.
package struct PBXParser {
    let bytes: [UInt8]
    var i = 0
    var line = 1
    var lineStart = 0
    var depth = 0

    package static func parse(_ data: Data) throws(PBXParseError) -> PBXValue {
        var parser = PBXParser(bytes: [UInt8](data))
        if parser.bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.i = 3 }
        let value = try parser.value()
        try parser.skip()
        guard parser.i == parser.bytes.count else { throw parser.error("unexpected text after the property list") }
        return value
    }

    init(bytes: [UInt8]) { self.bytes = bytes }

    func error(_ message: String) -> PBXParseError {
        PBXParseError(line: line, column: String(decoding: bytes[lineStart..<min(i, bytes.count)], as: UTF8.self).count + 1, message: message)
    }

    mutating func newline() {
        line += 1
        lineStart = i + 1
    }

    /// Whitespace and comments.
    mutating func skip() throws(PBXParseError) {
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x0A {
                newline()
                i += 1
            } else if b == 0x20 || b == 0x09 || b == 0x0D {
                i += 1
            } else if b == 0x2F, i + 1 < bytes.count, bytes[i + 1] == 0x2A {
                let (startLine, startColumn) = (line, i - lineStart + 1)
                i += 2
                while i < bytes.count, !(bytes[i] == 0x2A && i + 1 < bytes.count && bytes[i + 1] == 0x2F) {
                    if bytes[i] == 0x0A { newline() }
                    i += 1
                }
                guard i < bytes.count else {
                    throw PBXParseError(line: startLine, column: startColumn, message: "a /* comment */ is not closed")
                }
                i += 2
            } else if b == 0x2F, i + 1 < bytes.count, bytes[i + 1] == 0x2F {
                while i < bytes.count, bytes[i] != 0x0A { i += 1 }
            } else {
                return
            }
        }
    }

    static func isBare(_ b: UInt8) -> Bool {
        (0x30...0x39).contains(b) || (0x41...0x5A).contains(b) || (0x61...0x7A).contains(b) || b == 0x5F || b == 0x24 || b == 0x2F || b == 0x3A
            || b == 0x2E || b == 0x2D || b == 0x2B || b >= 0x80
    }

    mutating func value() throws(PBXParseError) -> PBXValue {
        try skip()
        guard i < bytes.count else { throw error("the property list ends where a value should be") }
        switch bytes[i] {
        case 0x7B: return try dictionary()
        case 0x28: return try array()
        case 0x3C: return try data()
        case 0x22, 0x27: return .string(try quoted())
        default:
            guard Self.isBare(bytes[i]) else { throw error("unexpected character '\(Character(UnicodeScalar(bytes[i])))' where a value should be") }
            return .string(bare())
        }
    }

    mutating func nested<T>(_ body: (inout PBXParser) throws(PBXParseError) -> T) throws(PBXParseError) -> T {
        depth += 1
        defer { depth -= 1 }
        guard depth <= 200 else { throw error("nesting deeper than 200 levels") }
        return try body(&self)
    }

    mutating func dictionary() throws(PBXParseError) -> PBXValue {
        try nested { (p: inout PBXParser) throws(PBXParseError) -> PBXValue in
            let open = (p.line, p.i - p.lineStart + 1)
            p.i += 1
            var out: [String: PBXValue] = [:]
            while true {
                try p.skip()
                guard p.i < p.bytes.count else {
                    throw PBXParseError(line: open.0, column: open.1, message: "a dictionary opened here is not closed with '}'")
                }
                if p.bytes[p.i] == 0x7D {
                    p.i += 1
                    return .dictionary(out)
                }
                guard case .string(let key) = try p.value() else { throw p.error("a dictionary key must be a string") }
                try p.skip()
                guard p.i < p.bytes.count, p.bytes[p.i] == 0x3D else { throw p.error("expected '=' after the key \"\(key)\"") }
                p.i += 1
                let value = try p.value()
                try p.skip()
                guard p.i < p.bytes.count, p.bytes[p.i] == 0x3B else { throw p.error("expected ';' after the value of \"\(key)\"") }
                p.i += 1
                out[key] = value
            }
        }
    }

    mutating func array() throws(PBXParseError) -> PBXValue {
        try nested { (p: inout PBXParser) throws(PBXParseError) -> PBXValue in
            let open = (p.line, p.i - p.lineStart + 1)
            p.i += 1
            var out: [PBXValue] = []
            while true {
                try p.skip()
                guard p.i < p.bytes.count else {
                    throw PBXParseError(line: open.0, column: open.1, message: "an array opened here is not closed with ')'")
                }
                if p.bytes[p.i] == 0x29 {
                    p.i += 1
                    return .array(out)
                }
                out.append(try p.value())
                try p.skip()
                guard p.i < p.bytes.count else { continue }
                if p.bytes[p.i] == 0x2C {
                    p.i += 1
                } else if p.bytes[p.i] != 0x29 {
                    throw p.error("expected ',' or ')' in an array")
                }
            }
        }
    }

    mutating func data() throws(PBXParseError) -> PBXValue {
        i += 1
        var out = Data()
        var high: UInt8?
        while i < bytes.count, bytes[i] != 0x3E {
            let b = bytes[i]
            let nibble: UInt8
            switch b {
            case 0x30...0x39: nibble = b - 0x30
            case 0x41...0x46: nibble = b - 0x41 + 10
            case 0x61...0x66: nibble = b - 0x61 + 10
            case 0x20, 0x09, 0x0D: i += 1; continue
            case 0x0A: newline(); i += 1; continue
            default: throw error("'\(Character(UnicodeScalar(b)))' in <data>: only hex digits and spaces")
            }
            if let h = high {
                out.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
            i += 1
        }
        guard i < bytes.count else { throw error("<data> is not closed with '>'") }
        guard high == nil else { throw error("<data> has an odd number of hex digits") }
        i += 1
        return .data(out)
    }

    mutating func bare() -> String {
        let start = i
        while i < bytes.count, Self.isBare(bytes[i]) { i += 1 }
        return String(decoding: bytes[start..<i], as: UTF8.self)
    }

    mutating func quoted() throws(PBXParseError) -> String {
        let quote = bytes[i]
        let (startLine, startColumn) = (line, i - lineStart + 1)
        i += 1
        var out: [UInt8] = []
        while i < bytes.count, bytes[i] != quote {
            if bytes[i] == 0x5C {
                i += 1
                guard i < bytes.count else { break }
                let e = bytes[i]
                switch e {
                case 0x6E: out.append(0x0A)
                case 0x74: out.append(0x09)
                case 0x72: out.append(0x0D)
                case 0x61: out.append(0x07)
                case 0x62: out.append(0x08)
                case 0x66: out.append(0x0C)
                case 0x76: out.append(0x0B)
                case 0x30...0x37:
                    var v = 0
                    var n = 0
                    while n < 3, i < bytes.count, (0x30...0x37).contains(bytes[i]) {
                        v = v * 8 + Int(bytes[i] - 0x30)
                        i += 1
                        n += 1
                    }
                    i -= 1
                    out.append(UInt8(truncatingIfNeeded: v))
                case 0x55:
                    var v: UInt32 = 0
                    for _ in 0..<4 {
                        i += 1
                        guard i < bytes.count, let d = UInt32(String(UnicodeScalar(bytes[i])), radix: 16) else { throw error("\\U needs four hex digits") }
                        v = v * 16 + d
                    }
                    out += Array(String(UnicodeScalar(v).map(Character.init) ?? "\u{FFFD}").utf8)
                default:
                    if e == 0x0A { newline() }
                    out.append(e)
                }
                i += 1
            } else {
                if bytes[i] == 0x0A { newline() }
                out.append(bytes[i])
                i += 1
            }
        }
        guard i < bytes.count else {
            throw PBXParseError(line: startLine, column: startColumn, message: "a quoted string starting here is not closed")
        }
        i += 1
        return String(decoding: out, as: UTF8.self)
    }
}
