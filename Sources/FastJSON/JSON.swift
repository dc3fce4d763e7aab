import Foundation

/// A JSON value. SmartStore entries are JSON objects (`[String: JSON]`), stored whole as text.
package enum JSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    case string(String)
    case array([JSON])
    case object([String: JSON])

    /// Converts what `JSONSerialization` returns.
    package init(foundation value: Any) {
        switch value {
        case is NSNull: self = .null
        case let s as String: self = .string(s)
        case let n as NSNumber:
            if type(of: value) == Bool.self {
                self = .bool(n.boolValue)
            } else {
                switch String(cString: n.objCType) {
                case "c", "B": self = .bool(n.boolValue)
                case "f", "d": self = .double(n.doubleValue)
                default: self = .int(n.int64Value)
                }
            }
        case let a as [Any]: self = .array(a.map(JSON.init(foundation:)))
        case let d as [String: Any]: self = .object(d.mapValues(JSON.init(foundation:)))
        default: self = .null
        }
    }

    package var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    package var intValue: Int64? {
        switch self {
        case .int(let i): return i
        case .double(let d): return Int64(exactly: d)
        default: return nil
        }
    }
    package var doubleValue: Double? {
        switch self {
        case .int(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
    package var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    package var objectValue: [String: JSON]? { if case .object(let o) = self { return o } else { return nil } }
    package var arrayValue: [JSON]? { if case .array(let a) = self { return a } else { return nil } }

    package subscript(key: String) -> JSON? { objectValue?[key] }

    /// The value at a dotted path (`Account.Name`), mapping over arrays on the way as the SDK does:
    /// `addresses.city` on an array of addresses gives an array of cities. Nil when missing.
    package func project(_ path: String) -> JSON? {
        if path.isEmpty { return self }  // the whole entry, as the SDK's projectIntoJson
        return project(components: path.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// `project(_:)` with the path already split, for paths used on every entry of a batch.
    package func project(components: [String]) -> JSON? {
        if components.count == 1, case .object(let o) = self { return o[components[0]] }
        var current: JSON? = self
        for component in components {
            guard let value = current else { return nil }
            switch value {
            case .object(let o): current = o[component]
            case .array(let a):
                let mapped = a.compactMap { $0.project(components: [component]) }
                current = mapped.isEmpty ? nil : .array(mapped)
            default: return nil
            }
        }
        return current
    }
}

/// A SmartStore entry: a JSON object.


extension JSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(stringLiteral value: String) { self = .string(value) }
    package init(integerLiteral value: Int64) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(arrayLiteral elements: JSON...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, JSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension JSON: Codable {
    package init(from decoder: any Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let i = try? c.decode(Int64.self) { self = .int(i) }
        else if let d = try? c.decode(Double.self) { self = .double(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSON].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSON].self)) }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }
}
