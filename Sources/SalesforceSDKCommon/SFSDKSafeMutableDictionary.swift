import Foundation

/// The SDK's `SFSDKSafeMutableDictionary` (`NS_SWIFT_NAME(SafeMutableDictionary)`): a dictionary that any thread
/// may read and write, as app code keeps its per-user managers in one (the Swift template's data manager does).
public final class SafeMutableDictionary<Key: Hashable, Value>: NSObject, @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Key: Value] = [:]

    public override init() { super.init() }

    public var allKeys: [Key] { lock.withLock { Array(storage.keys) } }
    public var allValues: [Value] { lock.withLock { Array(storage.values) } }

    public func object(forKey aKey: Key) -> Value? { lock.withLock { storage[aKey] } }

    public subscript(key: Key) -> Value? {
        get { object(forKey: key) }
        set { lock.withLock { storage[key] = newValue } }
    }

    public func allKeys(for anObject: Value) -> [Key] where Value: Equatable {
        lock.withLock { storage.filter { $0.value == anObject }.map(\.key) }
    }

    public func dictionary() -> [Key: Value] { lock.withLock { storage } }

    public func setObject(_ object: Value, forKey aKey: Key) { lock.withLock { storage[aKey] = object } }

    public func removeObject(_ aKey: Key) { _ = lock.withLock { storage.removeValue(forKey: aKey) } }

    public func removeAllObjects() { lock.withLock { storage.removeAll() } }

    public func removeObjects(_ keys: [Key]) { lock.withLock { for key in keys { storage.removeValue(forKey: key) } } }

    public func addEntries(_ otherDictionary: [Key: Value]) { lock.withLock { storage.merge(otherDictionary) { $1 } } }

    public func setDictionary(_ dictionary: [Key: Value]) { lock.withLock { storage = dictionary } }
}
