// The SDK's PushNotificationDecryptionTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/PushNotificationDecryptionTests.swift
// at aea9bf3), rewritten against the SDK-named products: testPKCS1Secret and testOAEPSecret. The SDK's test makes the
// push key and encrypts the payload itself with Security-framework calls that are not portable; here the device's
// login registers its push key with a simulated org, which encrypts the payload (AES-128 content, the secret
// wrapped with RSA-OAEP-SHA256 or RSA PKCS#1 v1.5), and SFSDKPushNotificationDecryption decrypts it in the
// extension's process, replacing the plain-text title and body.
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import UserNotifications
import XCTest

final class DecryptingService: UNNotificationServiceExtension {
    nonisolated(unsafe) static var failures: [Error] = []

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        guard let content = request.content.mutableCopy() as? UNMutableNotificationContent else { return contentHandler(request.content) }
        do { try SFSDKPushNotificationDecryption.decryptNotificationContent(content) } catch { Self.failures.append(error) }
        contentHandler(content)
    }
}

final class PushNotificationDecryptionTests: XCTestCase {
    private func decrypted(cipher: String) async throws -> DeliveredNotification {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: appURL, org: org, username: "bob@acme.test", password: "bob-pass")
        DecryptingService.failures = []
        let delivered = try await org.push(username: "bob@acme.test", title: "Contact Updated", body: "Matt D updated Jane Smith (CEO, Acme)",
                                           fields: ["sid": "0031Q00002kRzYLQA0"], cipher: cipher)
        XCTAssertEqual(delivered, 1)
        return try device.deliverNotification(to: appURL.appendingPathComponent("PlugIns/NotificationService.appex"), using: DecryptingService.self)
    }

    func testPKCS1Secret() async throws {
        let shown = try await decrypted(cipher: "RSA_PKCS1")
        XCTAssertTrue(DecryptingService.failures.isEmpty, "\(DecryptingService.failures)")
        XCTAssertEqual(shown.body, "Matt D updated Jane Smith (CEO, Acme)")
        XCTAssertEqual(shown.title, "Contact Updated")
        XCTAssertEqual(shown.userInfo["sid"] as? String, "0031Q00002kRzYLQA0")
    }

    func testOAEPSecret() async throws {
        let shown = try await decrypted(cipher: "RSA_OAEP_SHA256")
        XCTAssertTrue(DecryptingService.failures.isEmpty, "\(DecryptingService.failures)")
        XCTAssertEqual(shown.body, "Matt D updated Jane Smith (CEO, Acme)")
        XCTAssertEqual(shown.title, "Contact Updated")
    }
}
