import AppGroup
import CoreEngine
import CoreNetworkEngine
import Exploring
import Foundation
import Keychain
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One run of the explorer: a fresh device, the processes running on it, what the run has seen, and the checks.
final class ExploreRun {
    private struct Running {
        var process: ActorProcess
        var action: String
        var startStep: Int
        /// The current user at each step while it ran (the widget's check).
        var currents: Set<String>
        /// The user current when it started (a logout's user).
        var userAtStart: String?
        /// The kind of the point it stands at.
        var at: String?
    }

    private let explorer: Explorer
    private let org: RunningOrg
    private let directory: URL
    /// The device the actors run on: a restore (`device restore`) moves the run to a new one.
    private var device: URL { didSet { devicePath = device.path } }
    /// `device.path`, kept: a URL's path is built anew each time it is asked for, and the suites' look-up below
    /// asks after every point a process passes.
    private var devicePath: String
    private var deviceID: String
    /// Every device id the run used and every backup it took: their keychain items go when the run ends.
    private var deviceIDs: [String] = []
    private var backupIDs: [String] = []
    private var restores = 0
    private var reinstalls = 0
    /// Users whose account file the SDK's recovery deleted (`--sdk-recovery`).
    private var recoveredAway: Set<String> = []
    private var running: [String: Running] = [:]
    private var lockState: DeviceLockState = .unlocked
    private var orgOffline = false
    /// Usernames whose login the app acknowledged and who have not logged out since.
    private var loggedIn: [String] = []
    /// Users whose logout started and did not finish: the end's check leaves them out.
    private var uncertain: Set<String> = []
    /// Users a logout was started for (their account files may go).
    private var loggingOut: Set<String> = []
    private var edits: [(lastName: String, owner: String?)] = []
    private var editCount = 0
    private var pushCount = 0
    private var secrets = SecretWatch()
    private var accountFiles: [String: String] = [:]

    private(set) var steps: [ExploreStep] = []
    private(set) var violations: [Explorer.RunViolation] = []
    private(set) var narrative: [String] = []
    private(set) var triples: Set<String> = []
    private var events: [[String: Any]] = []
    /// The device plists last parsed, by path (`plist(_:)`).
    private var plists: [String: (data: Data, value: [String: PlistValue])] = [:]
    /// The last `LastUserIdentity` decoded, and its user (`currentUser()`).
    private var identity: (value: PlistValue, userId: String?)?
    /// The suites' URLs, by device and group (`suiteURL(group:)`).
    private var suiteURLs: [String: URL] = [:]
    private var launches = 0

    /// The explorer's in-memory keychain for this run's processes, or nil: the Secret Service.
    private let keychain: ExplorerKeychain?
    /// The keychain as the explorer itself reads it (backups, restores, the secrets to watch for).
    private var store: any SecretStore { keychain?.store ?? LibsecretStore() }
    /// The push keys this run's devices make, the exploration's in order (`PushKeyPool`).
    private let pushKeys: PushKeyPool.Run
    var keychainRequests: Int { keychain?.answered ?? 0 }

    /// Runs alive now, in this process (a test checks that each goes when it ends).
    static var alive: Int { aliveCount.withLock { $0 } }
    private static let aliveCount = Mutex(0)
    deinit { Self.aliveCount.withLock { $0 -= 1 } }

    init(explorer: Explorer, org: RunningOrg, directory: URL, keychain: ExplorerKeychain? = nil) throws {
        Self.aliveCount.withLock { $0 += 1 }
        self.explorer = explorer
        self.keychain = keychain
        pushKeys = explorer.pushKeys.run()
        self.org = org
        self.directory = directory
        device = directory.appendingPathComponent("device")
        devicePath = device.path
        try SecureFiles.makeDirectory(directory)
        let made: Device
        if let template = explorer.deviceBackup {
            // A new phone restored from the template (`--device-template`): its files and apps, no keychain item.
            made = try DeviceBackup.restore(template, to: device, store: keychain?.store ?? LibsecretStore()).0
        } else {
            made = try Device.open(at: device, initialize: true)
        }
        deviceID = made.id.uuidString
        deviceIDs = [deviceID]
        // Installed, as on a phone (over the template's install, an update: its containers stay): an uninstall
        // then takes its extensions' containers and its group's.
        try DeviceApps(device: made).install(AppBundle(at: explorer.bundle.url))
        lockState = try made.lockState()
        // The template's accounts are on the device from the start: the data-deleted check watches them too.
        accountFiles = accountFilesNow()
    }

    /// Ends what still runs and removes the device's keychain items.
    func finish() {
        for name in running.keys.sorted() { running[name]?.process.killNow() }
        running.removeAll()
        let store = self.store
        for id in deviceIDs { _ = try? store.delete(["device": id]) }
        for id in backupIDs { _ = try? store.delete(["backup": id]) }
    }

    private var step: Int { steps.count }
    private var inEpilogue = false
    /// The kinds of step this generated run offers, drawn at its first choice.
    private var swarm: Swarm?
    /// The trace's time of what happens now: the step being run (from 0), or the column after the last for the end.
    private var logicalStep: Int { inEpilogue ? steps.count : max(0, steps.count - 1) }

    /// A line of the narrative, with what differs between two runs of one seed written as a placeholder, so that
    /// one seed tells one story: the run's directory (a fresh name each run, gone when the run ends) as `<run>`, and
    /// the name the org (standing in for APNs) gives a push's payload in the inbox, the time it took the push, its
    /// count and a random id, as `<payload>` (the notification extension's report names the file it showed).
    private func say(_ line: String) {
        narrative.append(
            line.replacingOccurrences(of: directory.path, with: "<run>")
                .replacingOccurrences(of: #"[0-9]{15}-[0-9]{6}-[0-9A-F]{8}\.json"#, with: "<payload>.json", options: .regularExpression))
    }

    // MARK: Choosing

    /// The next step, from the seeded choices and what the run has seen so far.
    func choose(_ choices: inout SeededChoices) -> ExploreStep {
        if swarm == nil { swarm = explorer.options.swarm ? Swarm(&choices) : .all }
        var options: [(ExploreStep, Int)] = []
        let users = explorer.users
        func going(_ actor: String, _ weight: Int) -> [(ExploreStep, Int)] {
            // Only the app talks to the org (the extensions link no networking).
            Scheduling.going(actor, weight: weight, &choices, at: running[actor]?.at, meetsOrg: actor == "app")
        }
        // With nobody logged in the app shows its login screen: there is nothing to sync, edit or view. Someone is,
        // by the app's acknowledgement or by an account on the device (a login ended after it saved the account).
        let someone = running["app"] == nil && (!loggedIn.isEmpty || DeviceLayout(root: device).hasAnyAccount())
        if running["app"] != nil {
            options += going("app", 3)
        } else if lockState.isUnlocked {
            for u in users where !loggedIn.contains(u.username) { options.append((ExploreStep("app", "login \(u.username)"), 2)) }
            if someone { options += [(ExploreStep("app", "sync"), 3), (ExploreStep("app", "edit"), 3), (ExploreStep("app", "view"), 1)] }
            if !loggedIn.isEmpty { options.append((ExploreStep("app", "logout"), 2)) }
            for u in loggedIn.sorted() { options.append((ExploreStep("app", "switch-user \(u)"), 1)) }
        } else if lockState.unlockedSinceBoot, someone {
            // Locked after a first unlock: only a background launch (a background fetch, a prewarm, a push's handler).
            // iOS launches no app in the background before the first unlock after a boot (its data is sealed); the
            // extensions may still run then (a push arrives, a widget is drawn on the lock screen).
            options += [(ExploreStep("app", "sync"), 2), (ExploreStep("app", "edit"), 1), (ExploreStep("app", "view"), 1)]
        }
        if explorer.bundle.widget != nil {
            options += running["widget"] != nil ? going("widget", 2) : [(ExploreStep("widget", "refresh"), 3)]
        }
        if explorer.bundle.notification != nil {
            if running["notification"] != nil {
                options += going("notification", 2)
            } else if !loggedIn.isEmpty {
                options.append((ExploreStep("notification", "push"), 2))
            }
        }
        options += lockState.isUnlocked ? [(ExploreStep("device", "lock"), 2)] : [(ExploreStep("device", "unlock"), 3)]
        options.append((ExploreStep("device", "reboot"), 1))
        // The user deletes the app and installs it again, or moves to a new phone from a backup (taken unlocked):
        // offered once someone has logged in, since before that there is nothing for either to lose.
        if !loggedIn.isEmpty {
            options.append((ExploreStep("device", "reinstall"), 1))
            if lockState.isUnlocked { options.append((ExploreStep("device", "restore"), 1)) }
        }
        options += orgOffline ? [(ExploreStep("org", "online"), 2)] : [(ExploreStep("org", "offline"), 1)]
        options.append((ExploreStep("org", "expire-tokens"), 1))
        return choices.pick(swarm!.filter(options, kind: Self.swarmKind))
    }

    /// The kinds of step a run may leave out (`Swarm.optional`); nil: always offered.
    static func swarmKind(_ s: ExploreStep) -> String? {
        let verb = s.action.split(separator: " ").first.map(String.init) ?? ""
        switch (s.actor, verb) {
        case (_, "kill"): return "kill"
        case ("app", "logout"), ("app", "switch-user"), ("app", "view"): return verb
        case ("widget", "refresh"): return "widget"
        case ("notification", "push"): return "push"
        case ("device", "lock"), ("device", "reboot"), ("device", "reinstall"), ("device", "restore"): return verb
        case ("org", "offline"), ("org", "expire-tokens"): return verb
        default: return nil
        }
    }

    // MARK: Steps

    func perform(_ s: ExploreStep) {
        steps.append(s)
        let n = steps.count
        let stateBefore = lockState
        let outcome: String
        switch s.actor {
        case "device": outcome = device(s.action)
        case "org": outcome = orgStep(s.action)
        default:
            let words = s.action.split(separator: " ")
            switch words.first {
            case "resume": outcome = resume(s.actor, points: words.count > 1 ? max(1, Int(words[1]) ?? 1) : 1)
            case "finish": outcome = resume(s.actor, points: 100_000)
            case "until": outcome = resume(s.actor, points: 100_000, until: words.count > 1 ? String(words[1]) : nil)
            case "kill": outcome = kill(s.actor, why: "killed by the explorer")
            default: outcome = start(s.actor, s.action)
            }
        }
        triples.insert("\(s.actor)|\(s.action.split(separator: " ").first ?? "")|\(stateBefore.rawValue)")
        func pad(_ t: String, _ w: Int) -> String { t.count >= w ? t : t + String(repeating: " ", count: w - t.count) }
        say("\(pad(String(repeating: " ", count: max(0, 3 - String(n).count)) + "\(n).", 4)) \(pad(s.actor, 12)) \(pad(s.action, 28)) \(outcome)")
        afterStep()
    }

    private func start(_ actor: String, _ action: String) -> String {
        guard running[actor] == nil else { return "skipped: \(actor) is still running \(running[actor]!.action)" }
        // What iOS allows, for a replayed or shrunk schedule as for a chosen one (`choose` offers nothing else).
        if actor == "app", !lockState.unlockedSinceBoot { return "skipped: iOS launches no app before the first unlock after a boot" }
        if actor == "app", !lockState.isUnlocked, ["login", "logout", "switch-user"].contains(String(action.split(separator: " ").first ?? "")) {
            return "skipped: \(action) needs the app on screen, and the device is \(lockState.rawValue)"
        }
        let bin = explorer.options.bin
        let executable: URL
        var args: [String]
        let verb = String(action.split(separator: " ").first ?? "")
        let argument = action.split(separator: " ").dropFirst().first.map(String.init)
        switch actor {
        case "app":
            executable = bin.appendingPathComponent("main-app")
            args = ["--bundle", explorer.bundle.url.path, "--device", device.path, "--org", org.url]
            if explorer.options.sdkRecovery { args.append("--sdk-recovery") }
            if !lockState.isUnlocked { args.append("--background") }
            switch verb {
            case "login":
                guard let user = explorer.users.first(where: { $0.username == argument }) else { return "skipped: no user \(argument ?? "")" }
                args += ["login", "--username", user.username, "--password", user.password]
            case "sync": args += ["sync"]
            case "edit":
                editCount += 1
                args += ["contacts", "add", "--last", "Explore\(editCount)"]
            case "logout": args += ["logout"]
            case "switch-user": args += ["switch-user", "--username", argument ?? ""]
            default: args += ["contacts", "list", "--json"]
            }
        case "widget":
            guard let widget = explorer.bundle.widget else { return "skipped: the app has no widget" }
            executable = bin.appendingPathComponent("extension-widget")
            args = ["--bundle", widget.path, "--device", device.path, "--json"]
        default:
            guard let appex = explorer.bundle.notification else { return "skipped: the app has no notification service extension" }
            pushCount += 1
            let user = loggedIn.sorted().first ?? explorer.users[0].username
            let pushed = org.push(username: user, title: "Explore push \(pushCount)")
            executable = bin.appendingPathComponent("extension-notification")
            args = ["--bundle", appex.path, "--device", device.path, "--json"]
            if !pushed { say("     (the org did not take the push for \(user))") }
        }
        launches += 1
        let process: ActorProcess
        do {
            process = try ActorProcess(
                executable: executable, arguments: args, environment: environment, outputDirectory: directory, name: "\(actor)-\(launches)", forkServer: true)
            serveKeychain(process)
        } catch {
            return "could not start: \(error)"
        }
        let current = currentUser()
        running[actor] = Running(
            process: process, action: action, startStep: logicalStep, currents: current.map { [$0] } ?? [],
            userAtStart: current.flatMap(username(ofUserId:)))
        if verb == "logout", let user = running[actor]?.userAtStart {
            loggingOut.insert(user)
            uncertain.insert(user)
            // A logout deletes the user's store, unsent changes with it (the SDK's rule): edits made before it
            // need not reach the org.
            edits.removeAll { $0.owner == user }
        }
        return advance(actor)
    }

    /// Lets the actor pass `points` points, or go on until it stops at a point of the kind `until`, or to its end,
    /// whichever comes first.
    private func resume(_ actor: String, points: Int, until kind: String? = nil) -> String {
        guard running[actor] != nil else { return "skipped: \(actor) is not running" }
        return Scheduling.resume(points: points, until: kind, isRunning: { running[actor] != nil }) {
            running[actor]!.process.resume()
            return advance(actor)
        }
    }

    /// Runs the actor to its next point or its end.
    private func advance(_ actor: String) -> String {
        guard running[actor] != nil else { return "" }
        let next = running[actor]!.process.next()
        noteCurrentUser()
        let r = running[actor]!
        switch next {
        case .point(let kind, let detail)?:
            running[actor]?.at = kind
            event(actor, "i", kind, ["detail": relative(detail)])
            return "stopped at \(kind) \(relative(detail))"
        case .exited(let status)?:
            return ended(actor, r, status: status, signal: nil)
        case .signaled(let signal)?:
            return ended(actor, r, status: nil, signal: signal)
        case nil:
            running[actor] = nil
            violate("actor-hung", "\(actor) (\(r.action)) neither reached a point nor ended in 30 s; it was killed")
            return "hung: killed after 30 s"
        }
    }

    private func kill(_ actor: String, why: String) -> String {
        guard let r = running[actor] else { return "skipped: \(actor) is not running" }
        r.process.killNow()
        running[actor] = nil
        span(actor, r, "killed")
        return "\(why) (it was running \(r.action))"
    }

    private func ended(_ actor: String, _ r: Running, status: Int32?, signal: Int32?) -> String {
        running[actor] = nil
        let out = r.process.stdout
        let err = r.process.stderr
        let verb = String(r.action.split(separator: " ").first ?? "")
        span(actor, r, status.map { "exit \($0)" } ?? "signal \(signal!)")
        refreshSecrets()
        if secrets.isExposed(in: out, err) {
            violate("secret-exposed", "a token of the keychain is in the output of \(actor) (\(r.action))")
        }
        if let signal {
            violate("actor-crashed", "\(actor) (\(r.action)) ended by signal \(signal): \(secrets.redacted(Self.lastLine(err)))")
            return "crashed: signal \(signal)"
        }
        let code = status ?? 0
        if actor == "app", code == 0 {
            switch verb {
            case "login":
                if let user = r.action.split(separator: " ").dropFirst().first.map(String.init), !loggedIn.contains(user) { loggedIn.append(user) }
            case "logout":
                // "logged out USER; …"
                if let user = out.split(separator: "\n").first(where: { $0.hasPrefix("logged out ") })?.dropFirst("logged out ".count)
                    .split(separator: ";").first.map(String.init)
                {
                    loggedIn.removeAll { $0 == user }
                    uncertain.remove(user)
                }
            case "edit":
                edits.append(("Explore\(editCount)", currentUser().flatMap(username(ofUserId:))))
            default: break
            }
        }
        if actor == "widget" { checkWidget(r, out) }
        let line = secrets.redacted(code == 0 ? Self.lastLine(out) : Self.lastLine(err)).replacingOccurrences(of: device.path + "/", with: "")
        return "exit \(code)\(line.isEmpty ? "" : ": " + line)"
    }

    private func device(_ action: String) -> String {
        do {
            let d = try Device.open(at: device)
            switch action {
            case "lock":
                try d.lock()
            case "unlock":
                try d.setLockState(.unlocked)
            case "reinstall":
                return try reinstall(d)
            case "restore":
                return try restore(d)
            case "reboot":
                // A reboot ends every process.
                let ended = running.keys.sorted()
                for name in ended { _ = kill(name, why: "reboot") }
                try d.setLockState(.beforeFirstUnlock)
                lockState = try d.lockState()
                event("device", "i", "reboot", [:])
                return ended.isEmpty ? "rebooted: before its first unlock" : "rebooted: before its first unlock; ended \(ended.joined(separator: ", "))"
            default:
                return "skipped: no device step \(action)"
            }
            lockState = try d.lockState()
            event("device", "i", action, ["state": lockState.rawValue])
            return "now \(lockState.rawValue)"
        } catch {
            return "failed: \(error)"
        }
    }

    /// The user deletes the app and installs it again, as iOS does it: the app and its extensions end, their
    /// containers and the group's go, the keychain keeps every item. Whoever was logged in is logged out by it,
    /// and edits not yet sent go with the store.
    private func reinstall(_ d: Device) throws -> String {
        let ended = running.keys.sorted()
        for name in ended { _ = kill(name, why: "the app was deleted") }
        let apps = DeviceApps(device: d)
        let removed = try apps.uninstall(bundleID: explorer.bundle.bundleID)
        try apps.install(AppBundle(at: explorer.bundle.url))
        reinstalls += 1
        forgetSessions()
        event("device", "i", "reinstall", ["removed": removed.removed.joined(separator: ", ")])
        return "deleted and installed again: removed \(removed.removed.count) container(s), the keychain kept"
            + (ended.isEmpty ? "" : "; ended \(ended.joined(separator: ", "))")
    }

    /// The user moves to a new phone from an encrypted backup of this one (taken unlocked): the files and the
    /// keychain items that are not `…ThisDeviceOnly` come along, on a device with a new id; the run goes on there.
    private func restore(_ d: Device) throws -> String {
        guard lockState == .unlocked else { return "skipped: a backup is taken unlocked, and the device is \(lockState.rawValue)" }
        let ended = running.keys.sorted()
        for name in ended { _ = kill(name, why: "the old phone was put away") }
        restores += 1
        let store = self.store
        let file = directory.appendingPathComponent("backup-\(restores)")
        let backup = try DeviceBackup.backup(d, store: store, to: file)
        backupIDs.append(backup.backupID)
        let root = directory.appendingPathComponent("device-restored-\(restores)")
        let (restored, summary) = try DeviceBackup.restore(file, to: root, store: store)
        try? FileManager.default.removeItem(at: file)
        device = root
        deviceID = restored.id.uuidString
        deviceIDs.append(deviceID)
        lockState = try restored.lockState()
        forgetSessions()
        event("device", "i", "restore", ["items": String(summary.keychainItems), "leftOut": String(summary.keychainItemsLeftOut)])
        return "restored to a new phone: \(summary.files) file(s), \(summary.keychainItems) keychain item(s) came along, \(summary.keychainItemsLeftOut) did not"
            + (ended.isEmpty ? "" : "; ended \(ended.joined(separator: ", "))")
    }

    /// After a reinstall or a restore nobody is logged in by the app's doing, the account files on the device are
    /// what is there now, and edits not yet sent went with the old install (or phone): nothing the app acknowledged
    /// before it is expected any more.
    private func forgetSessions() {
        loggedIn.removeAll()
        uncertain.removeAll()
        loggingOut.removeAll()
        edits.removeAll()
        accountFiles = accountFilesNow()
    }

    private func orgStep(_ action: String) -> String {
        event("org", "i", action, [:])
        switch action {
        case "offline":
            orgOffline = true
            return org.faults(["errorRate": 1]) ? "every API request is answered 503" : "the org refused the fault"
        case "online":
            orgOffline = false
            return org.faults(["errorRate": 0]) ? "answers again" : "the org refused the fault"
        case "expire-tokens":
            return org.faults(["expireTokens": true]) ? "every access token expired" : "the org refused the fault"
        default:
            return "skipped: no org step \(action)"
        }
    }

    // MARK: Checks

    private func violate(_ invariant: String, _ message: String) {
        let at = steps.isEmpty ? nil : steps.count - 1
        let message = message.replacingOccurrences(of: directory.path, with: "<run>")
        violations.append(Explorer.RunViolation(invariant: invariant, message: message, step: at))
        say("     !! \(invariant): \(message)")
        event("invariants", "i", invariant, ["message": message])
    }

    /// The current user, for every running process (the widget's check), after each point a process passed.
    private func noteCurrentUser() {
        guard !running.isEmpty else { return }
        let current = currentUser()
        for (name, var r) in running {
            if let current { r.currents.insert(current) }
            running[name] = r
        }
    }

    /// After every step: account files gone.
    private func afterStep() { checkAccountFiles(by: steps.last.map { "\($0.actor) \($0.action)" } ?? "") }

    private func checkAccountFiles(by: String) {
        let now = accountFilesNow()
        for (userId, path) in accountFiles.sorted(by: { $0.key < $1.key }) where now[userId] == nil {
            let user = username(ofUserId: userId) ?? userId
            if loggingOut.contains(user) { continue }
            if let aside = Self.setAside(path) {
                say("     the account file of \(user) was set aside, kept: \(relative(aside)) (it cannot be read here; \(by))")
                continue
            }
            if explorer.options.sdkRecovery {
                recoveredAway.insert(user)
                say("     the account file of \(user) is gone (\(by); --sdk-recovery: the SDK deletes an account it cannot read)")
            } else {
                violate("data-deleted", "the account file of \(user) was deleted though nobody logged \(user) out (\(relative(path)); \(by))")
            }
        }
        accountFiles = now
    }

    /// The copy of a gone account file that a launch set aside (`….unreadable-…`, beside it), if there is one.
    static func setAside(_ path: String) -> String? {
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent()
        let prefix = url.lastPathComponent + ".unreadable-"
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).filter { $0.hasPrefix(prefix) }.sorted()
        return names.last.map { folder.appendingPathComponent($0).path }
    }

    private func checkWidget(_ r: Running, _ out: String) {
        guard let object = (try? JSONSerialization.jsonObject(with: Data(out.utf8))) as? [String: Any],
            object["state"] as? String == "listed", let shown = (object["user"] as? [String: Any])?["userId"] as? String
        else { return }
        let contacts = (object["contacts"] as? [Any])?.count ?? 0
        if !r.currents.contains(shown) {
            let name = username(ofUserId: shown) ?? shown
            let currents = r.currents.sorted().map { username(ofUserId: $0) ?? $0 }
            violate(
                "widget-shows-other-user",
                "the widget listed \(contacts) contact(s) of \(name), who was not the current user while it ran (current: \(currents.isEmpty ? "nobody" : currents.joined(separator: ", ")))")
        }
    }

    /// The end of a run: what runs goes on to its end, the device is unlocked, the org answers, and the app is
    /// relaunched to check that nobody was logged out and that every acknowledged edit reaches the org.
    func epilogue() {
        inEpilogue = true
        say("     end of the run: every running process goes on to its end, the device is unlocked, the org answers")
        for actor in ExploreStep.processActors {
            var guardSteps = 0
            while let r = running[actor], guardSteps < 10_000 {
                r.process.resume()
                let outcome = advance(actor)
                if running[actor] == nil { say("     \(actor) (\(r.action)) \(outcome)") }
                checkAccountFiles(by: "\(actor) \(r.action), at the run's end")
                guardSteps += 1
            }
        }
        if orgOffline { _ = orgStep("online") }
        if !lockState.isUnlocked { _ = device("unlock") }
        let status = finalApp(["status", "--json"])
        let accounts = ((try? JSONSerialization.jsonObject(with: Data(status.out.utf8))) as? [String: Any])?["accounts"] as? [String] ?? []
        say("     relaunched: \(status.code == 0 ? "accounts \(accounts)" : "exit \(status.code): \(Self.lastLine(status.err))")")
        checkAccountFiles(by: "the app relaunched at the run's end")
        for user in loggedIn where !uncertain.contains(user) && !accounts.contains(user) {
            violate("logged-out-without-logout", "\(user) logged in and never logged out, but is not logged in once the device is unlocked and the app relaunched")
        }
        checkExtensionsAtRest(accounts: accounts)
        checkOrphanedSessions()
        let owners = Set(edits.compactMap(\.owner)).filter { accounts.contains($0) }.sorted()
        for owner in owners {
            // The relaunched app's current user needs no switch (a launch of its own that would change nothing).
            if currentUser().flatMap(username(ofUserId:)) != owner { _ = finalApp(["switch-user", "--username", owner]) }
            let sync = finalApp(["sync"])
            let list = finalApp(["contacts", "list", "--json"])
            let entries = (try? JSONSerialization.jsonObject(with: Data(list.out.utf8))) as? [[String: Any]] ?? []
            for edit in edits where edit.owner == owner {
                let copies = entries.filter { $0["LastName"] as? String == edit.lastName }
                if copies.count > 1 {
                    violate(
                        "edit-duplicated",
                        "the contact \(edit.lastName) that the app created once for \(owner) is at the org \(copies.count) times after the final sync (a sync up killed after the org created it, then sent again)")
                }
                let entry = copies.first
                let synced = entry.map { ($0["Id"] as? String).map { !$0.hasPrefix("local_") } ?? false } ?? false
                if !synced {
                    violate(
                        "edit-lost",
                        "the contact \(edit.lastName) that the app acknowledged for \(owner) is \(entry == nil ? "gone" : "not at the org") after the final sync (sync: exit \(sync.code)\(sync.code == 0 ? "" : ", " + Self.lastLine(sync.err)))")
                }
            }
        }
        refreshSecrets()
        if let file = secrets.fileHolding(under: device) {
            violate("secret-exposed", "a token of the keychain is written in \(relative(file.path))")
        }
    }

    /// At rest (the device unlocked, nothing running, the app relaunched) with a user logged in, the extensions see
    /// that user: the widget lists the current user's data, and the notification service extension decrypts a push
    /// to them. What a user of a misconfigured app sees instead: a widget that says nobody is logged in, a push
    /// shown undecrypted.
    private func checkExtensionsAtRest(accounts: [String]) {
        guard let current = currentUser().flatMap(username(ofUserId:)), accounts.contains(current) else { return }
        func object(_ text: String) -> [String: Any] { (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any] ?? [:] }
        if let widget = explorer.bundle.widget {
            let run = finalRun("extension-widget", ["--bundle", widget.path, "--device", device.path, "--json"], label: "the widget at rest")
            let report = object(run.out)
            let state = report["state"] as? String ?? "exit \(run.code)"
            let shown = ((report["user"] as? [String: Any])?["userId"] as? String).flatMap(username(ofUserId:))
            say("     the widget at rest: \(state)\(shown.map { " (\($0))" } ?? "")")
            if state != "listed" || shown != current {
                violate(
                    "extension-sees-no-user",
                    "with the device unlocked, nothing running and \(current) logged in, the widget says \(state): \(report["message"] as? String ?? Self.lastLine(run.err))")
            }
        }
        if let appex = explorer.bundle.notification {
            let title = "Explore push at rest"
            guard org.push(username: current, title: title) else {
                say("     (the org took no push for \(current) at rest: the device is not registered)")
                return
            }
            // Earlier pushes may wait in the inbox: the extension takes them in order; this one, the newest, is last.
            // It is launched while the inbox holds a payload (iOS launches it for a notification, never for none).
            var last: (report: [String: Any], err: String)?
            var launched = 0
            while launched < pushCount + 2, inboxHoldsAPayload() {
                launched += 1
                let run = finalRun("extension-notification", ["--bundle", appex.path, "--device", device.path, "--json"], label: "the notification extension at rest")
                let report = object(run.out)
                if report["state"] as? String == "noNotification" { break }
                last = (report, run.err)
            }
            guard let (report, err) = last else {
                violate("extension-sees-no-user", "a push to \(current) at rest never reached the notification service extension")
                return
            }
            let state = report["state"] as? String ?? "no report"
            say("     the notification extension at rest: \(state)\(report["decrypted"] as? Bool == true ? ", decrypted" : "")")
            if state != "shown" || report["decrypted"] as? Bool != true {
                violate(
                    "extension-sees-no-user",
                    "with the device unlocked, nothing running and \(current) logged in, a push to \(current) is \(state) in the notification service extension: \(report["message"] as? String ?? Self.lastLine(err))")
            }
        }
    }

    /// After the relaunch: live tokens that no account file points to, which the org still accepts. The app's own
    /// launch discards an interrupted login's; what a previous install left stays unless the app revokes it.
    private func checkOrphanedSessions() {
        let orphans = Self.orphanedTokenAccounts(bundle: explorer.bundle.url.path, device: device.path, store: store)
        guard !orphans.isEmpty, let clientId = explorer.bundle.consumerKey else { return }
        let items = (try? store.search(["device": deviceID, "service": TokenStore.refreshService])) ?? []
        var live = 0
        for account in orphans {
            guard let item = items.first(where: { $0.attributes["account"] == account && !$0.secret.isEmpty }) else { continue }
            if org.acceptsRefreshToken(String(decoding: item.secret, as: UTF8.self), clientId: clientId) { live += 1 }
        }
        say("     keychain sessions no account uses: \(orphans.count), of which the org still accepts \(live)")
        guard live > 0 else { return }
        var causes: [String] = []
        if reinstalls > 0 { causes.append("the app was deleted and installed again: keychain values outlive the app, so revoke a previous install's sessions at the first launch after an install") }
        if restores > 0 {
            causes.append("the app was restored to a new phone from a backup: keychain items that are not …ThisDeviceOnly came along, tokens with them, while the account could not be read there; keep tokens ThisDeviceOnly")
        }
        if !recoveredAway.isEmpty {
            causes.append("the SDK's recovery deleted the account of \(recoveredAway.sorted().joined(separator: ", ")) without revoking its session")
        }
        violate(
            "orphaned-session",
            "\(live) session(s) have tokens in the keychain that no account on the device uses, and the org still accepts them: nothing on the phone will use or end them"
                + (causes.isEmpty ? "" : " (\(causes.joined(separator: "; ")))"))
    }

    /// `UserAccountManager.orphanedTokenAccounts` of the app on the device, read from outside as the doctor reads it.
    private static func orphanedTokenAccounts(bundle: String, device: String, store: any SecretStore) -> [String] {
        final class Box: @unchecked Sendable { var accounts: [String] = [] }
        let box = Box()
        let done = DispatchSemaphore(value: 0)
        Task {
            defer { done.signal() }
            guard let launch = try? ProcessLaunch(bundlePath: bundle, devicePath: device, applyConfig: false, secretStore: store) else { return }
            let accounts = UserAccountManager(launch: launch, events: SDKEvents())
            _ = await accounts.loadAccountKey()
            box.accounts = (try? await accounts.orphanedTokenAccounts()) ?? []
        }
        done.wait()
        return box.accounts
    }

    /// A launch of the app at the run's end, let run to its end.
    private func finalApp(_ command: [String]) -> (code: Int32, out: String, err: String) {
        let args = ["--bundle", explorer.bundle.url.path, "--device", device.path, "--org", org.url] + (explorer.options.sdkRecovery ? ["--sdk-recovery"] : []) + command
        return finalRun("main-app", args, label: "the app (\(command.joined(separator: " ")))")
    }

    /// A launch of one of the binaries at the run's end, let run to its end.
    private func finalRun(_ tool: String, _ args: [String], label: String) -> (code: Int32, out: String, err: String) {
        launches += 1
        guard let p = try? ActorProcess(
            executable: explorer.options.bin.appendingPathComponent(tool), arguments: args, environment: environment,
            outputDirectory: directory, name: "final-\(launches)", forkServer: true)
        else { return (127, "", "could not start \(tool)") }
        serveKeychain(p)
        while true {
            switch p.next() {
            case .point?: p.resume()
            case .exited(let status)?: return (status, p.stdout, p.stderr)
            case .signaled(let signal)?:
                violate("actor-crashed", "\(label) ended by signal \(signal) at the run's end")
                return (128 + signal, p.stdout, p.stderr)
            case nil:
                violate("actor-hung", "\(label) hung at the run's end")
                return (124, "", "")
            }
        }
    }

    // MARK: What the explorer reads of the device (from outside, as msdk-sim inspect does)

    /// The environment of every process this run launches (made once: ProcessInfo builds a new dictionary from
    /// `environ` at each call).
    private lazy var environment: [String: String] = {
        var env = ProcessInfo.processInfo.environment
        env["APPGROUPSIM_ADMIN_TOKEN"] = org.adminToken
        env["APPGROUPSIM_DEVICE"] = nil
        env[ExplorerSecretStore.environmentKey] = keychain == nil ? nil : "memory"
        env[PushKey.explorerEnvironmentKey] = "1"
        return env
    }()

    /// The explorer answers the process's requests for a new push key and, with the in-memory keychain, its
    /// keychain requests.
    private func serveKeychain(_ process: ActorProcess) {
        process.answers[PushKey.explorerCallKind] = pushKeys.answer
        guard let keychain else { return }
        process.answers[ExplorerSecretStore.callKind] = keychain.answer
    }

    /// The app's current user (LastUserIdentity of its msdkUserDefaults), read from the file without the
    /// device's data protection: the explorer looks from outside.
    private func currentUser() -> String? {
        let standard = plist(suiteURL(group: nil))
        var msdk = standard
        if let group = standard["DataSharingHelper.appGroupName"]?.stringValue ?? standard[DataSharingHelper.appGroupNameKey]?.stringValue {
            let suite = plist(suiteURL(group: group))
            if suite[DataSharingHelper.appGroupEnabledKey]?.boolValue == true { msdk = suite }
        }
        guard let value = msdk["LastUserIdentity"] else { return nil }
        // Decoding the archived identity was most of this look-up's time; it changes far less often than it is read.
        if let cached = identity, cached.value == value { return cached.userId }
        let userId = UserIdentity(plist: value)?.userId
        identity = (value, userId)
        return userId
    }

    /// The app's standard suite (`group` nil) or a group's suite on the run's device now, made once per device
    /// and group: it is read after every point a process passes, and building the URL each time was a tenth of
    /// the explorer's own time.
    private func suiteURL(group: String?) -> URL {
        let key = "\(devicePath)\n\(group ?? "")"
        if let url = suiteURLs[key] { return url }
        let layout = DeviceLayout(root: device)
        let url = group.map { layout.groupSuite(groupID: $0) } ?? layout.standardDefaults(bundleID: explorer.bundle.bundleID)
        suiteURLs[key] = url
        return url
    }

    /// A plist of the device, parsed again only when its bytes changed: it is read after every point a process
    /// passes, and parsing it each time was a third of the explorer's own time. Keyed by the bytes, not by the
    /// file's times, so that what the explorer sees never depends on the clock.
    private func plist(_ url: URL) -> [String: PlistValue] {
        guard let data = WholeFile.data(url) else { return [:] }
        if let cached = plists[url.path], cached.data == data { return cached.value }
        // The app's own reader (SharedDefaults'): Foundation's bridged each <data> to Swift a byte at a time.
        let value = PlistValue.dictionary(propertyList: data) ?? [:]
        plists[url.path] = (data, value)
        return value
    }

    /// Whether the app's notification inbox on the device holds a payload that the org delivered.
    private func inboxHoldsAPayload() -> Bool {
        !NotificationInbox.payloadNames(in: DeviceLayout(root: device).notificationInbox(bundleID: explorer.bundle.bundleID)).isEmpty
    }

    private func username(ofUserId id: String) -> String? {
        explorer.users.first { $0.userId == id || $0.userId.prefix(15) == id.prefix(15) }?.username
    }

    private func accountFilesNow() -> [String: String] {
        var out: [String: String] = [:]
        for root in DeviceLayout(root: device).allSDKRoots() {
            for file in root.accountFiles() { out[file.userId] = file.url.path }
        }
        return out
    }

    /// The keychain's values on this device, for `secret-exposed`.
    private func refreshSecrets() {
        guard let items = try? store.search(["device": deviceID]) else { return }
        secrets.learn(items.map(\.secret))
    }

    private func relative(_ path: String) -> String {
        path.hasPrefix(device.path + "/") ? String(path.dropFirst(device.path.count + 1)) : path
    }

    static func lastLine(_ text: String) -> String {
        String(text.split(separator: "\n").last(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) ?? "").trimmingCharacters(in: .whitespaces)
    }

    // MARK: Trace (Chrome Trace Event JSON; logical time, one step a millisecond)

    private static let tracks = ["app", "widget", "notification", "device", "org", "invariants"]

    private func event(_ track: String, _ phase: String, _ name: String, _ args: [String: Any]) {
        var e: [String: Any] = ["name": name, "ph": phase, "ts": logicalStep * 1000, "pid": 1, "tid": (Self.tracks.firstIndex(of: track) ?? 0) + 1]
        if phase == "i" { e["s"] = "t" }
        if !args.isEmpty { e["args"] = args }
        events.append(e)
    }

    private func span(_ actor: String, _ r: Running, _ end: String) {
        events.append([
            "name": r.action, "ph": "X", "ts": r.startStep * 1000, "dur": (logicalStep - r.startStep + 1) * 1000, "pid": 1,
            "tid": (Self.tracks.firstIndex(of: actor) ?? 0) + 1, "args": ["end": end],
        ])
    }

    func traceJSON() -> Data {
        var all: [[String: Any]] = [["name": "process_name", "ph": "M", "pid": 1, "args": ["name": "device (\(explorer.bundle.bundleID))"]]]
        for (i, track) in Self.tracks.enumerated() {
            all.append(["name": "thread_name", "ph": "M", "pid": 1, "tid": i + 1, "args": ["name": track]])
        }
        all += events
        return (try? JSONSerialization.data(withJSONObject: ["traceEvents": all, "displayTimeUnit": "ms"], options: [.sortedKeys])) ?? Data()
    }
}
