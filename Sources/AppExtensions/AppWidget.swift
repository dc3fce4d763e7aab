import AppGroup
import Foundation
import Keychain
import CoreEngine
import SmartStoreEngine

/// An app's widget (the sample's Recent Contacts unless its bundle says otherwise): it never logs in.
/// It applies its own app-group settings, reads `userLoggedIn` from `msdkUserDefaults`, and only
/// then would bootstrap the SDK.
package enum AppWidget {
    package enum State: String, Codable, Sendable {
        case listed, notLoggedIn, misconfigured, keychainUnavailable
        /// A file the widget reads cannot be read: the device, its bundle, msdkUserDefaults, an account
        /// file or the store is missing, corrupt or of the wrong kind. Nothing is changed or deleted.
        case unreadable
        /// A file the widget reads has a data protection class that the device's lock state does not open
        /// (iOS's EPERM): the phone is locked, or before its first unlock. Nothing is changed or deleted.
        case dataProtected

        /// The exit status of `extension-widget` (DESIGN.md §9).
        package var exitCode: Int32 {
            switch self {
            case .listed: return 0
            case .notLoggedIn: return 10
            case .misconfigured: return 11
            case .keychainUnavailable: return 12
            case .unreadable: return 13
            case .dataProtected: return 14
            }
        }
    }

    package struct User: Codable, Sendable, Equatable {
        package var orgId: String
        package var userId: String
        package var username: String
    }

    package struct Contact: Codable, Sendable, Equatable {
        package var Id: String
        package var FirstName: String?
        package var LastName: String?
        package var LastModifiedDate: String?
    }

    /// What `extension-widget --json` prints. `contacts` is the sample's contract; `title` and
    /// `records` (the configured fields of each listed entry, as text, with `Id`) serve any widget.
    package struct Report: Codable, Sendable, Equatable {
        package var state: State
        package var user: User?
        package var contacts: [Contact]
        package var message: String
        package var title: String = WidgetConfig.sample.title
        package var records: [[String: String]] = []

        package init(state: State, user: User?, contacts: [Contact], message: String, title: String = WidgetConfig.sample.title, records: [[String: String]] = []) {
            self.state = state
            self.user = user
            self.contacts = contacts
            self.message = message
            self.title = title
            self.records = records
        }

        /// Always writes `user`, as `null` when there is none: the contract is `"user": {…} | null`.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(state, forKey: .state)
            if let user { try c.encode(user, forKey: .user) } else { try c.encodeNil(forKey: .user) }
            try c.encode(contacts, forKey: .contacts)
            try c.encode(message, forKey: .message)
            try c.encode(title, forKey: .title)
            try c.encode(records, forKey: .records)
        }
    }

    /// Runs the widget's launch checks in the order the sample does them, then lists what its
    /// `WidgetConfig.plist` asks for from the shared store (the sample: the `count` most recently
    /// modified contacts). It never talks to the org.
    package static func evaluate(_ launch: ProcessLaunch, count: Int? = nil, events: SDKEvents = SDKEvents()) async throws -> Report {
        let sandbox = launch.sandbox
        // The flag first, quietly: when it is set, the listing path will read the keychain, so the Secret
        // Service's connection and key exchange, and the reads of the account key and the EC key pair's private
        // half, start now on the keychain's queue, while the checks below read their files. The checks still
        // come first in what the widget reports; a flag that cannot be read is read again, and reported, in its
        // turn.
        let early = try? launch.dataSharing.msdkUserDefaults()
        if (try? early?.bool(forKey: launch.userLogInStatusKey)) == true { launch.keychain.readAheadAccountKey() }
        let widget = try WidgetConfig.load(from: sandbox.bundle)
        let count = count ?? widget.count
        if let host = try hostApp(of: sandbox.bundle) {
            // The doctor's evaluation, for this widget: the first error about it (or about the app's
            // configuration every extension follows) stops the launch. A file that cannot be read
            // is thrown instead, so it is `unreadable`, not `misconfigured`.
            _ = try AppGroupConfig.load(from: host)
            let issues = ExtensionSetup.evaluate(app: host, extensions: [sandbox.bundle]).filter { issue in
                issue.severity == .error && issue.id != "config-invalid" && (issue.subject == nil || issue.subject == sandbox.bundle.url.lastPathComponent)
            }
            if let issue = issues.first { return misconfigured("\(issue.message); \(issue.fix)") }
        }
        guard let config = launch.config else {
            return misconfigured("\(sandbox.bundle.url.lastPathComponent) has no \(AppGroupConfig.fileName), so it cannot know the app group; add one with the app's appGroupName")
        }
        guard sandbox.isEntitled(toAppGroup: config.appGroupName) else {
            return misconfigured("the widget is not entitled to app group \(config.appGroupName); add it to com.apple.security.application-groups in \(sandbox.bundle.entitlementsURL.lastPathComponent)")
        }
        let defaults = try early ?? launch.dataSharing.msdkUserDefaults()
        guard try defaults.bool(forKey: launch.userLogInStatusKey) else {
            let off = try launch.dataSharing.appGroupEnabled() ? "" : " (app groups are off for the widget, so it reads only its own defaults)"
            return Report(state: .notLoggedIn, user: nil, contacts: [], message: "\(launch.userLogInStatusKey) is not set in msdkUserDefaults\(off); log in with main-app")
        }
        events.step("userLoggedIn")
        let sdk = SDKManager.initializeSDK(.smartStore, launch: launch, events: events)
        // The SDK's manager runs its upgrade in the widget too, when the widget is the first to run a new SDK.
        await SDKUpgrade.run(launch, events: events, appSetsAccessibility: launch.config?.keychainAccessibility != nil)
        // Two trips to the Secret Service on the way that lists: the account key (UserAccount.plist is
        // sealed with it, and it is in the app's keychain group), then the current user's refresh token.
        // Only a flag with no account file asks whether the keychain could be used at all, since the SDK
        // could not have read its accounts from a locked keychain either.
        let key = await sdk.userAccountManager.loadAccountKey()
        let current: UserAccount?
        do {
            current = try sdk.userAccountManager.currentUser()
        } catch let error as SDKError {
            switch error {
            case .accountKeyMissing:
                // On a device restored from a backup the key simply did not come along: nothing to configure.
                if launch.sandbox.device.restoredFrom != nil {
                    return Report(state: .notLoggedIn, user: nil, contacts: [], message: error.description)
                }
                return misconfigured(error.description)
            case .accountKeyUnreadable(_, _, let status):
                if status == KeychainStatus.missingEntitlement.rawValue { return misconfigured(error.description) }
                // A key that came with a backup without the EC key pair that wraps it: nothing to configure.
                if status == KeychainStatus.itemNotFound.rawValue, launch.sandbox.device.restoredFrom != nil {
                    return Report(state: .notLoggedIn, user: nil, contacts: [], message: error.description)
                }
                return Report(state: .keychainUnavailable, user: nil, contacts: [], message: error.description)
            case .keychainUnavailable, .keychainLockedAtLaunch:
                return Report(state: .keychainUnavailable, user: nil, contacts: [], message: error.description)
            default:
                throw error
            }
        }
        guard let account = current else {
            if case .loaded = key {} else if let error = await launch.keychain.status().error {
                return Report(state: .keychainUnavailable, user: nil, contacts: [], message: error.message)
            }
            return Report(state: .notLoggedIn, user: nil, contacts: [], message: "\(launch.userLogInStatusKey) is set but there is no current user (a stale flag, e.g. after the last logout); the widget shows nothing")
        }
        let user = User(orgId: account.orgId, userId: account.userId, username: account.username)
        let loggedIn: Bool
        do {
            // isLoggedIn's read, keeping the keychain's own message (a locked keychain, no Secret Service).
            loggedIn = try await SessionTokenItems.hasRefreshToken(launch.keychain, account: account.credentials.keychainAccount)
        } catch {
            return Report(state: .keychainUnavailable, user: nil, contacts: [], message: error.message)
        }
        guard loggedIn else {
            return Report(state: .notLoggedIn, user: user, contacts: [], message: "the current user has no refresh token in the shared keychain group; log in again with main-app")
        }
        // A user who logged in but never synced has no store or no soup yet: nothing to list, not an error.
        // Logged in was checked just above, against the keychain: no second read of the token here.
        let nothing = "no \(widget.soup) synced yet"
        guard let store = try sdk.storeManager(loggedIn: [account]).existingStore(for: account.storeUser) else {
            return Report(state: .listed, user: user, contacts: [], message: nothing, title: widget.title)
        }
        let entries = try widget.newestRecords(in: store, count: count)
        let contacts = widget.soup == WidgetConfig.sample.soup ? entries.compactMap { entry -> Contact? in
            guard let id = entry["Id"]?.stringValue else { return nil }
            return Contact(
                Id: id, FirstName: entry["FirstName"]?.stringValue, LastName: entry["LastName"]?.stringValue,
                LastModifiedDate: entry["LastModifiedDate"]?.stringValue)
        } : []
        let records = entries.map(widget.shownFields(of:))
        events.step("listed", ["count": String(records.count)])
        return Report(
            state: .listed, user: user, contacts: contacts, message: records.isEmpty ? nothing : "\(records.count) \(widget.title.lowercased())",
            title: widget.title, records: records)
    }

    /// The report for a launch that failed on a file it reads: one message naming the file and the fix.
    /// A file the device's data protection does not open is `dataProtected`, naming the file, its class and
    /// the lock state.
    package static func unreadable(_ error: any Error) -> Report {
        Report(state: isProtectionRefusal(error) ? .dataProtected : .unreadable, user: nil, contacts: [], message: "\(error)")
    }

    /// Whether an error of any layer is the device's data protection refusing a file (each one names the file,
    /// its class and the lock state).
    package static func isProtectionRefusal(_ error: any Error) -> Bool {
        switch error {
        case is FileProtectionError, SharedDefaultsError.protected, SDKError.accountFileProtected, SmartStoreError.protected: return true
        default: return false
        }
    }

    /// `evaluate`, with any file the widget cannot read reported as `unreadable` instead of thrown.
    package static func evaluateReporting(_ launch: ProcessLaunch, count: Int? = nil, events: SDKEvents = SDKEvents()) async -> Report {
        do { return try await evaluate(launch, count: count, events: events) } catch { return unreadable(error) }
    }

    /// `extension-widget --watch`: shows the widget now, then again whenever what it shows changed, until
    /// the task is cancelled. Polling the files' identities costs a few stat calls per interval and sees
    /// every writer, whichever process it is.
    package static func watch(
        _ launch: ProcessLaunch, count: Int? = nil, events: SDKEvents = SDKEvents(), interval: Duration = .milliseconds(200),
        show: (Report) throws -> Void
    ) async throws {
        var report = await evaluateReporting(launch, count: count, events: events)
        try show(report)
        var signature = try watchSignature(launch)
        var reloads = timelineReloads(launch)
        while true {
            try await Task.sleep(for: interval)
            let now = try watchSignature(launch)
            // The app asked WidgetCenter to reload: the widget renders again, even with the same rows.
            let reloaded = reloads.poll()
            guard now != signature || reloaded else { continue }
            signature = now
            let next = await evaluateReporting(launch, count: count, events: events)
            if next != report || reloaded {
                if reloaded { events.step("timelineReloaded", ["reloads": String(reloads.count)]) }
                report = next
                try show(report)
            }
        }
    }

    /// The WidgetCenter reloads the widget's app has recorded on the device (`WidgetReloads`), followed by
    /// reading only what is added.
    static func timelineReloads(_ launch: ProcessLaunch) -> WidgetReloads.Tail {
        let app = (try? hostApp(of: launch.sandbox.bundle))??.bundleIdentifier ?? launch.sandbox.bundleIdentifier
        return WidgetReloads.Tail(launch.sandbox.device.layout, app: app)
    }

    /// What `extension-widget --watch` compares between two looks: size and modification time of
    /// msdkUserDefaults and of every store file under the SDK root (a store write shows in its `-wal`).
    package static func watchSignature(_ launch: ProcessLaunch) throws -> [String] {
        let stores = try launch.dataSharing.sdkRoot().storeFiles()
        let files = [try launch.dataSharing.msdkUserDefaults().url] + stores.flatMap { [$0, URL(fileURLWithPath: $0.path + "-wal")] }
        return files.map(\.path).sorted().map { path in
            let a = try? FileManager.default.attributesOfItem(atPath: path)
            return "\(path) \((a?[.size] as? Int) ?? -1) \((a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
    }

    /// The `.app` that carries an `.appex` under `PlugIns/`.
    static func hostApp(of bundle: AppBundle) throws -> AppBundle? {
        guard bundle.isExtension else { return nil }
        let host = bundle.url.deletingLastPathComponent().deletingLastPathComponent()
        guard host.pathExtension == "app" else { return nil }
        return try AppBundle(at: host)
    }

    private static func misconfigured(_ message: String) -> Report {
        Report(state: .misconfigured, user: nil, contacts: [], message: message)
    }
}
