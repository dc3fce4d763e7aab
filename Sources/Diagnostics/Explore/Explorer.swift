import AppGroup
import CoreEngine
import Exploring
import Foundation
import Keychain
#if canImport(Glibc)
import Glibc
#endif

/// `msdk-sim explore` (issue 38): runs an app, its widget and its notification service extension as real
/// processes on a fresh simulated device with a real org (sf-simulator), under a scheduler that owns every point
/// where they meet (`SchedulePoint`: keychain operations, file reads and writes in the containers, store
/// transactions). At each step the scheduler, driven by a seeded generator, starts an action, lets a stopped
/// process go on to its next point, kills one where it stands, or changes the device (lock, unlock, reboot) or
/// the org (offline, online, tokens expired). Built-in invariants are checked as the run goes and at its end;
/// a run that breaks one is shrunk to the fewest steps that still break it, and written as a schedule that
/// `--replay` runs again.
package final class Explorer: @unchecked Sendable {
    package struct Options: Sendable {
        package var app: URL
        package var bin: URL
        package var orgData: URL
        package var runs = 100
        package var steps = 20
        package var seed: UInt64 = 1
        package var sdkRecovery = false
        /// Contacts per org (the fixture's count is capped to this): every run syncs them all down.
        package var contacts = 25
        /// Replays tried while shrinking one violation.
        package var shrinkBudget = 80
        /// Runs explored at once (each on its own device with its own org; a run is a function of its seed
        /// whatever runs beside it).
        package var jobs = 1
        /// Explore (and shrink) with the explorer's in-memory keychain instead of the Secret Service; every
        /// violation is then replayed on the Secret Service before it is reported, and `--replay` always runs there.
        package var memoryKeychain = false
        /// Each generated run offers a random half of the optional kinds of step (`Swarm`); off: every kind in
        /// every run, as the explorer chose before swarm testing (the baseline the figures are measured against).
        package var swarm = true
        /// A device every run starts from instead of a new one (`--device-template`): its files and apps, restored
        /// to a new phone as a backup is, without keychain items.
        package var deviceTemplate: URL?
        /// Each run's org served in this process (given by msdk-sim, which links the org) instead of an
        /// sf-simulator process each run: the same server on its own port and state file, without a process's
        /// start (about a tenth of a run's processor time). Nil: sf-simulator processes from `bin`.
        package var embeddedOrg: EmbeddedOrgStarter?

        package init(app: URL, bin: URL, orgData: URL) {
            self.app = app
            self.bin = bin
            self.orgData = orgData
        }
    }

    /// One invariant broken in one run.
    package struct Violation: Sendable {
        package var invariant: String
        package var message: String
        package var run: Int?
        package var seed: UInt64?
        /// The schedule that breaks it (shrunk when it came from exploring).
        package var steps: [ExploreStep]
        /// The run of `steps`, step by step: what each actor did and what the invariant saw.
        package var narrative: [String]
        package var stepsBeforeShrinking: Int
        /// Replays of the shrunk schedule that broke the invariant again, of those tried.
        package var replayed: (broke: Int, of: Int)
    }

    package struct Summary: Sendable {
        package var runs: Int
        package var stepsPerRun: Int
        package var seconds: Double
        package var distinctSchedules: Int
        package var coveredTriples: Int
        package var possibleTriples: Int
        package var violations: [Violation]
        /// The keychain the runs used: `memory` (the explorer's) or `secret-service`. Replays are on the Secret Service.
        package var keychain = "secret-service"
        /// Violations that only the in-memory keychain gave, which the Secret Service did not confirm (not reported
        /// as found): each with its run, its seed and the run's whole schedule, so that it can be replayed on
        /// either keychain.
        package var unconfirmed: [Violation] = []
        package var memoryOnly: Int { unconfirmed.count }
        package var runsPerSecond: Double { seconds > 0 ? Double(runs) / seconds : 0 }
    }

    /// The built-in invariants, by name (docs/explore.md).
    package static let invariants: [(name: String, meaning: String)] = [
        ("widget-shows-other-user", "the widget never shows the data of a user who was not the current user while it ran"),
        ("secret-exposed", "no token of the keychain is in any file of the device or in any output"),
        ("actor-crashed", "no process ends by a signal the explorer did not send"),
        ("actor-hung", "no process stops for 30 s without reaching a point or ending"),
        ("data-deleted", "no account file is deleted except by a logout (not checked under --sdk-recovery, whose rules delete)"),
        ("logged-out-without-logout", "a user who logged in and did not log out is still logged in once the device is unlocked and the app relaunched"),
        ("extension-sees-no-user", "at the run's end, with the device unlocked, nothing running and a user logged in, the widget lists that user's data and the notification service extension decrypts a push to them"),
        ("edit-lost", "every contact the app acknowledged reaches the org by the end of the run, after the explorer's final sync"),
        ("edit-duplicated", "every contact the app created once is at the org once after the final sync"),
        ("orphaned-session", "once the app is relaunched at the run's end, no session's tokens stay in the keychain, accepted by the org, that no account on the device uses (what a previous install leaves: keychain values outlive the app)"),
    ]

    let options: Options
    let bundle: ExploredBundle
    let users: [ExploredUser]
    let session: URL
    let orgDirectory: URL
    /// The org seeded once (a SQLite state file); each run's org is a copy of it.
    let orgTemplate: URL
    /// With `--device-template`: the template's backup, made once, that each run restores to its device, and the
    /// fingerprint of the template's files and apps.
    let deviceBackup: URL?
    package let deviceTemplateFingerprint: String?
    /// The org started ahead for the next run (shrinking and replays; each worker of `explore` has its own).
    private let orgs = OrgSupply()
    /// The devices' push keys, made once for the whole exploration (`PushKeyPool`).
    let pushKeys = PushKeyPool()

    package init(_ options: Options) throws {
        self.options = options
        bundle = try ExploredBundle(options.app)
        users = try ExploredUser.load(orgData: options.orgData)
        for tool in ["main-app", "extension-widget", "extension-notification"] + (options.embeddedOrg == nil ? ["sf-simulator"] : [])
        where !FileManager.default.isExecutableFile(atPath: options.bin.appendingPathComponent(tool).path) {
            throw ExploreError.setup("\(tool) is not in \(options.bin.path); build it with swift build")
        }
        let session = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-explore-\(UUID().uuidString.prefix(8))")
        self.session = session
        try SecureFiles.makeDirectory(session)
        // An explorer that cannot start leaves nothing behind (it is never made, so nobody could close it).
        do {
            orgDirectory = session.appendingPathComponent("org")
            try Self.copyOrg(options.orgData, to: orgDirectory, contacts: options.contacts)
            orgTemplate = session.appendingPathComponent("org-template.sqlite")
            if let template = options.deviceTemplate {
                (deviceBackup, deviceTemplateFingerprint) = try Self.backUpTemplate(template, to: session.appendingPathComponent("device-template.backup"))
            } else {
                (deviceBackup, deviceTemplateFingerprint) = (nil, nil)
            }
            do {
                try RunningOrg.seedTemplate(bin: options.bin, data: orgDirectory, template: orgTemplate, embedded: options.embeddedOrg)
            } catch {
                // The org reads the exploration's copy of the definition; the user knows theirs.
                let said = "\(error)".replacingOccurrences(of: orgDirectory.path, with: options.orgData.path)
                throw ExploreError.setup("the org of \(options.orgData.path) cannot start (\(said)); check it with sf-simulator --data \(options.orgData.path)")
            }
        } catch {
            try? FileManager.default.removeItem(at: session)
            throw error
        }
    }

    /// The template device's backup, as `msdk-sim device backup` takes one, except that no keychain item comes
    /// along: the template's items are in the keyring it was made in, and the explorer's keyring is its own (no
    /// secret ever leaves a keyring). Each run is then a new phone restored from the template, as a restore of
    /// the SDK's default class (`…ThisDeviceOnly`) carries no token and no key.
    static func backUpTemplate(_ template: URL, to file: URL) throws -> (URL, String) {
        guard FileManager.default.fileExists(atPath: template.appendingPathComponent("device.json").path) else {
            throw ExploreError.setup(
                "--device-template \(template.path) is not a device (it has no device.json); make one with main-app --device DIR or msdk-sim device install --device DIR")
        }
        do {
            let device = try Device.open(at: template)
            let empty = InMemorySecretStore()
            _ = try DeviceBackup.backup(device, store: empty, to: file)
            return (file, try DeviceBackup.fingerprint(device))
        } catch let error as DeviceBackup.Failure {
            throw ExploreError.setup("--device-template \(template.path): \(error.description)")
        } catch {
            throw ExploreError.setup("--device-template \(template.path) cannot be read: \(error)")
        }
    }

    deinit { close() }

    private let closing = NSLock()
    private var closed = false

    /// Stops the org kept for replays and removes the exploration's directory (its orgs' template and copies).
    /// `msdk-sim explore` calls it when it is done instead of leaving it to `deinit` alone: a worker thread may
    /// hold the explorer a moment after the last run, and a process that exits then never runs `deinit`, which
    /// left about one directory in four in the temporary directory.
    package func close() {
        guard closing.withLock({ () -> Bool in
            defer { closed = true }
            return !closed
        }) else { return }
        orgs.stop()
        try? FileManager.default.removeItem(at: session)
    }

    // MARK: Exploring

    /// Runs `options.runs` seeded runs, `options.jobs` at a time; each violated invariant is reported once (its
    /// first run, in the runs' order whatever order they end in), shrunk and replayed `replays` times. `progress`
    /// gets a line now and then.
    package func explore(replays: Int = 3, progress: (String) -> Void = { _ in }) throws -> Summary {
        let started = Date()
        var schedules = Set<[ExploreStep]>()
        var triples = Set<String>()
        var found: [String: Violation] = [:]
        var order: [String] = []
        // Violations seen with the in-memory keychain that did not break on the Secret Service.
        var unconfirmed: [Violation] = []
        let feed = RunFeed(runs: options.runs)
        let workers = DispatchGroup()
        for _ in 0..<max(1, min(options.jobs, options.runs)) {
            workers.enter()
            Thread.detachNewThread { [self] in
                defer { workers.leave() }
                let supply = OrgSupply()
                defer { supply.stop() }
                while let index = feed.take() {
                    let seed = SeededChoices.runSeed(options.seed, index)
                    // What the ordered pass below needs of a run; its narrative and trace are made again by replays.
                    feed.put(index, Result { () throws -> RunResult in
                        var run = try execute(.generate(seed: seed, steps: options.steps), real: !options.memoryKeychain, orgs: supply, trace: false)
                        run.narrative = []
                        return run
                    })
                }
            }
        }
        defer {
            feed.cancel()
            workers.wait()
        }
        for index in 0..<options.runs {
            let seed = SeededChoices.runSeed(options.seed, index)
            let run = try feed.result(index).get()
            schedules.insert(run.steps)
            triples.formUnion(run.triples)
            for v in run.violations where found[v.invariant] == nil && unconfirmed.count(where: { $0.invariant == v.invariant }) < 3 {
                progress("run \(index + 1) (seed \(seed)): \(v.invariant) -- \(v.message); shrinking \(run.steps.count) steps")
                var violation = try shrink(run.steps, invariant: v.invariant, atStep: v.step, real: !options.memoryKeychain)
                violation.replayed = try replay(violation.steps, invariant: v.invariant, times: replays)
                if options.memoryKeychain, violation.replayed.broke == 0 {
                    // Shrunk with the in-memory keychain, the schedule does not break it on the Secret Service.
                    guard try replay(run.steps).violations.contains(where: { $0.invariant == v.invariant }) else {
                        // Not a finding: only the in-memory keychain gave it. Counted, and the invariant stays
                        // open to later runs.
                        unconfirmed.append(Violation(
                            invariant: v.invariant, message: v.message, run: index + 1, seed: seed, steps: run.steps, narrative: [],
                            stepsBeforeShrinking: run.steps.count, replayed: (0, 1)))
                        progress("run \(index + 1): \(v.invariant) broke only with the in-memory keychain; on the Secret Service the run holds, so it is not reported")
                        continue
                    }
                    violation = try shrink(run.steps, invariant: v.invariant, atStep: v.step, real: true)
                    violation.replayed = try replay(violation.steps, invariant: v.invariant, times: replays)
                }
                violation.run = index + 1
                violation.seed = seed
                violation.stepsBeforeShrinking = run.steps.count
                found[v.invariant] = violation
                order.append(v.invariant)
            }
            if (index + 1) % 10 == 0 { progress("\(index + 1) runs, \(found.count) invariant(s) broken") }
        }
        let seconds = Date().timeIntervalSince(started)
        return Summary(
            runs: options.runs, stepsPerRun: options.steps, seconds: seconds, distinctSchedules: schedules.count,
            coveredTriples: triples.count, possibleTriples: Self.possibleTriples(bundle), violations: order.compactMap { found[$0] },
            keychain: options.memoryKeychain ? "memory" : "secret-service", unconfirmed: unconfirmed)
    }

    /// One run of `steps` steps chosen from `seed`, as `explore` runs each (for a test of determinism).
    package func run(seed: UInt64, steps: Int) throws -> RunResult {
        try execute(.generate(seed: seed, steps: steps), real: !options.memoryKeychain)
    }

    /// Runs `steps` again, on the Secret Service (`real`) or with the in-memory keychain; the invariants it
    /// breaks, with the narrative and the trace.
    package func replay(_ steps: [ExploreStep], real: Bool = true) throws -> RunResult {
        try execute(.replay(steps), real: real)
    }

    /// Replays on the Secret Service: what a reported schedule is judged by.
    private func replay(_ steps: [ExploreStep], invariant: String, times: Int) throws -> (broke: Int, of: Int) {
        var broke = 0
        for _ in 0..<times where try replay(steps).violations.contains(where: { $0.invariant == invariant }) { broke += 1 }
        return (broke, times)
    }

    /// The fewest steps that still break `invariant`: the run cut after the step that broke it, then each step
    /// left out in turn (from the last) while the invariant still breaks.
    private func shrink(_ steps: [ExploreStep], invariant: String, atStep: Int?, real: Bool) throws -> Violation {
        let best = try Scheduling.shrink(steps, cutAfter: atStep, budget: options.shrinkBudget) { candidate in
            try replay(candidate, real: real).violations.contains { $0.invariant == invariant }
        }
        // The narrative reported is the Secret Service's.
        let final = try replay(best)
        let v = final.violations.first { $0.invariant == invariant }
        return Violation(
            invariant: invariant, message: v?.message ?? "(did not break again when replayed)", run: nil, seed: nil, steps: best,
            narrative: final.narrative, stepsBeforeShrinking: steps.count, replayed: (0, 0))
    }

    static func possibleTriples(_ bundle: ExploredBundle) -> Int {
        let actors = ["app", "device", "org"] + (bundle.widget != nil ? ["widget"] : []) + (bundle.notification != nil ? ["notification"] : [])
        let verbs = actors.reduce(0) { sum, actor in
            sum + ExploreStep.actions[actor]!.count + (ExploreStep.processActors.contains(actor) ? ExploreStep.processVerbs.count : 0)
        }
        return verbs * DeviceLockState.allCases.count
    }

    // MARK: One run

    package struct RunViolation: Sendable, Equatable {
        package var invariant: String
        package var message: String
        /// The step after which it was seen (nil: in the run's end).
        package var step: Int?
    }

    package struct RunResult: Sendable {
        package var steps: [ExploreStep]
        package var violations: [RunViolation]
        package var narrative: [String]
        /// Chrome Trace Event JSON of the run (logical time: one step is one millisecond).
        package var trace: Data
        var triples: Set<String>
        /// Keychain requests the explorer answered (its in-memory keychain; 0 on the Secret Service).
        package var keychainRequests = 0
    }

    /// Where an exploration's session keeps its files (its devices, its orgs' state, what its processes print, the
    /// keyring): TMPDIR when it is set; otherwise /dev/shm (a memory file system on Linux), when it has 1 GiB free
    /// and keeps extended attributes (the files' protection classes: tmpfs has kept `user.` attributes since Linux
    /// 6.6); otherwise the temporary directory. Every run makes and deletes a device's files and an org's state,
    /// which on ext4 is inode and journal work (40 runs of the sample in memory: 27% less system time, 1.13x the
    /// runs per second). An exploration from a device template (`deviceTemplate`: it may be large) stays on disk.
    package static func scratchRoot(
        deviceTemplate: String?, environment: [String: String] = ProcessInfo.processInfo.environment, memory: String = "/dev/shm"
    ) -> URL {
        let fallback = FileManager.default.temporaryDirectory
        if environment["TMPDIR"].map({ !$0.isEmpty }) == true || deviceTemplate != nil { return fallback }
        var space = statvfs()
        guard statvfs(memory, &space) == 0, UInt64(space.f_bavail) * UInt64(space.f_frsize) >= 1 << 30, access(memory, W_OK | X_OK) == 0,
            FileProtection.canCarryClasses(in: memory)
        else { return fallback }
        return URL(fileURLWithPath: memory, isDirectory: true)
    }

    /// One run. Without `trace`, its trace is not written out (the exploring pass keeps none: a run's trace is
    /// made again by its replay; writing each run's was a twentieth of the explorer's time).
    private func execute(_ plan: ExplorePlan, real: Bool, orgs supply: OrgSupply? = nil, trace: Bool = true) throws -> RunResult {
        let supply = supply ?? orgs
        let org = try supply.next ?? startOrg()
        // The next run's org starts while this one runs (a tenth of a second or so each).
        supply.next = try? startOrg()  // replaces the one taken above
        let dir = session.appendingPathComponent("run-\(UUID().uuidString.prefix(8))")
        let run = try ExploreRun(explorer: self, org: org, directory: dir, keychain: real ? nil : ExplorerKeychain())
        defer {
            run.finish()
            org.stop()
            try? FileManager.default.removeItem(at: dir)
        }
        plan.drive(choose: { run.choose(&$0) }, perform: run.perform)
        run.epilogue()
        return RunResult(
            steps: run.steps, violations: run.violations, narrative: run.narrative, trace: trace ? run.traceJSON() : Data(), triples: run.triples,
            keychainRequests: run.keychainRequests)
    }

    private func startOrg() throws -> RunningOrg {
        try RunningOrg.start(
            bin: options.bin, data: orgDirectory, template: orgTemplate,
            copy: session.appendingPathComponent("org-\(UUID().uuidString.prefix(8)).sqlite"), embedded: options.embeddedOrg)
    }

    /// The org's definition with the contacts capped, so that each run's first sync is short.
    static func copyOrg(_ source: URL, to target: URL, contacts: Int) throws {
        try FileManager.default.copyItem(at: source, to: target)
        let file = target.appendingPathComponent("orgs.json")
        guard var object = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any],
            let orgs = object["orgs"] as? [[String: Any]]
        else { throw ExploreError.setup("\(file.path) is not an org definition (orgs.json)") }
        object["orgs"] = orgs.map { org -> [String: Any] in
            var o = org
            if let n = o["contactCount"] as? Int { o["contactCount"] = min(n, contacts) }
            return o
        }
        try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(to: file)
    }
}

/// The org a worker started ahead for its next run.
final class OrgSupply: @unchecked Sendable {
    /// The org started ahead, if any; whoever uses it sets it to nil (or to the next one).
    var next: RunningOrg?

    func stop() {
        next?.stop()
        next = nil
    }
}

/// The runs of an exploration, handed to its workers in order, and their results, read in order.
final class RunFeed: @unchecked Sendable {
    private let condition = NSCondition()
    private let runs: Int
    private var handedOut = 0
    private var cancelled = false
    private var results: [Int: Result<Explorer.RunResult, any Error>] = [:]

    init(runs: Int) { self.runs = runs }

    /// The next run to do, or nil when every run is handed out or the exploration ended.
    func take() -> Int? {
        condition.withLock {
            guard !cancelled, handedOut < runs else { return nil }
            handedOut += 1
            return handedOut - 1
        }
    }

    func put(_ index: Int, _ result: Result<Explorer.RunResult, any Error>) {
        condition.withLock {
            results[index] = result
            condition.broadcast()
        }
    }

    /// Waits for run `index` and takes its result.
    func result(_ index: Int) -> Result<Explorer.RunResult, any Error> {
        condition.withLock {
            while results[index] == nil { condition.wait() }
            return results.removeValue(forKey: index)!
        }
    }

    func cancel() { condition.withLock { cancelled = true } }
}

/// The app under exploration: its id, its widget and its notification service extension (by their extension points).
struct ExploredBundle {
    let url: URL
    let bundleID: String
    let widget: URL?
    let notification: URL?

    init(_ url: URL) throws {
        self.url = url
        guard let info = Self.plist(url.appendingPathComponent("Info.plist")), let id = info["CFBundleIdentifier"] as? String else {
            throw ExploreError.setup("\(url.path) is not an app bundle (no Info.plist with CFBundleIdentifier)")
        }
        bundleID = id
        var widget: URL?
        var notification: URL?
        let plugins = url.appendingPathComponent("PlugIns")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: plugins.path)) ?? []).sorted() where name.hasSuffix(".appex") {
            let appex = plugins.appendingPathComponent(name)
            let point = ((Self.plist(appex.appendingPathComponent("Info.plist"))?["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String) ?? ""
            if point == "com.apple.usernotifications.service" { notification = notification ?? appex } else if point.contains("widget") {
                widget = widget ?? appex
            }
        }
        self.widget = widget
        self.notification = notification
    }

    /// The connected app's consumer key (bootconfig), which a refresh at the org names.
    var consumerKey: String? { (try? AppBundle(at: url)).flatMap { try? BootConfig.load(from: $0) }?.consumerKey }

    static func plist(_ url: URL) -> [String: Any]? {
        (try? Data(contentsOf: url)).flatMap { try? PlistValue.foundationPropertyList(from: $0) as? [String: Any] }
    }
}

/// A user of the org the explorer logs in (the first org's first two users of its definition).
struct ExploredUser {
    let username: String
    let password: String
    let userId: String

    static func load(orgData: URL) throws -> [ExploredUser] {
        let file = orgData.appendingPathComponent("orgs.json")
        guard let object = (try? Data(contentsOf: file)).flatMap({ try? JSONSerialization.jsonObject(with: $0) }) as? [String: Any],
            let orgs = object["orgs"] as? [[String: Any]]
        else { throw ExploreError.setup("\(file.path) cannot be read as an org definition; pass --org-data DIR") }
        for org in orgs {
            let users = (org["users"] as? [[String: Any]] ?? []).compactMap { u -> ExploredUser? in
                guard let name = u["username"] as? String, let password = u["password"] as? String, let id = u["id"] as? String else { return nil }
                return ExploredUser(username: name, password: password, userId: id)
            }
            if !users.isEmpty { return Array(users.prefix(2)) }
        }
        throw ExploreError.setup("\(file.path) names no user with a password to log in")
    }
}
