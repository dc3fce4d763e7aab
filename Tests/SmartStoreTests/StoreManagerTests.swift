import AppGroup
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStoreEngine

final class StoreManagerTests: XCTestCase {
    let alice = StoreUser(orgId: "00D000000000001AAA", userId: "005000000000001AAA")
    let bob = StoreUser(orgId: "00D000000000001AAA", userId: "005000000000002AAA")

    func manager(_ root: URL, loggedIn: Set<StoreUser>) -> StoreManager {
        StoreManager(sdkRoot: DeviceLayout.SDKRoot(root), isLoggedIn: { loggedIn.contains($0) })
    }

    func testStoresLiveWhereTheSDKPutsThem() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let m = manager(root, loggedIn: [alice])
        let user = try m.store(for: alice)
        let global = try m.globalStore(named: "config")
        XCTAssertEqual(user.url.path, root.path + "/00D000000000001AAA/005000000000001AAA/internal/stores/defaultStore/store.sqlite")
        XCTAssertEqual(global.url.path, root.path + "/stores/config/store.sqlite")
        XCTAssertTrue(FileManager.default.fileExists(atPath: user.url.path))
        XCTAssertTrue(try m.store(for: alice) === user, "one SmartStore per file per process")
    }

    func testAUserStoreOpensOnlyForALoggedInUser() throws {
        let m = manager(try TestSupport.temporaryDirectory(self), loggedIn: [alice])
        XCTAssertThrowsError(try m.store(for: bob)) {
            XCTAssertEqual($0 as? SmartStoreError, .userNotLoggedIn(orgId: bob.orgId, userId: bob.userId))
        }
    }

    func testListingAndRemovingStores() throws {
        let m = manager(try TestSupport.temporaryDirectory(self), loggedIn: [alice, bob])
        try m.store(named: "a", for: alice).registerSoup("s", indexSpecs: [IndexSpec(path: "k", type: .string)])
        _ = try m.store(named: "b", for: alice)
        _ = try m.store(named: "a", for: bob)
        _ = try m.globalStore(named: "g")
        XCTAssertEqual(m.allStoreNames(for: alice), ["a", "b"])
        XCTAssertEqual(m.allGlobalStoreNames(), ["g"])
        try m.removeSharedStore(named: "b", for: alice)
        XCTAssertEqual(m.allStoreNames(for: alice), ["a"])
        try m.removeAllStores(for: alice)
        XCTAssertEqual(m.allStoreNames(for: alice), [])
        XCTAssertEqual(m.allStoreNames(for: bob), ["a"], "another user's stores stay")
        XCTAssertEqual(try m.store(named: "a", for: alice).allSoupNames(), [], "a removed store comes back empty")
        try m.removeGlobalStore(named: "g")
        XCTAssertEqual(m.allGlobalStoreNames(), [])
    }

    func testPathCharactersAreReplacedAsTheSDKDoes() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let odd = StoreUser(orgId: "org/1", userId: "a:b@c", communityId: "x?y")
        XCTAssertEqual(manager(root, loggedIn: []).userDirectory(for: odd).path, root.path + "/org_1/a_b_c/x_y")
        XCTAssertThrowsError(try manager(root, loggedIn: []).globalStore(named: "../escape")) {
            XCTAssertEqual($0 as? SmartStoreError, .invalidStoreName("../escape"))
        }
    }

    func testStoreFilesAreOwnerOnly() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let store = try manager(root, loggedIn: [alice]).store(for: alice)
        let attributes = try FileManager.default.attributesOfItem(atPath: store.url.path)
        XCTAssertEqual((attributes[.posixPermissions] as? Int ?? 0) & 0o777, 0o600)
        let dir = try FileManager.default.attributesOfItem(atPath: store.url.deletingLastPathComponent().path)
        XCTAssertEqual((dir[.posixPermissions] as? Int ?? 0) & 0o777, 0o700)
    }
}
