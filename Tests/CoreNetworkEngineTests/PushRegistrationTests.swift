import AppGroup
import AppGroupSimTestSupport
import FastJSON
import Foundation
import OrgSimulator
import Keychain
import CoreEngine
@testable import CoreNetworkEngine
import XCTest
@preconcurrency import _CryptoExtras
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif


/// The device registered for the user's notifications after login, with a key kept in the keychain
/// group; unregistered at logout; a registration the org refuses never fails the login.
final class PushRegistrationTests: XCTestCase {
    var root: URL!
    let keychain = InMemorySecretStore()

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: root.appendingPathComponent("MobileSyncExplorer.app"))
    }

    func sdk() throws -> SDKManager {
        let launch = try ProcessLaunch(
            bundlePath: root.appendingPathComponent("MobileSyncExplorer.app").path, devicePath: root.appendingPathComponent("device").path, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents())
    }

    /// The org's MobilePushServiceDevice records, as an admin client sees them.
    func devices(_ org: OrgHarness) async throws -> [[String: JSON]] {
        let admin = try await org.login()
        let page = try await admin.send(.query("SELECT Id, ConnectionToken, ServiceType, ApplicationBundle, RsaPublicKey, CipherName FROM MobilePushServiceDevice"))
        return try page.value()["records"]?.arrayValue?.compactMap(\.objectValue) ?? []
    }

    func testLoginRegistersTheDeviceWithTheKeyInTheGroupAndLogoutUnregistersIt() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let push = PushNotificationManager(launch: sdk.launch, events: SDKEvents())
        let registration = try XCTUnwrap(try push.registration(for: alice))
        let token = try push.deviceToken()
        XCTAssertEqual(token.count, 64)
        XCTAssertEqual(registration.token, token)

        let records = try await devices(org)
        XCTAssertEqual(records.count, 1)
        let record = try XCTUnwrap(records.first)
        XCTAssertEqual(record["Id"]?.stringValue, registration.id)
        XCTAssertEqual(record["ConnectionToken"]?.stringValue, token)
        XCTAssertEqual(record["ServiceType"], "Apple")
        XCTAssertEqual(record["ApplicationBundle"], "com.salesforce.mobilesdk.MobileSyncExplorer")
        XCTAssertEqual(record["CipherName"], "RSA_OAEP_SHA256")

        // The public key the org holds wraps a payload that the private key in the app's keychain group opens.
        let keyItem = try XCTUnwrap(try keychain.search(["service": PushKey.service]).first)
        XCTAssertEqual(keyItem.attributes["accessGroup"], "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer")
        let publicKey = try _RSA.Encryption.PublicKey(derRepresentation: try XCTUnwrap(Data(base64Encoded: record["RsaPublicKey"]?.stringValue ?? "")))
        let payload = try PushEncryption.payload(
            content: ["alertTitle": "Case 42", "alertBody": "Assigned to you"], publicKey: publicKey, fallbackTitle: "New notification", fallbackBody: "")
        var content = NotificationContent(userInfo: payload)
        try PushNotificationDecryption.decrypt(&content, privateKey: try await PushKeyStore.privateKey(sdk.launch.keychain, create: false))
        XCTAssertEqual(content.title, "Case 42")

        // A later launch with the same token asks nothing; a new token registers again.
        let again = await push.registerIfNeeded(alice)
        XCTAssertEqual(again, .alreadyRegistered(id: registration.id))
        try sdk.launch.sandbox.standardDefaults.set(.string(String(repeating: "ab", count: 32)), forKey: PushNotificationManager.deviceTokenKey)
        guard case .registered(let newId) = await push.registerIfNeeded(alice) else { return XCTFail("a new token did not register") }
        XCTAssertNotEqual(newId, registration.id)

        try await sdk.userAccountManager.logout(alice)
        XCTAssertNil(try push.registration(for: alice))
        let left = try await devices(org)
        XCTAssertFalse(left.contains { $0["Id"]?.stringValue == newId }, "logout deleted the device's record")
        XCTAssertNil(try keychain.search(["service": PushKey.service]).first, "the last logout removes the push key (the SDK keeps it; DESIGN differences)")
    }

    /// APNs gives a new token on a new phone: a backup restored there carries the app's standard defaults (the
    /// old phone's token and registration with them), and the app must not keep using the old phone's token, or
    /// the org goes on delivering the user's notifications to the old phone (found by msdk-sim explore's
    /// `device restore`: the notification extension on the new phone never saw a push).
    func testARestoredPhoneGetsItsOwnTokenAndRegistersAgain() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let oldToken = try PushNotificationManager(launch: sdk.launch, events: SDKEvents()).deviceToken()
        let backup = root.appendingPathComponent("phone.backup")
        _ = try DeviceBackup.backup(sdk.launch.sandbox.device, store: keychain, to: backup)
        let (restored, _) = try DeviceBackup.restore(backup, to: root.appendingPathComponent("new-phone"), store: keychain)
        let launch = try ProcessLaunch(
            bundlePath: root.appendingPathComponent("MobileSyncExplorer.app").path, devicePath: restored.root.path, secretStore: keychain)
        let push = PushNotificationManager(launch: launch, events: SDKEvents())
        let carried = try XCTUnwrap(try push.registration(for: alice), "the registration came along in the app's defaults")
        XCTAssertEqual(carried.token, oldToken)
        let newToken = try push.deviceToken()
        XCTAssertNotEqual(newToken, oldToken, "the new phone has a token of its own")
        XCTAssertEqual(try push.deviceToken(), newToken, "and keeps it")
        // The session's tokens do not come along (…ThisDeviceOnly): she logs in again on the new phone, which registers it.
        let newSDK = SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents())
        // As the app's launch does first: the account its key did not come along for is set aside, kept.
        try await LaunchPreparation.run(launch, accounts: newSDK.userAccountManager, recovery: .keepFiles, requireKeychain: true, note: { _ in })
        let again = try await newSDK.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        XCTAssertEqual(try push.registration(for: again)?.token, newToken)
        let records = try await devices(org)
        XCTAssertTrue(records.contains { $0["ConnectionToken"]?.stringValue == newToken }, "the org delivers to the new phone")
    }

    /// At logout the device drops the user's registration even when the org cannot be reached (the SDK logs
    /// the failed DELETE and goes on), and the push key goes with the last user, so nothing delivered
    /// afterwards can be decrypted. While another user is on the device, the app's one key stays.
    func testLogoutDropsTheRegistrationAndTheLastLogoutThePushKeyEvenWithTheOrgUnreachable() async throws {
        let org = try await OrgHarness.start()
        let sdk = try sdk()
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let bob = try await sdk.userAccountManager.login(org: org.baseURL, username: "bob@acme.test", password: "bob-pass", passcode: nil)
        let push = PushNotificationManager(launch: sdk.launch, events: SDKEvents())
        XCTAssertNotNil(try push.registration(for: alice))
        XCTAssertNotNil(try push.registration(for: bob))
        await org.stop()

        try await sdk.userAccountManager.logout(bob)
        XCTAssertNil(try push.registration(for: bob), "dropped although the org was not reached")
        XCTAssertNotNil(try keychain.search(["service": PushKey.service]).first, "alice is still on the device: the app's key stays")
        try await sdk.userAccountManager.logout(alice)
        XCTAssertNil(try push.registration(for: alice))
        XCTAssertTrue(try keychain.search(["service": PushKey.service]).isEmpty, "no user left: the push key is gone")
    }

    /// An org without MobilePushServiceDevice refuses the registration: the login still succeeds, the
    /// failure is in the trace, and nothing is kept, so the next launch tries again.
    func testARefusedRegistrationNeverFailsTheLogin() async throws {
        let data = root.appendingPathComponent("org")
        try FileManager.default.copyItem(at: OrgHarness.fixtureDirectory, to: data)
        let objectsURL = data.appendingPathComponent("objects.json")
        var objects = try XCTUnwrap(JSON(text: String(contentsOf: objectsURL, encoding: .utf8))?.objectValue)
        objects["objects"] = .array((objects["objects"]?.arrayValue ?? []).filter { $0["name"] != "MobilePushServiceDevice" })
        try JSON.object(objects).text.write(to: objectsURL, atomically: true, encoding: .utf8)
        let org = try await OrgHarness.start(dataDirectory: data)
        defer { Task { await org.stop() } }
        let trace = root.appendingPathComponent("trace.jsonl")
        let launch = try ProcessLaunch(
            bundlePath: root.appendingPathComponent("MobileSyncExplorer.app").path, devicePath: root.appendingPathComponent("device").path, secretStore: keychain)
        let events = SDKEvents(traceFile: trace.path)
        let sdk = SDKManager.initializeSDK(.mobileSync, launch: launch, events: events)
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        XCTAssertEqual(try sdk.userAccountManager.currentUser()?.identity, alice.identity)
        let traced = try String(contentsOf: trace, encoding: .utf8)
        XCTAssertTrue(traced.contains(#""step":"pushRegistrationFailed""#), traced)
        XCTAssertNil(try PushNotificationManager(launch: launch, events: events).registration(for: alice), "nothing kept: retried at the next launch")
    }

    /// The answer: an object with `delivered` and `skipped`, or Salesforce's error list.
    func adminPush(_ org: OrgHarness, _ body: [String: Any]) async throws -> (Int, Any) {
        var request = URLRequest(url: org.baseURL.appendingPathComponent("__admin/push"))
        request.setValue(org.adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, response) = try await org.raw(request)
        return (response.statusCode, (try? JSONSerialization.jsonObject(with: data)) ?? [:])
    }

    /// The org's gateway encrypts for the registered device with its public key and APNs delivers into
    /// the app's inbox on the device; the key in the keychain group opens it. After logout nothing is
    /// delivered, and the call says so.
    func testTheGatewayDeliversAnEncryptedNotificationToTheRegisteredDeviceOnly() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let (status, answer) = try await adminPush(org, ["username": "alice@acme.test", "title": "Case 42", "body": "Escalated to you", "fields": ["caseId": "500xx"]])
        XCTAssertEqual(status, 200, "\(answer)")
        let inbox = sdk.launch.sandbox.device.layout.notificationInbox(bundleID: "com.salesforce.mobilesdk.MobileSyncExplorer")
        let files = try FileManager.default.contentsOfDirectory(atPath: inbox.path).filter { $0.hasSuffix(".json") }
        XCTAssertEqual(files.count, 1)
        let text = try String(contentsOf: inbox.appendingPathComponent(files[0]), encoding: .utf8)
        XCTAssertFalse(text.contains("Escalated"), "the body travels encrypted")
        var content = NotificationContent(userInfo: try XCTUnwrap(JSON(text: text)?.objectValue))
        XCTAssertEqual(content.title, "New notification", "the fallback the system shows without the extension")
        try PushNotificationDecryption.decrypt(&content, privateKey: try await PushKeyStore.privateKey(sdk.launch.keychain, create: false))
        XCTAssertEqual(content.title, "Case 42")
        XCTAssertEqual(content.body, "Escalated to you")
        XCTAssertEqual(content.userInfo["caseId"], "500xx")

        try await sdk.userAccountManager.logout(alice)
        let (after, refusal) = try await adminPush(org, ["username": "alice@acme.test", "title": "Again", "body": "x"])
        XCTAssertEqual(after, 404)
        XCTAssertTrue("\(refusal)".contains("NO_REGISTERED_DEVICE"), "\(refusal)")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: inbox.path).filter { $0.hasSuffix(".json") }.count, 1, "nothing new delivered")
    }
}
