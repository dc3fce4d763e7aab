import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import UserNotifications
import XCTest

/// The SDK's encrypted-notification template's extension, rewritten (NotificationService.swift of
/// iOSNativeSwiftEncryptedNotificationTemplate): a copy of the content, decrypted with
/// `SFSDKPushNotificationDecryption`, handed over; its best attempt again when its time runs out.
final class TemplateNotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?
    nonisolated(unsafe) static var errors: [NSError] = []

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = (request.content.mutableCopy() as? UNMutableNotificationContent)
        handleNotification(bestAttemptContent)
    }

    override func serviceExtensionTimeWillExpire() { handleNotification(bestAttemptContent) }

    private func handleNotification(_ notificationContent: UNMutableNotificationContent?) {
        if let contentHandler, let notificationContent = bestAttemptContent {
            do {
                try SFSDKPushNotificationDecryption.decryptNotificationContent(notificationContent)
            } catch {
                Self.errors.append(error as NSError)
                SalesforceLogger.e(TemplateNotificationService.self, message: "Failed decrypt notification with error: \(error as NSError)")
            }
            contentHandler(notificationContent)
        }
    }
}

/// An extension that never calls its handler until iOS says its time is up.
final class SlowNotificationService: UNNotificationServiceExtension {
    var handler: ((UNNotificationContent) -> Void)?
    let respondsAtExpiry: Bool
    required init() { respondsAtExpiry = SlowNotificationService.respond }
    nonisolated(unsafe) static var respond = true
    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) { handler = contentHandler }
    override func serviceExtensionTimeWillExpire() {
        guard respondsAtExpiry, let handler else { return }
        let content = UNMutableNotificationContent()
        content.title = "best attempt"
        handler(content)
    }
}

/// Issue 37: a developer's own notification service extension, run by the simulated device on the org's pushes.
final class PushNotificationDecryptionFaceTests: FixtureAppTestCase {
    var app: URL { appURL }
    var service: URL { notificationServiceURL }

    override func setUpWithError() throws {
        try super.setUpWithError()
        TemplateNotificationService.errors = []
    }

    func testTheTemplatesExtensionDecryptsOAEPAndPKCS1Pushes() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")

        for cipher in [nil, "RSA_PKCS1"] {
            let pushed = try await org.push(username: "alice@acme.test", title: "Case 00001026 escalated", body: "Acme needs a call back", fields: ["caseId": "500000000000042"], cipher: cipher)
            XCTAssertEqual(pushed, 1)
            let shown = try device.deliverNotification(to: service, using: TemplateNotificationService.self)
            XCTAssertEqual(shown.state, .shown, shown.message)
            XCTAssertEqual(shown.title, "Case 00001026 escalated", cipher ?? "OAEP")
            XCTAssertEqual(shown.body, "Acme needs a call back")
            XCTAssertEqual(shown.userInfo["caseId"] as? String, "500000000000042")
            XCTAssertNil(shown.userInfo["content"], "the encrypted content is replaced by what it held")
            XCTAssertTrue(shown.changed)
            XCTAssertFalse(shown.expired)
        }
        XCTAssertEqual(TemplateNotificationService.errors, [])
        let none = try device.deliverNotification(to: service, using: TemplateNotificationService.self)
        XCTAssertEqual(none.state, .noNotification)
    }

    /// A push the extension cannot decrypt is shown as it came (the org's fallback alert), with the SDK's error.
    func testAPushForAnotherKeyShowsTheFallbackWithTheSDKsError() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        try await org.push(username: "alice@acme.test", title: "secret title", body: "secret body")
        // The push key replaced after the org encrypted for the old one (a device restored, a key reset).
        try device.run(as: app) { _ = KeychainHelper.write(service: "com.salesforce.mobilesdk.notificationKey", data: Data("not a key".utf8), account: nil) }
        let shown = try device.deliverNotification(to: service, using: TemplateNotificationService.self)
        XCTAssertEqual(shown.state, .shown)
        XCTAssertEqual(shown.title, "New notification", "the org's fallback alert")
        XCTAssertFalse(shown.changed)
        XCTAssertEqual(TemplateNotificationService.errors.map(\.domain), ["com.salesforce.mobilesdk.push.error"])
        XCTAssertEqual(TemplateNotificationService.errors.map(\.code), [-1008])
        XCTAssertEqual(TemplateNotificationService.errors.first?.localizedDescription, "Could not retrieve private RSA key for encrypted notification.")
        XCTAssertNotNil(shown.userInfo["content"], "nothing lost: the encrypted content is still there")
    }

    /// The SDK's validation sets no error: Swift gets Foundation's nil error, not a push error.
    func testAPayloadWithoutASecretThrowsTheNilErrorAsOnIOS() throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        try device.run(as: service) {
            let content = UNMutableNotificationContent()
            content.userInfo = ["encrypted": true, "content": "x", "aps": ["alert": ["title": "t", "body": "b"]]]
            content.title = "t"
            XCTAssertThrowsError(try SFSDKPushNotificationDecryption.decryptNotificationContent(content)) {
                XCTAssertEqual(($0 as NSError).domain, "Foundation._GenericObjCError")
            }
            XCTAssertEqual(content.title, "t")
            let plain = UNMutableNotificationContent()
            plain.userInfo = ["aps": ["alert": "hello"]]
            XCTAssertNoThrow(try SFSDKPushNotificationDecryption.decryptNotificationContent(plain), "not encrypted: left as it is")
        }
    }

    /// iOS's budget: past it, serviceExtensionTimeWillExpire(), then the best attempt or the content as it came.
    func testTheTimeBudget() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        for respond in [true, false] {
            SlowNotificationService.respond = respond
            try await org.push(username: "alice@acme.test", title: "t", body: "b")
            let shown = try device.deliverNotification(to: service, using: SlowNotificationService.self, budget: 0.2)
            XCTAssertTrue(shown.expired)
            XCTAssertEqual(shown.state, respond ? .shown : .timeExpired, shown.message)
            XCTAssertEqual(shown.title, respond ? "best attempt" : "New notification")
        }
    }

    func testContentCopiesAndTheRequestAsIOSMakesIt() {
        let request = UNNotificationRequest.remote(identifier: "1", userInfo: ["aps": ["alert": ["title": "T", "subtitle": "S", "body": "B"], "badge": 3, "sound": "default", "category": "CASE", "thread-id": "acme"], "k": "v"])
        let content = request.content
        XCTAssertEqual([content.title, content.subtitle, content.body, content.categoryIdentifier, content.threadIdentifier], ["T", "S", "B", "CASE", "acme"])
        XCTAssertEqual(content.badge, 3)
        XCTAssertEqual(content.sound, .default)
        let mutable = content.mutableCopy() as! UNMutableNotificationContent
        mutable.title = "changed"
        XCTAssertEqual(content.title, "T", "a mutable copy is a copy")
        let frozen = mutable.copy() as! UNNotificationContent
        XCTAssertFalse(frozen is UNMutableNotificationContent)
        XCTAssertEqual(frozen.title, "changed")
        XCTAssertEqual(frozen.userInfo["k"] as? String, "v")
    }

    /// UNUserNotificationCenter on the device: authorization and categories recorded for the app, an extension's
    /// calls counted for its host app, read back by getNotificationCategories.
    func testTheNotificationCenterRecordsOnTheDevice() throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        try device.run(as: app) {
            let center = UNUserNotificationCenter.current()
            let granted = Box<Bool>()
            center.requestAuthorization(options: [.alert, .badge]) { ok, _ in granted.value = ok }
            XCTAssertEqual(granted.value, true)
            let open = UNNotificationAction(identifier: "OPEN_CASE", title: "Open case", options: [.foreground])
            center.setNotificationCategories([UNNotificationCategory(identifier: "CASE", actions: [open], intentIdentifiers: [], options: [.customDismissAction])])
        }
        let file = root.appendingPathComponent("device/Notifications/com.salesforce.mobilesdk.MobileSyncExplorer/settings.json")
        let recorded = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertEqual(recorded["authorization"] as? [String], ["badge", "alert"])
        XCTAssertEqual(recorded["authorizationRequests"] as? Int, 1)
        try device.run(as: service) {
            UNUserNotificationCenter.current().requestAuthorization(options: [.sound]) { _, _ in }
            let categories = Box<Set<UNNotificationCategory>>()
            UNUserNotificationCenter.current().getNotificationCategories { categories.value = $0 }
            let category = try XCTUnwrap(categories.value?.first)
            XCTAssertEqual(category.identifier, "CASE")
            XCTAssertEqual(category.actions.map(\.identifier), ["OPEN_CASE"])
            XCTAssertEqual(category.actions.first?.options, [.foreground])
            XCTAssertEqual(category.options, [.customDismissAction])
        }
        let after = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        XCTAssertEqual(after["authorization"] as? [String], ["badge", "alert", "sound"], "the extension's request counts for its app")
    }
}

final class Box<T>: @unchecked Sendable {
    var value: T?
}
