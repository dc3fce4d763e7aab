import AppGroup
import Crypto
import FastJSON
import Foundation
import Keychain
import CoreEngine
@preconcurrency import _CryptoExtras

/// The app's notification service extension (the fixture's `NotificationService.appex`): iOS hands it
/// each remote notification before it is shown; it decrypts a Salesforce payload with
/// `SFSDKPushNotificationDecryption`'s rules and the app's push key, which it reads from the keychain
/// group it shares with the app. Whatever goes wrong, the notification is still shown: with the
/// fallback alert the org put in `aps.alert`, as iOS does when the extension leaves the content alone.
/// It never writes the decrypted content anywhere.
package enum NotificationService {
    package enum State: String, Codable, Sendable {
        /// Shown: decrypted, or a payload that was not encrypted, passed through unchanged.
        case shown
        /// The inbox is empty: nothing was delivered.
        case noNotification
        /// Not entitled to the keychain group where the app keeps the push key, or no key there: the
        /// fallback alert is shown.
        case misconfigured
        /// The keychain could not be asked (locked, no Secret Service): the fallback alert is shown.
        case keychainUnavailable
        /// The payload cannot be read or decrypted (not JSON, a wrong or truncated secret, content that
        /// is not JSON): the fallback alert is shown; the payload is kept as it came.
        case unreadable
        /// The payload is for a user (its `uid`) who is not logged in on this device: the fallback alert is
        /// shown and nothing is decrypted.
        case notLoggedIn

        /// The exit status of `extension-notification`, the widget's numbers where the meaning is the same.
        package var exitCode: Int32 {
            switch self {
            case .shown: return 0
            case .noNotification: return 10
            case .misconfigured: return 11
            case .keychainUnavailable: return 12
            case .unreadable: return 13
            case .notLoggedIn: return 14
            }
        }
    }

    /// The SDK's decryption error, as `NSError` would carry it.
    package struct DecryptionError: Codable, Sendable, Equatable {
        package var domain = PushNotificationError.domain
        package var code: Int
        package var description: String

        package init(_ error: PushNotificationError) {
            code = error.code
            description = error.description
        }
    }

    /// What `extension-notification --json` prints: the notification as shown, and how it came to be.
    package struct Report: Codable, Sendable, Equatable {
        package var state: State
        /// The app the notification is for (its display name), as the banner names it.
        package var app: String
        package var title: String
        package var body: String
        /// The payload's own keys, decrypted ones included, without the ones the SDK and APNs use.
        package var fields: [String: JSON]
        /// The payload said `encrypted`.
        package var encrypted: Bool
        /// The extension changed the content: false means the system shows the payload's alert as it came.
        package var decrypted: Bool
        package var error: DecryptionError?
        package var message: String
        /// The payload file the notification came from (under `delivered/` once taken from the inbox).
        package var payload: String?

        /// Nothing shown yet: the empty notification of `app`.
        package init(state: State, app: String, message: String = "", payload: String? = nil) {
            self.state = state
            self.app = app
            title = ""
            body = ""
            fields = [:]
            encrypted = false
            decrypted = false
            error = nil
            self.message = message
            self.payload = payload
        }

        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(state, forKey: .state)
            try c.encode(app, forKey: .app)
            try c.encode(title, forKey: .title)
            try c.encode(body, forKey: .body)
            try c.encode(fields, forKey: .fields)
            try c.encode(encrypted, forKey: .encrypted)
            try c.encode(decrypted, forKey: .decrypted)
            if let error { try c.encode(error, forKey: .error) } else { try c.encodeNil(forKey: .error) }
            try c.encode(message, forKey: .message)
            if let payload { try c.encode(payload, forKey: .payload) } else { try c.encodeNil(forKey: .payload) }
        }
    }

    /// Keys of the payload that are the SDK's or APNs', not the notification's own fields.
    static let reservedKeys: Set<String> = [
        PushNotificationKey.aps, PushNotificationKey.encrypted, PushNotificationKey.secret, PushNotificationKey.content,
        PushNotificationKey.alertTitle, PushNotificationKey.alertBody,
    ]

    /// The `.app` this extension belongs to (the notifications are that app's).
    package static func hostApp(of bundle: AppBundle) throws -> AppBundle? { try AppWidget.hostApp(of: bundle) }

    package typealias Taken = NotificationInbox.Taken

    /// The next payload of the host app's inbox (`NotificationInbox.takeNext`).
    package static func takeNext(_ launch: ProcessLaunch) throws -> Taken {
        let app = try hostApp(of: launch.sandbox.bundle)?.bundleIdentifier ?? launch.sandbox.bundleIdentifier
        return try NotificationInbox.takeNext(launch.sandbox.device.layout, app: app)
    }

    /// Shows the payload in `file` as the system would after this extension ran.
    package static func handle(_ launch: ProcessLaunch, payload file: URL, events: SDKEvents = SDKEvents()) async -> Report {
        let host = try? hostApp(of: launch.sandbox.bundle)
        let appName = host?.displayName ?? host?.url.deletingPathExtension().lastPathComponent ?? launch.sandbox.bundle.displayName ?? launch.sandbox.bundleIdentifier
        var report = Report(state: .shown, app: appName, payload: file.path)
        let userInfo: [String: JSON]
        do {
            guard let data = try SecureFiles.readRegularFileNoFollow(file) else {
                report.state = .unreadable
                report.message = "\(file.path) does not exist; pass a payload file, or leave --payload out to take the next delivered one"
                return report
            }
            let parsed: JSON
            do {
                parsed = try JSON.parse(data)
            } catch {
                report.state = .unreadable
                report.message = "\(file.path) is not a JSON object (\(error)), so it is no notification payload; it was kept as it came"
                return report
            }
            guard let object = parsed.objectValue else {
                report.state = .unreadable
                report.message = "\(file.path) is not a JSON object, so it is no notification payload; it was kept as it came"
                return report
            }
            userInfo = object
        } catch {
            report.state = .unreadable
            report.message = "\(error)"
            return report
        }
        events.step("notificationReceived", ["payload": file.lastPathComponent])
        var content = NotificationContent(userInfo: userInfo)
        report.encrypted = PushNotificationDecryption.isEncrypted(userInfo)
        func show(_ content: NotificationContent) {
            report.title = content.title
            report.body = content.body
            report.fields = content.userInfo.filter { !reservedKeys.contains($0.key) }
        }
        show(content)
        guard report.encrypted else {
            report.message = "not encrypted: shown as it came"
            events.step("notificationPassedThrough")
            return report
        }
        func fallback(_ state: State, _ error: PushNotificationError, _ why: String) -> Report {
            report.state = state
            report.error = DecryptionError(error)
            report.message = "\(why) (\(report.error!.domain) \(error.code): \(error.description)); the fallback alert is shown"
            events.step("notificationNotDecrypted", ["code": String(error.code)])
            return report
        }
        do {
            try PushNotificationDecryption.validate(userInfo)
        } catch {
            return fallback(.unreadable, error, "the payload is not a Salesforce encrypted notification")
        }
        // Only for a user who is on this device: the org may still send a logged-out user's notifications (its
        // device record outlives an unreachable logout); those are shown as the fallback, never decrypted.
        // Before the first unlock the defaults that say where the accounts are cannot be read: the extension cannot
        // tell, and goes on as the SDK's decryption does (it never checks the user), to the push key.
        // An extension that shares no app group (the SDK's encrypted-notification template shares only a keychain
        // group, which is all decryption needs) cannot see the accounts either: it goes on to the key as well.
        let users: [String]?
        if launch.sandbox.bundle.entitlements.applicationGroups.isEmpty {
            users = nil
            events.step("notificationUserUnknown", ["reason": "noAppGroup"])
        } else { do {
            users = try launch.dataSharing.sdkRoot().accountFiles().map(\.userId)
        } catch let error where AppWidget.isProtectionRefusal(error) {
            users = nil
            events.step("notificationUserUnknown", ["reason": "dataProtected"])
        } catch {
            users = []
        } }
        let uid = userInfo[PushNotificationKey.userId]?.stringValue
        if let users, !(uid.map(users.contains) ?? false) {
            report.state = .notLoggedIn
            let who = userInfo[PushNotificationKey.userId]?.stringValue.map { "user \($0)" } ?? "no user (no uid)"
            report.message = "the notification is for \(who), who is not logged in on this device; the fallback alert is shown, nothing was decrypted"
            events.step("notificationNotForUserOnDevice")
            return report
        }
        let key: _RSA.Encryption.PrivateKey
        do {
            key = try await PushKeyStore.privateKey(launch.keychain, create: false)
        } catch {
            let (state, why) = keyFailure(error, launch: launch, host: host)
            return fallback(state, .privateRSAKeyNotFound, why)
        }
        do {
            try PushNotificationDecryption.decrypt(&content, privateKey: key)
        } catch {
            return fallback(.unreadable, error, "the payload cannot be decrypted with the app's push key")
        }
        show(content)
        report.decrypted = true
        report.message = "decrypted with the push key from the app's keychain group"
        events.step("notificationDecrypted")
        return report
    }

    /// Why the push key could not be had, in one line that names the fix, and what state that is.
    static func keyFailure(_ failure: PushKeyStore.Failure, launch: ProcessLaunch, host: AppBundle?) -> (State, String) {
        let me = launch.sandbox.bundle.url.lastPathComponent
        let appGroup = host.map { AppSandbox(device: launch.sandbox.device, bundle: $0).keychainAccessGroups.first } ?? nil
        switch failure {
        case .keychain(let result):
            if result.status == .missingEntitlement {
                return (.misconfigured, "\(me) is not entitled to the keychain group of the push key: \(result.error?.message ?? "errSecMissingEntitlement")")
            }
            return (.keychainUnavailable, "the keychain cannot be read: \(result.error?.message ?? "status \(result.status.rawValue)")")
        case .notFound(let groups):
            if let appGroup, !groups.contains(appGroup) {
                let has = groups.isEmpty ? "no keychain-access-groups entitlement" : "only \(groups.joined(separator: ", "))"
                return (.misconfigured, "the app keeps its push key in keychain group \(appGroup), but \(me) has \(has); add $(AppIdentifierPrefix)\(appGroup.split(separator: ".", maxSplits: 1).last ?? "") to keychain-access-groups in \(launch.sandbox.bundle.entitlementsURL.lastPathComponent)")
            }
            return (.misconfigured, "there is no push key (\(PushKey.service)) in \(groups.joined(separator: ", ")): the app has not registered for notifications on this device since its keychain was reset; launch the app and log in")
        case .unreadable:
            return (.unreadable, failure.description)
        }
    }

    /// `extension-notification` without `--payload`: the next delivered notification, or `noNotification`.
    package static func handleNext(_ launch: ProcessLaunch, events: SDKEvents = SDKEvents()) async -> Report {
        let host = try? hostApp(of: launch.sandbox.bundle)
        let appName = host?.displayName ?? launch.sandbox.bundle.displayName ?? launch.sandbox.bundleIdentifier
        let empty = Report(state: .noNotification, app: appName)
        guard launch.sandbox.bundle.isNotificationServiceExtension else {
            var report = empty
            report.state = .misconfigured
            report.message = "\(launch.sandbox.bundle.url.lastPathComponent) is not a notification service extension: its Info.plist NSExtension must have NSExtensionPointIdentifier \(AppBundle.notificationServiceExtensionPoint)"
            return report
        }
        guard host != nil else {
            var report = empty
            report.state = .misconfigured
            report.message = "\(launch.sandbox.bundle.url.path) is not inside an app's PlugIns/ folder: iOS runs a notification service extension only for the app that carries it"
            return report
        }
        do {
            let taken = try takeNext(launch)
            var passedOver: [String] = []
            if !taken.refused.isEmpty {
                passedOver.append("refused, not regular files (links are never followed; remove them): \(taken.refused.joined(separator: ", "))")
                events.step("notificationRefused", ["count": String(taken.refused.count)])
            }
            if !taken.duplicates.isEmpty {
                passedOver.append("not shown again, byte-identical to a notification shown before: \(taken.duplicates.joined(separator: ", "))")
                events.step("notificationDuplicate", ["count": String(taken.duplicates.count)])
            }
            guard let file = taken.file else {
                var report = empty
                let inbox = launch.sandbox.device.layout.notificationInbox(bundleID: host!.bundleIdentifier)
                report.message = "no notification was delivered to \(host!.bundleIdentifier) (\(inbox.path) has none to show)"
                    + passedOver.map { "; " + $0 }.joined()
                return report
            }
            var report = await handle(launch, payload: file, events: events)
            if !passedOver.isEmpty { report.message += passedOver.map { "; " + $0 }.joined() }
            return report
        } catch {
            var report = empty
            report.state = .unreadable
            report.message = "\(error)"
            return report
        }
    }

    /// The notification as a terminal shows it: the banner's app line, title, body and fields, then how it came to be.
    package static func text(_ report: Report) -> String {
        guard report.state != .noNotification else { return "(no notification) \(report.message)" }
        var lines = ["\(report.app) — notification"]
        if !report.title.isEmpty { lines.append("  \(report.title)") }
        if !report.body.isEmpty { lines.append("  \(report.body)") }
        for key in report.fields.keys.sorted() {
            let value = report.fields[key]!
            lines.append("  \(key): \(value.stringValue ?? value.text)")
        }
        let how = report.decrypted ? "decrypted" : report.encrypted ? "fallback alert" : "as delivered"
        lines.append("  [\(report.state.rawValue), \(how)] \(report.message)")
        return lines.joined(separator: "\n")
    }
}
