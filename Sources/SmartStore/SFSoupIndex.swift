import Foundation
import SmartStoreEngine

public let kSoupIndexPath = "path"
public let kSoupIndexType = "type"
public let kSoupIndexColumnName = "columnName"
public let kSoupIndexTypeString = "string"
public let kSoupIndexTypeInteger = "integer"
public let kSoupIndexTypeFloating = "floating"
public let kSoupIndexTypeFullText = "full_text"
public let kSoupIndexTypeJSON1 = "json1"

/// The SDK's `SFSoupIndex` (`NS_SWIFT_NAME(SoupIndex)`): one index of a soup, a path and its type.
public final class SoupIndex: NSObject, @unchecked Sendable {
    public var path: String
    public var indexType: String
    /// The column name the store gave the index (nil before the soup is registered, and for json1).
    public private(set) var columnName: String?

    /// Nil for an index type the SDK does not know, as the SDK's initializer.
    public init?(path: String, indexType type: String, columnName: String?) {
        guard SmartStoreEngine.IndexSpec.IndexType(rawValue: type) != nil else { return nil }
        self.path = path
        indexType = type
        self.columnName = columnName
    }

    /// From `{"path": …, "type": …}` (a type the SDK does not know is kept, and refused at registration).
    public init(dictionary dict: [AnyHashable: Any]) {
        path = dict[kSoupIndexPath] as? String ?? ""
        indexType = dict[kSoupIndexType] as? String ?? kSoupIndexTypeString
        columnName = dict[kSoupIndexColumnName] as? String
    }

    init(engine: IndexSpec, columnName: String? = nil) {
        path = engine.path
        indexType = engine.type.rawValue
        self.columnName = columnName
    }

    /// The SQLite column type the index gets (nil for json1, which has no column).
    public var columnType: String? {
        switch indexType {
        case kSoupIndexTypeInteger: return "INTEGER"
        case kSoupIndexTypeFloating: return "REAL"
        case kSoupIndexTypeJSON1: return nil
        default: return "TEXT"
        }
    }

    public func asDictionary() -> [AnyHashable: Any] { asDictionary(false) }

    public func asDictionary(_ withColumnName: Bool) -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [kSoupIndexPath: path, kSoupIndexType: indexType]
        if withColumnName, let columnName { dictionary[kSoupIndexColumnName] = columnName }
        return dictionary
    }

    public class func asArray(ofDictionaries arrayOfSoupIndexes: [SoupIndex], withColumnName: Bool) -> [[AnyHashable: Any]] {
        arrayOfSoupIndexes.map { $0.asDictionary(withColumnName) }
    }

    public class func asArraySoupIndexes(_ arrayOfDictionaries: [[AnyHashable: Any]]) -> [SoupIndex] {
        arrayOfDictionaries.map { SoupIndex(dictionary: $0) }
    }

    public class func map(forSoupIndexes soupIndexes: [Any]) -> [String: SoupIndex] {
        var map: [String: SoupIndex] = [:]
        for case let index as SoupIndex in soupIndexes { map[index.path] = index }
        return map
    }

    public class func hasFts(_ soupIndexes: [SoupIndex]) -> Bool { soupIndexes.contains { $0.indexType == kSoupIndexTypeFullText } }

    public class func hasJSON1(_ soupIndexes: [SoupIndex]) -> Bool { soupIndexes.contains { $0.indexType == kSoupIndexTypeJSON1 } }

    public func getPathType() -> String { "\(path)--\(indexType)" }

    var engine: IndexSpec? { IndexSpec.IndexType(rawValue: indexType).map { IndexSpec(path: path, type: $0) } }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? SoupIndex else { return false }
        return other.path == path && other.indexType == indexType
    }

    public override var hash: Int { getPathType().hashValue }

    public override var description: String { "SoupIndex(\(path), \(indexType))" }
}
