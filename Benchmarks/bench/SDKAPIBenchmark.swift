import Foundation
import FastJSON
import SmartStore

// The SDK's API (SmartStore face: Foundation values in, `[Any]` out) against the typed path (the engine the
// binaries call) in one run, interleaved: 10,000 upserts, and the newest-3 smart query from 10,000 entries.
// Goal: the SDK path within 1.15x of the typed path (issue 26). Both write the same SQLite layout.

private let count = Int(ProcessInfo.processInfo.environment["BENCH_SDK_ENTRIES"] ?? "") ?? 10_000

func runSDKAPIBenchmark() throws {
    let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let app = root.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app")
    let typed = typedContacts(count)
    // The same entries as app code builds them: dictionaries of Swift values.
    let sdkEntries: [[AnyHashable: Any]] = typed.map { entry in
        var dict: [AnyHashable: Any] = [:]
        for (key, value) in entry { dict[key] = value.stringValue ?? "" }
        return dict
    }
    let rounds = Int(ProcessInfo.processInfo.environment["BENCH_SDK_ROUNDS"] ?? "") ?? 9
    let queries = 200
    var upsertRatios: [Double] = [], queryRatios: [Double] = []
    var typedUpserts: [Double] = [], sdkUpserts: [Double] = [], typedQueries: [Double] = [], sdkQueries: [Double] = []
    for _ in 0..<rounds {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-sdkbench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let (typedSeconds, typedStore) = try typedUpsert(typed, in: dir)
        let (sdkSeconds, sdkQuery) = try SDKProcess.run(as: app, device: dir.appendingPathComponent("device")) { () throws -> (Double, [Double]) in
            let store = SmartStore.sharedGlobal(withName: "bench")
            try store.registerSoup(withName: "contacts", withIndices: sdkBenchIndexPaths.map { SoupIndex(path: $0, indexType: kSoupIndexTypeString, columnName: nil)! })
            let t0 = Date()
            let saved = store.upsert(entries: sdkEntries, forSoupNamed: "contacts")
            let upsert = Date().timeIntervalSince(t0)
            precondition(saved.count == count)
            let spec = QuerySpec.buildSmartQuerySpec(smartSql: sdkBenchNewest3, pageSize: 3)!
            var times: [Double] = []
            for _ in 0..<queries {
                let t1 = Date()
                let rows = try store.query(using: spec, startingFromPageIndex: 0)
                times.append(Date().timeIntervalSince(t1))
                precondition(rows.count == 3)
            }
            return (upsert, times)
        }
        let typedQuery = try (0..<queries).map { _ in try typedNewest3(typedStore) }
        typedUpserts.append(typedSeconds)
        sdkUpserts.append(sdkSeconds)
        typedQueries.append(median(typedQuery))
        sdkQueries.append(median(sdkQuery))
        upsertRatios.append(sdkSeconds / typedSeconds)
        queryRatios.append(median(sdkQuery) / median(typedQuery))
    }
    if ProcessInfo.processInfo.environment["BENCH_SDK_PARTS"] != nil {
        let t0 = Date()
        let converted = sdkEntries.compactMap { JSON.object(sdkEntry: $0) }
        let t1 = Date()
        let back = [String: JSON].foundationEntries(converted)
        let t2 = Date()
        print(String(format: "  parts: in %.1f ms, out %.1f ms (%d)", t1.timeIntervalSince(t0) * 1000, t2.timeIntervalSince(t1) * 1000, back.count))
    }
    func ms(_ xs: [Double]) -> String { String(format: "%.1f ms", median(xs) * 1000) }
    func us(_ xs: [Double]) -> String { String(format: "%.0f µs", median(xs) * 1_000_000) }
    func ratio(_ xs: [Double]) -> String { String(format: "%.2fx (%.2f-%.2f)", median(xs), xs.min() ?? .nan, xs.max() ?? .nan) }
    print("SDK API (SmartStore as Swift sees it) against the typed engine path, \(count) contact-shaped entries, \(rounds) interleaved rounds, medians")
    print("  upsert of \(count):        typed \(ms(typedUpserts)), SDK API \(ms(sdkUpserts)); SDK/typed \(ratio(upsertRatios)) (goal <= 1.15x)")
    print("  newest-3 smart query:  typed \(us(typedQueries)), SDK API \(us(sdkQueries)); SDK/typed \(ratio(queryRatios)) (goal <= 1.15x; \(queries) runs per round)")
}
