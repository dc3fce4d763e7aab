import Foundation
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The org at scale ("Any org"): query cursors under 80 concurrent paging clients of one user, by API
// version; query_all of 100,000 contacts with the server's peak RSS; a sync down of 1,000,000 rows
// with the app's RSS over time. Seconds and sizes: BENCH_CURSOR_SECONDS (20), BENCH_QUERY_ALL_ROWS
// (100000), BENCH_SYNC_ROWS (1000000).

private func env(_ name: String, _ fallback: Int) -> Int { ProcessInfo.processInfo.environment[name].flatMap(Int.init) ?? fallback }

/// Peak and current RSS (KiB) of a process, from its own /proc status.
func processMemory(_ pid: Int32) -> (hwm: Int, rss: Int) {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return (0, 0) }
    func value(_ key: String) -> Int {
        status.split(separator: "\n").first { $0.hasPrefix(key) }.flatMap { Int($0.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") } ?? 0
    }
    return (value("VmHWM:"), value("VmRSS:"))
}

private final class PageCounts: @unchecked Sendable {
    private let lock = NSLock()
    var pages = 0, invalidLocator = 0, otherErrors = 0
    func add(_ outcome: Int) {
        lock.withLock {
            switch outcome {
            case 0: pages += 1
            case 1: invalidLocator += 1
            default: otherErrors += 1
            }
        }
    }
}

/// 0 a page, 1 INVALID_QUERY_LOCATOR, 2 anything else; the next URL when there is one.
private func fetch(_ session: URLSession, _ request: URLRequest) async -> (Int, String?) {
    await withCheckedContinuation { continuation in
        session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            guard error == nil, let data else { return continuation.resume(returning: (2, nil)) }
            if status == 200, let body = try? JSONSerialization.jsonObject(with: data) as? [String: Any] {
                return continuation.resume(returning: (0, body["nextRecordsUrl"] as? String))
            }
            continuation.resume(returning: (String(decoding: data, as: UTF8.self).contains("INVALID_QUERY_LOCATOR") ? 1 : 2, nil))
        }.resume()
    }
}

private func cursorRun(url: URL, token: String, version: String, clients: Int, seconds: Double) async -> PageCounts {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = clients
    configuration.timeoutIntervalForRequest = 60
    let session = URLSession(configuration: configuration)
    let counts = PageCounts()
    let deadline = Date().addingTimeInterval(seconds)
    func request(_ path: String, query: String? = nil) -> URLRequest {
        var components = URLComponents(url: url.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if let query { components.queryItems = [URLQueryItem(name: "q", value: query)] }
        var r = URLRequest(url: components.url!)
        r.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        r.setValue("batchSize=200", forHTTPHeaderField: "Sforce-Query-Options")
        return r
    }
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<clients {
            group.addTask {
                while Date() < deadline {
                    var (outcome, next) = await fetch(session, request("services/data/\(version)/query", query: "SELECT Id, LastName FROM Contact ORDER BY LastModifiedDate LIMIT 1000"))
                    counts.add(outcome)
                    while let path = next {
                        (outcome, next) = await fetch(session, request(String(path.dropFirst())))
                        counts.add(outcome)
                    }
                }
            }
        }
    }
    session.invalidateAndCancel()
    return counts
}

func runOrgBenchmark() async throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-orgbench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }

    // 1. Cursors: 80 clients of one user page a 1,000-row query (5 pages of 200) for 20 s.
    do {
        let (process, url) = try startSimulator(data: fixtureOrgDirectory)
        defer { process.terminate(); process.waitUntilExit() }
        let client = try await benchLogin(url)
        guard let token = try await client.tokens.accessToken() else { return }
        let seconds = Double(env("BENCH_CURSOR_SECONDS", 20))
        let modern = await cursorRun(url: url, token: token, version: "v66.0", clients: 80, seconds: seconds)
        let old = await cursorRun(url: url, token: token, version: "v55.0", clients: 80, seconds: seconds)
        print("sf-simulator cursors: 80 concurrent clients of one user, each paging a 1,000-row query by 200, \(Int(seconds)) s per version")
        print(String(format: "  baseline  v55.0 (10 cursors a user):  %6.0f pages/s, %6d INVALID_QUERY_LOCATOR, %d other errors",
                     Double(old.pages) / seconds, old.invalidLocator, old.otherErrors))
        print(String(format: "  measured  v66.0 (no cursor limit):     %6.0f pages/s, %6d INVALID_QUERY_LOCATOR, %d other errors   ratio %.2fx pages/s",
                     Double(modern.pages) / seconds, modern.invalidLocator, modern.otherErrors, Double(modern.pages) / max(1, Double(old.pages))))
        print("  server peak RSS: \(processMemory(process.processIdentifier).hwm / 1024) MiB")
        print("")
    }

    // 2. query_all of 100,000 contacts over REST.
    do {
        let rows = env("BENCH_QUERY_ALL_ROWS", 100_000)
        let data = try grownFixture(in: work.appendingPathComponent("qa"), contacts: rows)
        let t0 = Date()
        let (process, url) = try startSimulator(data: data)
        defer { process.terminate(); process.waitUntilExit() }
        let seeded = Date().timeIntervalSince(t0)
        let idle = processMemory(process.processIdentifier).rss
        let client = try await benchLogin(url)
        let soql = "SELECT Id, FirstName, LastName, Email, Title, LastModifiedDate FROM Contact ORDER BY LastModifiedDate"
        var full: [Double] = [], onePage: [Double] = []
        for _ in 0..<3 {
            var t = Date()
            var response = try await client.send(.query(soql))
            var count = 0
            while true {
                let body = try response.value()
                count += body["records"]?.arrayValue?.count ?? 0
                guard let next = body["nextRecordsUrl"]?.stringValue else { break }
                response = try await client.send(.queryMore(next))
            }
            precondition(count == rows, "query_all read \(count) of \(rows)")
            full.append(Double(count) / Date().timeIntervalSince(t))
            // Baseline: the first 2,000 rows as one page, no cursor, 20 times.
            t = Date()
            for _ in 0..<20 { _ = try await client.send(.query(soql + " LIMIT 2000")).value() }
            onePage.append(40_000 / Date().timeIntervalSince(t))
        }
        let memory = processMemory(process.processIdentifier)
        print("sf-simulator query_all of \(rows) contacts over REST (pages of 2,000; 3 rounds, medians); seeded in \(String(format: "%.1f", seeded)) s")
        print(String(format: "  baseline  one 2,000-row page, no cursor:    %8.0f records/s", median(onePage)))
        print(String(format: "  measured  query + queryMore through a cursor: %8.0f records/s   ratio %.2fx", median(full), median(full) / median(onePage)))
        print("  server RSS: \(idle / 1024) MiB after seeding, peak \(memory.hwm / 1024) MiB")
        print("")
    }

    // 3. Sync down of 1,000,000 rows into SmartStore, the app's RSS sampled as it goes.
    do {
        let rows = env("BENCH_SYNC_ROWS", 1_000_000)
        let data = try grownFixture(in: work.appendingPathComponent("sync"), contacts: rows)
        let t0 = Date()
        // The org on disk (--state), as a million-row org would be: in memory it would be the server's RSS.
        let (process, url) = try startSimulator(data: data, state: work.appendingPathComponent("million-org.sqlite"))
        defer { process.terminate(); process.waitUntilExit() }
        let seeded = Date().timeIntervalSince(t0)
        let client = try await benchLogin(url)
        let store = try SmartStore(url: work.appendingPathComponent("million.sqlite"), name: "million")
        try store.registerSoup("contacts", indexSpecs: ["Id", "LastName", "__local__"].map { IndexSpec(path: $0, type: .string) })
        let manager = try SyncManager.sharedInstance(for: store, client: client)
        let me = getpid()
        let before = processMemory(me).rss
        let samples = SampleBox()
        let sampler = Task {
            while !Task.isCancelled {
                samples.add(Date(), processMemory(me).rss)
                try? await Task.sleep(nanoseconds: 250_000_000)
            }
        }
        let start = Date()
        let sync = try await manager.syncDown(
            target: SoqlSyncDownTarget(query: "SELECT FirstName, LastName, Title, Email FROM Contact", maxBatchSize: 2000), soupName: "contacts")
        let elapsed = Date().timeIntervalSince(start)
        sampler.cancel()
        let synced = try store.count(.all(soup: "contacts"))
        precondition(sync.status == .done && synced == rows, "synced \(synced) of \(rows)")
        let series = samples.values
        func at(_ fraction: Double) -> Int {
            let t = start.addingTimeInterval(elapsed * fraction)
            return series.min { abs($0.0.timeIntervalSince(t)) < abs($1.0.timeIntervalSince(t)) }?.1 ?? 0
        }
        print("Mobile Sync: sync down of \(rows) contacts (pages of 2,000) into SmartStore; org (--state on disk) seeded in \(String(format: "%.0f", seeded)) s")
        print(String(format: "  measured  %.1f s, %.0f records/s; server peak RSS %d MiB", elapsed, Double(rows) / elapsed, processMemory(process.processIdentifier).hwm / 1024))
        print("  app RSS (MiB) before and at 25/50/75/100% of the sync: \(before / 1024) | \(at(0.25) / 1024) \(at(0.5) / 1024) \(at(0.75) / 1024) \(at(1.0) / 1024)"
              + String(format: "   ratio 100%%/25%% %.2fx (flat = about 1)", Double(at(1.0)) / Double(max(1, at(0.25)))))
        SyncManager.removeSharedInstance(for: store)
    }
}

final class SampleBox: @unchecked Sendable {
    private let lock = NSLock()
    private var samples: [(Date, Int)] = []
    func add(_ t: Date, _ v: Int) { lock.withLock { samples.append((t, v)) } }
    var values: [(Date, Int)] { lock.withLock { samples } }
}
