import FastJSON
import Foundation
import MobileSyncEngine
import SmartStore

public let kSFSyncStateSyncsSoupName = "syncs_soup"
public let kSFSyncStateSyncsSoupSyncType = "type"
public let kSFSyncStateId = "_soupEntryId"
public let kSFSyncStateName = "name"
public let kSFSyncStateType = "type"
public let kSFSyncStateTarget = "target"
public let kSFSyncStateSoupName = "soupName"
public let kSFSyncStateOptions = "options"
public let kSFSyncStateStatus = "status"
public let kSFSyncStateProgress = "progress"
public let kSFSyncStateTotalSize = "totalSize"
public let kSFSyncStateMaxTimeStamp = "maxTimeStamp"
public let kSFSyncStateStartTime = "startTime"
public let kSFSyncStateEndTime = "endTime"
public let kSFSyncStateError = "error"
public let kSFSyncStateTypeDown = "syncDown"
public let kSFSyncStateTypeUp = "syncUp"
public let kSFSyncStateStatusNew = "NEW"
public let kSFSyncStateStatusStopped = "STOPPED"
public let kSFSyncStateStatusRunning = "RUNNING"
public let kSFSyncStateStatusDone = "DONE"
public let kSFSyncStateStatusFailed = "FAILED"
public let kSFSyncStateMergeModeOverwrite = "OVERWRITE"
public let kSFSyncStateMergeModeLeaveIfChanged = "LEAVE_IF_CHANGED"
public let kSFSyncOptionsFieldlist = "fieldlist"
public let kSFSyncOptionsMergeMode = "mergeMode"

/// `SFSyncStateSyncType`.
@objc public enum SyncType: Int, Sendable {
    case down = 0, up
}

/// `SFSyncStateStatus`.
@objc public enum SyncStatus: Int, Sendable {
    case new = 0, stopped, running, done, failed
}

/// `SFSyncStateMergeMode`.
@objc public enum SyncMergeMode: Int, Sendable {
    case overwrite = 0, leaveIfChanged
}

/// The SDK's `SFSyncOptions` (`NS_SWIFT_NAME(SyncOptions)`).
public final class SyncOptions: NSObject, @unchecked Sendable {
    package let engine: MobileSyncEngine.SyncOptions

    package init(engine: MobileSyncEngine.SyncOptions) { self.engine = engine }

    public var fieldlist: [Any] { engine.fieldlist ?? [] }
    public var mergeMode: SyncMergeMode { engine.mergeMode == .leaveIfChanged ? .leaveIfChanged : .overwrite }

    public class func newSyncOptions(forSyncDown mergeMode: SyncMergeMode) -> SyncOptions {
        SyncOptions(engine: .init(fieldlist: nil, mergeMode: mergeMode.engine))
    }

    public class func newSyncOptions(forSyncUp fieldlist: [Any]) -> SyncOptions {
        newSyncOptions(forSyncUp: fieldlist, mergeMode: .overwrite)
    }

    public class func newSyncOptions(forSyncUp fieldlist: [Any], mergeMode: SyncMergeMode) -> SyncOptions {
        SyncOptions(engine: .init(fieldlist: fieldlist.compactMap { $0 as? String }, mergeMode: mergeMode.engine))
    }

    public class func new(fromDict dict: [AnyHashable: Any]) -> SyncOptions? {
        let mode = (dict[kSFSyncOptionsMergeMode] as? String) == kSFSyncStateMergeModeLeaveIfChanged ? SyncMergeMode.leaveIfChanged : .overwrite
        return SyncOptions(engine: .init(fieldlist: (dict[kSFSyncOptionsFieldlist] as? [Any])?.compactMap { $0 as? String }, mergeMode: mode.engine))
    }

    public func asDict() -> [AnyHashable: Any] {
        var dict: [AnyHashable: Any] = [kSFSyncOptionsMergeMode: mergeMode == .leaveIfChanged ? kSFSyncStateMergeModeLeaveIfChanged : kSFSyncStateMergeModeOverwrite]
        if let fieldlist = engine.fieldlist { dict[kSFSyncOptionsFieldlist] = fieldlist }
        return dict
    }
}

extension SyncMergeMode {
    var engine: MergeMode { self == .leaveIfChanged ? .leaveIfChanged : .overwrite }
}

/// The SDK's `SFSyncState` (`NS_SWIFT_NAME(SyncState)`): one sync as recorded in `syncs_soup`, at the
/// moment it was read.
public final class SyncState: NSObject, @unchecked Sendable {
    package private(set) var engine: MobileSyncEngine.SyncState

    package init(engine: MobileSyncEngine.SyncState) { self.engine = engine }

    public var syncId: Int { Int(engine.id) }
    public var name: String { engine.name ?? "" }
    public var type: SyncType { engine.type == .syncUp ? .up : .down }
    public var soupName: String { engine.soupName }
    /// The target, made again from the dictionary the SDK stores (`SFSyncTarget`): a sync down target of its
    /// type, or the sync up target. A down target type this package does not simulate is a plain `SyncDownTarget`.
    public var target: SyncTarget {
        let dict = engine.target.objectValue?.foundationEntry ?? [:]
        if engine.type == .syncUp { return SyncUpTarget.build(dict: dict) ?? SyncUpTarget() }
        return SyncDownTarget.new(fromDict: dict) ?? SyncDownTarget(dict: dict)
    }
    public var options: SyncOptions { SyncOptions(engine: engine.options) }
    public var mergeMode: SyncMergeMode {
        get { options.mergeMode }
        set { engine.options.mergeMode = newValue.engine }
    }
    // Settable, as the SDK's (`save(_:)` writes them to syncs_soup).
    public var status: SyncStatus {
        get {
            switch engine.status {
            case .new: return .new
            case .running: return .running
            case .done: return .done
            case .failed: return .failed
            case .stopped: return .stopped
            }
        }
        set {
            switch newValue {
            case .new: engine.status = .new
            case .running: engine.status = .running
            case .done: engine.status = .done
            case .failed: engine.status = .failed
            case .stopped: engine.status = .stopped
            }
        }
    }
    public var progress: Int {
        get { engine.progress }
        set { engine.progress = newValue }
    }
    public var totalSize: Int {
        get { engine.totalSize }
        set { engine.totalSize = newValue }
    }
    public var maxTimeStamp: Int64 {
        get { engine.maxTimeStamp }
        set { engine.maxTimeStamp = newValue }
    }
    public var startTime: Int { Int(engine.startTime) }
    public var endTime: Int { Int(engine.endTime) }
    public var error: String {
        get { engine.error ?? "" }
        set { engine.error = newValue.isEmpty ? nil : newValue }
    }

    public func isDone() -> Bool { status == .done }
    public func hasFailed() -> Bool { status == .failed }
    public func isRunning() -> Bool { status == .running }
    public func isStopped() -> Bool { status == .stopped }

    public func asDict() -> [AnyHashable: Any] {
        [
            kSFSyncStateId: syncId, kSFSyncStateType: engine.type.rawValue, kSFSyncStateName: engine.name.map { $0 as Any } ?? NSNull(),
            kSFSyncStateTarget: target, kSFSyncStateSoupName: soupName, kSFSyncStateOptions: options.asDict(),
            kSFSyncStateStatus: engine.status.rawValue, kSFSyncStateProgress: progress, kSFSyncStateTotalSize: totalSize,
            kSFSyncStateMaxTimeStamp: maxTimeStamp, kSFSyncStateStartTime: startTime, kSFSyncStateEndTime: endTime, kSFSyncStateError: error,
        ]
    }

    public class func syncType(from syncType: String) -> SyncType { syncType == kSFSyncStateTypeUp ? .up : .down }
    public class func syncType(toString syncType: SyncType) -> String { syncType == .up ? kSFSyncStateTypeUp : kSFSyncStateTypeDown }

    public class func syncStatus(from syncStatus: String) -> SyncStatus {
        switch syncStatus {
        case kSFSyncStateStatusRunning: return .running
        case kSFSyncStateStatusDone: return .done
        case kSFSyncStateStatusFailed: return .failed
        case kSFSyncStateStatusStopped: return .stopped
        default: return .new
        }
    }

    public class func syncStatus(toString syncStatus: SyncStatus) -> String {
        switch syncStatus {
        case .new: return kSFSyncStateStatusNew
        case .stopped: return kSFSyncStateStatusStopped
        case .running: return kSFSyncStateStatusRunning
        case .done: return kSFSyncStateStatusDone
        case .failed: return kSFSyncStateStatusFailed
        }
    }

    public class func mergeMode(from mergeMode: String) -> SyncMergeMode { mergeMode == kSFSyncStateMergeModeLeaveIfChanged ? .leaveIfChanged : .overwrite }
    public class func mergeMode(toString mergeMode: SyncMergeMode) -> String { mergeMode == .leaveIfChanged ? kSFSyncStateMergeModeLeaveIfChanged : kSFSyncStateMergeModeOverwrite }

    public override var description: String { "SyncState(\(syncId), \(name), \(engine.status.rawValue), \(progress)%)" }
}

public let kSFSyncManagerStateAcceptingSyncs = "accepting_syncs"
public let kSFSyncManagerStateStopRequested = "stop_requested"
public let kSFSyncManagerStateStopped = "stopped"
public let kSFMobileSyncErrorDomain = "com.salesforce.MobileSync.ErrorDomain"
public let kSFSyncManagerStoppedError = "SyncManagerStoppedError"
public let kSFSyncManagerCannotRestartError = "SyncManagerCannotRestartError"
public let kSFSyncAlreadyRunningError = "SyncAlreadyRunningError"
public let kSFSyncNotExistError = "SyncNotExistError"
public let kSFSyncManagerCanOnlyRunCleanGhostsForSyncDown = "SyncManagerCanOnlyRunCleanGhostsForSyncDown"
public let kSFSyncManagerStoppedErrorCode = 900
public let kSFSyncManagerCannotRestartErrorCode = 901
public let kSFSyncAlreadyRunningErrorCode = 902
public let kSFSyncNotExistErrorCode = 903
public let kSFSyncManagerCanOnlyRunCleanGhostsForSyncDownCode = 904
public let kSyncTargetLocal = "__local__"
public let kSyncTargetLocallyCreated = "__locally_created__"
public let kSyncTargetLocallyUpdated = "__locally_updated__"
public let kSyncTargetLocallyDeleted = "__locally_deleted__"
public let kSyncTargetSyncId = "__sync_id__"
public let kSyncTargetLastError = "__last_error__"
public let kSFSyncUpTargetCreateFieldlist = "createFieldlist"
public let kSFSyncUpTargetUpdateFieldlist = "updateFieldlist"
public let kSFSyncUpTargetExternalIdFieldName = "externalIdFieldName"

// The SDK's SyncState class methods that read and write syncs_soup, through the store's sync manager (the
// engine keeps syncs_soup; a global store has no sync manager, so these find nothing there).
extension SyncState {
    /// Registers syncs_soup in the store if missing (the engine's sync manager does it when it opens).
    public class func setupSyncsSoupIfNeeded(_ store: SmartStore) { _ = SyncManager.sharedInstance(store: store) }

    /// The SDK drops an old syncs_soup layout here; the engine's is the SDK's current one, so nothing to do.
    public class func cleanupSyncsSoupIfNeeded(_ store: SmartStore) {}

    public class func byId(_ syncId: NSNumber, store: SmartStore) -> SyncState? {
        SyncManager.sharedInstance(store: store)?.syncStatus(forId: syncId)
    }

    public class func byName(_ name: String, store: SmartStore) -> SyncState? {
        SyncManager.sharedInstance(store: store)?.syncStatus(forName: name)
    }

    public class func delete(syncId: NSNumber, store: SmartStore) { SyncManager.sharedInstance(store: store)?.deleteSync(forId: syncId) }

    public class func delete(syncName: String, store: SmartStore) { SyncManager.sharedInstance(store: store)?.deleteSync(forName: syncName) }

    /// A new sync down recorded in syncs_soup (status NEW), as `createSyncDown` does.
    public class func buildSyncDown(options: SyncOptions, target: SyncDownTarget, soupName: String, name: String?, store: SmartStore) -> SyncState? {
        SyncManager.sharedInstance(store: store)?.createSyncDown(target, options: options, soupName: soupName, syncName: name)
    }

    public class func buildSyncUp(options: SyncOptions, target: SyncUpTarget, soupName: String, name: String?, store: SmartStore) -> SyncState? {
        SyncManager.sharedInstance(store: store)?.createSyncUp(target, options: options, soupName: soupName, syncName: name)
    }

    /// Writes this state into the store's syncs_soup (as the SDK's sync manager does after each step).
    public func save(_ store: SmartStore) {
        guard let manager = SyncManager.sharedInstance(store: store) else { return }
        do { try manager.engine.store.upsert([engine.entry], into: MobileSyncEngine.SyncState.soupName) } catch {
            SDKProcess.warn("SyncState \(syncId) could not be saved: \(error)")
        }
    }

    /// A sync state from its dictionary (as `asDict()` gives it); nil when it is not one.
    public class func build(dict: [AnyHashable: Any]) -> SyncState? {
        guard let entry = JSON.object(sdkEntry: dict), let state = MobileSyncEngine.SyncState(entry: entry) else { return nil }
        return SyncState(engine: state)
    }

    /// The store's syncs with this status.
    public class func getSyncs(withStatus store: SmartStore, status: SyncStatus) -> [SyncState] {
        guard let manager = SyncManager.sharedInstance(store: store), let all = try? manager.engine.allSyncs() else { return [] }
        return all.map(SyncState.init(engine:)).filter { $0.status == status }
    }

    public class func buildSyncUp(options: SyncOptions, soupName: String, store: SmartStore) -> SyncState? {
        buildSyncUp(options: options, target: SyncUpTarget(), soupName: soupName, name: nil, store: store)
    }
}
