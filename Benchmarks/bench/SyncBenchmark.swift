import Foundation
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

// Mobile Sync against the release sf-simulator with 10,000 contacts: a sync down against a bare
// upsert of the same records, and a sync up of 500 locally edited records.

func runSyncBenchmark() async throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let data = try grownFixture(in: work, contacts: 10_000)

    let (process, url) = try startSimulator(data: data)
    defer { process.terminate(); process.waitUntilExit() }
    let client = try await benchLogin(url)
    let specs = ["Id", "FirstName", "LastName", "__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"]
        .map { IndexSpec(path: $0, type: .string) }
    let query = "SELECT FirstName, LastName, Title, MobilePhone, Email, Department, HomePhone FROM Contact"

    var syncTimes: [Double] = [], upsertTimes: [Double] = [], upTimes: [Double] = [], ratios: [Double] = []
    let syncRounds = Int(ProcessInfo.processInfo.environment["BENCH_SYNC_ROUNDS"] ?? "") ?? 15
    for round in 0..<syncRounds {
        let store = try SmartStore(url: work.appendingPathComponent("sync-\(round).sqlite"), name: "sync")
        try store.registerSoup("contacts", indexSpecs: specs)
        let manager = try SyncManager.sharedInstance(for: store, client: client)
        var t0 = Date()
        let sync = try await manager.syncDown(target: SoqlSyncDownTarget(query: query, maxBatchSize: 2000), soupName: "contacts")
        syncTimes.append(Date().timeIntervalSince(t0))
        let synced = try store.count(.all(soup: "contacts"))
        precondition(sync.status == .done && synced == 10_000)

        // Baseline: the same 10,000 records, already fetched, upserted by Id into an empty soup.
        let records = try store.query(.all(soup: "contacts", pageSize: 20_000)).compactMap { entry -> SoupEntry? in
            var record = entry.objectValue
            record?[SoupField.entryId] = nil
            return record
        }
        let bare = try SmartStore(url: work.appendingPathComponent("bare-\(round).sqlite"), name: "bare")
        try bare.registerSoup("contacts", indexSpecs: specs)
        t0 = Date()
        try bare.upsertReturningIds(records, into: "contacts", externalIdPath: "Id")
        upsertTimes.append(Date().timeIntervalSince(t0))
        ratios.append(syncTimes[round] / upsertTimes[round])

        let ids = records.prefix(500).compactMap { $0["Id"]?.stringValue }
        for id in ids { try manager.updateLocally(id: id, changes: ["Title": .string("Edited \(round)")], soupName: "contacts") }
        t0 = Date()
        let up = try await manager.syncUp(
            target: SyncUpTarget(createFieldlist: ["FirstName", "LastName", "Title"], updateFieldlist: ["FirstName", "LastName", "Title"]),
            options: SyncOptions(mergeMode: .leaveIfChanged), soupName: "contacts")
        upTimes.append(Date().timeIntervalSince(t0))
        let stillDirty = try manager.dirtyRecords("contacts").count
        precondition(up.status == .done && stillDirty == 0)
        SyncManager.removeSharedInstance(for: store)
        for name in ["sync-\(round).sqlite", "bare-\(round).sqlite"] { try? FileManager.default.removeItem(at: work.appendingPathComponent(name)) }
    }
    func spread(_ xs: [Double]) -> String { String(format: "%6.3f s (%.3f-%.3f)", median(xs), xs.min() ?? .nan, xs.max() ?? .nan) }
    print("Mobile Sync against the release sf-simulator on loopback (\(syncRounds) interleaved rounds, medians (min-max))")
    print("  baseline  bare upsert of the same 10,000 records by Id:  \(spread(upsertTimes))")
    print("  measured  sync down of 10,000 contacts (5 pages of 2,000): \(spread(syncTimes))   "
        + String(format: "ratio %.2fx (%.2f-%.2f) within each round (target <= 2.0)", median(ratios), ratios.min() ?? .nan, ratios.max() ?? .nan))
    print("  measured  sync up of 500 edited records, LEAVE_IF_CHANGED (1 retrieve + 3 collection PATCHes): \(spread(upTimes)) (target < 0.4 s)")
}
