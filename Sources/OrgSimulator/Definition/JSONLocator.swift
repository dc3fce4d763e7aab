import Foundation

/// Where in a JSON file a value is, for errors a user can act on: the line and column of the value at
/// a path of keys and indices.
enum JSONLocator {
    enum Step { case key(String), index(Int) }

    static func describe(_ error: DecodingError, data: Data, file: String) -> String {
        func path(_ codingPath: [any CodingKey]) -> [Step] {
            codingPath.map { key in key.intValue.map { .index($0) } ?? .key(key.stringValue) }
        }
        switch error {
        case .typeMismatch(_, let c), .valueNotFound(_, let c):
            return "\(file):\(lineColumn(of: path(c.codingPath), in: data)): \(c.debugDescription) (at \(dotted(c.codingPath)))"
        case .keyNotFound(let key, let c):
            return "\(file):\(lineColumn(of: path(c.codingPath), in: data)): missing \"\(key.stringValue)\" (at \(dotted(c.codingPath)))"
        case .dataCorrupted(let c):
            if c.codingPath.isEmpty {
                let detail = (c.underlyingError as NSError?)?.userInfo["NSDebugDescription"] as? String ?? c.debugDescription
                return "\(file): not valid JSON: \(detail)"
            }
            return "\(file):\(lineColumn(of: path(c.codingPath), in: data)): \(c.debugDescription) (at \(dotted(c.codingPath)))"
        @unknown default:
            return "\(file): \(error)"
        }
    }

    static func dotted(_ path: [any CodingKey]) -> String {
        path.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined().trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }

    /// `line:column` (1-based) of the value at `path`; the closest enclosing value when a step is missing.
    static func lineColumn(of path: [Step], in data: Data) -> String {
        let bytes = [UInt8](data)
        var scanner = Scanner(bytes: bytes)
        let offset = scanner.find(path) ?? 0
        var line = 1, column = 1
        for b in bytes[..<min(offset, bytes.count)] {
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }
        return "\(line):\(column)"
    }

    struct Scanner {
        let bytes: [UInt8]
        var i = 0

        mutating func ws() { while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 } }

        /// Offset of the value at `path` from the current position.
        mutating func find(_ path: [Step]) -> Int? {
            ws()
            let start = i
            guard let step = path.first else { return start }
            guard i < bytes.count else { return nil }
            switch (step, bytes[i]) {
            case (.key(let wanted), 0x7B):
                i += 1
                while true {
                    ws()
                    guard i < bytes.count, bytes[i] == 0x22, let key = string() else { return start }
                    ws()
                    guard i < bytes.count, bytes[i] == 0x3A else { return start }
                    i += 1
                    if key == wanted { return find(Array(path.dropFirst())) ?? start }
                    guard skipValue() else { return start }
                    ws()
                    guard i < bytes.count, bytes[i] == 0x2C else { return start }
                    i += 1
                }
            case (.index(let wanted), 0x5B):
                i += 1
                var n = 0
                while true {
                    ws()
                    if n == wanted { return find(Array(path.dropFirst())) ?? start }
                    guard skipValue() else { return start }
                    ws()
                    guard i < bytes.count, bytes[i] == 0x2C else { return start }
                    i += 1
                    n += 1
                }
            default:
                return start
            }
        }

        mutating func string() -> String? {
            guard bytes[i] == 0x22 else { return nil }
            i += 1
            var out: [UInt8] = []
            while i < bytes.count, bytes[i] != 0x22 {
                if bytes[i] == 0x5C { i += 1 }
                if i < bytes.count { out.append(bytes[i]) }
                i += 1
            }
            i += 1
            return String(decoding: out, as: UTF8.self)
        }

        mutating func skipValue() -> Bool {
            ws()
            guard i < bytes.count else { return false }
            switch bytes[i] {
            case 0x22: return string() != nil
            case 0x7B, 0x5B:
                var depth = 0
                while i < bytes.count {
                    switch bytes[i] {
                    case 0x22: _ = string(); continue
                    case 0x7B, 0x5B: depth += 1
                    case 0x7D, 0x5D:
                        depth -= 1
                        if depth == 0 { i += 1; return true }
                    default: break
                    }
                    i += 1
                }
                return false
            default:
                while i < bytes.count, ![0x2C, 0x7D, 0x5D].contains(bytes[i]) { i += 1 }
                return true
            }
        }
    }
}
