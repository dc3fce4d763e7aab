import AppGroup
import AppGroupSimTestSupport
import FastJSON
import Foundation
import OrgSimulator
import Keychain
import CoreEngine
import XCTest
@preconcurrency import _CryptoExtras

@testable import AppExtensions

/// The notification service extension: the next delivered payload, decrypted with the push key the app
/// keeps in the shared keychain group; the fallback alert, one reason and the SDK's error whenever it
/// cannot; nothing decrypted ever written, no payload ever lost.
final class NotificationServiceTests: FixtureAppTestCase {
    var nseURL: URL { notificationServiceURL }

    var inbox: URL { try! launch(appURL).sandbox.device.layout.notificationInbox(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer") }
    var delivered: URL { try! launch(appURL).sandbox.device.layout.deliveredNotifications(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer") }

    /// What the app does at its first registration: the key pair, the private key in its keychain group.
    /// Alice is on the device too (her account file), as she is when the org sends her notifications.
    func appPushKey() async throws -> _RSA.Encryption.PrivateKey {
        try accountFile(userId: "0055g00000AliceAAA")
        return try await PushKeyStore.privateKey(try launch(appURL).keychain, create: true)
    }

    /// A user's account file where the SDK keeps it (its existence is what "on this device" means here).
    func accountFile(userId: String) throws {
        let dir = try launch(appURL).dataSharing.sdkRoot().library.appendingPathComponent("00D5g00000AcmeeEAA").appendingPathComponent(userId)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data("placeholder".utf8).write(to: dir.appendingPathComponent("UserAccount.plist"))
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
        try PushEncryption.payload(
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
        try accountFile(userId: "0055g00000AliceAAA")
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
        var notJSON = try PushEncryption.payload(
            contentData: Data("alertTitle=Hi".utf8), publicKey: key.publicKey, fallbackTitle: "New notification", fallbackBody: "")
        notJSON["uid"] = "0055g00000AliceAAA"
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
            XCTAssertEqual(report.error?.domain, "com.salesforce.mobilesdk.push.error")
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

    // MARK: Issue 25: only to this device, only while logged in

    /// The org may still send a logged-out user's notifications (an unreachable logout leaves its device
    /// record): a payload whose uid names no user on the device shows the fallback and is never decrypted.
    func testANotificationForAUserWhoIsNotOnTheDeviceShowsTheFallbackAndIsNotDecrypted() async throws {
        let key = try await appPushKey()
        var forBob = try PushEncryption.payload(
            content: ["alertTitle": "Bob's case", "alertBody": "secret body"], publicKey: key.publicKey,
            fallbackTitle: "New notification", fallbackBody: "", extra: ["uid": "0055g00000BobbbAAA"])
        try deliver(forBob, name: "001.json")
        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .notLoggedIn)
        XCTAssertEqual(report.state.exitCode, 14)
        XCTAssertFalse(report.decrypted)
        XCTAssertEqual(report.title, "New notification")
        XCTAssertFalse(report.body.contains("secret") || "\(report.fields)".contains("secret"))
        XCTAssertTrue(report.message.contains("0055g00000BobbbAAA") && report.message.contains("not logged in"), report.message)
        forBob["uid"] = nil
        try deliver(forBob, name: "002.json")
        let noUID = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(noUID.state, .notLoggedIn, noUID.message)
        // Alice's own is decrypted.
        try deliver(try encrypted(key), name: "003.json")
        let alice = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(alice.state, .shown)
        XCTAssertTrue(alice.decrypted)
    }

    /// A link, a FIFO or a directory in the inbox is never opened: each is refused by name and left where it
    /// is, and the next real payload is shown. A FIFO does not block the extension.
    func testTheInboxNeverFollowsALinkOrOpensAFIFOOrADirectory() async throws {
        let key = try await appPushKey()
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("outside-\(UUID().uuidString).json")
        try Data(JSON.object(try encrypted(key, title: "from outside")).text.utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        try FileManager.default.createSymbolicLink(atPath: inbox.appendingPathComponent("001-link.json").path, withDestinationPath: secret.path)
        XCTAssertEqual(mkfifo(inbox.appendingPathComponent("002-fifo.json").path, 0o600), 0)
        try FileManager.default.createDirectory(at: inbox.appendingPathComponent("003-dir.json"), withIntermediateDirectories: true)
        try deliver(try encrypted(key, title: "Real one"), name: "004.json")
        let report = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(report.state, .shown)
        XCTAssertEqual(report.title, "Real one")
        for refused in ["001-link.json (a symbolic link)", "002-fifo.json (a FIFO)", "003-dir.json (a directory)"] {
            XCTAssertTrue(report.message.contains(refused), "\(refused): \(report.message)")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: inbox.path).sorted()
        XCTAssertEqual(left, ["001-link.json", "002-fifo.json", "003-dir.json"], "refused entries are left where they are")
        let none = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(none.state, .noNotification)
        XCTAssertTrue(none.message.contains("001-link.json (a symbolic link)"), none.message)
        // A link given as --payload is refused too.
        let direct = await NotificationService.handle(try launch(nseURL), payload: inbox.appendingPathComponent("001-link.json"))
        XCTAssertEqual(direct.state, .unreadable)
        XCTAssertTrue(direct.message.contains("symbolic link"), direct.message)
    }

    /// APNs may deliver one payload twice: the same bytes are shown once, and both files are kept.
    func testAByteIdenticalPayloadDeliveredTwiceIsShownOnce() async throws {
        let key = try await appPushKey()
        let payload = try encrypted(key, title: "Once")
        try deliver(payload, name: "001.json")
        try deliver(payload, name: "002.json")
        try deliver(try encrypted(key, title: "Other"), name: "003.json")
        let first = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(first.title, "Once")
        let second = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(second.title, "Other", "the duplicate was passed over")
        XCTAssertTrue(second.message.contains("002.json"), second.message)
        let none = await NotificationService.handleNext(try launch(nseURL))
        XCTAssertEqual(none.state, .noNotification)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: delivered.path).filter { !$0.hasPrefix(".") }.sorted(), ["001.json", "002.json", "003.json"])
    }
}
