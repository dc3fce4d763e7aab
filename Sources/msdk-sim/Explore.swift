import ArgumentParser
import Diagnostics
import Exploring
import Foundation
import OrgSimulator

struct Explore: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find the app's data-sharing bugs: run the app, its widget and its notification extension under a seeded scheduler with device and org events, and check invariants.",
        discussion: """
            Every run gets a fresh device and its own org (sf-simulator's server, in this process); runs go one per core and one more (--jobs). The keychain is \
            the explorer's own, in memory (--keychain), and every schedule reported is first replayed on the real \
            Secret Service, in a private keyring as msdk-sim scenario uses. Each keychain operation, file access in \
            the containers and store transaction of the real binaries is a point where the scheduler may switch processes, lock, unlock or reboot the device, take the org offline, expire \
            tokens, or kill a process where it stands. A run is a function of its seed. A broken invariant is shrunk to \
            the fewest steps that still break it, replayed, and printed step by step. Exit status: 0 no invariant \
            broke, 10 one did (docs/explore.md).
            """)

    @Option(help: "The app bundle (default: Fixtures/MobileSyncExplorer/MobileSyncExplorer.app of this checkout).") var app: String?
    @Option(help: "Runs to explore.") var runs = 100
    @Option(help: "Steps per run.") var steps = 20
    @Option(help: "The exploration's seed (each run's seed is derived from it).") var seed: UInt64 = 1
    @Flag(help: "Print one JSON object (its violations array has each broken invariant and its steps).") var json = false
    @Option(help: "Write the first broken invariant's shrunk schedule to this file (for --replay).") var out: String?
    @Option(help: "Run the schedule of this file (written by --out) again, and print it step by step.") var replay: String?
    @Option(help: "Write the timeline (Chrome Trace Event JSON, one track per actor; Perfetto opens it) of the first violation's schedule, or of --replay's.") var trace: String?
    @Flag(help: "Run the app with --sdk-recovery: the SDK's rules delete what they cannot read (data-deleted is then not checked).") var sdkRecovery = false
    @Option(help: "The org's definition (default: the Fixtures/org beside the bundle's fixtures).") var orgData: String?
    @Flag(inversion: .prefixedNo, help: "Swarm testing: each run offers a random half of the optional kinds of step (the widget, a push, lock, reboot, reinstall, restore, the org offline, expired tokens, logout, switch-user, view, kill), drawn from its seed; --no-swarm offers every kind in every run.") var swarm = true
    @Option(help: "Start every run from this device (a directory made by main-app --device or msdk-sim device) instead of a new one: its files and apps, restored to a new phone as a backup is, without its keychain items (they stay in the keyring they were made in).") var deviceTemplate: String?
    @Option(help: "Contacts per org (each run's first sync fetches them all).") var contacts = 25
    @Option(help: "Runs explored at once (default: the machine's cores and one more). Each run is a function of its seed whatever runs beside it.") var jobs: Int?
    @Option(help: ArgumentHelp(
        "The keychain the runs use: memory (the default: the explorer's own, faster; each violation is replayed on the Secret Service before it is reported) or secret-service. --replay runs on the Secret Service unless given --keychain memory (to look at a run that broke only in memory, listed in --json's memoryOnlyRuns).",
        valueName: "memory|secret-service"))
    var keychain: String?

    func validate() throws {
        guard runs > 0, runs <= 1_000_000 else { throw ValidationError("--runs must be from 1 to 1000000") }
        guard steps > 0, steps <= 10_000 else { throw ValidationError("--steps must be from 1 to 10000") }
        guard contacts >= 0, contacts <= 100_000 else { throw ValidationError("--contacts must be from 0 to 100000") }
        if let jobs, jobs < 1 || jobs > 64 { throw ValidationError("--jobs must be from 1 to 64") }
        guard keychain.map({ ["memory", "secret-service"].contains($0) }) ?? true else { throw ValidationError("--keychain must be memory or secret-service") }
    }

    func run() throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().standardizedFileURL
        guard ProcessInfo.processInfo.environment[Scenario.innerKey] == "1" else {
            return try Scenario.reexecInPrivateKeyring(executable, sessionTemporaryFiles: true, root: Explorer.scratchRoot(deviceTemplate: deviceTemplate))
        }
        guard let bundle = app.map({ URL(fileURLWithPath: $0) }) ?? Scenario.findFixture(from: executable) else {
            throw Failure("cannot find Fixtures/MobileSyncExplorer/MobileSyncExplorer.app; pass --app")
        }
        let org = orgData.map { URL(fileURLWithPath: $0) } ?? Self.findOrg(near: bundle, executable: executable)
        guard let org else { throw Failure("cannot find the org's definition (Fixtures/org); pass --org-data DIR") }
        var options = Explorer.Options(app: bundle, bin: executable.deletingLastPathComponent(), orgData: org)
        options.runs = runs
        options.steps = steps
        options.seed = seed
        options.sdkRecovery = sdkRecovery
        options.contacts = contacts
        options.memoryKeychain = (keychain ?? "memory") == "memory"
        options.swarm = swarm
        options.deviceTemplate = deviceTemplate.map { URL(fileURLWithPath: $0) }
        // One run per core leaves about a fifth of the cores idle (each run waits on its actors at every schedule
        // point: 1.54 of 2 cores busy); one run more keeps them busy: 4.47 -> 4.84 runs/s on 2 cores, medians of 5
        // interleaved rounds of the sample's 80 runs (release, 2026-12-04); 4 at once did no better than 3.
        options.jobs = jobs ?? ProcessInfo.processInfo.activeProcessorCount + 1
        options.embeddedOrg = EmbeddedOrgStarter { data, state in
            let org = try EmbeddedOrg.startWaiting(.init(port: 0, dataDirectory: data, stateFile: state))
            return (org.url, org.adminToken, org.stopWaiting)
        }
        let explorer: Explorer
        do { explorer = try Explorer(options) } catch let error as ExploreError { throw Failure("\(error)") }
        defer { explorer.close() }
        do {
            if let replay { return try self.replay(explorer, URL(fileURLWithPath: replay)) }
            try explore(explorer)
        } catch let error as ExploreError { throw Failure("\(error)") }
    }

    private func explore(_ explorer: Explorer) throws {
        let summary = try explorer.explore { line in
            if !json {
                FileHandle.standardError.write(Data("explore: \(line)\n".utf8))
            }
        }
        if let first = summary.violations.first {
            let schedule = ExploreSchedule(
                invariant: first.invariant, seed: first.seed, run: first.run, sdkRecovery: sdkRecovery, steps: first.steps,
                deviceTemplate: deviceTemplate, deviceTemplateFingerprint: explorer.deviceTemplateFingerprint)
            if let out { try schedule.write(to: URL(fileURLWithPath: out)) }
            if let trace { try explorer.replay(first.steps).trace.write(to: URL(fileURLWithPath: trace)) }
        }
        if json {
            print(ExploreReport.json(
                summary, seed: seed, sdkRecovery: sdkRecovery,
                template: deviceTemplate.flatMap { path in explorer.deviceTemplateFingerprint.map { (path, $0) } }))
        } else {
            print(ExploreReport.text(summary, seed: seed, out: out))
        }
        if !summary.violations.isEmpty { throw ExitCode(10) }
    }

    private func replay(_ explorer: Explorer, _ file: URL) throws {
        let schedule = try ExploreSchedule.load(file)
        guard schedule.sdkRecovery == sdkRecovery else {
            throw Failure("\(file.path) was written \(schedule.sdkRecovery ? "with" : "without") --sdk-recovery; run --replay \(schedule.sdkRecovery ? "with" : "without") it")
        }
        switch (schedule.deviceTemplate, deviceTemplate) {
        case (nil, nil): break
        case (let written?, nil):
            throw Failure("\(file.path) was written with --device-template \(written); run --replay with it")
        case (nil, let given?):
            throw Failure("\(file.path) was written without --device-template; run --replay without --device-template \(given)")
        case (_?, _?):
            guard schedule.deviceTemplateFingerprint == explorer.deviceTemplateFingerprint else {
                throw Failure("--device-template \(deviceTemplate ?? "") holds other files or apps than the template \(file.path) was written with; replay it with that device")
            }
        }
        let inMemory = keychain == "memory"
        let result = try explorer.replay(schedule.steps, real: !inMemory)
        if let trace { try result.trace.write(to: URL(fileURLWithPath: trace)) }
        if json {
            print(ExploreReport.json(replay: result, schedule: schedule, keychain: inMemory ? "memory" : "secret-service"))
        } else {
            print("replay of \(file.path): \(schedule.steps.count) steps\(schedule.invariant.map { ", written for \($0)" } ?? "")\(inMemory ? ", with the in-memory keychain" : "")")
            for line in result.narrative { print(line) }
            let names = result.violations.map(\.invariant)
            print(names.isEmpty ? "no invariant broke" : "broken: \(Array(Set(names)).sorted().joined(separator: ", "))")
        }
        if !result.violations.isEmpty { throw ExitCode(10) }
    }

    /// `Fixtures/org` beside the bundle's fixture folder, else this checkout's.
    static func findOrg(near bundle: URL, executable: URL) -> URL? {
        var candidates = [bundle.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("org")]
        if let fixture = Scenario.findFixture(from: executable) {
            candidates.append(fixture.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("org"))
        }
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("orgs.json").path) }
    }
}
