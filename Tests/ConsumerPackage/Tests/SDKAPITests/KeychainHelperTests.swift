// Mirrors the Mobile SDK's libs/SalesforceSDKCommon/SalesforceSDKCommonTests/KeychainHelperTests.swift, rewritten
// here and run against AppGroupSim's SalesforceSDKCommon product, on the real Secret Service (gnome-keyring in
// scripts/with-keyring), as the fixture app (APPGROUPSIM_BUNDLE / APPGROUPSIM_DEVICE). Not mirrored:
// testChangeAccesibilityAttribute, testAccessibilityAttributeScope (kSecAttrAccessible has no Secret Service
// counterpart) and testCacheConfigurationEnabled/Disabled (the helper has no cache here: every read asks the
// Secret Service).
import Foundation
import SalesforceSDKCommon
import XCTest

final class KeychainHelperTests: XCTestCase {
    override func tearDownWithError() throws {
        _ = KeychainHelper.removeAll()
    }

    // KeychainHelperTests.testCreateIfNotPresent
    func testCreateIfNotPresent() {
        let accountName = "account.two"
        let serviceName = "test.two"
        var readResult = KeychainHelper.read(service: serviceName, account: accountName)
        XCTAssertFalse(readResult.success)
        let creationResult = KeychainHelper.createIfNotPresent(service: serviceName, account: accountName)
        XCTAssertTrue(creationResult.success)
        readResult = KeychainHelper.read(service: serviceName, account: accountName)
        XCTAssertTrue(readResult.success)
        XCTAssertNil(readResult.data)
    }

    // KeychainHelperTests.testCreateIfNotPresentNilAccount
    func testCreateIfNotPresentNilAccount() {
        let serviceName = "test.two"
        var readResult = KeychainHelper.read(service: serviceName, account: nil)
        XCTAssertFalse(readResult.success)
        XCTAssertTrue(KeychainHelper.createIfNotPresent(service: serviceName, account: nil).success)
        readResult = KeychainHelper.read(service: serviceName, account: nil)
        XCTAssertTrue(readResult.success)
        XCTAssertNil(readResult.data)
    }

    // KeychainHelperTests.testConcurrentCreateIfNotPresent (50 iterations: each is a D-Bus round trip here)
    func testConcurrentCreateIfNotPresent() {
        DispatchQueue.concurrentPerform(iterations: 50) { index in
            XCTAssertTrue(KeychainHelper.createIfNotPresent(service: "test", account: "\(index % 2)").success)
        }
        XCTAssertTrue(KeychainHelper.read(service: "test", account: "0").success)
        XCTAssertTrue(KeychainHelper.read(service: "test", account: "1").success)
    }

    // KeychainHelperTests.testCreateMultipleTimes
    func testCreateMultipleTimes() {
        let accountName = "account.two"
        let serviceName = "test.two"
        XCTAssertFalse(KeychainHelper.read(service: serviceName, account: accountName).success)
        for _ in 0..<2 {
            XCTAssertTrue(KeychainHelper.createIfNotPresent(service: serviceName, account: accountName).success)
            let readResult = KeychainHelper.read(service: serviceName, account: accountName)
            XCTAssertTrue(readResult.success)
            XCTAssertNil(readResult.data)
            XCTAssertEqual(readResult.status, errSecSuccess)
            XCTAssertNil(readResult.error)
        }
    }

    // KeychainHelperTests.testWriteAndReadItem and testWriteAndReadItemNilAccount
    func testWriteAndReadItem() {
        for accountName in ["account.two", nil] as [String?] {
            let serviceName = "test.two"
            var readResult = KeychainHelper.read(service: serviceName, account: accountName)
            XCTAssertFalse(readResult.success)
            XCTAssertNil(readResult.data)
            XCTAssertEqual(readResult.status, errSecItemNotFound)
            XCTAssertNotNil(readResult.error)

            let data = Data("ATESTSTRING2".utf8)
            let writeResult = KeychainHelper.write(service: serviceName, data: data, account: accountName)
            XCTAssertTrue(writeResult.success)
            XCTAssertNotNil(writeResult.data)
            XCTAssertEqual(writeResult.status, errSecSuccess)
            XCTAssertNil(writeResult.error)

            readResult = KeychainHelper.read(service: serviceName, account: accountName)
            XCTAssertTrue(readResult.success)
            XCTAssertEqual(readResult.data, data)

            let removeResult = KeychainHelper.remove(service: serviceName, account: accountName)
            XCTAssertTrue(removeResult.success)
            XCTAssertNil(removeResult.data)
            XCTAssertEqual(removeResult.status, errSecSuccess)

            readResult = KeychainHelper.read(service: serviceName, account: accountName)
            XCTAssertFalse(readResult.success)
            XCTAssertEqual(readResult.status, errSecItemNotFound)
        }
    }

    // KeychainHelperTests.testUpdateItem
    func testUpdateItem() {
        let data1 = Data("ATESTSTRING2".utf8), data2 = Data("ATESTSTRING3".utf8)
        XCTAssertTrue(KeychainHelper.write(service: "test.two", data: data1, account: nil).success)
        XCTAssertTrue(KeychainHelper.write(service: "test.two", data: data2, account: nil).success)
        let readResult = KeychainHelper.read(service: "test.two", account: nil)
        XCTAssertTrue(readResult.success)
        XCTAssertEqual(readResult.data, data2)
        XCTAssertEqual(readResult.status, errSecSuccess)
        XCTAssertNil(readResult.error)
    }

    // KeychainHelperTests.testDeleteNonexistentItem and testDeleteNonexistentItemNilAccount
    func testDeleteNonexistentItem() {
        for accountName in ["account.two", nil] as [String?] {
            let removeResult = KeychainHelper.remove(service: "test.two", account: accountName)
            XCTAssertFalse(removeResult.success)
            XCTAssertNil(removeResult.data)
            XCTAssertNotNil(removeResult.error)
            XCTAssertEqual(removeResult.status, errSecItemNotFound)
        }
    }

    // KeychainHelperTests.testRemoveAll
    func testRemoveAll() {
        let accounts = [("test.one", "account.one"), ("test.two", "account.two"), ("test.three", "account.three"), ("test.four", "account.four")]
        for (service, account) in accounts { XCTAssertTrue(KeychainHelper.createIfNotPresent(service: service, account: account).success) }
        XCTAssertTrue(KeychainHelper.removeAll().success)
        for (service, account) in accounts {
            let keychainResult = KeychainHelper.read(service: service, account: account)
            XCTAssertFalse(keychainResult.success)
            XCTAssertEqual(keychainResult.status, errSecItemNotFound)
        }
    }

    // KeychainHelperTests.testReset
    func testReset() {
        let data = Data("ATESTSTRING2".utf8)
        XCTAssertTrue(KeychainHelper.write(service: "test.two", data: data, account: "account.two").success)
        XCTAssertEqual(KeychainHelper.read(service: "test.two", account: "account.two").data, data)
        let resetResult = KeychainHelper.reset(service: "test.two", account: "account.two")
        XCTAssertTrue(resetResult.success)
        XCTAssertNil(resetResult.data)
        XCTAssertEqual(resetResult.status, errSecSuccess)
        let readResult = KeychainHelper.read(service: "test.two", account: "account.two")
        XCTAssertTrue(readResult.success)
        XCTAssertNil(readResult.data)
        XCTAssertEqual(readResult.status, errSecSuccess)
    }
}
