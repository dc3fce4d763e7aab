import AppGroupSimCombine
import Foundation
import MobileSyncEngine
import SalesforceSDKCore
import SmartStore

/// Called with the sync's state as it runs, then once more when it ends (done, failed or stopped).
public typealias SyncUpdateBlock = (SyncState) -> Void
/// Called when clean-ghosts or another whole-sync operation ends: its status and the number of records it touched.
public typealias SyncCompletionBlock = (SyncStatus, UInt) -> Void

/// The SDK's blocks are Objective-C blocks, not `@Sendable`; as the SDK does, they are called on a
/// background thread, so they travel to it in this box.
private struct Unchecked<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}

/// `SFSyncManagerState`.
@objc public enum SyncManagerState: Int, Sendable {
    case acceptingSyncs = 0, stopRequested, stopped
}

/// The SDK's `SFMobileSyncSyncManager` (`NS_SWIFT_NAME(SyncManager)`): one per store, on the engine's sync
/// manager (the same `syncs_soup`, the same REST calls, the same records `main-app` syncs). Syncs run in
/// the background; the update block gets each state, the last one DONE, FAILED or STOPPED, as the SDK's.
public final class SyncManager: NSObject, @unchecked Sendable {
    package let engine: MobileSyncEngine.SyncManager
    public let store: SmartStore

    init(engine: MobileSyncEngine.SyncManager, store: SmartStore) {
        self.engine = engine
        self.store = store
    }

    private static let managers = PerProcess<[String: SyncManager]> { [:] }

    /// The sync manager of the user's default store. The SDK's is never nil: when the user's store cannot be
    /// opened (no account file for the user here, a store that is not SmartStore's), the process stops with
    /// one line saying why, as a nil here would crash the app's Swift code anyway.
    public class func sharedInstance(forUserAccount user: UserAccount) -> SyncManager {
        sharedInstance(named: nil, forUserAccount: user)
    }

    public class func sharedInstance(named storeName: String?, forUserAccount userAccount: UserAccount) -> SyncManager {
        let name = storeName ?? SmartStore.defaultStoreName
        guard let store = SmartStore.shared(withName: name, forUserAccount: userAccount), let manager = sharedInstance(store: store) else {
            SDKProcess.fail("AppGroupSim: no sync manager for \(userAccount.accountIdentity)'s store \(name); the line above says why")
        }
        return manager
    }

    /// The sync manager of a user store (a global store has no user, so no org to sync with: nil).
    public class func sharedInstance(store: SmartStore) -> SyncManager? {
        let path = store.engine.url.path
        if let manager = managers.withValue({ $0[path] }) { return manager }
        guard let user = store.userAccount else {
            SDKProcess.warn("SyncManager: store \(store.name) is a global store; syncs need a user store")
            return nil
        }
        guard let client = SDKEngine.current.restClient(for: user) else {
            SDKProcess.warn("SyncManager: no account file for \(user.accountIdentity)")
            return nil
        }
        do {
            let engine = try MobileSyncEngine.SyncManager.sharedInstance(for: store.engine, client: client)
            return managers.withValue { byPath in
                if let existing = byPath[path] { return existing }
                let manager = SyncManager(engine: engine, store: store)
                byPath[path] = manager
                return manager
            }
        } catch {
            SDKProcess.warn("SyncManager for \(store.name) cannot start: \(error)")
            return nil
        }
    }

    public class func removeSharedInstance(_ user: UserAccount) { removeSharedInstance(named: nil, forUserAccount: user) }

    public class func removeSharedInstance(named storeName: String?, forUserAccount userAccount: UserAccount) {
        guard let store = SmartStore.shared(withName: storeName ?? SmartStore.defaultStoreName, forUserAccount: userAccount) else { return }
        removeSharedInstance(store: store)
    }

    public class func removeSharedInstance(store: SmartStore) {
        MobileSyncEngine.SyncManager.removeSharedInstance(for: store.engine)
        _ = managers.withValue { $0.removeValue(forKey: store.engine.url.path) }
    }

    public class func removeSharedInstances() {
        let all = managers.withValue { byPath -> [SyncManager] in
            defer { byPath = [:] }
            return Array(byPath.values)
        }
        for manager in all { MobileSyncEngine.SyncManager.removeSharedInstance(for: manager.store.engine) }
    }

    // MARK: State

    public var state: SyncManagerState {
        switch engine.state {
        case .acceptingSyncs: return .acceptingSyncs
        case .stopRequested: return .stopRequested
        case .stopped: return .stopped
        }
    }

    public func stop() { engine.stop() }
    public func isStopping() -> Bool { engine.state == .stopRequested }
    public func isStopped() -> Bool { engine.state == .stopped }

    public func checkAcceptingSyncs() throws {
        if engine.state != .acceptingSyncs { throw Self.nsError(MobileSyncEngine.MobileSyncError.managerStopped) }
    }

    public func restart(restartStoppedSyncs: Bool, onUpdate updateBlock: @escaping SyncUpdateBlock) throws {
        if engine.state == .acceptingSyncs { throw Self.nsError(MobileSyncEngine.MobileSyncError.cannotRestart(state: "accepting_syncs")) }
        let engine = self.engine
        let done = DispatchSemaphore(value: 0)
        let box = ErrorBox()
        let block = Unchecked(updateBlock)
        Task.detached {
            do { try await engine.restart(restartStoppedSyncs: restartStoppedSyncs) { block.value(SyncState(engine: $0)) } } catch { box.error = error }
            done.signal()
        }
        done.wait()
        if let error = box.error { throw Self.nsError(error) }
    }

    // MARK: Syncs in syncs_soup

    public func syncStatus(forId syncId: NSNumber) -> SyncState? {
        (try? engine.syncStatus(id: syncId.int64Value))?.map(SyncState.init(engine:))
    }

    public func syncStatus(forName syncName: String) -> SyncState? {
        (try? engine.syncStatus(name: syncName))?.map(SyncState.init(engine:))
    }

    public func hasSync(forName syncName: String) -> Bool { syncStatus(forName: syncName) != nil }

    public func deleteSync(forId syncId: NSNumber) { try? engine.deleteSync(id: syncId.int64Value) }

    public func deleteSync(forName syncName: String) { try? engine.deleteSync(name: syncName) }

    public func createSyncDown(_ target: SyncDownTarget, options: SyncOptions, soupName: String, syncName: String?) -> SyncState {
        guard let engineTarget = target.engineTarget else {
            SDKProcess.fail("AppGroupSim: \(type(of: target)) is not a simulated sync down target (SOQL, MRU and refresh are)")
        }
        do { return SyncState(engine: try engine.createSyncDown(target: engineTarget, options: options.engine, soupName: soupName, name: syncName)) } catch {
            SDKProcess.fail("AppGroupSim: createSyncDown \(syncName ?? "") failed: \(error)")
        }
    }

    public func createSyncUp(_ target: SyncUpTarget, options: SyncOptions, soupName: String, syncName: String?) -> SyncState {
        do { return SyncState(engine: try engine.createSyncUp(target: target.engine, options: options.engine, soupName: soupName, name: syncName)) } catch {
            SDKProcess.fail("AppGroupSim: createSyncUp \(syncName ?? "") failed: \(error)")
        }
    }

    // MARK: Running syncs

    public func syncDown(target: SyncDownTarget, soupName: String, onUpdate updateBlock: @escaping SyncUpdateBlock) -> SyncState? {
        syncDown(target: target, options: .newSyncOptions(forSyncDown: .overwrite), soupName: soupName, onUpdate: updateBlock)
    }

    public func syncDown(target: SyncDownTarget, options: SyncOptions, soupName: String, onUpdate updateBlock: @escaping SyncUpdateBlock) -> SyncState? {
        try? syncDown(target: target, options: options, soupName: soupName, syncName: nil, onUpdate: updateBlock)
    }

    public func syncDown(target: SyncDownTarget, options: SyncOptions, soupName: String, syncName: String?, onUpdate updateBlock: @escaping SyncUpdateBlock) throws -> SyncState {
        try checkAcceptingSyncs()
        guard let engineTarget = target.engineTarget else {
            throw Self.nsError(MobileSyncEngine.MobileSyncError.invalidTarget("\(type(of: target)) is not a simulated sync down target"))
        }
        let created: MobileSyncEngine.SyncState
        do { created = try engine.createSyncDown(target: engineTarget, options: options.engine, soupName: soupName, name: syncName) } catch { throw Self.nsError(error) }
        return run(created, updateBlock)
    }

    public func reSync(id syncId: NSNumber, onUpdate updateBlock: @escaping SyncUpdateBlock) throws -> SyncState {
        try checkAcceptingSyncs()
        guard let sync = try? engine.syncStatus(id: syncId.int64Value) else {
            throw Self.nsError(MobileSyncEngine.MobileSyncError.noSuchSync("with id \(syncId)"))
        }
        return run(sync, updateBlock)
    }

    public func reSync(named syncName: String, onUpdate updateBlock: @escaping SyncUpdateBlock) throws -> SyncState {
        try checkAcceptingSyncs()
        guard let sync = try? engine.syncStatus(name: syncName) else {
            throw Self.nsError(MobileSyncEngine.MobileSyncError.noSuchSync("named \(syncName)"))
        }
        return run(sync, updateBlock)
    }

    public func syncUp(options: SyncOptions, soupName: String, onUpdate updateBlock: @escaping SyncUpdateBlock) -> SyncState? {
        syncUp(target: SyncUpTarget(), options: options, soupName: soupName, onUpdate: updateBlock)
    }

    public func syncUp(target: SyncUpTarget, options: SyncOptions, soupName: String, onUpdate updateBlock: @escaping SyncUpdateBlock) -> SyncState? {
        try? syncUp(target: target, options: options, soupName: soupName, syncName: nil, onUpdate: updateBlock)
    }

    public func syncUp(target: SyncUpTarget, options: SyncOptions, soupName: String, syncName: String?, onUpdate updateBlock: @escaping SyncUpdateBlock) throws -> SyncState {
        try checkAcceptingSyncs()
        let created: MobileSyncEngine.SyncState
        do { created = try engine.createSyncUp(target: target.engine, options: options.engine, soupName: soupName, name: syncName) } catch { throw Self.nsError(error) }
        return run(created, updateBlock)
    }

    /// Removes the records of the sync's soup that the server no longer returns.
    public func cleanResyncGhosts(forId syncId: NSNumber, onComplete completionStatusBlock: @escaping SyncCompletionBlock) throws {
        try checkAcceptingSyncs()
        let engine = self.engine
        let block = Unchecked(completionStatusBlock)
        Task.detached {
            do {
                let removed = try await engine.cleanResyncGhosts(syncId: syncId.int64Value)
                block.value(.done, UInt(removed))
            } catch {
                block.value(.failed, 0)
            }
        }
    }

    public func cleanResyncGhosts(forName syncName: String, onComplete completionStatusBlock: @escaping SyncCompletionBlock) throws {
        guard let sync = try? engine.syncStatus(name: syncName) else {
            throw Self.nsError(MobileSyncEngine.MobileSyncError.noSuchSync("named \(syncName)"))
        }
        try cleanResyncGhosts(forId: NSNumber(value: sync.id), onComplete: completionStatusBlock)
    }

    /// Runs the sync in the background; returns its state as it starts. The block gets the running states
    /// and then the final one (the SDK calls it on a background queue too).
    private func run(_ sync: MobileSyncEngine.SyncState, _ updateBlock: @escaping SyncUpdateBlock) -> SyncState {
        let engine = self.engine
        var started = sync
        started.status = .running
        let running = started
        let tracker = LastDelivered()
        let block = Unchecked(updateBlock)
        Task.detached {
            let final: MobileSyncEngine.SyncState
            do {
                final = try await engine.reSync(id: sync.id) { state in
                    tracker.deliver(state, block.value)
                }
            } catch {
                var failed = ((try? engine.syncStatus(id: sync.id)) ?? nil) ?? running
                if failed.status == .running || failed.status == .new { failed.status = .failed }
                if failed.error == nil { failed.error = "\(error)" }
                final = failed
            }
            tracker.deliver(final, block.value)
        }
        return SyncState(engine: running)
    }

    static func nsError(_ error: any Error) -> NSError {
        let code = (error as? MobileSyncEngine.MobileSyncError)?.code ?? 999
        return NSError(domain: "com.salesforce.mobilesync.SyncManagerErrorDomain", code: code, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
    }
}

private final class ErrorBox: @unchecked Sendable { var error: (any Error)? }

/// Delivers each state once: the engine's progress reports and the final state may repeat the last one.
private final class LastDelivered: @unchecked Sendable {
    private let lock = NSLock()
    private var last: (status: MobileSyncEngine.SyncStatus, progress: Int)?

    func deliver(_ state: MobileSyncEngine.SyncState, _ block: SyncUpdateBlock) {
        let fresh = lock.withLock { () -> Bool in
            if let last, last.status == state.status, last.progress == state.progress { return false }
            last = (state.status, state.progress)
            return true
        }
        if fresh { block(SyncState(engine: state)) }
    }
}

/// The SDK's Swift errors for its Result-returning sync calls (MobileSync.swift in the SDK).
public enum MobileSyncError: Error {
    case notStarted(_ error: Error?)
    case stopped
    case failed(_ SyncState: SyncState?)
    case unknown
}

extension SyncManager {
    public func reSyncWithoutUpdates(named syncName: String, _ completionBlock: @escaping (Result<SyncState, MobileSyncError>) -> Void) {
        do {
            _ = try reSync(named: syncName) { state in
                switch state.status {
                case .done: completionBlock(.success(state))
                case .stopped: completionBlock(.failure(.stopped))
                case .failed: completionBlock(.failure(.failed(state)))
                default: break
                }
            }
        } catch {
            completionBlock(.failure(.notStarted(error)))
        }
    }

    public func cleanGhosts(named syncName: String, _ completionBlock: @escaping (Result<UInt, MobileSyncError>) -> Void) {
        do {
            try cleanResyncGhosts(forName: syncName) { status, count in
                switch status {
                case .done: completionBlock(.success(count))
                case .stopped: completionBlock(.failure(.stopped))
                case .failed: completionBlock(.failure(.failed(nil)))
                default: break
                }
            }
        } catch {
            completionBlock(.failure(.notStarted(error)))
        }
    }

    public func publisher(for syncName: String) -> Future<SyncState, MobileSyncError> {
        Future { promise in
            let promise = Unchecked(promise)
            self.reSyncWithoutUpdates(named: syncName) { promise.value($0) }
        }
    }

    public func cleanGhostsPublisher(for syncName: String) -> Future<UInt, MobileSyncError> {
        Future { promise in
            let promise = Unchecked(promise)
            self.cleanGhosts(named: syncName) { promise.value($0) }
        }
    }
}

/// The SDK's `MobileSyncSDKManager`: `initializeSDK()` on it makes the app a Mobile Sync app; it also sets
/// up the syncs of the bundle's `usersyncs.json` and `globalsyncs.json`.
open class MobileSyncSDKManager: SmartStoreSDKManager, @unchecked Sendable {
    open override class var shared: MobileSyncSDKManager {
        if let manager = SalesforceManager.shared as? MobileSyncSDKManager { return manager }
        SalesforceManager.setInstanceClass(self)
        return SalesforceManager.shared as! MobileSyncSDKManager
    }

    /// Creates the syncs of the bundle's `usersyncs.json` in the current user's default store (once each).
    public func setupUserSyncsFromDefaultConfig() {
        guard let user = UserAccountManager.shared.currentUserAccount else { return }
        let manager = SyncManager.sharedInstance(forUserAccount: user)
        do {
            try SDKEngine.current.sdk.setUpUserSyncs(manager.engine)
        } catch {
            SDKProcess.warn("MobileSyncSDKManager could not set up the syncs of usersyncs.json: \(error)")
        }
    }

    /// Global stores have no user, so no org to sync with: their syncs are not simulated.
    public func setupGlobalSyncsFromDefaultConfig() {}
}
