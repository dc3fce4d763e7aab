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
    private var nextOrg: OrgProcess?

    package init(_ options: Options) throws {
        self.options = options
        bundle = try ExploredBundle(options.app)
        users = try ExploredUser.load(orgData: options.orgData)
        for tool in ["main-app", "extension-widget", "extension-notification", "sf-simulator"]
        where !FileManager.default.isExecutableFile(atPath: options.bin.appendingPathComponent(tool).path) {
            throw ExploreError.setup("\(tool) is not in \(options.bin.path); build it with swift build")
        }
        session = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-explore-\(UUID().uuidString.prefix(8))")
        try SecureFiles.makeDirectory(session)
        orgDirectory = session.appendingPathComponent("org")
        try Self.copyOrg(options.orgData, to: orgDirectory, contacts: options.contacts)
    }

    deinit {
        nextOrg?.stop()
        try? FileManager.default.removeItem(at: session)
    }

    // MARK: Exploring

    /// Runs `options.runs` seeded runs; each violated invariant is reported once (its first run), shrunk and
    /// replayed `replays` times. `progress` gets a line now and then.
    package func explore(replays: Int = 3, progress: (String) -> Void = { _ in }) throws -> Summary {
        let started = Date()
        var schedules = Set<[ExploreStep]>()
        var triples = Set<String>()
        var found: [String: Violation] = [:]
        var order: [String] = []
        for index in 0..<options.runs {
            let seed = SeededChoices.runSeed(options.seed, index)
            let run = try execute(.generate(seed: seed, steps: options.steps))
            schedules.insert(run.steps)
            triples.formUnion(run.triples)
            for v in run.violations where found[v.invariant] == nil {
                progress("run \(index + 1) (seed \(seed)): \(v.invariant) -- \(v.message); shrinking \(run.steps.count) steps")
                var violation = try shrink(run.steps, invariant: v.invariant, atStep: v.step)
                violation.run = index + 1
                violation.seed = seed
                violation.stepsBeforeShrinking = run.steps.count
                violation.replayed = try replay(violation.steps, invariant: v.invariant, times: replays)
                found[v.invariant] = violation
                order.append(v.invariant)
            }
            if (index + 1) % 10 == 0 { progress("\(index + 1) runs, \(found.count) invariant(s) broken") }
        }
        let seconds = Date().timeIntervalSince(started)
        return Summary(
            runs: options.runs, stepsPerRun: options.steps, seconds: seconds, distinctSchedules: schedules.count,
            coveredTriples: triples.count, possibleTriples: Self.possibleTriples(bundle), violations: order.compactMap { found[$0] })
    }

    /// One run of `steps` steps chosen from `seed`, as `explore` runs each (for a test of determinism).
    package func run(seed: UInt64, steps: Int) throws -> RunResult {
        try execute(.generate(seed: seed, steps: steps))
    }

    /// Runs `steps` again; the invariants it breaks, with the narrative and the trace.
    package func replay(_ steps: [ExploreStep]) throws -> RunResult {
        try execute(.replay(steps))
    }

    private func replay(_ steps: [ExploreStep], invariant: String, times: Int) throws -> (broke: Int, of: Int) {
        var broke = 0
        for _ in 0..<times where try replay(steps).violations.contains(where: { $0.invariant == invariant }) { broke += 1 }
        return (broke, times)
    }

    /// The fewest steps that still break `invariant`: the run cut after the step that broke it, then each step
    /// left out in turn (from the last) while the invariant still breaks.
    private func shrink(_ steps: [ExploreStep], invariant: String, atStep: Int?) throws -> Violation {
        let best = try Scheduling.shrink(steps, cutAfter: atStep, budget: options.shrinkBudget) { candidate in
            try replay(candidate).violations.contains { $0.invariant == invariant }
        }
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
    }

    private func execute(_ plan: ExplorePlan) throws -> RunResult {
        let org = try takeOrg()
        // The next run's org starts while this one runs (about a quarter of a second each).
        nextOrg = try? OrgProcess.start(bin: options.bin, data: orgDirectory)
        let dir = session.appendingPathComponent("run-\(UUID().uuidString.prefix(8))")
        let run = try ExploreRun(explorer: self, org: org, directory: dir)
        defer {
            run.finish()
            org.stop()
            try? FileManager.default.removeItem(at: dir)
        }
        plan.drive(choose: { run.choose(&$0) }, perform: run.perform)
        run.epilogue()
        return RunResult(steps: run.steps, violations: run.violations, narrative: run.narrative, trace: run.traceJSON(), triples: run.triples)
    }

    private func takeOrg() throws -> OrgProcess {
        if let org = nextOrg {
            nextOrg = nil
            return org
        }
        return try OrgProcess.start(bin: options.bin, data: orgDirectory)
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
        (try? Data(contentsOf: url)).flatMap { try? PropertyListSerialization.propertyList(from: $0, format: nil) as? [String: Any] }
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
