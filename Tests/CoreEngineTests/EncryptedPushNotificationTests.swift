import FastJSON
import Foundation
import OrgSimulator
import XCTest
@preconcurrency import _CryptoExtras

@testable import CoreEngine

/// The SDK's encrypted-push cases (SFSDKEncryptedPushNotificationTests), rewritten: a payload made as
/// its test data provider makes one (the content dictionary AES-128-CBC encrypted, the key and IV
/// RSA-OAEP-SHA256 wrapped with the app's public key, an `aps.alert` with Title, Body and key1), then
/// validated and decrypted, and each way it can be wrong gives the SDK's error code.
final class EncryptedPushNotificationTests: XCTestCase {
    /// One 2,048-bit key pair for the class: making one takes a moment.
    nonisolated(unsafe) static let key = try! _RSA.Encryption.PrivateKey(keySize: .bits2048)

    let contentDict: [String: JSON] = [
        "alertTitle": "content_alert_title", "alertBody": "content_alert_body", "ContentKey1": "ContentValue1", "ContentKey2": "ContentValue2",
    ]

    /// The SDK's data provider's userInfo: its aps.alert carries Title, Body and key1.
    func userInfo(contentData: Data? = nil, cipher: PushEncryption.Cipher = .oaepSHA256) throws -> [String: JSON] {
        var info = try PushEncryption.payload(
            contentData: contentData ?? Data(JSON.object(contentDict).text.utf8), publicKey: Self.key.publicKey, cipher: cipher,
            fallbackTitle: "Title", fallbackBody: "Body")
        info["aps"] = ["alert": ["title": "Title", "body": "Body", "key1": "value1"]]
        return info
    }

    private func expect(_ code: PushNotificationError, _ info: [String: JSON], file: StaticString = #filePath, line: UInt = #line) {
        var content = NotificationContent(userInfo: info)
        let before = content
        XCTAssertThrowsError(try PushNotificationDecryption.decrypt(&content, privateKey: Self.key), file: file, line: line) {
            XCTAssertEqual(($0 as? PushNotificationError)?.code, code.code, "\($0)", file: file, line: line)
        }
        XCTAssertEqual(content, before, "left as it came: the fallback alert shows", file: file, line: line)
    }

    func testValidateUserInfo() throws {
        XCTAssertNoThrow(try PushNotificationDecryption.validate(try userInfo()))
    }

    func testValidateUserInfoNoSecret() throws {
        var info = try userInfo()
        info["secret"] = nil
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noEncryptedSecret) }
    }

    func testValidateUserInfoNoContent() throws {
        var info = try userInfo()
        info["content"] = nil
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noEncryptedContent) }
    }

    func testValidateUserInfoNoTitle() throws {
        var info = try userInfo()
        info["aps"] = ["alert": ["body": "Body", "key1": "value1"]]
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noApsAlertTitle) }
    }

    func testValidateUserInfoNoBody() throws {
        var info = try userInfo()
        info["aps"] = ["alert": ["title": "Title", "key1": "value1"]]
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noApsAlertBody) }
    }

    func testValidateUserInfoNoApsDict() throws {
        var info = try userInfo()
        info["aps"] = nil
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noApsDictionary) }
    }

    func testValidateUserInfoNoApsAlertDict() throws {
        var info = try userInfo()
        info["aps"] = ["badge": 1]
        XCTAssertThrowsError(try PushNotificationDecryption.validate(info)) { XCTAssertEqual($0 as? PushNotificationError, .noApsAlertDictionary) }
    }

    func testNotificationNotEncrypted() throws {
        for encrypted: JSON? in [nil, false] {
            var info = try userInfo()
            info["encrypted"] = encrypted
            var content = NotificationContent(userInfo: info)
            let before = content
            XCTAssertNoThrow(try PushNotificationDecryption.decrypt(&content, privateKey: nil), "passes through, no key needed")
            XCTAssertEqual(content, before)
        }
    }

    func testNotificationTransform() throws {
        var content = NotificationContent(userInfo: try userInfo())
        try PushNotificationDecryption.decrypt(&content, privateKey: Self.key)
        XCTAssertNil(content.userInfo["content"])
        for (key, value) in contentDict { XCTAssertEqual(content.userInfo[key], value, key) }
        XCTAssertEqual(content.title, "content_alert_title")
        XCTAssertEqual(content.body, "content_alert_body")
        XCTAssertEqual(content.userInfo["alertTitle"]?.stringValue, content.title)
        XCTAssertEqual(content.userInfo["alertBody"]?.stringValue, content.body)
        XCTAssertEqual(content.userInfo["aps"]?["alert"], ["title": "content_alert_title", "body": "content_alert_body", "key1": "value1"],
                       "aps.alert updated where it had a title and a body; other keys kept")
    }

    func testNotificationTransformMalformedSecret() throws {
        var info = try userInfo()
        info["secret"] = "some not base64 string"
        expect(.malformedSecretData, info)
    }

    func testNotificationTransformNonRSASecret() throws {
        var info = try userInfo()
        info["secret"] = .string(Data("some non-encrypted string".utf8).base64EncodedString())
        expect(.secretDecryptionFailed, info)
    }

    /// A secret wrapped with another key (a device re-registered, or another user's key).
    func testNotificationTransformSecretForAnotherKey() throws {
        let other = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
        var info = try userInfo()
        info["secret"] = .string(try other.publicKey.encrypt(Data(repeating: 1, count: 32), padding: .PKCS1_OAEP_SHA256).base64EncodedString())
        expect(.secretDecryptionFailed, info)
    }

    /// A secret that decrypts, but not to 32 bytes: the SDK refuses it.
    func testNotificationTransformSecretOfTheWrongLength() throws {
        var info = try userInfo()
        info["secret"] = .string(try Self.key.publicKey.encrypt(Data(repeating: 1, count: 16), padding: .PKCS1_OAEP_SHA256).base64EncodedString())
        expect(.secretDecryptionFailed, info)
    }

    func testNotificationTransformMalformedContent() throws {
        var info = try userInfo()
        info["content"] = "some not base64 string"
        expect(.malformedContentData, info)
    }

    func testNotificationTransformNonAES128Content() throws {
        var info = try userInfo()
        info["content"] = .string(Data("some non-encrypted string".utf8).base64EncodedString())
        expect(.contentDecryptionFailed, info)
    }

    func testNotificationTransformNonJSONContent() throws {
        expect(.invalidContentFormat, try userInfo(contentData: Data("This is not JSON".utf8)))
    }

    func testNotificationTransformArrayJSONContent() throws {
        expect(.invalidContentFormat, try userInfo(contentData: Data(#"[ "One", "Two", "Three" ]"#.utf8)))
    }

    func testNoPrivateKeyIsTheSDKsKeyNotFound() throws {
        var content = NotificationContent(userInfo: try userInfo())
        XCTAssertThrowsError(try PushNotificationDecryption.decrypt(&content, privateKey: nil)) {
            XCTAssertEqual(($0 as? PushNotificationError)?.code, -1008)
        }
        XCTAssertEqual(content.title, "Title", "the fallback alert")
    }

    /// The SDK's PushNotificationDecryptionTests.testPKCS1Secret and testOAEPSecret, rewritten: the SDK 12 decrypts
    /// a secret with RSA-OAEP (SHA-256) and, when that fails, with RSA PKCS#1 v1.5 (the org's secret for a device
    /// registered without a CipherName, encrypted by the system OpenSSL; the client's fallback loads it itself).
    func testPKCS1AndOAEPSecretsBothDecrypt() throws {
        for cipher in PushEncryption.Cipher.allCases {
            var content = NotificationContent(userInfo: try userInfo(cipher: cipher))
            try PushNotificationDecryption.decrypt(&content, privateKey: Self.key)
            XCTAssertEqual(content.title, "content_alert_title", cipher.rawValue)
            XCTAssertEqual(content.body, "content_alert_body", cipher.rawValue)
        }
    }

    /// The two are really different: a PKCS#1 v1.5 secret is not OAEP, and the fallback is what reads it.
    func testPKCS1SecretIsNotOAEP() throws {
        let info = try userInfo(cipher: .pkcs1)
        let secret = try XCTUnwrap(info["secret"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        XCTAssertThrowsError(try Self.key.decrypt(secret, padding: .PKCS1_OAEP_SHA256))
        XCTAssertEqual(try LegacyRSA.decryptPKCS1(secret, privateKey: Self.key).count, 32)
        let oaep = try XCTUnwrap(try userInfo(cipher: .oaepSHA256)["secret"]?.stringValue.flatMap { Data(base64Encoded: $0) })
        XCTAssertThrowsError(try LegacyRSA.decryptPKCS1(oaep, privateKey: Self.key)) { XCTAssertEqual($0 as? LegacyRSA.Failure, .decryptionFailed) }
    }

    /// A PKCS#1 v1.5 secret for another key, or of the wrong length, fails as an OAEP one does.
    func testPKCS1SecretForAnotherKeyOrOfTheWrongLength() throws {
        let other = try _RSA.Encryption.PrivateKey(keySize: .bits2048)
        var info = try userInfo(cipher: .pkcs1)
        info["secret"] = .string(try PushEncryption.encryptSecret(Data(repeating: 1, count: 32), publicKey: other.publicKey, cipher: .pkcs1).base64EncodedString())
        expect(.secretDecryptionFailed, info)
        info["secret"] = .string(try PushEncryption.encryptSecret(Data(repeating: 1, count: 16), publicKey: Self.key.publicKey, cipher: .pkcs1).base64EncodedString())
        expect(.secretDecryptionFailed, info)
    }

    /// The SDK's domain and its descriptions, word for word (SFSDKPushNotificationError.m, SFSDKPushNotificationDecryption.m).
    func testTheSDKsDomainAndDescriptions() {
        XCTAssertEqual(PushNotificationError.domain, "com.salesforce.mobilesdk.push.error")
        XCTAssertEqual(PushNotificationError.malformedSecretData.description, "Encrypted secret is an invalid Base64 string.")
        XCTAssertEqual(PushNotificationError.privateRSAKeyNotFound.description, "Could not retrieve private RSA key for encrypted notification.")
        XCTAssertEqual(PushNotificationError.secretDecryptionFailed.description, "Failed to decrypt secret with RSA private key.")
        XCTAssertFalse(PushNotificationError.noApsAlertBody.reportedBySDK, "the SDK's validation sets no error")
        XCTAssertTrue(PushNotificationError.malformedSecretData.reportedBySDK)
    }

    /// The org's cipher for a registered device: the SDK 12's CipherName, or none (PKCS#1 v1.5, the SDKs before 12).
    func testTheOrgsCipherForACipherName() {
        XCTAssertEqual(PushEncryption.Cipher(cipherName: "RSA_OAEP_SHA256"), .oaepSHA256)
        XCTAssertEqual(PushEncryption.Cipher(cipherName: nil), .pkcs1)
        XCTAssertEqual(PushEncryption.Cipher(cipherName: ""), .pkcs1)
        XCTAssertNil(PushEncryption.Cipher(cipherName: "AES"))
    }
}
