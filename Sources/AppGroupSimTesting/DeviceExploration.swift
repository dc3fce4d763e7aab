import AppGroup
import CoreEngine
import Exploring
import Foundation
import Keychain
#if canImport(Glibc)
import Glibc
#endif

/// One of the developer's executables, run as a bundle of the device (issue 38): the app's code as the `.app`,
/// the widget's as the `.appex`. Each action is one launch of the executable with its arguments, with
/// `APPGROUPSIM_BUNDLE` and `APPGROUPSIM_DEVICE` set, as `scripts/integration/examples.sh` runs the examples.
public struct ExploredActor: Sendable {
    public var name: String
    public var bundle: URL
    public var executable: URL
    /// Action name -> the executable's arguments for it.
    public var actions: [String: [String]]
    /// More environment for every launch (on top of this process's own).
    public var environment: [String: String]
    /// The actions that need a user logged in (a sync, an edit, a list of the user's records): offered only while
    /// an account is on the device, as an app with nobody logged in shows its login screen and nothing else.
    /// Empty (the default): every action at every step.
    public var needingAUser: Set<String>

    public init(
        _ name: String, bundle: URL, executable: URL, actions: [String: [String]], environment: [String: String] = [:],
        needingAUser: Set<String> = []
    ) {
        self.name = name
        self.bundle = bundle
        self.executable = executable
        self.actions = actions
        self.environment = environment
        self.needingAUser = needingAUser
    }

    /// An app (`.app`) is launched only once the device has been unlocked since it booted, as iOS launches apps.
    var isApp: Bool { bundle.pathExtension == "app" }
}

/// What an invariant sees when one launch of an actor ends.
public struct ActionOutcome: Sendable {
    public let actor: String
    public let action: String
    /// What the launch printed on its standard output and its standard error.
    public let output: String
    public let errorOutput: String
    /// Its exit status; nil when a signal ended it.
    public let exitStatus: Int32?
    public let signal: Int32?
    /// True when the explorer killed it (a `kill` step, a reboot): its output is cut short.
    public let killedByExplorer: Bool
}

/// A developer's invariant: a name, and a check that returns nil when it holds, or what it saw when it broke.
/// `afterEachAction` checks the end of every launch (its output, the device then, with the other actors stopped
/// at their points); `atEnd` checks the device once the run's steps are done and every actor has ended.
public struct DeviceInvariant: Sendable {
    public let name: String
    let afterAction: (@Sendable (ActionOutcome, SimulatedDevice) throws -> String?)?
    let atEnd: (@Sendable (SimulatedDevice) throws -> String?)?

    public init(_ name: String, afterEachAction check: @escaping @Sendable (ActionOutcome, SimulatedDevice) throws -> String?) {
        self.name = name
        afterAction = check
        atEnd = nil
    }

    public init(_ name: String, atEnd check: @escaping @Sendable (SimulatedDevice) throws -> String?) {
        self.name = name
        afterAction = nil
        atEnd = check
    }
}

/// One decision of the scheduler: an actor's action to start, `resume N`, `until KIND`, `finish` or `kill` for a
/// running actor; `device` `lock`, `unlock` or `reboot` (and `reinstall` or `restore`, with
/// `DeviceExploration.installEvents`); `org` `offline`, `online` or `expire-tokens`.
public struct ExplorationStep: Codable, Hashable, Sendable, CustomStringConvertible {
    public var actor: String
    public var action: String

    public init(_ actor: String, _ action: String) {
        self.actor = actor
        self.action = action
    }

    public var description: String { "\(actor) \(action)" }
}

/// An invariant broken, and the schedule that breaks it, shrunk.
public struct ExplorationViolation: Sendable {
    public let invariant: String
    public let message: String
    /// The run (from 1) and its seed where exploring first broke it.
    public let run: Int
    public let seed: UInt64
    public let steps: [ExplorationStep]
    public let stepsBeforeShrinking: Int
    /// The shrunk schedule's run, step by step: what each actor did and what the invariant saw.
    public let narrative: [String]
    /// Replays of the shrunk schedule that broke the invariant again, of those tried.
    public let replayed: Int
    public let replays: Int
}

public struct ExplorationReport: Sendable {
    public let runs: Int
    public let seconds: Double
    public let distinctSchedules: Int
    public let violations: [ExplorationViolation]
}

/// One run of a schedule: the invariants it broke (in order) and its narrative.
public struct ExplorationRun: Sendable {
    public let steps: [ExplorationStep]
    public let brokenInvariants: [String]
    public let narrative: [String]
}

/// `msdk-sim explore` for a developer's own code (issue 38): the developer's executables as the actors, on a fresh
/// simulated device and a fresh in-process org per run, under a seeded scheduler that owns every point where they
/// meet (each keychain operation, each write to the group's `msdkUserDefaults`, each file read or write in the
/// group's container, each store transaction), with the device locked, unlocked and rebooted, and actors killed
/// where they stand. The developer's invariants are checked as the run goes and at its end; a broken one is shrunk
/// to the fewest steps that still break it, and replayed.
///
/// ```swift
/// let exploration = DeviceExploration(org: orgDirectory, actors: [app, widget], invariants: [snapshotIsWhole]) { device, org in
///     try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")
/// }
/// let report = try await exploration.explore()
/// XCTAssertEqual(report.violations.map(\.invariant), [])
/// ```
///
/// The actors talk to the real Secret Service (run the tests under `scripts/with-keyring`): they are processes.
public final class DeviceExploration: @unchecked Sendable {
    public let org: URL
    public let actors: [ExploredActor]
    public let invariants: [DeviceInvariant]
    let setUp: @Sendable (SimulatedDevice, SimulatedOrg) async throws -> Void
    public var runs = 50
    public var steps = 12
    public var seed: UInt64 = 1
    /// Lock, unlock and reboot among the steps.
    public var deviceEvents = true
    /// The user deleting the app and installing it again (`device reinstall`), and moving to a new phone restored
    /// from an encrypted backup of this one (`device restore`, taken unlocked), among the steps. Each run's device
    /// then has the apps among the actors installed before `setUp`, so that a reinstall takes their containers,
    /// their extensions' and their group's, and keeps the keychain, as iOS does; a restore carries the files and
    /// the keychain items that are not `…ThisDeviceOnly` to a device with a new id, where the run goes on. Off by
    /// default: it adds two steps to every run's choices, so turning it on changes which schedules a seed makes.
    public var installEvents = false
    /// The org offline (every API request answered 503) and online again, and its access tokens expired, among the
    /// steps. Turn it off when no actor reaches the org: the steps would only dilute the schedules.
    public var orgEvents = true
    /// Replays tried while shrinking one violation, and replays of the shrunk schedule.
    public var shrinkBudget = 60
    public var replays = 3
    /// Seconds an actor may run without reaching a point or ending before it is reported hung.
    public var hangTimeout: Double = 30
    /// The devices' push keys, made once for the whole exploration (`PushKeyPool`).
    let pushKeys = PushKeyPool()

    /// - Parameters:
    ///   - org: an org definition directory (`org.json`, `records/`), as `SimulatedDevice.startOrg(definition:)`.
    ///   - setUp: what each run's device needs before the steps (a login, say), run in this process.
    public init(
        org: URL, actors: [ExploredActor], invariants: [DeviceInvariant],
        setUp: @escaping @Sendable (SimulatedDevice, SimulatedOrg) async throws -> Void = { _, _ in }
    ) {
        self.org = org
        self.actors = actors
        self.invariants = invariants
        self.setUp = setUp
    }

    /// The built-in invariants, beside the developer's.
    public static let builtInInvariants = ["actor-crashed", "actor-hung", "secret-exposed"]

    /// `runs` seeded runs of `steps` steps; each broken invariant is reported once (its first run), shrunk and replayed.
    public func explore() async throws -> ExplorationReport {
        try await onOwnThread { try self.exploreNow() }
    }

    /// Runs `steps` again, as a failing schedule is replayed.
    public func replay(_ steps: [ExplorationStep]) async throws -> ExplorationRun {
        try await onOwnThread {
            let run = try self.execute(.replay(steps.map { ExploreStep($0.actor, $0.action) }))
            return ExplorationRun(steps: steps, brokenInvariants: run.violations.map(\.invariant), narrative: run.narrative)
        }
    }

    // MARK: Exploring

    private func exploreNow() throws -> ExplorationReport {
        for actor in actors where !FileManager.default.isExecutableFile(atPath: actor.executable.path) {
            throw ExploreError.setup("\(actor.name)'s executable \(actor.executable.path) is not built: build the package's products first")
        }
        for actor in actors {
            let unknown = actor.needingAUser.subtracting(actor.actions.keys)
            if !unknown.isEmpty {
                throw ExploreError.setup("\(actor.name)'s needingAUser names \(unknown.sorted().joined(separator: ", ")), which is not among its actions (\(actor.actions.keys.sorted().joined(separator: ", ")))")
            }
        }
        let started = Date()
        var schedules = Set<[ExploreStep]>()
        var found: [ExplorationViolation] = []
        for index in 0..<runs {
            let runSeed = SeededChoices.runSeed(seed, index)
            let run = try execute(.generate(seed: runSeed, steps: steps))
            schedules.insert(run.steps)
            for v in run.violations where !found.contains(where: { $0.invariant == v.invariant }) {
                let best = try Scheduling.shrink(run.steps, cutAfter: v.step, budget: shrinkBudget) { candidate in
                    try execute(.replay(candidate)).violations.contains { $0.invariant == v.invariant }
                }
                let final = try execute(.replay(best))
                var again = 0
                for _ in 0..<replays where try execute(.replay(best)).violations.contains(where: { $0.invariant == v.invariant }) { again += 1 }
                found.append(ExplorationViolation(
                    invariant: v.invariant, message: final.violations.first { $0.invariant == v.invariant }?.message ?? v.message,
                    run: index + 1, seed: runSeed, steps: best.map { ExplorationStep($0.actor, $0.action) }, stepsBeforeShrinking: run.steps.count,
                    narrative: final.narrative, replayed: again, replays: replays))
            }
        }
        return ExplorationReport(runs: runs, seconds: Date().timeIntervalSince(started), distinctSchedules: schedules.count, violations: found)
    }

    struct Broken {
        var invariant: String
        var message: String
        var step: Int?
    }

    struct RunRecord {
        var steps: [ExploreStep]
        var violations: [Broken]
        var narrative: [String]
    }

    private func execute(_ plan: ExplorePlan) throws -> RunRecord {
        let device = try SimulatedDevice()
        let deviceID = try Device.open(at: device.url).id.uuidString
        let org = try blocking { try await device.startOrg(definition: self.org) }
        let outputs = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-exploration-\(UUID().uuidString.prefix(8))")
        try SecureFiles.makeDirectory(outputs)
        defer {
            blocking { await org.stop() }
            _ = try? LibsecretStore().delete(["device": deviceID])
            try? FileManager.default.removeItem(at: outputs)
        }
        let run = ExplorationRunState(exploration: self, device: device, deviceID: deviceID, org: org, outputs: outputs)
        defer {
            run.endAll()
            run.removeKeychainItems()
        }
        if installEvents {
            let apps = DeviceApps(device: try Device.open(at: device.url))
            for actor in actors where actor.isApp { _ = try apps.install(AppBundle(at: actor.bundle)) }
        }
        try blocking { try await self.setUp(device, org) }
        plan.drive(choose: { run.choose(&$0) }, perform: run.perform)
        run.end()
        return RunRecord(steps: run.steps, violations: run.violations, narrative: run.narrative)
    }

    /// Runs `body` on a thread of its own: it blocks on the actors' sockets, never on a thread of Swift's pool,
    /// which the in-process org needs.
    private func onOwnThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let thread = Thread {
                do { continuation.resume(returning: try body()) } catch { continuation.resume(throwing: error) }
            }
            thread.stackSize = 8 << 20
            thread.start()
        }
    }
}

/// Waits on this (non-pool) thread for `body`, run as a task.
private func blocking<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let box = BlockingBox<T>()
    let done = DispatchSemaphore(value: 0)
    Task {
        do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
        done.signal()
    }
    done.wait()
    return try box.result!.get()
}

private final class BlockingBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

private func blocking(_ body: @escaping @Sendable () async -> Void) {
    _ = try? blocking { () async throws -> Int in
        await body()
        return 0
    }
}

/// One run: the device's lock state, the actors running, what the invariants saw.
final class ExplorationRunState {
    private struct Running {
        var process: ActorProcess
        var action: String
        /// The kind of the point it stands at.
        var at: String?
    }

    private let exploration: DeviceExploration
    /// The device the actors run on: a `restore` step moves the run to a new one.
    private var device: SimulatedDevice
    private var deviceID: String
    /// The device ids the run moved to and the backups it took: their keychain items go when the run ends.
    private var restoredDeviceIDs: [String] = []
    private var backupIDs: [String] = []
    private var restores = 0
    private let org: SimulatedOrg
    private let outputs: URL
    private var secrets = SecretWatch()
    private var orgOffline = false
    private var running: [String: Running] = [:]
    private var lockState: DeviceLockState = .unlocked
    private var launches = 0
    /// The push keys this run's devices make, the exploration's in order (`PushKeyPool`).
    private let pushKeys: PushKeyPool.Run
    /// The kinds of point the run's actors have stopped at: what an `until KIND` step chooses from.
    private var kindsSeen: Set<String> = []
    private(set) var steps: [ExploreStep] = []
    private(set) var violations: [DeviceExploration.Broken] = []
    private(set) var narrative: [String] = []

    init(exploration: DeviceExploration, device: SimulatedDevice, deviceID: String, org: SimulatedOrg, outputs: URL) {
        self.exploration = exploration
        self.device = device
        self.deviceID = deviceID
        self.org = org
        self.outputs = outputs
        pushKeys = exploration.pushKeys.run()
        lockState = (try? Device.open(at: device.url).lockState()) ?? .unlocked
    }

    func choose(_ choices: inout SeededChoices) -> ExploreStep {
        var options: [(ExploreStep, Int)] = []
        // Read once a step, and only when some action needs a user.
        let someone = exploration.actors.contains { !$0.needingAUser.isEmpty } && DeviceLayout(root: device.url).hasAnyAccount()
        for actor in exploration.actors {
            if running[actor.name] != nil {
                options += Scheduling.going(
                    actor.name, weight: 2, &choices, kinds: kindsSeen.isEmpty ? Scheduling.untilKinds : kindsSeen.sorted(), at: running[actor.name]?.at,
                    meetsOrg: kindsSeen.contains(Scheduling.networkResponse))
            } else if !actor.isApp || lockState.unlockedSinceBoot {
                options += actor.actions.keys.sorted().filter { someone || !actor.needingAUser.contains($0) }.map { (ExploreStep(actor.name, $0), 3) }
            }
        }
        if exploration.deviceEvents {
            options.append(lockState.isUnlocked ? (ExploreStep("device", "lock"), 2) : (ExploreStep("device", "unlock"), 3))
            options.append((ExploreStep("device", "reboot"), 1))
        }
        if exploration.installEvents, exploration.actors.contains(where: \.isApp) {
            options.append((ExploreStep("device", "reinstall"), 1))
            if lockState.isUnlocked { options.append((ExploreStep("device", "restore"), 1)) }
        }
        if exploration.orgEvents {
            options.append(orgOffline ? (ExploreStep("org", "online"), 2) : (ExploreStep("org", "offline"), 1))
            options.append((ExploreStep("org", "expire-tokens"), 1))
        }
        // Nothing can happen (every action needs a user, nobody is logged in, and no event is on): the step waits.
        if options.isEmpty { return ExploreStep("device", "wait") }
        return choices.pick(options)
    }

    func perform(_ s: ExploreStep) {
        steps.append(s)
        let outcome: String
        if s.actor == "device" {
            outcome = deviceStep(s.action)
        } else if s.actor == "org" {
            outcome = orgStep(s.action)
        } else {
            let words = s.action.split(separator: " ")
            switch words.first {
            case "resume": outcome = resume(s.actor, points: words.count > 1 ? max(1, Int(words[1]) ?? 1) : 1)
            case "finish": outcome = resume(s.actor, points: 100_000)
            case "until": outcome = resume(s.actor, points: 100_000, until: words.count > 1 ? String(words[1]) : nil)
            case "kill": outcome = kill(s.actor)
            default: outcome = start(s.actor, s.action)
            }
        }
        let n = "\(steps.count)."
        func pad(_ t: String, _ w: Int) -> String { t.count >= w ? t : t + String(repeating: " ", count: w - t.count) }
        narrative.append("\(pad(n, 4)) \(pad(s.actor, 10)) \(pad(s.action, 22)) \(outcome)")
    }

    /// The org answers again, every actor still running goes on to its end (no more events), then the `atEnd`
    /// invariants.
    func end() {
        if orgOffline { narrative.append("end  org: \(orgStep("online"))") }
        for name in running.keys.sorted() {
            let outcome = resume(name, points: 100_000)
            narrative.append("end  \(name) finishes: \(outcome)")
        }
        learnSecrets()
        if let file = secrets.fileHolding(under: device.url) {
            let path = file.path.hasPrefix(device.url.path + "/") ? String(file.path.dropFirst(device.url.path.count + 1)) : file.path
            violate("secret-exposed", "a token of the keychain is written in \(path)", atEnd: true)
        }
        for invariant in exploration.invariants {
            guard let check = invariant.atEnd else { continue }
            do {
                if let broken = try check(device) { violate(invariant.name, broken, atEnd: true) }
            } catch {
                violate(invariant.name, "its check threw: \(error)", atEnd: true)
            }
        }
    }

    func endAll() {
        for name in running.keys.sorted() { running[name]?.process.killNow() }
        running.removeAll()
    }

    /// The keychain items of the devices the run moved to and of the backups it took (the first device's go with it).
    func removeKeychainItems() {
        guard !restoredDeviceIDs.isEmpty || !backupIDs.isEmpty else { return }
        let store = device.secretStore ?? LibsecretStore()
        for id in restoredDeviceIDs { _ = try? store.delete(["device": id]) }
        for id in backupIDs { _ = try? store.delete(["backup": id]) }
    }

    private func start(_ name: String, _ action: String) -> String {
        guard let actor = exploration.actors.first(where: { $0.name == name }), let arguments = actor.actions[action] else {
            return "skipped: no actor \(name) with the action \(action)"
        }
        guard running[name] == nil else { return "skipped: \(name) is still running \(running[name]!.action)" }
        if actor.isApp, !lockState.unlockedSinceBoot { return "skipped: iOS launches no app before the first unlock after a boot" }
        var environment = ProcessInfo.processInfo.environment.merging(actor.environment) { $1 }
        environment["APPGROUPSIM_BUNDLE"] = actor.bundle.path
        environment["APPGROUPSIM_DEVICE"] = device.url.path
        environment[PushKey.explorerEnvironmentKey] = "1"
        launches += 1
        do {
            let process = try ActorProcess(
                executable: actor.executable, arguments: arguments, environment: environment, outputDirectory: outputs, name: "\(name)-\(launches)")
            process.answers[PushKey.explorerCallKind] = pushKeys.answer
            running[name] = Running(process: process, action: action)
        } catch {
            return "could not start: \(error)"
        }
        return advance(name)
    }

    private func resume(_ name: String, points: Int, until kind: String? = nil) -> String {
        guard running[name] != nil else { return "skipped: \(name) is not running" }
        return Scheduling.resume(points: points, until: kind, isRunning: { running[name] != nil }) {
            running[name]!.process.resume()
            return advance(name)
        }
    }

    private func advance(_ name: String) -> String {
        guard let r = running[name] else { return "" }
        switch r.process.next(timeout: exploration.hangTimeout) {
        case .point(let kind, let detail)?:
            kindsSeen.insert(kind)
            running[name]?.at = kind
            return "stopped at \(kind) \(detail.replacingOccurrences(of: device.url.path + "/", with: ""))"
        case .exited(let status)?:
            return ended(name, r, status: status, signal: nil, killed: false)
        case .signaled(let signal)?:
            return ended(name, r, status: nil, signal: signal, killed: false)
        case nil:
            running[name] = nil
            violate("actor-hung", "\(name) (\(r.action)) neither reached a point nor ended in \(Int(exploration.hangTimeout)) s; it was killed")
            return "hung"
        }
    }

    private func kill(_ name: String, why: String = "killed by the explorer") -> String {
        guard let r = running[name] else { return "skipped: \(name) is not running" }
        let event = r.process.killNow()
        if case .signaled(let signal) = event { _ = ended(name, r, status: nil, signal: signal, killed: true) } else { running[name] = nil }
        return "\(why) (it was running \(r.action))"
    }

    private func ended(_ name: String, _ r: Running, status: Int32?, signal: Int32?, killed: Bool) -> String {
        running[name] = nil
        let out = r.process.stdout
        let err = r.process.stderr
        learnSecrets()
        if secrets.isExposed(in: out, err) {
            violate("secret-exposed", "a token of the keychain is in the output of \(name) (\(r.action))")
        }
        if let signal, !killed {
            violate("actor-crashed", "\(name) (\(r.action)) ended by signal \(signal): \(secrets.redacted(String(err.split(separator: "\n").last ?? "")))")
        }
        let outcome = ActionOutcome(actor: name, action: r.action, output: out, errorOutput: err, exitStatus: status, signal: signal, killedByExplorer: killed)
        for invariant in exploration.invariants {
            guard let check = invariant.afterAction else { continue }
            do {
                if let broken = try check(outcome, device) { violate(invariant.name, broken) }
            } catch {
                violate(invariant.name, "its check threw: \(error)")
            }
        }
        if killed { return "killed" }
        let last = secrets.redacted((status == 0 ? out : err).split(separator: "\n").last.map(String.init) ?? "")
        return (status.map { "exit \($0)" } ?? "signal \(signal!)") + (last.isEmpty ? "" : ": \(last)")
    }

    /// The device's keychain values (the tokens the org gave), for `secret-exposed`.
    private func learnSecrets() {
        guard let items = try? (device.secretStore ?? LibsecretStore()).search(["device": deviceID]) else { return }
        secrets.learn(items.map(\.secret))
    }

    private func deviceStep(_ action: String) -> String {
        do {
            switch action {
            case "lock": try device.lock()
            case "unlock": try device.unlock()
            case "reboot":
                let ended = running.keys.sorted()
                for name in ended { _ = kill(name, why: "reboot") }
                try device.reboot()
                lockState = try Device.open(at: device.url).lockState()
                return ended.isEmpty ? "rebooted: before its first unlock" : "rebooted; ended \(ended.joined(separator: ", "))"
            case "reinstall" where exploration.installEvents: return try reinstall()
            case "restore" where exploration.installEvents: return try restore()
            case "wait": return "nothing to do: every action needs a user and nobody is logged in"
            default: return "skipped: no device action \(action)"
            }
            lockState = try Device.open(at: device.url).lockState()
            return "now \(lockState.rawValue)"
        } catch {
            return "failed: \(error)"
        }
    }

    /// The user deletes the apps among the actors and installs them again: whatever runs ends, their containers,
    /// their extensions' and their group's go, the keychain keeps every item.
    private func reinstall() throws -> String {
        let ended = running.keys.sorted()
        for name in ended { _ = kill(name, why: "the app was deleted") }
        let apps = DeviceApps(device: try Device.open(at: device.url))
        var removed = 0
        for actor in exploration.actors where actor.isApp {
            let bundle = try AppBundle(at: actor.bundle)
            removed += try apps.uninstall(bundleID: bundle.bundleIdentifier).removed.count
            _ = try apps.install(bundle)
        }
        return "deleted and installed again: removed \(removed) container(s), the keychain kept" + (ended.isEmpty ? "" : "; ended \(ended.joined(separator: ", "))")
    }

    /// The user moves to a new phone from an encrypted backup of this one, taken unlocked: the files and the keychain
    /// items that are not `…ThisDeviceOnly` come along, on a device with a new id, where the run goes on.
    private func restore() throws -> String {
        guard lockState == .unlocked else { return "skipped: a backup is taken unlocked, and the device is \(lockState.rawValue)" }
        let ended = running.keys.sorted()
        for name in ended { _ = kill(name, why: "the old phone was put away") }
        restores += 1
        let store = device.secretStore ?? LibsecretStore()
        let file = outputs.appendingPathComponent("backup-\(restores)")
        let backup = try DeviceBackup.backup(try Device.open(at: device.url), store: store, to: file)
        backupIDs.append(backup.backupID)
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-device-\(UUID().uuidString)")
        let (restored, summary) = try DeviceBackup.restore(file, to: target, store: store)
        try? FileManager.default.removeItem(at: file)
        // The old phone's directory goes with its object; the new one is removed with the run's.
        device = SimulatedDevice(restored: target, secretStore: device.secretStore)
        deviceID = restored.id.uuidString
        restoredDeviceIDs.append(deviceID)
        lockState = try restored.lockState()
        return "restored to a new phone: \(summary.files) file(s), \(summary.keychainItems) keychain item(s) came along, \(summary.keychainItemsLeftOut) did not"
            + (ended.isEmpty ? "" : "; ended \(ended.joined(separator: ", "))")
    }

    private func orgStep(_ action: String) -> String {
        let org = self.org
        do {
            switch action {
            case "offline":
                try blocking { try await org.fault(offline: true) }
                orgOffline = true
                return "every API request is answered 503"
            case "online":
                try blocking { try await org.fault(offline: false) }
                orgOffline = false
                return "answers again"
            case "expire-tokens":
                try blocking { try await org.fault(expireTokens: true) }
                return "every access token expired"
            default: return "skipped: no org action \(action)"
            }
        } catch {
            return "failed: \(error)"
        }
    }

    private func violate(_ invariant: String, _ message: String, atEnd: Bool = false) {
        violations.append(DeviceExploration.Broken(invariant: invariant, message: message, step: atEnd || steps.isEmpty ? nil : steps.count - 1))
        narrative.append("     !! \(invariant): \(message)")
    }
}
