import FastJSON
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

/// The fields a sync up sends.
package struct SyncUpTarget: Sendable {
    package var sobjectType: String
    package var createFieldlist: [String]?
    package var updateFieldlist: [String]?
    /// The SDK's `externalIdFieldName`: a locally created record that has a value for this field is
    /// upserted by it (`PATCH composite/sobjects/<type>/<field>`) instead of created, so sending it a
    /// second time, after a sync up was killed between the org's write and the local update, updates
    /// the record the first attempt created instead of making a duplicate.
    package var externalIdFieldName: String?
    /// The SDK class the target names (`SFCollectionSyncUpTarget` unless a config says `SFBatchSyncUpTarget`
    /// or `SFSyncUpTarget`). All three push the same records here; see docs/sample-story.md, "Mobile Sync".
    package var iOSImpl = "SFCollectionSyncUpTarget"

    package init(sobjectType: String = "Contact", createFieldlist: [String]? = nil, updateFieldlist: [String]? = nil, externalIdFieldName: String? = nil) {
        self.sobjectType = sobjectType
        self.createFieldlist = createFieldlist
        self.updateFieldlist = updateFieldlist
        self.externalIdFieldName = externalIdFieldName
    }

    /// As the SDK serialises its default sync up target (`SFCollectionSyncUpTarget` since Mobile SDK
    /// 10.1): type `rest`, `iOSImpl`, the field names and `maxBatchSize`. `sobjectType` is ours: the SDK
    /// takes each record's type from its `attributes`, and so do we when the record has them.
    package var json: JSON {
        var o: [String: JSON] = [
            "sobjectType": .string(sobjectType), "type": "rest", "iOSImpl": .string(iOSImpl),
            "idFieldName": "Id", "modificationDateFieldName": "LastModifiedDate",
        ]
        if iOSImpl != "SFSyncUpTarget" { o["maxBatchSize"] = .int(Int64(SyncManager.collectionLimit)) }
        if let createFieldlist { o["createFieldlist"] = .array(createFieldlist.map(JSON.string)) }
        if let updateFieldlist { o["updateFieldlist"] = .array(updateFieldlist.map(JSON.string)) }
        if let externalIdFieldName { o["externalIdFieldName"] = .string(externalIdFieldName) }
        return .object(o)
    }

    init(json: JSON) {
        sobjectType = json["sobjectType"]?.stringValue ?? "Contact"
        createFieldlist = json["createFieldlist"]?.arrayValue?.compactMap(\.stringValue)
        updateFieldlist = json["updateFieldlist"]?.arrayValue?.compactMap(\.stringValue)
        externalIdFieldName = json["externalIdFieldName"]?.stringValue
        if let impl = json["iOSImpl"]?.stringValue, !impl.isEmpty { iOSImpl = impl }
    }
}

/// The SDK's `SyncManager`: one per store, runs sync downs and sync ups against the org and keeps
/// every sync's state in the store's `syncs_soup`, so a sync can be resumed after a stop or a crash.
package final class SyncManager: @unchecked Sendable {
    package enum State: String, Sendable { case acceptingSyncs = "accepting_syncs", stopRequested = "stop_requested", stopped }
    package typealias Progress = @Sendable (SyncState) -> Void
    package typealias CustomTargetFactory = @Sendable (JSON) throws -> any SyncDownTarget

    package let store: SmartStore
    package let client: RestClient
    private let lock = NSLock()
    private var managerState: State = .acceptingSyncs
    private var running: Set<Int64> = []

    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var instances: [String: SyncManager] = [:]
    nonisolated(unsafe) private static var customTargets: [String: CustomTargetFactory] = [:]

    /// The manager of this store (created on first use); `client` talks to the store's user's org.
    package static func sharedInstance(for store: SmartStore, client: RestClient) throws -> SyncManager {
        try registryLock.withLock {
            if let existing = instances[store.url.path] { return existing }
            let manager = try SyncManager(store: store, client: client)
            instances[store.url.path] = manager
            return manager
        }
    }

    package static func removeSharedInstance(for store: SmartStore) {
        _ = registryLock.withLock { instances.removeValue(forKey: store.url.path) }
    }

    /// The manager of a user's store (the default store unless named); refused for a user who is not logged in.
    package static func sharedInstance(
        forUser user: StoreUser, storeName: String = StoreManager.defaultStoreName, stores: StoreManager, client: RestClient
    ) throws -> SyncManager {
        try sharedInstance(for: try stores.store(named: storeName, for: user), client: client)
    }

    package static func removeSharedInstance(forUser user: StoreUser, storeName: String = StoreManager.defaultStoreName, stores: StoreManager) {
        let path = stores.storeFile(named: storeName, for: user).path
        _ = registryLock.withLock { instances.removeValue(forKey: path) }
    }

    /// Custom sync down targets: their state JSON carries `"type": "custom", "customType": name`.
    package static func register(customTarget name: String, factory: @escaping CustomTargetFactory) {
        registryLock.withLock { customTargets[name] = factory }
    }

    /// Opens the syncs soup; a sync left RUNNING by a process that died is marked STOPPED.
    init(store: SmartStore, client: RestClient) throws {
        self.store = store
        self.client = client
        try Self.setupSyncsSoup(store)
        for var sync in try allSyncs() where sync.status == .running {
            sync.status = .stopped
            try save(sync)
        }
    }

    /// `SFSyncState setupSyncsSoupIfNeeded:`: registers `syncs_soup`, or alters one with other indexes
    /// (the string columns an older AppGroupSim build made) to the SDK's json1 indexes, keeping every
    /// sync's id and state. A read-only store is left as it is.
    static func setupSyncsSoup(_ store: SmartStore) throws {
        guard try store.soupExists(SyncState.soupName) else {
            try store.registerSoup(SyncState.soupName, indexSpecs: SyncState.indexSpecs)
            return
        }
        if try store.indices(for: SyncState.soupName) != SyncState.indexSpecs, !store.isReadOnly {
            try store.alterSoup(SyncState.soupName, indexSpecs: SyncState.indexSpecs, reIndexData: true)
        }
    }

    package var state: State { lock.withLock { managerState } }

    /// Asks running syncs to stop after their current page; new syncs are refused until `restart`.
    package func stop() {
        lock.withLock {
            managerState = running.isEmpty ? .stopped : .stopRequested
        }
    }

    /// Accepts syncs again; with `restartStoppedSyncs`, re-runs every STOPPED sync.
    package func restart(restartStoppedSyncs: Bool, progress: Progress? = nil) async throws {
        try lock.withLock {
            guard managerState != .acceptingSyncs else { throw MobileSyncError.cannotRestart(state: managerState.rawValue) }
            managerState = .acceptingSyncs
        }
        guard restartStoppedSyncs else { return }
        for sync in try allSyncs() where sync.status == .stopped {
            _ = try await run(sync, progress: progress)
        }
    }

    // MARK: Sync states

    package func createSyncDown(target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil) throws
        -> SyncState
    {
        try create(SyncState(type: .syncDown, name: name, target: target.json, soupName: soupName, options: options))
    }

    package func createSyncUp(target: SyncUpTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil) throws
        -> SyncState
    {
        try create(SyncState(type: .syncUp, name: name, target: target.json, soupName: soupName, options: options))
    }

    package func syncStatus(id: Int64) throws -> SyncState? {
        try store.retrieve(ids: [id], from: SyncState.soupName).first.map { try parse(.object($0)) }
    }

    package func syncStatus(name: String) throws -> SyncState? {
        try store.query(.exact(soup: SyncState.soupName, path: "name", value: .string(name))).first.map(parse)
    }

    package func deleteSync(id: Int64) throws { try store.remove(ids: [id], from: SyncState.soupName) }

    package func deleteSync(name: String) throws {
        guard let sync = try syncStatus(name: name) else { throw MobileSyncError.noSuchSync("named \(name)") }
        try deleteSync(id: sync.id)
    }

    /// A syncs_soup entry as a sync state; one that is not (damaged by hand or another tool) is an
    /// error naming the store and the entry, never skipped and never deleted.
    func parse(_ entry: JSON) throws -> SyncState {
        if let problem = SyncState.problem(entry) {
            throw MobileSyncError.corruptSyncState(store: store.url.path, entryId: entry[SoupField.entryId]?.intValue, detail: problem)
        }
        guard let object = entry.objectValue, let state = SyncState(entry: object) else {
            throw MobileSyncError.corruptSyncState(store: store.url.path, entryId: entry[SoupField.entryId]?.intValue, detail: "no _soupEntryId")
        }
        return state
    }

    package func allSyncs() throws -> [SyncState] {
        try store.query(.all(soup: SyncState.soupName, pageSize: 100_000)).map(parse)
    }

    /// The syncs a `usersyncs.json` names, in file order.
    package static func configuredSyncs(_ url: URL) throws -> [(name: String, type: SyncType, soup: String)] {
        guard let data = FileManager.default.contents(atPath: url.path) else { return [] }
        guard let text = String(data: data, encoding: .utf8), let syncs = JSON(text: text)?["syncs"]?.arrayValue else {
            throw MobileSyncError.invalidTarget("\(url.path) is not JSON with a \"syncs\" array")
        }
        return try syncs.map { sync in
            guard let name = sync["syncName"]?.stringValue, let soup = sync["soupName"]?.stringValue,
                let type = sync["syncType"]?.stringValue.flatMap(SyncType.init(rawValue:))
            else { throw MobileSyncError.invalidTarget("\(url.path): each sync needs syncName, syncType (syncDown or syncUp) and soupName") }
            return (name, type, soup)
        }
    }

    /// Creates the named syncs of a bundle's `usersyncs.json` that do not exist yet.
    package func createSyncs(fromConfig url: URL) throws {
        guard let data = FileManager.default.contents(atPath: url.path), let text = String(data: data, encoding: .utf8),
            let syncs = JSON(text: text)?["syncs"]?.arrayValue
        else { return }
        for sync in syncs {
            guard let name = sync["syncName"]?.stringValue, let soup = sync["soupName"]?.stringValue,
                let type = sync["syncType"]?.stringValue.flatMap(SyncType.init(rawValue:)), let target = sync["target"]
            else { throw MobileSyncError.invalidTarget("\(url.path): each sync needs syncName, syncType, soupName and target") }
            if try syncStatus(name: name) != nil { continue }
            // As the SDK does (`newFromDict:` then `asDict`), a target that is simulated is stored in its
            // serialised form (iOSImpl, field names, the SOQL query completed). One of the SDK's other
            // target types (sosl, layout, metadata, parent_children) is kept as written: the
            // sync exists, and running it says the type is not simulated.
            let stored: JSON
            switch type {
            case .syncDown: stored = (try? makeTarget(target)).map { Self.serialised($0.json, from: target) } ?? target
            case .syncUp:
                if Self.notSimulated(syncUp: target) == nil {
                    var normalised = SyncUpTarget(json: target).json.objectValue ?? [:]
                    // No sObject type written: each record's attributes (or the soup's sync down) say it.
                    if target["sobjectType"] == nil { normalised["sobjectType"] = nil }
                    stored = Self.serialised(.object(normalised), from: target)
                } else {
                    stored = target
                }
            }
            _ = try create(SyncState(type: type, name: name, target: stored, soupName: soup, options: SyncOptions(json: sync["options"])))
        }
    }

    // MARK: Running syncs

    /// Creates a sync down and runs it.
    package func syncDown(
        target: any SyncDownTarget, options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil, progress: Progress? = nil
    ) async throws -> SyncState {
        try await run(try createSyncDown(target: target, options: options, soupName: soupName, name: name), progress: progress)
    }

    /// Creates a sync up and runs it.
    package func syncUp(
        target: SyncUpTarget = SyncUpTarget(), options: SyncOptions = SyncOptions(), soupName: String, name: String? = nil,
        progress: Progress? = nil
    ) async throws -> SyncState {
        try await run(try createSyncUp(target: target, options: options, soupName: soupName, name: name), progress: progress)
    }

    /// Runs a sync again: a sync down fetches what changed since its newest record (a STOPPED one
    /// from 1 ms before, so the boundary record comes again); a sync up pushes the current local edits.
    package func reSync(id: Int64, progress: Progress? = nil) async throws -> SyncState {
        guard let sync = try syncStatus(id: id) else { throw MobileSyncError.noSuchSync("with id \(id)") }
        return try await run(sync, progress: progress)
    }

    package func reSync(name: String, progress: Progress? = nil) async throws -> SyncState {
        guard let sync = try syncStatus(name: name) else { throw MobileSyncError.noSuchSync("named \(name)") }
        return try await run(sync, progress: progress)
    }

    func run(_ initial: SyncState, progress: Progress?) async throws -> SyncState {
        try lock.withLock {
            guard managerState == .acceptingSyncs else { throw MobileSyncError.managerStopped }
            guard !running.contains(initial.id) else { throw MobileSyncError.alreadyRunning(syncId: initial.id) }
            running.insert(initial.id)
        }
        defer {
            lock.withLock {
                running.remove(initial.id)
                if managerState == .stopRequested && running.isEmpty { managerState = .stopped }
            }
        }
        var sync = initial
        let resumeFrom = sync.status == .stopped && sync.maxTimeStamp > 0 ? sync.maxTimeStamp - 1 : sync.maxTimeStamp
        sync.status = .running
        sync.progress = 0
        sync.startTime = SalesforceTime.now()
        sync.error = nil
        try save(sync)
        progress?(sync)
        do {
            switch sync.type {
            case .syncDown: try await runSyncDown(&sync, from: resumeFrom, progress: progress)
            case .syncUp: try await runSyncUp(&sync, progress: progress)
            }
        } catch {
            sync.status = .failed
            sync.error = "\(error)"
            sync.endTime = SalesforceTime.now()
            try? save(sync)
            progress?(sync)
            throw error
        }
        return sync
    }

    private var stopRequested: Bool { lock.withLock { managerState != .acceptingSyncs } }

    /// DONE at 100%, saved and reported.
    func finish(_ sync: inout SyncState, _ progress: Progress?) throws {
        sync.status = .done
        sync.progress = 100
        sync.endTime = SalesforceTime.now()
        try save(sync)
        progress?(sync)
    }

    private func runSyncDown(_ sync: inout SyncState, from maxTimeStamp: Int64, progress: Progress?) async throws {
        let target = try makeTarget(sync.target)
        var page = try await target.startFetch(client: client, maxTimeStamp: maxTimeStamp, store: store, soupName: sync.soupName)
        sync.totalSize = page.totalSize
        var saved = 0
        while true {
            try saveFromServer(page.records, sync: sync, target: target)
            saved += page.records.count
            for record in page.records {
                if let ms = record[SyncField.lastModifiedDate]?.stringValue.flatMap(SalesforceTime.milliseconds) {
                    sync.maxTimeStamp = max(sync.maxTimeStamp, ms)
                }
            }
            sync.progress = sync.totalSize <= 0 ? 100 : min(100, saved * 100 / sync.totalSize)
            try save(sync)
            progress?(sync)
            if stopRequested {
                sync.status = .stopped
                sync.endTime = SalesforceTime.now()
                try save(sync)
                progress?(sync)
                return
            }
            guard let next = try await target.continueFetch(client: client, after: page) else { break }
            page = next
        }
        try finish(&sync, progress)
    }

    /// Saves server records with local flags cleared; LEAVE_IF_CHANGED skips records edited locally. Each
    /// record goes to the soup its target names (the sync's, or a briefcase type's own).
    private func saveFromServer(_ records: [SoupEntry], sync: SyncState, target: any SyncDownTarget) throws {
        guard !records.isEmpty else { return }
        var bySoup: [String: [SoupEntry]] = [:]
        var order: [String] = []
        for record in records {
            guard let soup = target.soupName(for: record, syncSoup: sync.soupName) else { continue }
            if bySoup[soup] == nil { order.append(soup) }
            bySoup[soup, default: []].append(record)
        }
        for soup in order {
            var skip = Set<String>()
            if sync.options.mergeMode == .leaveIfChanged {
                skip = Set(try dirtyRecords(soup).compactMap { $0[SyncField.id]?.stringValue })
            }
            let entries: [SoupEntry] = (bySoup[soup] ?? []).compactMap { record in
                guard let id = record[SyncField.id]?.stringValue, !skip.contains(id) else { return nil }
                var entry = record
                entry[SyncField.local] = .bool(false)
                entry[SyncField.locallyCreated] = .bool(false)
                entry[SyncField.locallyUpdated] = .bool(false)
                entry[SyncField.locallyDeleted] = .bool(false)
                entry[SyncField.syncId] = .int(sync.id)
                entry[SyncField.lastError] = nil
                return entry
            }
            try store.upsertReturningIds(entries, into: soup, externalIdPath: SyncField.id)
        }
    }

    /// `getDirtyRecordIds`: the id field of the soup's records edited locally (`__local__` true, stored as 1
    /// or as the text `true`), in the order they were stored; records without the field are left out.
    package func dirtyRecordIds(_ soupName: String, idField: String) throws -> [JSON] {
        let local = "{\(soupName):\(SyncField.local)}"
        let spec = QuerySpec.smart(
            "SELECT {\(soupName):\(idField)} FROM {\(soupName)} WHERE \(local) = 1 OR \(local) = 'true' ORDER BY {\(soupName):_soupEntryId}",
            pageSize: 1_000_000)
        return try store.query(spec).compactMap { $0.arrayValue?.first }.filter { $0 != .null }
    }

    /// `getIdsToSkip`: what a sync down must not overwrite, the dirty ids of every soup the target fills.
    package func idsToSkip(target: any SyncDownTarget, soupName: String, idField: String) throws -> [JSON] {
        var ids: [JSON] = []
        var seen = Set<JSON>()
        for filled in target.filledSoups(syncSoup: soupName, idField: idField) {
            for id in try dirtyRecordIds(filled.soup, idField: filled.idField) where seen.insert(id).inserted { ids.append(id) }
        }
        return ids
    }

    package func dirtyRecords(_ soupName: String) throws -> [SoupEntry] {
        let spec = QuerySpec.smart(
            "SELECT {\(soupName):_soup} FROM {\(soupName)} WHERE {\(soupName):\(SyncField.local)} = '1' ORDER BY {\(soupName):_soupEntryId}",
            pageSize: 1_000_000)
        return try store.query(spec).compactMap { $0.arrayValue?.first?.objectValue }
    }

    /// A target as the config wrote it, with our serialised form laid over it: keys we do not model
    /// (`androidImpl`, a refresh target's `soupName`) are kept, and so are field names the config sets.
    static func serialised(_ normalised: JSON, from written: JSON) -> JSON {
        guard var out = written.objectValue, let ours = normalised.objectValue else { return normalised }
        for (key, value) in ours where !(["idFieldName", "modificationDateFieldName"].contains(key) && out[key] != nil) {
            out[key] = value
        }
        return .object(out)
    }

    /// Why a sync up target cannot run here (nil when it can): an implementation we do not simulate, or
    /// id and modification-date fields other than the SDK's defaults.
    static func notSimulated(syncUp json: JSON) -> String? {
        let simulated = ["SFCollectionSyncUpTarget", "SFBatchSyncUpTarget", "SFSyncUpTarget"]
        if let impl = json["iOSImpl"]?.stringValue, !simulated.contains(impl) {
            return "sync up target \(impl) is not simulated by AppGroupSim (simulated: \(simulated.joined(separator: ", ")))"
        }
        if let type = json["type"]?.stringValue, type != "rest" {
            return "sync up target type \(type) is not simulated by AppGroupSim (simulated: rest)"
        }
        return fieldNamesNotSimulated(json)
    }

    static func fieldNamesNotSimulated(_ json: JSON) -> String? {
        for (key, standard) in [("idFieldName", "Id"), ("modificationDateFieldName", "LastModifiedDate")] {
            if let name = json[key]?.stringValue, name != standard {
                return "\(key) \(name) is not simulated by AppGroupSim: its syncs use \(standard)"
            }
        }
        return nil
    }

    func makeTarget(_ json: JSON) throws -> any SyncDownTarget {
        if json["type"]?.stringValue != "custom", let reason = Self.fieldNamesNotSimulated(json) {
            throw MobileSyncError.invalidTarget(reason)
        }
        switch json["type"]?.stringValue {
        case "soql":
            guard let query = json["query"]?.stringValue else { throw MobileSyncError.invalidTarget("a soql target needs a query") }
            return SoqlSyncDownTarget(query: query, maxBatchSize: Int(json["maxBatchSize"]?.intValue ?? 2000))
        case "mru":
            return MruSyncDownTarget(
                sobjectType: json["sobjectType"]?.stringValue ?? "Contact", fieldlist: json["fieldlist"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        case "refresh":
            return RefreshSyncDownTarget(
                sobjectType: json["sobjectType"]?.stringValue ?? "Contact", fieldlist: json["fieldlist"]?.arrayValue?.compactMap(\.stringValue) ?? [],
                countIdsPerSoql: Int(json[SyncTargetFormat.countIdsPerSoqlKey]?.intValue ?? json["countIdsPerSoql"]?.intValue ?? 500))
        case "briefcase":
            let target = try BriefcaseSyncDownTarget(json: json)
            if let reason = target.notSimulated { throw MobileSyncError.invalidTarget(reason) }
            return target
        case "custom":
            let name = json["customType"]?.stringValue ?? ""
            guard let factory = Self.registryLock.withLock({ Self.customTargets[name] }) else {
                throw MobileSyncError.invalidTarget("no custom target registered as \(name)")
            }
            return try factory(json)
        case let type?:
            throw MobileSyncError.invalidTarget(
                "sync down target type \(type) is not simulated by AppGroupSim (simulated: soql, mru, refresh, briefcase, and custom targets registered with SyncManager.register(customTarget:))")
        case nil:
            throw MobileSyncError.invalidTarget("a sync down target needs a type")
        }
    }

    // MARK: Ghosts

    /// Removes this sync's local records (not dirty) that the server no longer returns; returns how many.
    @discardableResult
    package func cleanResyncGhosts(syncId: Int64) async throws -> Int {
        guard let sync = try syncStatus(id: syncId) else { throw MobileSyncError.noSuchSync("with id \(syncId)") }
        guard sync.type == .syncDown else { throw MobileSyncError.ghostsOnlyOnSyncDown(syncId: syncId) }
        var removed = 0
        let remoteBySoup = try await makeTarget(sync.target).remoteIdsBySoup(client: client, store: store, soupName: sync.soupName)
        for (soup, remote) in remoteBySoup.sorted(by: { $0.key < $1.key }) {
            let spec = QuerySpec.smart(
                "SELECT {\(soup):_soupEntryId}, {\(soup):Id} FROM {\(soup)} WHERE {\(soup):\(SyncField.syncId)} = ? AND ({\(soup):\(SyncField.local)} IS NULL OR {\(soup):\(SyncField.local)} != '1')",
                pageSize: 1_000_000, whereArgs: [.int(syncId)])
            let ghosts = try store.query(spec).compactMap { row -> Int64? in
                guard let cols = row.arrayValue, cols.count == 2, let entryId = cols[0].intValue, let id = cols[1].stringValue else { return nil }
                return remote.contains(id) ? nil : entryId
            }
            try store.remove(ids: ghosts, from: soup)
            removed += ghosts.count
        }
        return removed
    }

    // MARK: Internals

    private func create(_ state: SyncState) throws -> SyncState {
        if let name = state.name, try syncStatus(name: name) != nil { throw MobileSyncError.duplicateName(name) }
        var entry = state.entry
        entry[SoupField.entryId] = nil
        let saved = try store.upsert([entry], into: SyncState.soupName)
        guard let created = saved.first.flatMap(SyncState.init(entry:)) else { throw MobileSyncError.syncFailed("cannot save the sync state") }
        return created
    }

    func save(_ sync: SyncState) throws {
        try store.upsert([sync.entry], into: SyncState.soupName)
    }
}
