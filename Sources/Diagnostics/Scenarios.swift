import AppGroup
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine

/// Scripted, deterministic reproductions of failures Mobile SDK users reported. Each one runs the
/// real binaries (`main-app`, `extension-widget`, `sf-simulator`) against a fresh device and a
/// real keyring, prints what happened, why, and the fix, and checks that it happened as described.
package enum Scenarios {
    package struct Info: Sendable {
        package var name: String
        package var title: String
    }

    package static let all: [Info] = [
        Info(name: "keychain-locked-at-launch", title: "(a) the app's keychain items are whenUnlocked, and it starts in the background while the phone is locked"),
        Info(name: "extension-migrates-first", title: "(b) the extension starts first after app groups are enabled and strands the app's files"),
        Info(name: "stale-login-flag", title: "(c) the last account logs out and userLoggedIn stays set"),
        Info(name: "widget-forces-flag", title: "(d) the widget's bundle hard-codes the app-group flag while the app turned it off"),
        Info(name: "extension-without-keychain-group", title: "(e) the extension lacks the keychain group and cannot read the tokens"),
        Info(name: "killed-sync-up-duplicates", title: "(f) the app is killed during a sync up, after the org created the records"),
        Info(name: "notification-extension-without-keychain-group", title: "(g) the notification service extension ships without the app's keychain group"),
        Info(name: "sdk-upgrade-widget-first", title: "(h) after an SDK upgrade the widget runs first, while the phone is locked"),
        Info(name: "backup-restored-to-new-device", title: "(i) a backup is restored to a new phone: the SDK's keys stay behind"),
        Info(name: "push-while-locked", title: "(j) pushes arrive while the phone is locked, and after a reboot before its first unlock"),
        Info(name: "reinstall-finds-old-tokens", title: "(k) the app is uninstalled and installed again: the old user's tokens are still in the keychain"),
    ]

    package enum Failure: Error, CustomStringConvertible {
        case unknown(String)
        case setup(String)
        case notReproduced(String)

        package var description: String {
            switch self {
            case .unknown(let name): return "no scenario \(name); msdk-sim scenario list names them"
            case .setup(let detail): return "the scenario could not be set up: \(detail)"
            case .notReproduced(let detail): return "the scenario did not go as described: \(detail)"
            }
        }
    }

    /// Runs one scenario. `print` receives the narrative line by line.
    package static func run(
        _ name: String, binDirectory: URL, fixtureApp: URL, sdkRecovery: Bool, print: @escaping @Sendable (String) -> Void
    ) async throws {
        guard let info = all.first(where: { $0.name == name }) else { throw Failure.unknown(name) }
        let run = try Run(bin: binDirectory, fixtureApp: fixtureApp, print: print)
        defer { run.finish() }
        print("scenario \(info.name): \(info.title)")
        print("  device: \(run.device.path)\(sdkRecovery ? "  (--sdk-recovery: the SDK's destructive recovery)" : "")")
        try run.startOrg()
        switch name {
        case "keychain-locked-at-launch": try await keychainLocked(run, sdkRecovery: sdkRecovery)
        case "extension-migrates-first": try extensionMigratesFirst(run)
        case "stale-login-flag": try staleFlag(run)
        case "widget-forces-flag": try widgetForcesFlag(run)
        case "killed-sync-up-duplicates": try await killedSyncUp(run)
        case "notification-extension-without-keychain-group": try await notificationExtensionWithoutKeychainGroup(run)
        case "sdk-upgrade-widget-first": try sdkUpgradeWidgetFirst(run, sdkRecovery: sdkRecovery)
        case "backup-restored-to-new-device": try backupRestored(run, sdkRecovery: sdkRecovery)
        case "push-while-locked": try await pushWhileLocked(run)
        case "reinstall-finds-old-tokens": try await reinstallFindsOldTokens(run)
        default: try await extensionWithoutKeychainGroup(run)
        }
    }

    // MARK: (a)

    static func keychainLocked(_ run: Run, sdkRecovery: Bool) async throws {
        // Broken: the app gives the SDK's items the class whenUnlocked (as apps did before the SDK's 9.2.1 default).
        let app = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["keychainAccessibility"] = "whenUnlocked" }
        }
        try run.loginAliceAndSync(app, "the app (keychainAccessibility whenUnlocked) logs alice in and syncs, the phone unlocked")
        let files = try run.accountFiles()
        let stores = try run.storeFiles()
        guard !files.isEmpty, !stores.isEmpty else { throw Failure.setup("after login and sync: account files \(files), stores \(stores)") }
        run.say("  the device has \(files.count) account file(s) and \(stores.count) store(s) of alice; her items are whenUnlocked")
        try run.setLockState(.locked)
        run.say("  msdk-sim device lock: the phone locks; later iOS launches the app in the background (a background fetch, a push)")
        // What a background launch does: read the current user's records.
        let launch = run.app(app, (sdkRecovery ? ["--sdk-recovery"] : []) + ["--background", "contacts", "list", "--json"])
        let left = try run.accountFiles()
        let storesLeft = try run.storeFiles()
        if sdkRecovery {
            try run.step("the background launch (SDK recovery)", launch, expect: 1)
            guard left.isEmpty else { throw Failure.notReproduced("the account files are still there: \(left)") }
            guard storesLeft.isEmpty else { throw Failure.notReproduced("the stores are still there: \(storesLeft)") }
            try run.setLockState(.unlocked)
            let widget = run.widget(run.widgetOf(app))
            run.say("  what happened: UserAccount.plist is sealed with a key in the keychain group; a whenUnlocked key is not given out while locked")
            run.say("  (errSecInteractionNotAllowed), so the file did not decrypt, and the SDK (fetchAllAccounts) deleted it as unreadable, with her store;")
            run.say("  after the unlock the widget says \(widget.state) -- users found themselves logged out (SDK issues #3437, #3477, #3427)")
        } else {
            try run.step("the background launch (AppGroupSim default)", launch, expect: 1)
            guard launch.stderr.contains("whenUnlocked") else { throw Failure.notReproduced("the launch did not name the item's class: \(launch.stderr)") }
            guard left == files else { throw Failure.notReproduced("account files changed: \(files) -> \(left)") }
            guard storesLeft == stores else { throw Failure.notReproduced("stores changed: \(stores) -> \(storesLeft)") }
            run.say("  what happened: the launch stops with one message naming the class; all \(left.count) account file(s) and the store are kept,")
            run.say("  so alice is still logged in once the phone is unlocked (--sdk-recovery shows what the SDK does instead)")
            try run.setLockState(.unlocked)
        }
        run.say("  why: a whenUnlocked item cannot be read while the phone is locked, and a background launch comes exactly then")

        // Fixed: the SDK's default class (or setAccessibleAttribute(.afterFirstUnlockThisDeviceOnly) at launch).
        let fixed = try run.variant("MobileSyncExplorerFixed") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["keychainAccessibility"] = "afterFirstUnlockThisDeviceOnly" }
        }
        if sdkRecovery { try run.loginAliceAndSync(fixed, "fixed (afterFirstUnlockThisDeviceOnly): alice logs in again and syncs, the phone unlocked") }
        try run.step("fixed (afterFirstUnlockThisDeviceOnly): the app opens, its items are saved again with the class", run.app(fixed, ["status", "--json"]), expect: 0)
        try run.setLockState(.locked)
        let background = run.app(fixed, ["--background", "contacts", "list"])
        try run.step("the phone locks; the background launch lists the contacts", background, expect: 0)
        let count = background.stdout.split(separator: "\n").count
        let widget = run.widget(run.widgetOf(fixed))
        guard count > 0, widget.state == "listed" else { throw Failure.notReproduced("fixed: \(count) contact(s) listed in the background, the widget says \(widget.state)") }
        run.say("      the background launch lists \(count) contacts, and the widget refreshing while locked says \(widget.state)")
        try run.setLockState(.unlocked)
        run.say("  fix: keep the SDK's default class afterFirstUnlockThisDeviceOnly (or KeychainHelper.setAccessibleAttribute(.afterFirstUnlockThisDeviceOnly));")
        run.say("       never delete what cannot be read while the phone is locked (errSecInteractionNotAllowed is not corruption): retry after")
        run.say("       UIApplication.protectedDataDidBecomeAvailable; msdk-sim doctor warns of keychain-class-when-unlocked")
    }

    // MARK: (h)

    /// Version 1 of the app ran an SDK before 9.2.1: its keychain items whenUnlockedThisDeviceOnly, its files
    /// complete. Version 2 ships the current SDK; the phone is locked when iOS refreshes the widget after the update.
    static func sdkUpgradeWidgetFirst(_ run: Run, sdkRecovery: Bool) throws {
        let recovery = sdkRecovery ? ["--sdk-recovery"] : []
        func versionOne() throws -> URL {
            let app = try run.variant("MobileSyncExplorer-\(UUID().uuidString.prefix(4))") { url in
                try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) {
                    $0["keychainAccessibility"] = "whenUnlockedThisDeviceOnly"
                    $0["fileProtection"] = "complete"
                }
            }
            try run.loginAliceAndSync(app, "version 1 (an SDK before 9.2.1: items whenUnlockedThisDeviceOnly, files complete): alice logs in and syncs")
            try run.groupSuite().set(.string("9.1.0"), forKey: SDKUpgrade.versionKey)
            // Version 2: the update ships the current SDK, whose defaults are afterFirstUnlockThisDeviceOnly and
            // completeUntilFirstUserAuthentication; the data stays as version 1 left it.
            try Run.editPlist(app.appendingPathComponent(AppGroupConfig.fileName)) {
                $0["keychainAccessibility"] = nil
                $0["fileProtection"] = nil
            }
            try run.setLockState(.locked)
            let widget = run.widget(run.widgetOf(app))
            let kept = try run.groupSuite().string(forKey: SDKUpgrade.versionKey)
            run.say("  version 2 is installed while the phone is locked; iOS refreshes the widget first: it says \(widget.state),")
            run.say("      and its SDK's upgrade could not give the items afterFirstUnlockThisDeviceOnly (errSecInteractionNotAllowed): the last version kept is still \(kept ?? "none")")
            guard widget.state == "dataProtected", kept == "9.1.0" else { throw Failure.notReproduced("widget \(widget.state) (\(widget.message)), version \(kept ?? "none")") }
            return app
        }

        // Broken: an SDK that records the upgrade although a step could not run (before PR #3454).
        let app = try versionOne()
        try run.groupSuite().set(.string(SDKUpgrade.currentVersion), forKey: SDKUpgrade.versionKey)
        run.say("  broken (an SDK before PR #3454): the upgrade is recorded as done (\(SDKUpgrade.currentVersion)) although its steps did not run")
        try run.setLockState(.unlocked)
        try run.step("the user unlocks the phone and opens the app: the upgrade is up to date, nothing is saved again", run.app(app, ["status", "--json"]), expect: 0)
        try run.setLockState(.locked)
        let files = try run.accountFiles()
        let background = run.app(app, recovery + ["--background", "contacts", "list"])
        try run.step("the phone locks; a background fetch", background, expect: 1)
        let left = try run.accountFiles()
        if sdkRecovery {
            guard left.isEmpty else { throw Failure.notReproduced("the account files are still there: \(left)") }
            run.say("  what happened: the account file is still complete, the launch cannot open it, and the SDK's persister deletes what it cannot read:")
            run.say("      alice is logged out (PR #3407's field failure)")
        } else {
            guard left == files, background.stderr.contains("complete") else { throw Failure.notReproduced("files \(files) -> \(left): \(background.stderr)") }
            run.say("  what happened: the account file is still complete and the launch cannot open it; AppGroupSim keeps it (the SDK would delete it and log alice out: --sdk-recovery)")
        }
        try run.setLockState(.unlocked)

        // Fixed: the current SDK stops its upgrade when a step cannot run, and runs it again at the next launch.
        run.newDevice("device-fixed")
        run.say("  fixed (the SDK since PR #3454, as AppGroupSim runs it), on a new device:")
        let fixed = try versionOne()
        try run.setLockState(.unlocked)
        try run.step("the user unlocks the phone and opens the app: the upgrade runs again, and now can", run.app(fixed, ["--trace", run.work.appendingPathComponent("fixed.trace").path, "status", "--json"]), expect: 0)
        let trace = (try? String(contentsOf: run.work.appendingPathComponent("fixed.trace"), encoding: .utf8)) ?? ""
        guard trace.contains("\"step\":\"sdkUpgraded\""), try run.groupSuite().string(forKey: SDKUpgrade.versionKey) == SDKUpgrade.currentVersion else {
            throw Failure.notReproduced("the upgrade did not run at the app's launch: \(trace)")
        }
        try run.setLockState(.locked)
        let listed = run.app(fixed, recovery + ["--background", "contacts", "list"])
        try run.step("the phone locks; a background fetch lists the contacts", listed, expect: 0)
        let widget = run.widget(run.widgetOf(fixed))
        guard widget.state == "listed" else { throw Failure.notReproduced("fixed: the widget says \(widget.state): \(widget.message)") }
        run.say("      and the widget refreshing while locked says \(widget.state)")
        try run.setLockState(.unlocked)
        run.say("  why: iOS launches an extension or a background fetch after an update, often while the phone is locked, and the SDK's upgrade")
        run.say("       runs in whichever process makes the SDK manager first")
        run.say("  fix: an SDK with PR #3454 (9.2.1 and later): a step that needs the keychain or protected data waits for the unlock and is")
        run.say("       never recorded as done; your own migrations should do the same (check UIApplication.isProtectedDataAvailable, retry after")
        run.say("       protectedDataDidBecomeAvailable); msdk-sim doctor warns of keychain-class-when-unlocked and file-protection-complete")
    }

    // MARK: (k)

    /// Keychain values outlive an app (PR #3604; SalesforceSDKManager.m says so): after an uninstall and an install
    /// the app is logged out, but the old session's tokens are still in the keychain, live at the org.
    static func reinstallFindsOldTokens(_ run: Run) async throws {
        let bundleID = "com.salesforce.mobilesdk.MobileSyncExplorer"
        func reinstall(_ app: URL) throws {
            try run.step("msdk-sim device uninstall (the user deletes the app)", run.exec("msdk-sim", ["device", "uninstall", "--device", run.device.path, bundleID]), expect: 0)
            try run.step("msdk-sim device install (and installs it again)", run.exec("msdk-sim", ["device", "install", "--device", run.device.path, "--app", app.path]), expect: 0)
        }
        func install(_ app: URL) throws {
            let out = run.exec("msdk-sim", ["device", "install", "--device", run.device.path, "--app", app.path])
            guard out.status == 0 else { throw Failure.setup("msdk-sim device install: \(out.stderr)") }
        }
        // The SDK's default: nothing revokes what a previous install left (the sample sets the fix; this variant not).
        let app = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["revokeTokensOfPreviousInstall"] = false }
        }
        try install(app)
        try run.step("alice logs in", run.app(app, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        try reinstall(app)
        try run.step("the reinstalled app opens: no account", run.app(app, ["status", "--json"]), expect: 0)
        let doctor = run.exec("msdk-sim", ["doctor", "--app", app.path, "--device", run.device.path])
        guard doctor.stdout.contains("orphaned-token-items") else { throw Failure.notReproduced("the doctor did not find the old tokens: \(doctor.stdout)") }
        let accepted = try await refreshAccepted(run, app)
        run.say("  msdk-sim doctor: orphaned-token-items; the org \(accepted ? "still accepts" : "refuses") alice's old refresh token")
        guard accepted else { throw Failure.notReproduced("the org no longer accepts the old refresh token") }
        run.say("  what happened: the uninstall removed the app's containers (the account file with them) but not its keychain items;")
        run.say("      the SDK's checkForScreenLockUsers forgets a passcode no account needs, and keeps the tokens: a live session that")
        run.say("      nothing on the phone will use or end")

        run.newDevice("device-fixed")
        let fixed = try run.variant("MobileSyncExplorerFixed") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["revokeTokensOfPreviousInstall"] = true }
        }
        run.say("  fixed (revokeTokensOfPreviousInstall: at the first launch after an install, the app revokes and removes what a previous install left):")
        try install(fixed)
        try run.step("alice logs in", run.app(fixed, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        try reinstall(fixed)
        let opened = run.app(fixed, ["sync"])
        try run.step("the reinstalled app opens (no user to sync)", opened, expect: 1)
        guard opened.stderr.contains("revoked at the org and removed the tokens of 1 session(s) a previous install") else {
            throw Failure.notReproduced("the first launch did not revoke the old session: \(opened.stderr)")
        }
        run.say("      \(opened.stderr.split(separator: "\n").first ?? "")")
        let still = try await refreshAccepted(run, fixed)
        let after = run.exec("msdk-sim", ["doctor", "--app", fixed.path, "--device", run.device.path])
        guard !still, !after.stdout.contains("orphaned-token-items") else { throw Failure.notReproduced("fixed: the org accepts the token: \(still); doctor: \(after.stdout)") }
        run.say("  the org refuses the old refresh token now, and the doctor finds no orphaned-token-items")
        run.say("  why: iOS keeps an app's keychain items after the app is deleted; the SDK's own items are no exception")
        run.say("  fix: at the first launch after an install (a flag in UserDefaults.standard, which goes with the app), revoke and remove")
        run.say("       the SDK's keychain items that no account file points to (AppGroupConfig.plist revokeTokensOfPreviousInstall here)")
    }

    /// Whether the org still grants an access token for the refresh token left in the scenario's keychain (the
    /// token is read and sent, never printed).
    static func refreshAccepted(_ run: Run, _ app: URL) async throws -> Bool {
        let device = try Device.open(at: run.device)
        let items = try LibsecretStore().search(["device": device.id.uuidString, "service": TokenStore.refreshService])
        guard let refresh = items.first(where: { !$0.secret.isEmpty }).map({ String(decoding: $0.secret, as: UTF8.self) }) else { return false }
        let boot = try BootConfig.load(from: AppBundle(at: app))
        guard let request = RunningOrg.refreshRequest(orgURL: run.orgURL, refreshToken: refresh, clientId: boot.consumerKey) else { throw Failure.setup("no org URL") }
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    // MARK: (j)

    /// The notification service extension reads the push key from the shared keychain group; its class decides
    /// when it can. Before the first unlock no class can be read: the fallback is shown and the payload kept.
    static func pushWhileLocked(_ run: Run) async throws {
        func push(_ title: String) async throws {
            let sent = try await run.post("/__admin/push", ["username": "alice@acme.test", "title": title, "body": "Acme needs a call back today"])
            guard ((sent["delivered"] as? [Any])?.count ?? 0) >= 1 else { throw Failure.setup("the org did not deliver: \(sent)") }
        }
        let broken = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["keychainAccessibility"] = "whenUnlocked" }
        }
        let extensionURL = { (app: URL) in app.appendingPathComponent("PlugIns/NotificationService.appex") }
        try run.step("the app (keychainAccessibility whenUnlocked) logs alice in and registers for her notifications", run.app(broken, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        try run.setLockState(.locked)
        try await push("Case 00001026 escalated")
        let locked = run.notification(extensionURL(broken))
        run.say("  the phone is locked; a notification arrives: extension-notification -> \(locked.state), the user sees \"\(locked.title)\"")
        guard locked.status == 12, locked.title == "New notification", locked.message.contains("whenUnlocked") else {
            throw Failure.notReproduced("a whenUnlocked push key while locked: \(locked.state) \(locked.title): \(locked.message)")
        }
        run.say("  what happened: the push key is whenUnlocked, which iOS does not give out while the phone is locked, and a push comes")
        run.say("      exactly then: every notification on a locked phone reads \"New notification\"")
        try run.setLockState(.unlocked)

        run.newDevice("device-fixed")
        let fixed = try run.variant("MobileSyncExplorerFixed") { _ in }
        run.say("  fixed (the SDK's default class, afterFirstUnlockThisDeviceOnly), on a new device:")
        try run.step("alice logs in and registers for her notifications", run.app(fixed, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        try run.setLockState(.locked)
        try await push("Case 00001027 escalated")
        let shown = run.notification(extensionURL(fixed))
        run.say("  the phone is locked; a notification arrives: \(shown.state), \"\(shown.title)\"")
        guard shown.status == 0, shown.title == "Case 00001027 escalated" else { throw Failure.notReproduced("fixed, locked: \(shown.state): \(shown.message)") }
        try run.setLockState(.beforeFirstUnlock)
        try await push("Case 00001028 escalated")
        let early = run.notification(extensionURL(fixed))
        run.say("  the phone reboots; a notification arrives before the first unlock: \(early.state), \"\(early.title)\" (no class can be read yet)")
        guard early.status == 12, early.title == "New notification" else { throw Failure.notReproduced("before the first unlock: \(early.state): \(early.message)") }
        let delivered = run.layout.deliveredNotifications(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer")
        let kept = ((try? FileManager.default.contentsOfDirectory(atPath: delivered.path)) ?? []).sorted().last.map { delivered.appendingPathComponent($0) }
        guard let kept else { throw Failure.notReproduced("the payload was not kept in \(delivered.path)") }
        try run.setLockState(.unlocked)
        let later = run.exec("extension-notification", ["--bundle", extensionURL(fixed).path, "--device", run.device.path, "--json", "--payload", kept.path])
        let object = (try? Run.json(later.stdout)) ?? [:]
        run.say("  after the unlock the kept payload decrypts: \(object["state"] as? String ?? later.stderr), \"\(object["title"] as? String ?? "")\"")
        guard later.status == 0, object["title"] as? String == "Case 00001028 escalated" else { throw Failure.notReproduced("the kept payload: \(later.stdout)\(later.stderr)") }
        run.say("  why: a notification service extension runs whenever APNs delivers, locked or not, even before the first unlock")
        run.say("  fix: keep the push key afterFirstUnlockThisDeviceOnly (the SDK's default; msdk-sim doctor warns of keychain-class-when-unlocked);")
        run.say("       before the first unlock nothing can decrypt: show the fallback alert, keep the payload, and let the app fetch the")
        run.say("       record once it runs (the payload's ids are not secret)")
    }

    // MARK: (i)

    /// An encrypted backup carries files and keychain items, except the `…ThisDeviceOnly` classes: the SDK's tokens
    /// and its account key stay behind, by design. On the new phone the account files no longer open.
    static func backupRestored(_ run: Run, sdkRecovery: Bool) throws {
        let app = try run.variant("MobileSyncExplorer") { _ in }
        try run.loginAliceAndSync(app, "alice logs in and syncs on her old phone")
        try run.step("she adds a contact while offline (kept in the store, sent at the next sync)", run.app(app, ["contacts", "add", "--first", "Backup", "--last", "Unsynced"]), expect: 0)
        func restoreToNewPhone(_ name: String) throws -> URL {
            let backup = run.work.appendingPathComponent("\(name).backup")
            try run.step("msdk-sim device backup (an encrypted iCloud or Finder backup)", run.exec("msdk-sim", ["device", "backup", "--device", run.device.path, "--out", backup.path]), expect: 0)
            run.newDevice(name)
            let restored = run.exec("msdk-sim", ["device", "restore", backup.path, "--device", run.device.path])
            try run.step("msdk-sim device restore to a new phone", restored, expect: 0)
            guard restored.stdout.contains("did not come along") else { throw Failure.notReproduced("restore: \(restored.stdout)") }
            return backup
        }
        _ = try restoreToNewPhone("new-phone")
        let widget = run.widget(run.widgetOf(app))
        run.say("  on the new phone the widget says \(widget.state): \(widget.message.prefix(150))…")
        guard widget.state == "notLoggedIn", widget.message.contains("did not come along") else { throw Failure.notReproduced("widget \(widget.state): \(widget.message)") }
        let opened = run.app(app, (sdkRecovery ? ["--sdk-recovery"] : []) + ["contacts", "list"])
        try run.step("alice opens the app", opened, expect: 1)
        if sdkRecovery {
            guard try run.accountFiles().isEmpty, try run.storeFiles().isEmpty else { throw Failure.notReproduced("the SDK's recovery left files") }
            run.say("  what happened: the SDK made a new account key, could not decrypt her account, and deleted it with her store:")
            run.say("      she is logged out, and the contact she added offline is gone with the store")
        } else {
            let library = run.layout.groupSDKRoot(groupID: "group.com.salesforce.mobilesdk.MobileSyncExplorer").library
            let aside = (FileManager.default.enumerator(atPath: library.path)?.allObjects as? [String] ?? []).filter { $0.contains("UserAccount.plist.unreadable-") }
            guard aside.count == 1, !(try run.storeFiles().isEmpty), opened.stderr.contains("set aside") else {
                throw Failure.notReproduced("without --sdk-recovery the account file is set aside and the store kept: \(aside), \(opened.stderr)")
            }
            run.say("  what happened: the account key did not come along, so her account can never be read here; AppGroupSim sets the file aside")
            run.say("      (\(aside[0].split(separator: "/").last ?? "")) and keeps her store, so that she can log in again; the SDK deletes both,")
            run.say("      and with the store the contact she added offline (--sdk-recovery; the SDK's store is encrypted with a key that stays behind too)")
        }
        run.say("  why: the SDK's keychain items are afterFirstUnlockThisDeviceOnly, which a backup never carries (as it should: tokens must not")
        run.say("       leave the phone); a restored phone always starts logged out")

        // Fixed: the app sends its edits before they can be lost (a background sync); after the restore the user logs
        // in again and the sync brings everything back from the org.
        run.say("  fixed: the app syncs its edits as soon as it can (for example in a background fetch), before a backup is taken:")
        run.newDevice("old-phone-2")
        try run.loginAliceAndSync(app, "alice's old phone again: she logs in and syncs")
        try run.step("she adds a contact while offline", run.app(app, ["contacts", "add", "--first", "Backup", "--last", "Synced"]), expect: 0)
        try run.step("a background fetch syncs it up", run.app(app, ["--background", "sync"]), expect: 0)
        _ = try restoreToNewPhone("new-phone-2")
        let login = run.app(app, (sdkRecovery ? ["--sdk-recovery"] : []) + ["login", "--username", "alice@acme.test", "--password", "alice-pass"])
        try run.step("on the new phone she logs in again", login, expect: 0)
        try run.step("", run.app(app, ["sync"]), expect: 0)
        let list = run.app(app, ["contacts", "list"])
        guard list.status == 0, list.stdout.contains("Backup Synced") else { throw Failure.notReproduced("after the login and sync: \(list.stdout)\(list.stderr)") }
        run.say("      the contact she added on the old phone is there (Backup Synced): it reached the org before the backup, so no lost key or store can lose it")
        run.say("  fix: expect a restored phone to be logged out (never keep tokens in a class a backup carries); sync edits up promptly;")
        run.say("       never treat an account key that is missing after a restore as corruption of anything else")
    }

    // MARK: (b)

    static func extensionMigratesFirst(_ run: Run) throws {
        let app = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent(AppGroupConfig.fileName)) { $0["appGroupsEnabled"] = false }
            // Like the SDK's sample, the widget sets the flag itself.
            try Run.editPlist(url.appendingPathComponent("PlugIns/RecentContacts.appex/\(AppGroupConfig.fileName)")) { $0["appGroupsEnabled"] = true }
        }
        try run.loginAliceAndSync(app, "version 1 ships with app groups off; alice logs in and syncs")
        let own = run.layout.privateSDKRoot(bundleID: try AppBundle(at: app).bundleIdentifier).library
        try Run.editPlist(app.appendingPathComponent(AppGroupConfig.fileName)) { $0["appGroupsEnabled"] = true }
        run.say("  version 2 turns app groups on in both targets; after the update iOS refreshes the widget before the user opens the app")
        let widget = run.widget(run.widgetOf(app))
        run.say("  extension-widget -> \(widget.state): it turned the flag on first, so it ran the one-time file migration (of its own, empty, files) and set filesShared")
        let status = run.app(app, ["status", "--json"])
        try run.step("the user opens the app", status, expect: 0)
        let report = try Run.json(status.stdout)
        let accounts = report["accounts"] as? [String] ?? []
        let stranded = ((try? FileManager.default.contentsOfDirectory(atPath: own.path)) ?? []).filter { $0.hasPrefix("00D") }
        guard accounts.isEmpty, !stranded.isEmpty else {
            throw Failure.notReproduced("accounts \(accounts), files in the app's container \(stranded)")
        }
        run.say("  what happened: filesShared was already set, so the app did not migrate; alice's account and store stay in")
        run.say("  \(own.path)/\(stranded.joined(separator: ", ")), the app sees no account and asks to log in again")
        let after = run.widget(run.widgetOf(app))
        run.say("  the widget: \(after.state) (\(after.message))")
        run.say("  msdk-sim doctor --device finds it: stranded-account-files")
        run.say("  why: whichever process enables app groups first runs the migration, and it moves only its own files")
        run.say("  fix: let only the app set the flag (the extension sets just appGroupName and reads the app's flag), or migrate the app's files at its next launch")
    }

    // MARK: (c)

    static func staleFlag(_ run: Run) throws {
        let app = try run.variant("MobileSyncExplorer") { _ in }
        try run.loginAliceAndSync(app, "alice logs in and syncs")
        try run.step("alice logs out: the last account on the device", run.app(app, ["logout"]), expect: 0)
        let suite = run.groupSuite()
        let flag = try suite.bool(forKey: "userLoggedIn")
        let identity = try suite.value(forKey: UserAccountManager.lastUserIdentityKey)
        run.say("  msdkUserDefaults now: userLoggedIn = \(flag), LastUserIdentity = \(identity == nil ? "(none)" : "set")")
        guard flag, identity == nil else { throw Failure.notReproduced("userLoggedIn \(flag), LastUserIdentity \(String(describing: identity))") }
        let widget = run.widget(run.widgetOf(app))
        guard widget.status == 10 else { throw Failure.notReproduced("the widget said \(widget.state)") }
        run.say("  extension-widget -> \(widget.state): \(widget.message)")
        run.say("  what happened: logout clears the current user without a did-change-user notification, and the sample writes")
        run.say("  userLoggedIn only on that notification, so the flag stays true; a widget that checks only the flag would")
        run.say("  initialize the SDK and ask for the records of a user who is gone")
        run.say("  why: the flag is a copy of the login state, written at one of the three moments it changes")
        run.say("  fix: check UserAccountManager.shared.currentUserAccount in the extension (this widget does), and write the flag on logout too")
    }

    // MARK: (d)

    static func widgetForcesFlag(_ run: Run) throws {
        let app = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent("PlugIns/RecentContacts.appex/\(AppGroupConfig.fileName)")) { $0["appGroupsEnabled"] = true }
        }
        try run.loginAliceAndSync(app, "alice logs in and syncs (app groups on)")
        try run.step("the app turns app groups off", run.app(app, ["app-group", "disable"]), expect: 0)
        let suite = run.groupSuite()
        let before = try suite.bool(forKey: DataSharingHelper.appGroupEnabledKey)
        let widget = run.widget(run.widgetOf(app))
        let afterWidget = try suite.bool(forKey: DataSharingHelper.appGroupEnabledKey)
        run.say("  kAccessGroupEnabled in the group suite: \(before) after the app; \(afterWidget) after the widget's launch")
        run.say("  extension-widget -> \(widget.state): \(widget.contacts) contact(s) from the group container the app no longer uses")
        _ = run.app(app, ["status"])
        let afterApp = try suite.bool(forKey: DataSharingHelper.appGroupEnabledKey)
        run.say("  the app's next launch sets it back to \(afterApp): the flag flips with every launch of either process")
        guard !before, afterWidget, !afterApp, widget.status == 0 else {
            throw Failure.notReproduced("flag \(before) -> \(afterWidget) -> \(afterApp), widget \(widget.state)")
        }
        let good = run.widget(run.fixtureApp.appendingPathComponent("PlugIns/RecentContacts.appex"))
        run.say("  the same device with AppGroupSim's widget, which only sets the name and follows the app's flag: \(good.state)")
        run.say("  what happened: the flag is one value in the group suite, and each target writes its own opinion at launch;")
        run.say("  the widget shows stale data and can run the one-time migration the app had undone")
        run.say("  why: DataSharingHelper.appGroupEnabled is shared state, not a per-target setting")
        run.say("  fix: set appGroupEnabled only in the app; the extension sets appGroupName and reads the flag (msdk-sim doctor: extension-sets-app-group-flag)")
    }

    // MARK: (f)

    static let killedCreates = 30

    /// One half of (f): alice has `killedCreates` contacts made offline; the sync up is killed after the
    /// org applied its collections request and before the app heard back; then the app syncs again.
    /// Returns how many of those contacts the org (and so the store, after the sync down) ends with.
    static func killAfterOrgApplied(_ run: Run, _ app: URL) async throws -> (local: Int, total: Int) {
        try run.loginAliceAndSync(app, "alice logs in and syncs")
        for n in 1...killedCreates {
            let added = run.app(app, ["contacts", "add", "--first", "Field", "--last", "Visit \(n)"])
            guard added.status == 0 else { throw Failure.setup("contacts add: \(added.stderr)") }
        }
        run.say("  on a flight, alice adds \(killedCreates) contacts; the app syncs when the phone is back online")
        let before = try await run.admin(["writeResponseDelayMs": 20_000])["appliedWrites"] as? Int ?? 0
        let sync = try run.spawnApp(app, ["sync"])
        var applied = before
        for _ in 0..<400 where applied == before {
            try await Task.sleep(nanoseconds: 25_000_000)
            applied = try await run.admin([:])["appliedWrites"] as? Int ?? 0
        }
        kill(sync.processIdentifier, SIGKILL)
        sync.waitUntilExit()
        guard applied > before else { throw Failure.setup("the org never saw the sync up's write") }
        run.say("  the org applies the collections request; before its answer arrives, iOS kills the app (SIGKILL)")
        _ = try await run.admin(["writeResponseDelayMs": 0])
        try run.step("alice opens the app again and syncs", run.app(app, ["sync"]), expect: 0)
        let list = run.app(app, ["contacts", "list", "--json"])
        let entries = (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8))) as? [[String: Any]] ?? []
        let visits = entries.filter { ($0["LastName"] as? String)?.hasPrefix("Visit ") == true && $0["__local__"] as? Bool != true }
        return (visits.count, entries.count)
    }

    static func killedSyncUp(_ run: Run) async throws {
        run.say("  1. the sample as shipped: its sync up creates records (POST composite/sobjects)")
        let stock = try run.variant("MobileSyncExplorer") { _ in }
        let (dupes, total) = try await killAfterOrgApplied(run, stock)
        run.say("     the org and the store now hold \(dupes) of alice's \(killedCreates) new contacts (\(total) contacts in all)")
        guard dupes == 2 * killedCreates else { throw Failure.notReproduced("expected \(2 * killedCreates) copies, found \(dupes)") }
        run.say("     what happened: the killed sync never marked the records sent, so the next sync created every one again,")
        run.say("     and the sync down brought both copies home; this is what the SDK does")

        run.say("  2. the SDK's mitigation: the sync-up target names externalIdFieldName (DeviceRecordId__c, an External ID field);")
        run.say("     each local record gets a UUID there when it is made, and the sync up upserts by it (PATCH composite/sobjects/Contact/DeviceRecordId__c)")
        let second = try Run(bin: run.bin, fixtureApp: run.fixtureApp, print: run.say)
        defer { second.finish() }
        try second.startOrg()
        let mitigated = try second.variant("MobileSyncExplorer") { url in
            let file = url.appendingPathComponent("usersyncs.json")
            var config = try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any] ?? [:]
            var syncs = config["syncs"] as? [[String: Any]] ?? []
            for i in syncs.indices where syncs[i]["syncType"] as? String == "syncUp" {
                var target = syncs[i]["target"] as? [String: Any] ?? [:]
                target["externalIdFieldName"] = "DeviceRecordId__c"
                syncs[i]["target"] = target
            }
            config["syncs"] = syncs
            try JSONSerialization.data(withJSONObject: config, options: [.prettyPrinted]).write(to: file)
        }
        let (copies, all) = try await killAfterOrgApplied(second, mitigated)
        run.say("     the org and the store now hold \(copies) of alice's \(killedCreates) new contacts (\(all) in all)")
        guard copies == killedCreates else { throw Failure.notReproduced("with externalIdFieldName: \(copies) copies, expected \(killedCreates)") }
        run.say("     what happened: the second sync sent the same UUIDs, and the org updated the records the first one had created")
        run.say("  why: a create is not idempotent; the app cannot know whether a request it never heard back from was applied")
        run.say("  fix: give the sync-up target an externalIdFieldName backed by an External ID field, and fill it when a record is made")
    }

    // MARK: (g)

    static func notificationExtensionWithoutKeychainGroup(_ run: Run) async throws {
        let app = try run.variant("MobileSyncExplorer") { url in
            // What Xcode writes when the Keychain Sharing capability is added to the app target only: the
            // extension gets its own default group.
            try Run.editPlist(url.appendingPathComponent("PlugIns/NotificationService.appex/NotificationService.entitlements")) {
                $0["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer.NotificationService"]
            }
        }
        try run.step("alice logs in; the app registers the device for her notifications", run.app(app, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        let sent = try await run.post("/__admin/push", ["username": "alice@acme.test", "title": "Case 00001026 escalated", "body": "Acme needs a call back today"])
        let delivered = (sent["delivered"] as? [Any])?.count ?? 0
        guard delivered == 1 else { throw Failure.setup("the org delivered \(delivered) notification(s): \(sent)") }
        run.say("  the org sends her a notification (\"Case 00001026 escalated\"), encrypted with the device's public key; APNs delivers it")
        let shown = run.notification(app.appendingPathComponent("PlugIns/NotificationService.appex"))
        run.say("  extension-notification -> \(shown.state): the user sees \"\(shown.title)\"")
        run.say("      \(shown.message)")
        guard shown.status == 11, shown.title == "New notification", shown.errorCode == -1008 else {
            throw Failure.notReproduced("the extension said \(shown.state) (\(shown.status)), title \(shown.title), error \(shown.errorCode.map(String.init) ?? "none")")
        }
        _ = try await run.post("/__admin/push", ["username": "alice@acme.test", "title": "Case 00001026 escalated", "body": "Acme needs a call back today"])
        let good = run.notification(run.fixtureApp.appendingPathComponent("PlugIns/NotificationService.appex"))
        run.say("  the same notification on the same device, with the fixture's extension (the app's group first in its keychain-access-groups):")
        run.say("      \(good.state): \"\(good.title)\"")
        guard good.status == 0, good.title == "Case 00001026 escalated" else { throw Failure.notReproduced("the fixed extension said \(good.state): \(good.message)") }
        run.say("  what happened: the app made its push key and keeps it in its keychain group; the extension, entitled only to its own")
        run.say("  group, finds no key (SFSDKPushNotificationError -1008), leaves the content alone, and iOS shows the org's fallback alert;")
        run.say("  every notification reads \"New notification\", with no error anywhere on the device")
        run.say("  why: Keychain Sharing was added to the app target only, so the two targets' first keychain-access-groups differ")
        run.say("  fix: give the notification service extension $(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer in keychain-access-groups")
        run.say("       (msdk-sim doctor: push-key-group-not-shared)")
    }

    // MARK: (e)

    static func extensionWithoutKeychainGroup(_ run: Run) async throws {
        let app = try run.variant("MobileSyncExplorer") { url in
            try Run.editPlist(url.appendingPathComponent("PlugIns/RecentContacts.appex/RecentContacts.entitlements")) {
                $0["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.RecentContacts"]
            }
        }
        try run.loginAliceAndSync(app, "alice logs in and syncs")
        let widgetBundle = run.widgetOf(app)
        let appLaunch = try ProcessLaunch(bundlePath: app.path, devicePath: run.device.path, applyConfig: false)
        let appAccounts = UserAccountManager(launch: appLaunch, events: SDKEvents())
        await appAccounts.loadAccountKey()
        guard let account = try appAccounts.allAccounts().first else {
            throw Failure.setup("no account after login")
        }
        let group = appLaunch.sandbox.keychainAccessGroups[0]
        let asWidget = try ProcessLaunch(bundlePath: widgetBundle.path, devicePath: run.device.path, applyConfig: false).keychain
        let any = await asWidget.read(service: TokenStore.refreshService, account: account.credentials.keychainAccount)
        let explicit = await asWidget.read(service: TokenStore.refreshService, account: account.credentials.keychainAccount, accessGroup: group)
        run.say("  the widget reads the refresh token: with no group \(any.status) (it searches only its own groups);")
        run.say("  naming the app's group \(group): \(explicit.status)")
        let widget = run.widget(widgetBundle)
        run.say("  extension-widget -> \(widget.state): \(widget.message)")
        guard any.status == .itemNotFound, explicit.status == .missingEntitlement, widget.status == 11 else {
            throw Failure.notReproduced("reads \(any.status) / \(explicit.status), widget \(widget.state)")
        }
        run.say("  what happened: the tokens are in the app's keychain group, which the extension is not entitled to; the SDK in the")
        run.say("  extension finds no credentials and the widget shows nothing, with no error on a device")
        run.say("  why: keychain-access-groups differ between the targets (after $(AppIdentifierPrefix) expansion)")
        run.say("  fix: add $(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer to the extension's keychain-access-groups (msdk-sim doctor: keychain-group-differs)")
    }
}
