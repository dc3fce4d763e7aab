import FastJSON
import Foundation

// The SDK's API speaks Foundation values (`[Any]`, `[AnyHashable: Any]`, `NSNumber`); the engine stores one
// JSON model. These two conversions are the whole bridge: no second JSON model, no second store.

extension JSON {
    /// The value as `JSONSerialization` would give it on iOS: String, Int, Double, Bool, NSNull, [Any], [String: Any].
    package var foundationValue: Any {
        switch self {
        case .null: return NSNull()
        case .bool(let value): return value
        case .int(let value): return Int(value)
        case .double(let value): return value
        case .string(let value): return value
        case .array(let values): return values.map(\.foundationValue)
        case .object(let members): return members.mapValues(\.foundationValue)
        }
    }

    /// A Foundation value from SDK code; nil when it is not JSON (a `Date`, a custom object), which the SDK
    /// refuses too (`JSONSerialization` cannot write it).
    /// Nil too past `JSON.maxDepth` levels of nesting: the store could not read such an entry back, and the
    /// conversion must not exhaust the stack on a value nested deeper than a thread's stack holds.
    package init?(sdkValue value: Any) { self.init(sdkValue: value, depth: 0) }

    private init?(sdkValue value: Any, depth: Int) {
        guard depth <= JSON.maxDepth else { return nil }
        // Swift's own types first, by their exact dynamic type (a boxed Int casts to Bool and 2.0 to Int
        // through NSNumber's bridging otherwise); then NSNumber, as JSONSerialization's numbers.
        let kind = type(of: value)
        if kind == Bool.self { self = .bool(value as! Bool); return }
        if kind == Int.self { self = .int(Int64(value as! Int)); return }
        if kind == Int64.self { self = .int(value as! Int64); return }
        if kind == Int32.self { self = .int(Int64(value as! Int32)); return }
        if kind == Double.self { self = .double(value as! Double); return }
        if kind == Float.self { self = .double(Double(value as! Float)); return }
        if kind == String.self { self = .string(value as! String); return }
        // Collections by their exact type first: a failed cast of a dictionary to NSNumber or NSString costs
        // more than converting it.
        if kind == [String: Any].self {
            guard let object = Self.object(value as! [String: Any], depth: depth + 1) else { return nil }
            self = .object(object)
            return
        }
        if kind == [AnyHashable: Any].self {
            guard let object = Self.object(sdkEntry: value as! [AnyHashable: Any], depth: depth + 1) else { return nil }
            self = .object(object)
            return
        }
        switch value {
        case is NSNull: self = .null
        case let number as NSNumber: self = JSON(foundation: number)
        case let string as NSString: self = .string(string as String)
        case let values as [Any]:
            var array: [JSON] = []
            array.reserveCapacity(values.count)
            for element in values {
                guard let json = JSON(sdkValue: element, depth: depth + 1) else { return nil }
                array.append(json)
            }
            self = .array(array)
        case let members as [AnyHashable: Any]:
            var object: [String: JSON] = [:]
            object.reserveCapacity(members.count)
            for (key, element) in members {
                guard let key = key.base as? String, let json = JSON(sdkValue: element, depth: depth + 1) else { return nil }
                object[key] = json
            }
            self = .object(object)
        default: return nil
        }
    }
}

extension JSON {
    /// An entry as app code gives it (`[AnyHashable: Any]` with String keys); nil when it is not JSON.
    package static func object(sdkEntry entry: [AnyHashable: Any], depth: Int = 0) -> [String: JSON]? {
        var object: [String: JSON] = [:]
        object.reserveCapacity(entry.count)
        for (key, element) in entry {
            guard let key = key.base as? String, let json = JSON(sdkValue: element, depth: depth) else { return nil }
            object[key] = json
        }
        return object
    }

    static func object(_ entry: [String: Any], depth: Int) -> [String: JSON]? {
        var object: [String: JSON] = [:]
        object.reserveCapacity(entry.count)
        for (key, element) in entry {
            guard let json = JSON(sdkValue: element, depth: depth) else { return nil }
            object[key] = json
        }
        return object
    }
}

extension Dictionary where Key == String, Value == JSON {
    package var foundationEntry: [AnyHashable: Any] {
        var entry: [AnyHashable: Any] = [:]
        entry.reserveCapacity(count)
        for (key, value) in self { entry[AnyHashable(key)] = value.foundationValue }
        return entry
    }

    /// `foundationEntry` for many entries with the same fields: each key's AnyHashable is made once.
    package static func foundationEntries(_ entries: [[String: JSON]]) -> [[AnyHashable: Any]] {
        var keys: [String: AnyHashable] = [:]
        return entries.map { object in
            var entry: [AnyHashable: Any] = [:]
            entry.reserveCapacity(object.count)
            for (key, value) in object {
                let hashable: AnyHashable
                if let known = keys[key] { hashable = known } else {
                    hashable = AnyHashable(key)
                    keys[key] = hashable
                }
                entry[hashable] = value.foundationValue
            }
            return entry
        }
    }
}
