import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import SalesforceSDKCommon
import XCTest

/// The SDK's KeychainHelper API (synchronous, `KeychainResult` with an `OSStatus`), run as the fixture app and
/// as its widget on one device. Each test says which of the SDK's KeychainHelperTests it mirrors (rewritten,
/// not copied); the group tests are AppGroupSim's own.
final class KeychainHelperTests: XCTestCase {
    var root: URL!
    let store = InMemorySecretStore()
    var device: URL { root.appendingPathComponent("device") }
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    var widget: URL { app.appendingPathComponent("PlugIns/RecentContacts.appex") }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
        KeychainHelper.accessGroup = nil
    }

    func asApp<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: app, device: device, secretStore: store, body) }
    func asWidget<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: widget, device: device, secretStore: store, body) }

    /// Mirrors the SDK's testCreateIfNotPresent: an empty item is made once, then found.
    func testCreateIfNotPresent() throws {
        try asApp {
            let first = KeychainHelper.createIfNotPresent(service: "svc", account: "acct")
            XCTAssertTrue(first.success)
            XCTAssertEqual(first.status, errSecSuccess)
            XCTAssertNil(first.data, "an empty item has no data, as the SDK's testCreateIfNotPresent")
            XCTAssertTrue(KeychainHelper.write(service: "svc", data: Data("v".utf8), account: "acct").success)
            XCTAssertEqual(KeychainHelper.createIfNotPresent(service: "svc", account: "acct").data, Data("v".utf8), "an existing item is returned as it is")
        }
    }

    /// Mirrors testWriteAndReadItem and testUpdateItem: a value written is read back, and a second write replaces it.
    func testWriteReadAndUpdate() throws {
        try asApp {
            XCTAssertTrue(KeychainHelper.write(service: "svc", data: Data("one".utf8), account: nil).success)
            XCTAssertEqual(KeychainHelper.read(service: "svc", account: nil).data, Data("one".utf8))
            XCTAssertTrue(KeychainHelper.write(service: "svc", data: Data("two".utf8), account: nil).success)
            XCTAssertEqual(KeychainHelper.read(service: "svc", account: nil).data, Data("two".utf8))
        }
    }

    /// Mirrors testDeleteNonexistentItem: errSecItemNotFound, with an NSError of that code.
    func testRemovingOrReadingANonexistentItemIsItemNotFound() throws {
        try asApp {
            let removed = KeychainHelper.remove(service: "nope", account: "x")
            XCTAssertFalse(removed.success)
            XCTAssertEqual(removed.status, errSecItemNotFound)
            XCTAssertEqual(removed.error?.code, Int(errSecItemNotFound))
            XCTAssertEqual(KeychainHelper.read(service: "nope", account: nil).status, errSecItemNotFound)
        }
    }

    /// Mirrors testReset and testRemoveAll: reset keeps an empty item; removeAll removes this SDK's items.
    func testResetKeepsAnEmptyItemAndRemoveAllRemovesThem() throws {
        try asApp {
            XCTAssertTrue(KeychainHelper.write(service: "a", data: Data("secret".utf8), account: "1").success)
            XCTAssertTrue(KeychainHelper.write(service: "b", data: Data("secret".utf8), account: "2").success)
            XCTAssertTrue(KeychainHelper.reset(service: "a", account: "1").success)
            XCTAssertNil(KeychainHelper.read(service: "a", account: "1").data)
            XCTAssertTrue(KeychainHelper.removeAll().success)
            XCTAssertEqual(KeychainHelper.read(service: "b", account: "2").status, errSecItemNotFound)
        }
    }

    /// The keychain group is how the widget reads what the app wrote: shared group, same item; a widget
    /// without the group gets errSecItemNotFound, and naming the group explicitly is errSecMissingEntitlement.
    func testTheWidgetReadsTheAppsItemOnlyThroughTheSharedKeychainGroup() throws {
        try asApp { XCTAssertTrue(KeychainHelper.write(service: "com.salesforce.keystore.recents", data: Data("key".utf8), account: nil).success) }
        try asWidget { XCTAssertEqual(KeychainHelper.read(service: "com.salesforce.keystore.recents", account: nil).data, Data("key".utf8)) }
        let entitlements = widget.appendingPathComponent("RecentContacts.entitlements")
        var plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: entitlements), format: nil) as? [String: Any])
        plist[Entitlements.keychainAccessGroupsKey] = [String]()
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: entitlements)
        try asWidget {
            XCTAssertEqual(KeychainHelper.read(service: "com.salesforce.keystore.recents", account: nil).status, errSecItemNotFound)
            let explicit = KeychainHelper.read(service: "com.salesforce.keystore.recents", account: nil,
                                               accessGroup: "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer", cacheMode: .unspecified)
            XCTAssertEqual(explicit.status, errSecMissingEntitlement)
        }
    }

    /// `KeychainHelper.accessGroup` picks the group for new items; otherwise the first of the entitlements.
    func testAccessGroupPicksTheGroupForNewItems() throws {
        try asApp {
            KeychainHelper.accessGroup = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            XCTAssertTrue(KeychainHelper.write(service: "picked", data: Data("x".utf8), account: nil).success)
            KeychainHelper.accessGroup = nil
        }
        let item = try XCTUnwrap(try store.search(["service": "picked"]).first)
        XCTAssertEqual(item.attributes["accessGroup"], "group.com.salesforce.mobilesdk.MobileSyncExplorer")
    }

    /// Mirrors the SDK's testChangeAccesibilityAttribute on the device's lock state (issue 36): items made with the
    /// SDK's default are readable by the widget while the device is locked; after `setAccessibleAttribute(.whenUnlocked)`
    /// they are not (errSecInteractionNotAllowed), until the device is unlocked; before the first unlock nothing is.
    func testSetAccessibleAttributeAndTheDevicesLockState() throws {
        let device = try Device.open(at: self.device)
        try asApp {
            XCTAssertNil(KeychainHelper.accessibilityAttribute, "nil until set, as the SDK's")
            for (service, account) in [("test.one", "account.one"), ("test.two", "account.two")] {
                XCTAssertTrue(KeychainHelper.createIfNotPresent(service: service, account: account).success)
                XCTAssertTrue(KeychainHelper.write(service: service, data: Data("v".utf8), account: account).success)
            }
        }
        try device.setLockState(.locked)
        try asWidget { XCTAssertEqual(KeychainHelper.read(service: "test.one", account: "account.one").data, Data("v".utf8)) }
        try device.setLockState(.unlocked)
        try asApp {
            XCTAssertTrue(KeychainHelper.setAccessibleAttribute(.whenUnlocked).success)
            XCTAssertEqual(KeychainHelper.accessibilityAttribute, kSecAttrAccessibleWhenUnlocked)
        }
        XCTAssertEqual(Set(try store.search(["service": "test.one"]).map { $0.attributes["accessible"] }), ["whenUnlocked"])
        try device.setLockState(.locked)
        try asWidget {
            let locked = KeychainHelper.read(service: "test.one", account: "account.one")
            XCTAssertEqual(locked.status, errSecInteractionNotAllowed)
            XCTAssertEqual(locked.error?.code, Int(errSecInteractionNotAllowed))
            XCTAssertNil(locked.data)
        }
        try device.setLockState(.unlocked)
        try asWidget { XCTAssertEqual(KeychainHelper.read(service: "test.two", account: "account.two").data, Data("v".utf8)) }
        try device.setLockState(.beforeFirstUnlock)
        try asApp { XCTAssertEqual(KeychainHelper.write(service: "test.three", data: Data("x".utf8), account: nil).status, errSecInteractionNotAllowed) }
        try device.setLockState(.unlocked)
        try asApp { XCTAssertEqual(KeychainHelper.read(service: "test.three", account: nil).status, errSecItemNotFound, "nothing was made") }
    }
}
