import AppGroup
import ArgumentParser
import Foundation
import Keychain
import SchedulePoints
import SmartStoreEngine
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine

#if canImport(Glibc)
import Glibc
#endif

/// Drives the platform layer from a separate process, for the multi-process tests and the benchmark.
/// Not part of the user-facing contract.
@main
struct Probe: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "appgroupsim-probe",
        abstract: "Test and benchmark support: exercises SharedDefaults and the keychain from a separate process.",
        subcommands: [WriteKeys.self, ReadKey.self, LaunchReport.self, Increment.self, WriteForever.self, Watch.self, SetSequence.self, KeychainCheck.self, StoreReadMRU.self, SyncDown.self])
}

extension Probe {
    /// As the actors' executables: under an explorer the process may be a fork server first (`ForkServer`).
    static func main() async {
        ForkServer.serveIfAsked()
        await main(nil)
    }
}

func line(_ s: String) {
    FileHandle.standardOutput.write(Data((s + "\n").utf8))
}

func monotonicNanos() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

struct WriteKeys: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Set COUNT distinct keys PREFIX0… one write each (or COUNT writes over KEYS keys: PREFIX<i % KEYS> = i).")
    @Option(help: "The plist file.") var file: String
    @Option(help: "Key prefix.") var prefix: String
    @Option(help: "How many keys.") var count: Int
    @Option(help: "Wait until this file exists before starting, so writers start together.") var startFile: String?
    @Flag(help: "Baseline: Foundation's UserDefaults with synchronize() and no lock.") var foundation = false
    @Option(help: "Cycle over this many keys instead of writing COUNT distinct ones.") var keys: Int?

    func run() throws {
        if let startFile { while !FileManager.default.fileExists(atPath: startFile) { usleep(1000) } }
        let t0 = monotonicNanos()
        if foundation {
            // An absolute suite name makes Foundation on Linux write `<name>.plist`.
            guard let defaults = UserDefaults(suiteName: String(file.dropLast(".plist".count))) else {
                throw ValidationError("cannot open UserDefaults for \(file)")
            }
            for i in 0..<count {
                defaults.set(i, forKey: "\(prefix)\(i % (keys ?? count))")
                defaults.synchronize()
            }
        } else {
            let suite = SharedDefaults(url: URL(fileURLWithPath: file))
            for i in 0..<count { try suite.set(.int(i), forKey: "\(prefix)\(i % (keys ?? count))") }
        }
        line("wrote \(count) in \(monotonicNanos() - t0) ns")
    }
}

struct ReadKey: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Read KEY TIMES times through one SharedDefaults; print the last value.")
    @Option(help: "The plist file.") var file: String
    @Option(help: "The key.") var key: String
    @Option(help: "How many reads.") var times: Int = 1

    func run() throws {
        let suite = SharedDefaults(url: URL(fileURLWithPath: file))
        var last: PlistValue?
        for _ in 0..<times { last = try suite.value(forKey: key) }
        line(last.map { "\($0)" } ?? "nil")
    }
}

struct LaunchReport: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print what this process was started with (its arguments, its environment's names, where its output goes), then read KEY once.")
    @Option(help: "The plist file.") var file: String
    @Option(help: "The key.") var key: String

    func run() throws {
        line("arguments: " + CommandLine.arguments.dropFirst().joined(separator: "|"))
        line("environment: " + ProcessInfo.processInfo.environment.keys.sorted().joined(separator: ","))
        line("APPGROUPSIM_PROBE_VALUE=" + (ProcessInfo.processInfo.environment["APPGROUPSIM_PROBE_VALUE"] ?? "nil"))
        line("stdin: " + ((try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/0")) ?? "closed"))
        let value = try SharedDefaults(url: URL(fileURLWithPath: file)).value(forKey: key)
        line("\(key): " + (value.map { "\($0)" } ?? "nil"))
    }
}

struct Increment: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Increment KEY TIMES times through the transaction API.")
    @Option(help: "The plist file.") var file: String
    @Option(help: "The key.") var key: String
    @Option(help: "How many increments.") var times: Int
    @Option(help: "Wait until this file exists before starting.") var startFile: String?

    func run() throws {
        if let startFile { while !FileManager.default.fileExists(atPath: startFile) { usleep(1000) } }
        let suite = SharedDefaults(url: URL(fileURLWithPath: file))
        for _ in 0..<times {
            try suite.update(key) { value in value = .int((value?.intValue ?? 0) + 1) }
        }
        line("incremented \(times)")
    }
}

struct WriteForever: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Write ever larger values until killed; prints 'writing' after the first write.")
    @Option(help: "The plist file.") var file: String

    func run() throws {
        let suite = SharedDefaults(url: URL(fileURLWithPath: file))
        var i = 0
        while true {
            try suite.set(.string(String(repeating: "x", count: 64 + i % 4096)), forKey: "k\(i % 300)")
            if i == 0 { line("writing") }
            i += 1
        }
    }
}

struct Watch: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Observe KEY; print 'ready', then '<value> <CLOCK_MONOTONIC ns>' per change, until COUNT changes.")
    @Option(help: "The plist file.") var file: String
    @Option(help: "The key.") var key: String
    @Option(help: "Stop after this many changes.") var count: Int = 1

    func run() throws {
        let suite = SharedDefaults(url: URL(fileURLWithPath: file))
        let done = DispatchSemaphore(value: 0)
        let seen = Counter()
        let observation = try suite.observe(key) { value in
            line("\(value.map(String.init(describing:)) ?? "nil") \(monotonicNanos())")
            if seen.increment() == count { done.signal() }
        }
        line(observation.usesInotify ? "ready inotify" : "ready polling")
        done.wait()
        observation.cancel()
    }
}

struct SetSequence: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Set KEY to 1…COUNT, INTERVAL ms apart; print '<value> <CLOCK_MONOTONIC ns before the write>' per write.")
    @Option(help: "The plist file.") var file: String
    @Option(help: "The key.") var key: String
    @Option(help: "How many writes.") var count: Int
    @Option(help: "Milliseconds between writes.") var intervalMs: Int = 50

    func run() throws {
        let suite = SharedDefaults(url: URL(fileURLWithPath: file))
        for i in 1...count {
            let t = monotonicNanos()
            try suite.set(.int(i), forKey: key)
            line("\(i) \(t)")
            usleep(useconds_t(intervalMs * 1000))
        }
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func increment() -> Int { lock.withLock { n += 1; return n } }
}

struct KeychainCheck: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain",
        abstract: "Report the keychain's availability as JSON; with --write-then-lock, store an item, lock the collection and read it back.")
    @Option(help: "Device id attribute.") var device: String = UUID().uuidString
    @Flag(help: "Store an item, lock the default collection, then read.") var writeThenLock = false

    struct Report: Codable {
        var availability: String
        var status: Int32
        var message: String?
        var readAfterLock: Int32?
        var readAfterLockMessage: String?
    }

    func run() async throws {
        let store = LibsecretStore()
        let keychain = KeychainHelper(store: store, deviceID: device, accessGroups: ["SIMTEAM001.probe"])
        let status = await keychain.status()
        var report = Report(availability: "\(store.availability())", status: status.status.rawValue, message: status.error?.message)
        if writeThenLock {
            let written = await keychain.write(Array("probe-value".utf8), service: "probe")
            guard written.success else { throw ValidationError("write failed: \(written.status)") }
            try store.lockDefaultCollection()
            let read = await keychain.read(service: "probe")
            report.availability = "\(store.availability())"
            report.readAfterLock = read.status.rawValue
            report.readAfterLockMessage = read.error?.message
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        line(String(decoding: try encoder.encode(report), as: UTF8.self))
    }
}

struct StoreReadMRU: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "store-read-mru",
        abstract: "Read the MRU contacts TIMES times while another process writes; report partial batches and errors.",
        discussion: "Prints 'ready' once the store is open, then 'reads=N errors=N partial=N distinctCounts=N'.")
    @Option(help: "The store.sqlite file.") var db: String
    @Option(help: "How many reads.") var times: Int
    @Option(help: "The writer's batch size: every count seen must be a multiple of it.") var batch: Int

    func run() throws {
        // Read-only, as the widget opens it.
        let store = try SmartStore(url: URL(fileURLWithPath: db), name: "reader", readOnly: true)
        line("ready")
        // One statement is one snapshot: the count and the newest entry come from the same state.
        let mru = QuerySpec.smart(
            """
            SELECT {contacts:_soupEntryId}, (SELECT count(*) FROM {contacts}), {contacts:_soup} FROM {contacts}
            ORDER BY {contacts:_soupLastModifiedDate} DESC, {contacts:_soupEntryId} DESC
            """, pageSize: 3)
        var errors = 0, partial = 0, reads = 0
        var counts = Set<Int64>()
        var waitedForFirst = 0
        while reads < times {
            do {
                let rows = try store.query(mru)
                let count = rows.first?.arrayValue?[1].intValue ?? 0
                if count == 0 && waitedForFirst < 20_000 {
                    waitedForFirst += 1
                    usleep(200)
                    continue
                }
                reads += 1
                counts.insert(count)
                let newest = rows.first?.arrayValue?[0].intValue ?? 0
                if count % Int64(batch) != 0 || newest != count || rows.count != min(3, Int(count)) { partial += 1 }
            } catch {
                errors += 1
                reads += 1
                FileHandle.standardError.write(Data("read failed: \(error)\n".utf8))
            }
            usleep(500)
        }
        line("reads=\(reads) errors=\(errors) partial=\(partial) distinctCounts=\(counts.count)")
    }
}

struct SyncDown: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync-down",
        abstract: "Log in and run (or resume) the named contacts sync down into STORE; print each progress step.")
    @Option(help: "The org's URL.") var org: String
    @Option(help: "The store.sqlite file.") var store: String
    @Option(help: "The sync's name.") var name: String = "syncDownContacts"
    @Option(help: "Records per page (200-2,000).") var batchSize: Int = 200

    func run() async throws {
        guard let url = URL(string: org) else { throw ValidationError("bad --org") }
        let keychain = KeychainHelper(store: InMemorySecretStore(), deviceID: "probe", accessGroups: ["probe"])
        let credentials = try await OAuthLogin.login(
            loginHost: url, app: .init(clientId: "3MVG9AppGroupSim.MobileSyncExplorer.Sample", redirectURI: "testsfdc:///mobilesdk/detect/oauth/done", scopes: ["api"]),
            username: "alice@acme.test", password: "alice-pass", keychain: keychain)
        let client = RestClient(credentials: credentials, tokens: TokenStore(keychain: keychain, account: credentials.keychainAccount))
        let smartStore = try SmartStore(url: URL(fileURLWithPath: store), name: "probe")
        try smartStore.registerSoup("contacts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "__local__", type: .string)])
        let manager = try SyncManager.sharedInstance(for: smartStore, client: client)
        let report: SyncManager.Progress = { line("\($0.status.rawValue) \($0.progress)") }
        let result: SyncState
        if try manager.syncStatus(name: name) != nil {
            result = try await manager.reSync(name: name, progress: report)
        } else {
            result = try await manager.syncDown(
                target: SoqlSyncDownTarget(query: "SELECT FirstName, LastName FROM Contact", maxBatchSize: batchSize), soupName: "contacts",
                name: name, progress: report)
        }
        line("final \(result.status.rawValue)")
    }
}
