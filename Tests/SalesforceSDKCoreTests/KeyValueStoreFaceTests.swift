import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

/// `KeyValueEncryptedFileStore` as an app and its widget use it: the app writes a user's store in the group, the
/// widget reads it; the files hold no plaintext; a version 1 store is read; a value sealed with another key reads
/// as nil and is left on disk.
final class KeyValueStoreFaceTests: FixtureAppTestCase {
    var app: URL { appURL }
    var widget: URL { widgetURL }

    func testTheAppsStoreIsReadByItsWidgetAndHoldsNoPlaintext() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        let directory = try device.run(as: app) { () -> String in
            let store = try XCTUnwrap(KeyValueEncryptedFileStore.shared(withName: "recents"))
            XCTAssertTrue(store === KeyValueEncryptedFileStore.shared(withName: "recents"), "cached per process")
            XCTAssertEqual(store.storeVersion, 2)
            XCTAssertTrue(store.saveValue("Ada Lovelace, 1815", forKey: "pinned"))
            store["draft"] = "Grace Hopper"
            XCTAssertTrue(store.saveData(Data([0, 1, 2]), forKey: "blob"))
            XCTAssertFalse(store.saveValue("x", forKey: ""), "an empty key")
            XCTAssertEqual(store.allKeys(), ["blob", "draft", "pinned"])
            store["draft"] = nil
            XCTAssertNil(store["draft"])
            XCTAssertEqual(store.count(), 2)
            XCTAssertEqual(KeyValueEncryptedFileStore.allNames(), ["recents"])
            XCTAssertNil(KeyValueEncryptedFileStore.shared(withName: "no-dashes"), "an invalid name")
            XCTAssertTrue(KeyValueEncryptedFileStore.isValidName(String(repeating: "a", count: 96)))
            XCTAssertFalse(KeyValueEncryptedFileStore.isValidName(String(repeating: "a", count: 97)))
            return store.directory.path
        }
        XCTAssertTrue(directory.contains("/Shared/AppGroup/"), "in the app group's container: \(directory)")
        for file in try FileManager.default.contentsOfDirectory(atPath: directory) {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory).appendingPathComponent(file))
            XCTAssertNil(bytes.range(of: Data("Ada".utf8)), "no plaintext in \(file)")
            XCTAssertNil(bytes.range(of: Data("pinned".utf8)), "no key in \(file)")
        }
        let read = try device.run(as: widget) { () -> (String?, Data?) in
            DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            SalesforceManager.initializeSDK()
            let store = KeyValueEncryptedFileStore.shared(withName: "recents")
            return (store?["pinned"], store?.readData(key: "blob"))
        }
        XCTAssertEqual(read.0, "Ada Lovelace, 1815")
        XCTAssertEqual(read.1, Data([0, 1, 2]))
    }

    func testAVersionOneStoreAndAValueSealedWithAnotherKey() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let parent = root.appendingPathComponent("stores")
        try device.run(as: app) {
            SalesforceManager.initializeSDK()
            let key = try KeyGenerator.encryptionKey(for: "com.salesforce.keyValueStores.encryptionKey")
            // A version 1 store, as SDKs before 8.2 wrote it: bare hash names, no version file.
            let old = parent.appendingPathComponent("legacy")
            try FileManager.default.createDirectory(at: old, withIntermediateDirectories: true)
            let hash = SHA256.hash(data: Data("k".utf8)).map { String(format: "%02x", $0) }.joined()
            try Encryptor.encrypt(data: Data("v1 value".utf8), using: key).write(to: old.appendingPathComponent(hash))
            let legacy = try XCTUnwrap(KeyValueEncryptedFileStore(parentDirectory: parent.path, name: "legacy"))
            XCTAssertEqual(legacy.storeVersion, 1)
            XCTAssertEqual(legacy["k"], "v1 value")
            XCTAssertNil(legacy.allKeys(), "a version 1 store keeps no keys")
            XCTAssertEqual(legacy.count(), 1)

            // A value sealed with another key (another app's, or the key made again): nil, and still on disk.
            let store = try XCTUnwrap(KeyValueEncryptedFileStore(parentDirectory: parent.path, name: "current"))
            XCTAssertTrue(store.saveValue("mine", forKey: "a"))
            let valueFile = store.directory.appendingPathComponent(SHA256.hash(data: Data("a".utf8)).map { String(format: "%02x", $0) }.joined() + "_value")
            try Encryptor.encrypt(data: Data("theirs".utf8), using: SymmetricKey(size: .bits256)).write(to: valueFile)
            XCTAssertNil(store["a"])
            XCTAssertTrue(FileManager.default.fileExists(atPath: valueFile.path), "nothing is deleted")

            // A version file that does not open: the store is not opened (nor made again over it).
            try Encryptor.encrypt(data: Data("2".utf8), using: SymmetricKey(size: .bits256)).write(to: store.directory.appendingPathComponent("version"))
            XCTAssertNil(KeyValueEncryptedFileStore(parentDirectory: parent.path, name: "current"))
            XCTAssertTrue(FileManager.default.fileExists(atPath: valueFile.path))

            store.removeAll()
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: store.directory.path).sorted(), ["gcmEncryption", "version"])
        }
    }

    func testGlobalStores() throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        try device.run(as: app) {
            SalesforceManager.initializeSDK()
            XCTAssertNil(KeyValueEncryptedFileStore.shared(withName: "s"), "no user")
            let global = try XCTUnwrap(KeyValueEncryptedFileStore.sharedGlobal(withName: "settings"))
            global["theme"] = "dark"
            XCTAssertEqual(KeyValueEncryptedFileStore.allGlobalNames(), ["settings"])
            KeyValueEncryptedFileStore.removeSharedGlobal(withName: "settings")
            XCTAssertEqual(KeyValueEncryptedFileStore.allGlobalNames(), [])
            XCTAssertFalse(FileManager.default.fileExists(atPath: global.directory.path))
            XCTAssertNil(KeyValueEncryptedFileStore.sharedGlobal(withName: "settings")?["theme"], "a new store after removal")
        }
    }
}
