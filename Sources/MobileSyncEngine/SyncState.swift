import FastJSON
import Foundation
import SmartStoreEngine

package enum SyncType: String, Sendable, Codable { case syncDown, syncUp }

package enum SyncStatus: String, Sendable, Codable { case new = "NEW", running = "RUNNING", done = "DONE", failed = "FAILED", stopped = "STOPPED" }

package enum MergeMode: String, Sendable, Codable {
    /// Server values replace local ones, even for records edited locally.
    case overwrite = "OVERWRITE"
    /// Records edited locally are left alone (sync down), or not pushed when newer on the server (sync up).
    case leaveIfChanged = "LEAVE_IF_CHANGED"
}

package struct SyncOptions: Sendable, Equatable {
    package var fieldlist: [String]?
    package var mergeMode: MergeMode

    package init(fieldlist: [String]? = nil, mergeMode: MergeMode = .overwrite) {
        self.fieldlist = fieldlist
        self.mergeMode = mergeMode
    }

    var json: JSON {
        var o: [String: JSON] = ["mergeMode": .string(mergeMode.rawValue)]
        if let fieldlist { o["fieldlist"] = .array(fieldlist.map(JSON.string)) }
        return .object(o)
    }

    init(json: JSON?) {
        fieldlist = json?["fieldlist"]?.arrayValue?.compactMap(\.stringValue)
        mergeMode = json?["mergeMode"]?.stringValue.flatMap(MergeMode.init(rawValue:)) ?? .overwrite
    }
}

/// A sync as recorded in `syncs_soup`, with the SDK's fields.
package struct SyncState: Sendable, Equatable {
    package var id: Int64
    package var type: SyncType
    package var name: String?
    /// The target's JSON (`{"type": "soql", "query": …}` for a sync down, field lists for a sync up).
    package var target: JSON
    package var soupName: String
    package var options: SyncOptions
    package var status: SyncStatus
    /// 0…100.
    package var progress: Int
    /// Records the server said it would return (-1 before the first page).
    package var totalSize: Int
    /// Newest `LastModifiedDate` saved, epoch ms (-1 before any).
    package var maxTimeStamp: Int64
    package var startTime: Int64
    package var endTime: Int64
    package var error: String?

    package static let soupName = "syncs_soup"
    /// As the SDK's `setupSyncsSoupIfNeeded:` registers them: json1 indexes (no columns) on type, name, status.
    static let indexSpecs = [
        IndexSpec(path: "type", type: .json1), IndexSpec(path: "name", type: .json1), IndexSpec(path: "status", type: .json1),
    ]

    package var entry: SoupEntry {
        var e: SoupEntry = [
            SoupField.entryId: .int(id), "type": .string(type.rawValue), "target": target, "soupName": .string(soupName),
            "options": options.json, "status": .string(status.rawValue), "progress": .int(Int64(progress)),
            "totalSize": .int(Int64(totalSize)), "maxTimeStamp": .int(maxTimeStamp), "startTime": .int(startTime),
            "endTime": .int(endTime),
        ]
        e["name"] = name.map(JSON.string) ?? .null
        // The SDK writes "" when there is no error (and reads either).
        e["error"] = .string(error ?? "")
        return e
    }

    /// Why a syncs_soup entry is not a sync state, or nil when it is one.
    static func problem(_ entry: JSON) -> String? {
        guard let object = entry.objectValue else { return "not a JSON object" }
        if object["type"]?.stringValue.flatMap(SyncType.init(rawValue:)) == nil { return "type is \(object["type"].map { "\($0)" } ?? "missing"), not syncDown or syncUp" }
        if object["soupName"]?.stringValue == nil { return "no soupName" }
        if let status = object["status"], status.stringValue.flatMap(SyncStatus.init(rawValue:)) == nil { return "status \(status) is not one of NEW, RUNNING, DONE, FAILED, STOPPED" }
        return nil
    }

    package init?(entry: SoupEntry) {
        guard let id = entry[SoupField.entryId]?.intValue, let type = entry["type"]?.stringValue.flatMap(SyncType.init(rawValue:)),
            let soupName = entry["soupName"]?.stringValue
        else { return nil }
        self.id = id
        self.type = type
        name = entry["name"]?.stringValue
        target = entry["target"] ?? .object([:])
        self.soupName = soupName
        options = SyncOptions(json: entry["options"])
        status = entry["status"]?.stringValue.flatMap(SyncStatus.init(rawValue:)) ?? .new
        progress = Int(entry["progress"]?.intValue ?? 0)
        totalSize = Int(entry["totalSize"]?.intValue ?? -1)
        maxTimeStamp = entry["maxTimeStamp"]?.intValue ?? -1
        startTime = entry["startTime"]?.intValue ?? 0
        endTime = entry["endTime"]?.intValue ?? 0
        error = entry["error"]?.stringValue.flatMap { $0.isEmpty ? nil : $0 }
    }

    init(type: SyncType, name: String?, target: JSON, soupName: String, options: SyncOptions) {
        id = 0
        self.type = type
        self.name = name
        self.target = target
        self.soupName = soupName
        self.options = options
        status = .new
        progress = 0
        totalSize = -1
        maxTimeStamp = -1
        startTime = 0
        endTime = 0
        error = nil
    }

    package var isDone: Bool { status == .done }
}

/// Mobile Sync's errors, with the SDK's codes.
package enum MobileSyncError: Error, Equatable, Sendable, CustomStringConvertible {
    case managerStopped
    case cannotRestart(state: String)
    case alreadyRunning(syncId: Int64)
    case noSuchSync(String)
    case ghostsOnlyOnSyncDown(syncId: Int64)
    case duplicateName(String)
    case invalidTarget(String)
    case syncFailed(String)
    /// An entry of `syncs_soup` that is not a sync state (missing type or soup, not an object): the
    /// store's file, the entry and what is wrong. Nothing is changed or deleted.
    case corruptSyncState(store: String, entryId: Int64?, detail: String)

    /// 900 stopped, 901 cannot restart, 902 already running, 903 no such sync, 904 ghost cleaning only on sync down.
    package var code: Int? {
        switch self {
        case .managerStopped: return 900
        case .cannotRestart: return 901
        case .alreadyRunning: return 902
        case .noSuchSync: return 903
        case .ghostsOnlyOnSyncDown: return 904
        default: return nil
        }
    }

    package var description: String {
        switch self {
        case .managerStopped: return "sync manager has stopped; call restart() first"
        case .cannotRestart(let state): return "sync manager can only be restarted when stopping or stopped (it is \(state))"
        case .alreadyRunning(let id): return "sync \(id) is already running"
        case .noSuchSync(let what): return "no sync \(what)"
        case .ghostsOnlyOnSyncDown(let id): return "sync \(id) is a sync up; ghost cleaning is for sync downs only"
        case .duplicateName(let name): return "a sync named \(name) already exists"
        case .invalidTarget(let detail): return "invalid sync target: \(detail)"
        case .syncFailed(let detail): return "sync failed: \(detail)"
        case .corruptSyncState(let store, let id, let detail):
            return "\(store): syncs_soup entry \(id.map(String.init) ?? "(no id)") is not a sync state (\(detail)); it was left as it is: fix or delete that entry (it is JSON in the soup column of the syncs_soup table)"
        }
    }
}
