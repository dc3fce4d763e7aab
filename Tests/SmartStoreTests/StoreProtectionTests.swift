import AppGroup
import AppGroupSimTestSupport
import CoreEngine
import Foundation
import XCTest

@testable import SmartStoreEngine

/// A store's data protection (issue 36): the SDK gives every store completeUntilFirstUserAuthentication at each
/// open; a store whose class the device's state does not open is refused (SQLITE_AUTH), at the open and at each
/// transaction after it; the SDK deletes a store it cannot open, here only under `--sdk-recovery`.
final class StoreProtectionTests: XCTestCase {
    let alice = StoreUser(orgId: "00D000000000001AAA", userId: "005000000000001AAA")

    private func setUp(_ recovery: AccountRecovery = .keepFiles) throws -> (Device, StoreManager, DeviceLayout.SDKRoot) {
        let device = try Device.open(at: TestSupport.temporaryDirectory(self).appendingPathComponent("device"), initialize: true)
        let root = device.layout.groupSDKRoot(groupID: "group.com.acme")
        let alice = self.alice
        return (device, StoreManager(sdkRoot: root, recovery: recovery, isLoggedIn: { $0 == alice }), root)
    }

    private func saveOne(_ store: SmartStore) throws {
        try store.registerSoup("contacts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        _ = try store.upsert([["Id": "003A"]], into: "contacts")
    }

    func testTheStoreHasTheSDKsClassAndALockStopsItsTransactions() throws {
        let (device, manager, _) = try setUp()
        let store = try manager.store(for: alice)
        XCTAssertEqual(FileProtection.storedClass(of: store.url), .completeUntilFirstUserAuthentication)
        try saveOne(store)
        // completeUntilFirstUserAuthentication: a lock does not stop it, a reboot does, at the next transaction.
        try device.setLockState(.locked)
        XCTAssertEqual(try store.query(.all(soup: "contacts")).count, 1)
        try device.setLockState(.beforeFirstUnlock)
        XCTAssertThrowsError(try store.query(.all(soup: "contacts"))) { error in
            guard case .protected(let path, let detail)? = error as? SmartStoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, store.url.path)
            XCTAssertTrue(detail.contains("before its first unlock"), detail)
            XCTAssertTrue("\(error)".contains("SQLITE_AUTH"), "\(error)")
        }
        try device.setLockState(.unlocked)
        XCTAssertEqual(try store.query(.all(soup: "contacts")).count, 1)
    }

    func testACompleteStoreIsRefusedWhileLockedKeptByDefaultAndMadeTheSDKsClassOnceUnlocked() throws {
        let (device, manager, _) = try setUp()
        let url = try manager.store(for: alice).url
        try saveOne(try manager.store(for: alice))
        try FileProtection.set(.complete, on: url)
        try device.setLockState(.locked)
        // Another process (a fresh manager) opens it now.
        let alice = self.alice
        let root = device.layout.groupSDKRoot(groupID: "group.com.acme")
        let later = StoreManager(sdkRoot: root, isLoggedIn: { $0 == alice })
        XCTAssertThrowsError(try later.store(for: alice)) { error in
            guard case .protected(_, let detail)? = error as? SmartStoreError else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("is protected complete (NSFileProtectionComplete)"), detail)
        }
        XCTAssertThrowsError(try later.existingStore(for: alice), "an extension's read-only open is refused too")
        XCTAssertTrue(FileManager.default.fileExists(atPath: url.path), "kept: nothing is deleted without --sdk-recovery")
        try device.setLockState(.unlocked)
        let reopened = try StoreManager(sdkRoot: root, isLoggedIn: { $0 == alice }).store(for: alice)
        XCTAssertEqual(FileProtection.storedClass(of: url), .completeUntilFirstUserAuthentication, "the SDK's protectStoreDirIfNeeded")
        XCTAssertEqual(try reopened.query(.all(soup: "contacts")).count, 1)
    }

    func testUnderSDKRecoveryAStoreThatCannotBeOpenedIsDeletedAndSetUpAgain() throws {
        let (device, manager, root) = try setUp()
        let url = try manager.store(for: alice).url
        try saveOne(try manager.store(for: alice))
        try FileProtection.set(.complete, on: url)
        try device.setLockState(.locked)
        let alice = self.alice
        let events = SDKEvents()
        let recovering = StoreManager(sdkRoot: root, recovery: .sdkDestructive, events: events, isLoggedIn: { $0 == alice })
        let fresh = try recovering.store(for: alice)
        XCTAssertFalse(try fresh.soupExists("contacts"), "the SDK's new store is empty: the old one was deleted")
        XCTAssertEqual(FileProtection.storedClass(of: fresh.url), .completeUntilFirstUserAuthentication)
    }
}
