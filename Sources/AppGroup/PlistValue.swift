import Foundation

/// One property-list value, with its type kept exact (a `<true/>` never turns into `1`).
///
/// `SharedDefaults` stores `[String: PlistValue]`; the file on disk is an ordinary
/// XML property list that `plutil` or Python's `plistlib` read.
package enum PlistValue: Sendable, Hashable {
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case data(Data)
    case date(Date)
    case array([PlistValue])
    case dictionary([String: PlistValue])

    /// Converts what `PropertyListSerialization` returns; nil for anything that is not a plist type.
    package init?(foundation value: Any) {
        // Check Bool by its dynamic type first: an NSNumber 1 also answers `is Bool`.
        if type(of: value) == Bool.self, let b = value as? Bool {
            self = .bool(b)
        } else if let n = value as? NSNumber {
            switch String(cString: n.objCType) {
            case "c", "B": self = .bool(n.boolValue)
            case "f", "d": self = .double(n.doubleValue)
            default: self = .int(n.intValue)
            }
        } else if let s = value as? String {
            self = .string(s)
        } else if let d = value as? Data {
            self = .data(d)
        } else if let d = value as? Date {
            self = .date(d)
        } else if let a = value as? [Any] {
            var out: [PlistValue] = []
            out.reserveCapacity(a.count)
            for element in a {
                guard let v = PlistValue(foundation: element) else { return nil }
                out.append(v)
            }
            self = .array(out)
        } else if let d = value as? [String: Any] {
            var out: [String: PlistValue] = [:]
            for (k, element) in d {
                guard let v = PlistValue(foundation: element) else { return nil }
                out[k] = v
            }
            self = .dictionary(out)
        } else {
            return nil
        }
    }

    /// The value as `PropertyListSerialization` expects it.
    package var foundationValue: Any {
        switch self {
        case .bool(let b): return b
        case .int(let i): return i
        case .double(let d): return d
        case .string(let s): return s
        case .data(let d): return d
        case .date(let d): return d
        case .array(let a): return a.map(\.foundationValue)
        case .dictionary(let d): return d.mapValues(\.foundationValue)
        }
    }

    /// The value as a property-list file gives it back: dates to the second (XML keeps no fraction).
    var asWritten: PlistValue {
        switch self {
        case .date(let d): return .date(Date(timeIntervalSince1970: d.timeIntervalSince1970.rounded(.down)))
        case .array(let a): return .array(a.map(\.asWritten))
        case .dictionary(let d): return .dictionary(d.mapValues(\.asWritten))
        default: return self
        }
    }

    package var boolValue: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    package var intValue: Int? { if case .int(let i) = self { return i } else { return nil } }
    package var doubleValue: Double? {
        switch self {
        case .double(let d): return d
        case .int(let i): return Double(i)
        default: return nil
        }
    }
    package var stringValue: String? { if case .string(let s) = self { return s } else { return nil } }
    package var dataValue: Data? { if case .data(let d) = self { return d } else { return nil } }
    package var dateValue: Date? { if case .date(let d) = self { return d } else { return nil } }
    package var arrayValue: [PlistValue]? { if case .array(let a) = self { return a } else { return nil } }
    package var dictionaryValue: [String: PlistValue]? { if case .dictionary(let d) = self { return d } else { return nil } }

    /// The name `plutil` and `defaults` use for the type.
    package var typeName: String {
        switch self {
        case .bool: return "bool"
        case .int: return "integer"
        case .double: return "real"
        case .string: return "string"
        case .data: return "data"
        case .date: return "date"
        case .array: return "array"
        case .dictionary: return "dictionary"
        }
    }
}

extension PlistValue: ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    package init(booleanLiteral value: Bool) { self = .bool(value) }
    package init(integerLiteral value: Int) { self = .int(value) }
    package init(floatLiteral value: Double) { self = .double(value) }
    package init(stringLiteral value: String) { self = .string(value) }
    package init(arrayLiteral elements: PlistValue...) { self = .array(elements) }
    package init(dictionaryLiteral elements: (String, PlistValue)...) {
        self = .dictionary(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}

extension PlistValue: CustomStringConvertible {
    package var description: String {
        switch self {
        case .bool(let b): return b ? "true" : "false"
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return s
        case .data(let d): return "<\(d.count) bytes>"
        case .date(let d): return ISO8601DateFormatter().string(from: d)
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .dictionary(let d):
            return "{" + d.sorted { $0.key < $1.key }.map { "\($0.key) = \($0.value)" }.joined(separator: "; ") + "}"
        }
    }
}

/// JSON for `--json` output: bools, numbers, strings and containers as themselves, data as base64, dates as ISO 8601.
extension PlistValue: Encodable {
    package func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let b): try c.encode(b)
        case .int(let i): try c.encode(i)
        case .double(let d): try c.encode(d)
        case .string(let s): try c.encode(s)
        case .data(let d): try c.encode(d.base64EncodedString())
        case .date(let d): try c.encode(ISO8601DateFormatter().string(from: d))
        case .array(let a): try c.encode(a)
        case .dictionary(let d): try c.encode(d)
        }
    }
}

extension PlistValue {
    /// `dict` as an XML property list, written the way SharedDefaults writes its files.
    package static func propertyListData(_ dict: [String: PlistValue]) throws -> Data { try SharedDefaults.encode(dict) }

    /// Foundation's reading of outside bytes (a developer's Info.plist, entitlements, bootconfig.plist, a keyed
    /// archive): the one place this package hands bytes to `PropertyListSerialization`. A damaged binary list
    /// that would crash it is refused first, with what is wrong (`BinaryPlistCheck`); XML goes to Foundation.
    package static func foundationPropertyList(from data: Data, keyedArchive: Bool = false) throws -> Any {
        if data.starts(with: BinaryPlistCheck.prefix), let problem = BinaryPlistCheck.problem(data, allowUIDs: keyedArchive) {
            throw DamagedPropertyList(problem: problem)
        }
        return try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
    }

    /// A binary property list refused before Foundation read it.
    package struct DamagedPropertyList: Error, CustomStringConvertible, LocalizedError {
        package var problem: String
        package var description: String { "a damaged binary property list (\(problem))" }
        package var errorDescription: String? { description }
    }

    /// A property-list file's top-level dictionary (XML or binary, damaged binary lists refused without
    /// crashing); nil when `data` is not one.
    package static func dictionary(propertyList data: Data) -> [String: PlistValue]? {
        if case .success(let dict) = SharedDefaults.decode(data) { return dict }
        return nil
    }
}
