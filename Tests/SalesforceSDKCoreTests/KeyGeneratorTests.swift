import AppGroupSimTestSupport
import Foundation
import Keychain
import SalesforceSDKCore
import XCTest

/// `KeyGenerator` and `Encryptor` as the current Swift template's app and widget use them: the app encrypts
/// its recents with a key labelled for them, the widget decrypts with the same label. Only `import
/// SalesforceSDKCore` here: DataSharingHelper and KeychainHelper come through it, as through the SDK's
/// umbrella header. The SDK's EncryptorTests and KeyGeneratorTests are mirrored where noted.
final class KeyGeneratorTests: XCTestCase {
    var root: URL!
    let store = InMemorySecretStore()
    var device: URL { root.appendingPathComponent("device") }
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    var widget: URL { app.appendingPathComponent("PlugIns/RecentContacts.appex") }
    let label = "com.acme.recentContacts"
    let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    func bytes(_ key: SymmetricKey) -> Data { key.withUnsafeBytes { Data($0) } }

    func asApp<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: app, device: device, secretStore: store, body) }
    func asWidget<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: widget, device: device, secretStore: store, body) }

    /// The app writes its encrypted recents into the group; the widget, sharing the keychain group, reads them.
    func testTheWidgetDecryptsWhatTheAppEncryptedThroughTheSharedKeychainGroup() throws {
        let recents = Data(#"[{"Id":"003A","Name":"Ada"}]"#.utf8)
        let file: URL = try asApp {
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            let key = try KeyGenerator.encryptionKey(for: label)
            let url = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group)).appendingPathComponent("recentContacts.json")
            try Encryptor.encrypt(data: recents, using: key).write(to: url)
            return url
        }
        try asWidget {
            let key = try KeyGenerator.encryptionKey(for: label)
            XCTAssertEqual(try Encryptor.decrypt(data: Data(contentsOf: file), using: key), recents)
        }
        // Kept where the SDK keeps it: service com.salesforce.keystore.<label>, no account, the app's first group.
        let item = try XCTUnwrap(try store.search(["service": "com.salesforce.keystore." + label]).first)
        XCTAssertEqual(item.attributes["account"], "")
        XCTAssertEqual(item.attributes["accessGroup"], "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer")
        // Wrapped as the SDK writes it (ECIES to the EC key pair defaultKey): ephemeral key 65 + key 32 + tag 16 bytes.
        XCTAssertEqual(item.secret.count, 113)
        for half in ["com.salesforce.eckey.private.defaultKey", "com.salesforce.eckey.public.defaultKey"] {
            let pair = try store.search(["service": half])
            XCTAssertEqual(pair.count, 1, half)
            XCTAssertEqual(pair.first?.attributes["accessible"], "afterFirstUnlockThisDeviceOnly", "a backup never carries the pair")
        }
    }

    /// The field failure: a widget in another keychain group gets a NEW key from KeyGenerator, and cannot
    /// decrypt what the app wrote; the app's key is untouched.
    func testAWidgetInAnotherKeychainGroupGetsANewKeyAndCannotDecrypt() throws {
        let sealed: Data = try asApp { try Encryptor.encrypt(data: Data("recents".utf8), using: try KeyGenerator.encryptionKey(for: label)) }
        let entitlements = widget.appendingPathComponent("RecentContacts.entitlements")
        var plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: entitlements), format: nil) as? [String: Any])
        plist["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer.RecentContacts"]
        plist["com.apple.security.application-groups"] = [String]()
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: entitlements)
        try asWidget {
            let own = try KeyGenerator.encryptionKey(for: label)
            XCTAssertThrowsError(try Encryptor.decrypt(data: sealed, using: own))
        }
        XCTAssertEqual(try store.search(["service": "com.salesforce.keystore." + label]).count, 2, "one key in each group")
        try asApp { XCTAssertEqual(try Encryptor.decrypt(data: sealed, using: try KeyGenerator.encryptionKey(for: label)), Data("recents".utf8)) }
    }

    /// The SDK's behaviour kept: an item that holds no usable key is overwritten with a new key.
    func testAnItemThatIsNoKeyIsReplacedWithANewOne() throws {
        try asApp {
            XCTAssertTrue(KeychainHelper.write(service: "com.salesforce.keystore." + label, data: Data("not a key".utf8), account: nil).success)
            let key = bytes(try KeyGenerator.encryptionKey(for: label))
            XCTAssertEqual(key.count, 32)
            let stored = KeychainHelper.read(service: "com.salesforce.keystore." + label, account: nil).data
            XCTAssertEqual(stored?.count, 113, "the new key, wrapped")
            XCTAssertNotEqual(stored, Data("not a key".utf8))
            // Cached per process, and the same after a removal makes a new one.
            XCTAssertEqual(bytes(try KeyGenerator.encryptionKey(for: label)), key)
            XCTAssertTrue(KeyGenerator.removeEncryptionKey(for: label))
            XCTAssertNotEqual(bytes(try KeyGenerator.encryptionKey(for: label)), key)
        }
    }

    /// Mirrors the SDK's EncryptorTests: a round trip, and a changed byte or another key fails.
    func testEncryptorRoundTripsAndRefusesChangedBytesOrAnotherKey() throws {
        let key = SymmetricKey(size: .bits256)
        let plain = Data("Ada Lovelace".utf8)
        var sealed = try Encryptor.encrypt(data: plain, using: key)
        XCTAssertEqual(sealed.count, 12 + plain.count + 16, "nonce, ciphertext and tag combined")
        XCTAssertEqual(try Encryptor.decrypt(data: sealed, using: key), plain)
        XCTAssertThrowsError(try Encryptor.decrypt(data: sealed, using: SymmetricKey(size: .bits256)))
        sealed[20] ^= 1
        XCTAssertThrowsError(try Encryptor.decrypt(data: sealed, using: key))
    }
}
