import FastJSON
import Foundation
import MobileSyncEngine
import SmartStore

public let kSFSyncTargetTypeKey = "type"
public let kSFSyncTargetiOSImplKey = "iOSImpl"
public let kSFSyncTargetIdFieldNameKey = "idFieldName"
public let kSFSyncTargetModificationDateFieldNameKey = "modificationDateFieldName"

// SFMobileSyncConstants' names.
public let kId = "Id"
public let kCreatedId = "id"
public let kName = "Name"
public let kType = "type"
public let kAttributes = "attributes"
public let kRecentlyViewed = "RecentlyViewed"
public let kRawData = "rawData"
public let kObjectTypeField = "attributes.type"
public let kLastModifiedDate = "LastModifiedDate"
public let kResponseRecords = "records"
public let kResponseSearchRecords = "searchRecords"
public let kResponseTotalSize = "totalSize"
public let kResponseNextRecordsUrl = "nextRecordsUrl"
public let kRecentItems = "recentItems"
public let kAccount = "Account"
public let kTask = "Task"
public let kContact = "Contact"
public let kUser = "User"
public let kGroup = "CollaborationGroup"
public let kContent = "ContentDocument"

/// The SDK's `SFSyncTarget` (`NS_SWIFT_NAME(SyncTarget)`): the fields every target names.
open class SyncTarget: NSObject, @unchecked Sendable {
    public var idFieldName = kId
    public var modificationDateFieldName = kLastModifiedDate

    public override init() { super.init() }

    public init(dict: [AnyHashable: Any]) {
        idFieldName = dict[kSFSyncTargetIdFieldNameKey] as? String ?? kId
        modificationDateFieldName = dict[kSFSyncTargetModificationDateFieldNameKey] as? String ?? kLastModifiedDate
    }

    open func asDict() -> [AnyHashable: Any] {
        [kSFSyncTargetIdFieldNameKey: idFieldName, kSFSyncTargetModificationDateFieldNameKey: modificationDateFieldName]
    }

    /// The SDK's local ids: `local_` and a number, for records created on the device.
    public class func createLocalId() -> String { "local_\(Int64(Date().timeIntervalSince1970 * 1_000_000))" }

    public class func isLocalId(_ recordId: String) -> Bool { recordId.hasPrefix("local_") }

    public func isLocallyCreated(_ record: [AnyHashable: Any]) -> Bool { record["__locally_created__"] as? Bool ?? false }
    public func isLocallyUpdated(_ record: [AnyHashable: Any]) -> Bool { record["__locally_updated__"] as? Bool ?? false }
    public func isLocallyDeleted(_ record: [AnyHashable: Any]) -> Bool { record["__locally_deleted__"] as? Bool ?? false }
    public func isDirty(_ record: [AnyHashable: Any]) -> Bool { record["__local__"] as? Bool ?? false }
}

/// The SDK's `SFSyncDownTarget` (`NS_SWIFT_NAME(SyncDownTarget)`); the engine's target runs it.
open class SyncDownTarget: SyncTarget, @unchecked Sendable {
    /// `SFSyncDownTargetQueryType`.
    @objc public enum QueryType: Int, Sendable {
        case mru = 0, sosl, soql, refresh, parentChildren, custom, metadata, layout, briefcase
    }

    public var queryType: QueryType = .soql
    public var totalSize: UInt = 0

    /// What the engine runs; a subclass of this class that is not one of the simulated targets has none.
    package var engineTarget: (any MobileSyncEngine.SyncDownTarget)? { nil }

    public class func new(fromDict dict: [AnyHashable: Any]) -> SyncDownTarget? {
        switch dict[kSFSyncTargetTypeKey] as? String {
        case "soql": return (dict["query"] as? String).map { SoqlSyncDownTarget.newSyncTarget($0, maxBatchSize: dict["maxBatchSize"] as? Int ?? 2000) }
        case "mru":
            guard let type = dict["sobjectType"] as? String else { return nil }
            return MruSyncDownTarget.newSyncTarget(type, fieldlist: dict["fieldlist"] as? [Any] ?? [])
        case "refresh":
            guard let type = dict["sobjectType"] as? String, let soup = dict["soupName"] as? String else { return nil }
            return RefreshSyncDownTarget.newSyncTarget(soup, objectType: type, fieldlist: dict["fieldlist"] as? [Any] ?? [])
        case "briefcase": return BriefcaseSyncDownTarget.new(fromDict: dict)
        default: return nil
        }
    }

    public class func queryType(from queryType: String) -> QueryType {
        switch queryType {
        case "mru": return .mru
        case "sosl": return .sosl
        case "refresh": return .refresh
        case "parent_children": return .parentChildren
        case "custom": return .custom
        case "metadata": return .metadata
        case "layout": return .layout
        case "briefcase": return .briefcase
        default: return .soql
        }
    }

    public class func queryType(toString queryType: QueryType) -> String {
        switch queryType {
        case .mru: return "mru"
        case .sosl: return "sosl"
        case .soql: return "soql"
        case .refresh: return "refresh"
        case .parentChildren: return "parent_children"
        case .custom: return "custom"
        case .metadata: return "metadata"
        case .layout: return "layout"
        case .briefcase: return "briefcase"
        }
    }

    open override func asDict() -> [AnyHashable: Any] {
        var dict = super.asDict()
        dict[kSFSyncTargetTypeKey] = Self.queryType(toString: queryType)
        if let json = engineTarget?.json.objectValue { for (key, value) in json.foundationEntry { dict[key] = value } }
        return dict
    }
}

/// The SDK's `SFSoqlSyncDownTarget`: a SOQL query, with `LastModifiedDate` and `Id` added as the SDK adds them.
public final class SoqlSyncDownTarget: SyncDownTarget, @unchecked Sendable {
    private var target: MobileSyncEngine.SoqlSyncDownTarget

    init(_ target: MobileSyncEngine.SoqlSyncDownTarget) {
        self.target = target
        super.init()
        queryType = .soql
    }

    public var query: String {
        get { target.query }
        set { target = .init(query: newValue, maxBatchSize: target.maxBatchSize) }
    }
    public var maxBatchSize: Int {
        get { target.maxBatchSize }
        set { target.maxBatchSize = newValue }
    }

    public class func newSyncTarget(_ query: String) -> SoqlSyncDownTarget { SoqlSyncDownTarget(.init(query: query)) }

    public class func newSyncTarget(_ query: String, maxBatchSize: Int) -> SoqlSyncDownTarget {
        SoqlSyncDownTarget(.init(query: query, maxBatchSize: maxBatchSize))
    }

    public func getQueryToRun() -> String { target.query }

    /// The query run on a re-sync: records modified after the timestamp (ms since 1970).
    public func getQuery(toRun maxTimeStamp: Int64) -> String { MobileSyncEngine.SoqlSyncDownTarget.prepare(target.query, maxTimeStamp: maxTimeStamp) }

    package override var engineTarget: (any MobileSyncEngine.SyncDownTarget)? { target }
}

/// The SDK's `SFMruSyncDownTarget`: the user's most recently used records of a type.
public final class MruSyncDownTarget: SyncDownTarget, @unchecked Sendable {
    private let target: MobileSyncEngine.MruSyncDownTarget

    init(_ target: MobileSyncEngine.MruSyncDownTarget) {
        self.target = target
        super.init()
        queryType = .mru
    }

    public var objectType: String { target.sobjectType }
    public var fieldlist: [Any] { target.fieldlist }

    public class func newSyncTarget(_ objectType: String, fieldlist: [Any]) -> MruSyncDownTarget {
        MruSyncDownTarget(.init(sobjectType: objectType, fieldlist: fieldlist.compactMap { $0 as? String }))
    }

    package override var engineTarget: (any MobileSyncEngine.SyncDownTarget)? { target }
}

/// The SDK's `SFRefreshSyncDownTarget`: fetches again the records already in a soup.
public final class RefreshSyncDownTarget: SyncDownTarget, @unchecked Sendable {
    private let target: MobileSyncEngine.RefreshSyncDownTarget
    public let soupName: String

    init(_ target: MobileSyncEngine.RefreshSyncDownTarget, soupName: String) {
        self.target = target
        self.soupName = soupName
        super.init()
        queryType = .refresh
    }

    public var objectType: String { target.sobjectType }
    public var fieldlist: [Any] { target.fieldlist }
    public var countIdsPerSoql: UInt { UInt(target.countIdsPerSoql) }

    public class func newSyncTarget(_ soupName: String, objectType: String, fieldlist: [Any]) -> RefreshSyncDownTarget {
        RefreshSyncDownTarget(.init(sobjectType: objectType, fieldlist: fieldlist.compactMap { $0 as? String }), soupName: soupName)
    }

    package override var engineTarget: (any MobileSyncEngine.SyncDownTarget)? { target }
}

/// The SDK's `SFSyncUpTarget` (`NS_SWIFT_NAME(SyncUpTarget)`): the fields a sync up sends (the engine pushes
/// with the collection target, the SDK's default since 10.1).
public final class SyncUpTarget: SyncTarget, @unchecked Sendable {
    /// `SFSyncUpTargetType`.
    @objc public enum TargetType: Int, Sendable { case standard = 0, custom }

    package var engine: MobileSyncEngine.SyncUpTarget
    public var targetType: TargetType = .standard

    package init(engine: MobileSyncEngine.SyncUpTarget) {
        self.engine = engine
        super.init()
    }

    public convenience override init() { self.init(engine: .init()) }

    public convenience init(createFieldlist: [String]?, updateFieldlist: [String]?) {
        self.init(engine: .init(createFieldlist: createFieldlist, updateFieldlist: updateFieldlist))
    }

    public var createFieldlist: [String] { engine.createFieldlist ?? [] }
    public var updateFieldlist: [String] { engine.updateFieldlist ?? [] }
    public var externalIdFieldName: String {
        get { engine.externalIdFieldName ?? "" }
        set { engine.externalIdFieldName = newValue.isEmpty ? nil : newValue }
    }

    /// The store ids (`_soupEntryId`) of the soup's records to send: those edited locally.
    public func getIdsOfRecords(toSyncUp syncManager: SyncManager, soupName: String) -> [Any] {
        getDirtyRecordIds(syncManager, soupName: soupName, idField: SmartStore.soupEntryId).array
    }

    public class func build(dict: [AnyHashable: Any]?) -> SyncUpTarget? {
        guard let dict, let json = JSON(sdkValue: dict) else { return SyncUpTarget() }
        return SyncUpTarget(engine: .init(
            sobjectType: json["sobjectType"]?.stringValue ?? "Contact",
            createFieldlist: json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            updateFieldlist: json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue),
            externalIdFieldName: json["externalIdFieldName"]?.stringValue))
    }

    public class func targetType(from targetType: String) -> TargetType { targetType == "custom" ? .custom : .standard }
    public class func targetType(toString targetType: TargetType) -> String { targetType == .custom ? "custom" : "rest" }

    public override func asDict() -> [AnyHashable: Any] { engine.json.objectValue?.foundationEntry ?? [:] }
}

// The SDK's target methods that read and write the local records (the engine's sync manager does the same
// when it runs a sync): on the sync manager's store, with the SDK's local flags.
extension SyncTarget {
    /// Saves the record as synced: the local flags cleared, the sync id when given.
    public func cleanAndSaveInLocalStore(syncManager: SyncManager, soupName: String, record: [AnyHashable: Any]) {
        cleanAndSaveRecordsToLocalStore(syncManager: syncManager, soupName: soupName, records: [record], syncId: nil)
    }

    public func cleanAndSaveRecordsToLocalStore(syncManager: SyncManager, soupName: String, records: [Any], syncId: NSNumber?) {
        let cleaned: [[AnyHashable: Any]] = records.compactMap { $0 as? [AnyHashable: Any] }.map { record in
            var record = record
            record[kSyncTargetLocal] = false
            record[kSyncTargetLocallyCreated] = false
            record[kSyncTargetLocallyUpdated] = false
            record[kSyncTargetLocallyDeleted] = false
            record[kSyncTargetLastError] = nil
            if let syncId { record[kSyncTargetSyncId] = syncId.intValue }
            return record
        }
        syncManager.store.upsert(entries: cleaned, forSoupNamed: soupName)
    }

    /// The ids (`idField`) of the soup's records edited locally and not synced up yet.
    public func getDirtyRecordIds(_ syncManager: SyncManager, soupName: String, idField: String) -> NSOrderedSet {
        NSOrderedSet(array: ((try? syncManager.engine.dirtyRecordIds(soupName, idField: idField)) ?? []).map(\.foundationValue))
    }

    public func get(fromLocalStore syncManager: SyncManager, soupName: String, storeId: NSNumber) -> [AnyHashable: Any] {
        syncManager.store.retrieve(usingSoupEntryIds: [storeId], fromSoupNamed: soupName).first ?? [:]
    }

    public func get(fromLocalStore syncManager: SyncManager, soupName: String, storeIds: [NSNumber]) -> [[AnyHashable: Any]] {
        syncManager.store.retrieve(usingSoupEntryIds: storeIds, fromSoupNamed: soupName)
    }

    public func deleteFromLocalStore(syncManager: SyncManager, soupName: String, record: [AnyHashable: Any]) {
        guard let id = record[SmartStore.soupEntryId] as? NSNumber else { return }
        try? syncManager.store.remove(entryIds: [id], forSoupNamed: soupName)
    }
}

extension SyncDownTarget {
    /// The newest `LastModifiedDate` (the target's modification date field) among the records, in ms since 1970.
    public func getLatestModificationTimeStamp(_ records: [Any]) -> Int64 {
        let field = modificationDateFieldName
        let parser = ISO8601DateFormatter()
        parser.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let plain = ISO8601DateFormatter()
        var latest: Int64 = -1
        for case let record as [AnyHashable: Any] in records {
            guard var text = record[field] as? String else { continue }
            // Salesforce writes +0000; ISO 8601 parsers want +00:00.
            if text.hasSuffix("+0000") { text = String(text.dropLast(5)) + "Z" }
            guard let date = parser.date(from: text) ?? plain.date(from: text) else { continue }
            latest = max(latest, Int64((date.timeIntervalSince1970 * 1000).rounded()))
        }
        return latest
    }

    /// SOQL, MRU and refresh targets return records ordered by their modification date, as the SDK's do.
    public func isSyncDownSortedByLatestModification() -> Bool { queryType == .soql }

    /// The ids a sync down must not overwrite: the records edited locally (merge mode leave-if-changed), in
    /// every soup the target fills (`MobileSyncEngine.SyncManager.idsToSkip`). A target the engine does not run
    /// skips its own soup's.
    public func getIdsToSkip(_ syncManager: SyncManager, soupName: String) -> NSOrderedSet {
        guard let target = engineTarget else { return getDirtyRecordIds(syncManager, soupName: soupName, idField: idFieldName) }
        return NSOrderedSet(array: ((try? syncManager.engine.idsToSkip(target: target, soupName: soupName, idField: idFieldName)) ?? []).map(\.foundationValue))
    }
}
