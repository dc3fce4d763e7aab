// Mirrors the Mobile SDK's libs/SalesforceSDKCore/SalesforceSDKCoreTests/EncryptionTests.swift (testEncryptDecrypt,
// testEncryptDecryptWrongKey), rewritten here against AppGroupSim's SalesforceSDKCore product, with keys in the
// real Secret Service. Not mirrored: testECKeyCreationDeletion and testSymmetricKeyRetrievalECKeyReset, which
// test the SDK's wrapping of each key with an EC key pair (in the Secure Enclave where there is one); here the
// keychain item holds the key itself (docs/differences.md).
import Foundation
import SalesforceSDKCore
import XCTest

final class EncryptionTests: XCTestCase {
    override func tearDown() {
        KeyGenerator.removeEncryptionKey(for: "test1")
        KeyGenerator.removeEncryptionKey(for: "test2")
    }

    // EncryptionTests.testEncryptDecrypt
    func testEncryptDecrypt() throws {
        let key = try KeyGenerator.encryptionKey(for: "test1")
        let sensitiveData = Data("test data".utf8)
        let encryptedData = try Encryptor.encrypt(data: sensitiveData, using: key)
        XCTAssertNotEqual(sensitiveData, encryptedData)
        let keyAgain = try KeyGenerator.encryptionKey(for: "test1")
        XCTAssertEqual(key, keyAgain)
        let decryptedData = try Encryptor.decrypt(data: encryptedData, using: keyAgain)
        XCTAssertEqual(sensitiveData, decryptedData)
    }

    // EncryptionTests.testEncryptDecryptWrongKey
    func testEncryptDecryptWrongKey() throws {
        let key = try KeyGenerator.encryptionKey(for: "test1")
        let encryptedData = try Encryptor.encrypt(data: Data("test data".utf8), using: key)
        let differentKey = try KeyGenerator.encryptionKey(for: "test2")
        XCTAssertNotEqual(key, differentKey)
        XCTAssertThrowsError(try Encryptor.decrypt(data: encryptedData, using: differentKey))
    }
}
