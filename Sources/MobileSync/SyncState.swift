import FastJSON
import Foundation
import MobileSyncEngine
import SmartStore
import SmartStoreEngine

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

    public class func newFromDict(_ dict: [AnyHashable: Any]) -> SyncOptions? {
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
    package let engine: MobileSyncEngine.SyncState

    package init(engine: MobileSyncEngine.SyncState) { self.engine = engine }

    public var syncId: Int { Int(engine.id) }
    public var name: String { engine.name ?? "" }
    public var type: SyncType { engine.type == .syncUp ? .up : .down }
    public var soupName: String { engine.soupName }
    /// The target's dictionary, as the SDK stores it.
    public var target: [AnyHashable: Any] { engine.target.objectValue?.foundationEntry ?? [:] }
    public var options: SyncOptions { SyncOptions(engine: engine.options) }
    public var mergeMode: SyncMergeMode { options.mergeMode }
    public var status: SyncStatus {
        switch engine.status {
        case .new: return .new
        case .running: return .running
        case .done: return .done
        case .failed: return .failed
        case .stopped: return .stopped
        }
    }
    public var progress: Int { engine.progress }
    public var totalSize: Int { engine.totalSize }
    public var maxTimeStamp: Int64 { engine.maxTimeStamp }
    public var startTime: Int { Int(engine.startTime) }
    public var endTime: Int { Int(engine.endTime) }
    public var error: String { engine.error ?? "" }

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

    public class func syncTypeFromString(_ syncType: String) -> SyncType { syncType == kSFSyncStateTypeUp ? .up : .down }
    public class func syncTypeToString(_ syncType: SyncType) -> String { syncType == .up ? kSFSyncStateTypeUp : kSFSyncStateTypeDown }

    public class func syncStatusFromString(_ syncStatus: String) -> SyncStatus {
        switch syncStatus {
        case kSFSyncStateStatusRunning: return .running
        case kSFSyncStateStatusDone: return .done
        case kSFSyncStateStatusFailed: return .failed
        case kSFSyncStateStatusStopped: return .stopped
        default: return .new
        }
    }

    public class func syncStatusToString(_ syncStatus: SyncStatus) -> String {
        switch syncStatus {
        case .new: return kSFSyncStateStatusNew
        case .stopped: return kSFSyncStateStatusStopped
        case .running: return kSFSyncStateStatusRunning
        case .done: return kSFSyncStateStatusDone
        case .failed: return kSFSyncStateStatusFailed
        }
    }

    public class func mergeModeFromString(_ mergeMode: String) -> SyncMergeMode { mergeMode == kSFSyncStateMergeModeLeaveIfChanged ? .leaveIfChanged : .overwrite }
    public class func mergeModeToString(_ mergeMode: SyncMergeMode) -> String { mergeMode == .leaveIfChanged ? kSFSyncStateMergeModeLeaveIfChanged : kSFSyncStateMergeModeOverwrite }

    public override var description: String { "SyncState(\(syncId), \(name), \(engine.status.rawValue), \(progress)%)" }
}
