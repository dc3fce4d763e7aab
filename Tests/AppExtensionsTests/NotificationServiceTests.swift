import AppGroup
import AppGroupSimTestSupport
import FastJSON
import Foundation
import Keychain
import PushNotifications
import XCTest
@preconcurrency import _CryptoExtras

@testable import AppExtensions
import SalesforceSDKCore

/// The notification service extension: the next delivered payload, decrypted with the push key the app
/// keeps in the shared keychain group; the fallback alert, one reason and the SDK's error whenever it
/// cannot; nothing decrypted ever written, no payload ever lost.
final class NotificationServiceTests: FixtureAppTestCase {
    var nseURL: URL { notificationServiceURL }

    var inbox: URL { try! launch(appURL).sandbox.device.layout.notificationInbox(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer") }
    var delivered: URL { try! launch(appURL).sandbox.device.layout.deliveredNotifications(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer") }

    /// What the app does at its first registration: the key pair, the private key in its keychain group.
    func appPushKey() async throws -> _RSA.Encryption.PrivateKey {
        try await PushKeyStore.privateKey(try launch(appURL).keychain, create: true)
    }

    /// What the org's gateway delivers: one payload file in the app's inbox.
    @discardableResult
    func deliver(_ payload: [String: JSON], name: String = "001-payload.json") throws -> URL {
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let file = inbox.appendingPathComponent(name)
        try Data(JSON.object(payload).text.utf8).write(to: file)
        return file
    }

    func encrypted(_ key: _RSA.Encryption.PrivateKey, title: String = "Case 42 escalated", body: String = "Acme needs a call today") throws -> [String: JSON] {
        try PushNotificationEncryption.payload(
            content: ["alertTitle": .string(title), "alertBody": .string(body), "caseId": "500000000000042"], publicKey: key.publicKey,
            fallbackTitle: "New notification", fallbackBody: "", extra: ["uid": "0055g00000AliceAAA"])
    }

    func testTheNextPayloadIsDecryptedWithTheKeyFromTheSharedGroupAndKeptEncrypted() async throws {
        let key = try await appPushKey()
        try deliver(try encrypted(key, title: "First", body: "first body"), name: "001.json")
        try deliver(try encrypted(key, title: "Second", body: "second body"), name: "002.json")

        let first = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(first.state, .shown)
        XCTAssertEqual(first.state.exitCode, 0)
        XCTAssertEqual(first.app, "MobileSyncExplorer")
        XCTAssertEqual(first.title, "First")
        XCTAssertEqual(first.body, "first body")
        XCTAssertEqual(first.fields, ["caseId": "500000000000042", "uid": "0055g00000AliceAAA"])
        XCTAssertTrue(first.encrypted)
        XCTAssertTrue(first.decrypted)
        XCTAssertNil(first.error)
        XCTAssertEqual(first.payload, delivered.appendingPathComponent("001.json").path)

        let second = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(second.title, "Second")
        let none = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(none.state, .noNotification)
        XCTAssertEqual(none.state.exitCode, 10)

        // Both payloads kept, as they came: encrypted, the body nowhere in them.
        let kept = try FileManager.default.contentsOfDirectory(atPath: delivered.path).sorted()
        XCTAssertEqual(kept, ["001.json", "002.json"])
        for name in kept {
            let text = try String(contentsOf: delivered.appendingPathComponent(name), encoding: .utf8)
            XCTAssertFalse(text.contains("first body") || text.contains("second body"), text)
            XCTAssertTrue(text.contains("\"secret\""), text)
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inbox.path), [])
    }

    func testWithoutTheKeychainGroupTheFallbackIsShownAndTheReasonNamesTheEntitlement() async throws {
        let key = try await appPushKey()
        try deliver(try encrypted(key))
        let entitlements = nseURL.appendingPathComponent("NotificationService.entitlements")
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: entitlements), format: nil) as! [String: Any]
        plist["keychain-access-groups"] = nil
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: entitlements)

        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertEqual(report.state.exitCode, 11)
        XCTAssertEqual(report.title, "New notification")
        XCTAssertEqual(report.body, "")
        XCTAssertFalse(report.decrypted)
        XCTAssertEqual(report.error?.code, -1008)
        XCTAssertEqual(report.fields, ["uid": "0055g00000AliceAAA"], "only what came in clear")
        XCTAssertTrue(report.message.contains("SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"), report.message)
        // Without the entitlement, iOS still gives it its own application identifier and app groups as keychain groups.
        XCTAssertTrue(report.message.contains("has only SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer.NotificationService"), report.message)
        XCTAssertFalse(report.message.contains("\n"))
        // The payload is kept, so a fixed extension could still show it.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: delivered.path).count, 1)
        let again = await NotificationService.handle(try launch(nseURL), payload: URL(fileURLWithPath: try XCTUnwrap(report.payload)))
        XCTAssertEqual(again.state, .misconfigured)
    }

    func testWithNoKeyInTheGroupItIsMisconfiguredAndSaysTheAppHasNotRegistered() async throws {
        let elsewhere = try PushKey.make()
        try deliver(try encrypted(elsewhere))
        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertTrue(report.message.contains("no push key"), report.message)
        XCTAssertEqual(report.title, "New notification")
    }

    func testALockedKeychainIsKeychainUnavailableWithTheFallback() async throws {
        let key = try await appPushKey()
        try deliver(try encrypted(key))
        keychain.setAvailability(.locked)
        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .keychainUnavailable)
        XCTAssertEqual(report.state.exitCode, 12)
        XCTAssertEqual(report.title, "New notification")
        XCTAssertEqual(report.error?.code, -1008)
    }

    func testAPayloadThatIsNotEncryptedPassesThroughUnchanged() async throws {
        try deliver(["aps": ["alert": ["title": "Server maintenance", "body": "Tonight 22:00"]], "ticket": 7])
        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .shown)
        XCTAssertFalse(report.encrypted)
        XCTAssertFalse(report.decrypted)
        XCTAssertEqual(report.title, "Server maintenance")
        XCTAssertEqual(report.body, "Tonight 22:00")
        XCTAssertEqual(report.fields, ["ticket": 7])
        // No keychain was needed: a locked one changes nothing.
        keychain.setAvailability(.locked)
        try deliver(["aps": ["alert": "Just a string"]], name: "002.json")
        let plain = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(plain.state, .shown)
        XCTAssertEqual(plain.body, "Just a string")
    }

    /// Bad input: each gives the SDK's error, the fallback and keeps the payload.
    func testBadPayloadsGiveTheSDKsErrorAndTheFallback() async throws {
        let key = try await appPushKey()
        let good = try encrypted(key)
        let other = try encrypted(try PushKey.make())
        var truncated = good
        truncated["secret"] = .string(String(good["secret"]!.stringValue!.prefix(40)))
        var notBase64 = good
        notBase64["secret"] = "%%% not base64 %%%"
        var otherSecret = good
        otherSecret["secret"] = other["secret"]
        let notJSON = try PushNotificationEncryption.payload(
            contentData: Data("alertTitle=Hi".utf8), publicKey: key.publicKey, fallbackTitle: "New notification", fallbackBody: "")
        var noAps = good
        noAps["aps"] = nil
        // A secret wrapped with another padding (PKCS#1 v1.5 in the SDK's fallback): not RSA-OAEP-SHA256.
        var sha1 = good
        sha1["secret"] = .string(try key.publicKey.encrypt(Data(repeating: 7, count: 32), padding: .PKCS1_OAEP).base64EncodedString())
        let cases: [(String, [String: JSON], Int)] = [
            ("truncated secret", truncated, -1009), ("secret not base64", notBase64, -1007), ("another device's secret", otherSecret, -1009),
            ("content not JSON", notJSON, -1012), ("no aps", noAps, -1005), ("unknown cipher (OAEP-SHA1)", sha1, -1009),
        ]
        for (n, (name, payload, code)) in cases.enumerated() {
            let file = try deliver(payload, name: String(format: "%03d.json", n))
            let before = try Data(contentsOf: file)
            let report = await NotificationService.handleNext(try launch(nseURL))
            XCTAssertEqual(report.state, .unreadable, name)
            XCTAssertEqual(report.state.exitCode, 13, name)
            XCTAssertEqual(report.error?.code, code, "\(name): \(report.message)")
            XCTAssertEqual(report.error?.domain, "SFSDKPushNotificationError")
            XCTAssertFalse(report.decrypted, name)
            XCTAssertEqual(report.title, payload["aps"] == nil ? "" : "New notification", name)
            XCTAssertEqual(try Data(contentsOf: delivered.appendingPathComponent(file.lastPathComponent)), before, "\(name): kept as it came")
        }
        // Not JSON at all.
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: inbox.appendingPathComponent("999.json"))
        let garbage = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(garbage.state, .unreadable)
        XCTAssertTrue(garbage.message.contains("not a JSON object"), garbage.message)
        XCTAssertTrue(FileManager.default.fileExists(atPath: delivered.appendingPathComponent("999.json").path))
    }

    func testTheWidgetBundleIsNoNotificationServiceExtension() async throws {
        let report = await NotificationService.handleNext(try launch(appURL.appendingPathComponent("PlugIns/RecentContacts.appex")))
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertTrue(report.message.contains("com.apple.usernotifications.service"), report.message)
    }

    func testTheTextShowsTheBannerThenHowItCameToBe() async throws {
        let key = try await appPushKey()
        try deliver(try encrypted(key))
        let text = NotificationService.text(await NotificationService.handleNext(try launch(nseURL)))
        XCTAssertEqual(text, """
            MobileSyncExplorer — notification
              Case 42 escalated
              Acme needs a call today
              caseId: 500000000000042
              uid: 0055g00000AliceAAA
              [shown, decrypted] decrypted with the push key from the app's keychain group
            """)
    }
}
