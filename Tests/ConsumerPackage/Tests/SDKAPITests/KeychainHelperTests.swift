// Mirrors the Mobile SDK's libs/SalesforceSDKCommon/SalesforceSDKCommonTests/KeychainHelperTests.swift, rewritten
// here and run against AppGroupSim's SalesforceSDKCommon product, on the real Secret Service (gnome-keyring in
// scripts/with-keyring), as the fixture app (APPGROUPSIM_BUNDLE / APPGROUPSIM_DEVICE). An item's class
// (kSecAttrAccessible) is its Secret Service attribute `accessible`: where the SDK's tests read it with
// SecItemCopyMatching, these ask secret-tool, an outside client. Not mirrored: testCacheConfigurationEnabled/Disabled
// (the helper has no cache here: every read asks the Secret Service).
import Foundation
import SalesforceSDKCommon
import XCTest

final class KeychainHelperTests: XCTestCase {
    override func setUp() {
        // As the SDK's setUp.
        _ = KeychainHelper.setAccessibleAttribute(.afterFirstUnlockThisDeviceOnly)
    }

    override func tearDownWithError() throws {
        _ = KeychainHelper.removeAll()
    }

    /// This device's id (device.json), the attribute every item of the device carries.
    private func deviceID() throws -> String {
        let device = try XCTUnwrap(ProcessInfo.processInfo.environment["APPGROUPSIM_DEVICE"])
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: device).appendingPathComponent("device.json")))
        return try XCTUnwrap((manifest as? [String: Any])?["id"] as? String)
    }

    /// secret-tool's answer (stdout and stderr, where it prints the attributes; NULs of binary values dropped).
    @discardableResult
    private func secretTool(_ arguments: [String], input: String? = nil) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/secret-tool")
        process.arguments = arguments
        let out = Pipe()
        process.standardOutput = out
        process.standardError = out
        let stdin = Pipe()
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data.filter { $0 != 0 }, as: UTF8.self)
    }

    /// The `accessible` attribute of the device's item (service, account), as secret-tool shows it.
    private func accessibility(service: String, account: String) throws -> String? {
        let found = try secretTool(["search", "--all", "device", try deviceID(), "service", service, "account", account])
        return found.split(separator: "\n").first { $0.hasPrefix("attribute.accessible = ") }.map { String($0.dropFirst("attribute.accessible = ".count)) }
    }

    // KeychainHelperTests.testChangeAccesibilityAttribute
    func testChangeAccesibilityAttribute() throws {
        let accounts = [("test.one", "account.one"), ("test.two", "account.two"), ("test.three", "account.three"), ("test.four", "account.four")]
        for (service, account) in accounts { XCTAssertTrue(KeychainHelper.createIfNotPresent(service: service, account: account).success) }
        for (service, account) in accounts {
            let result = KeychainHelper.read(service: service, account: account)
            XCTAssertTrue(result.success)
            XCTAssertEqual(result.status, errSecSuccess)
            XCTAssertEqual(try accessibility(service: service, account: account), "afterFirstUnlockThisDeviceOnly")
        }
        XCTAssertTrue(KeychainHelper.setAccessibleAttribute(.whenUnlocked).success)
        for (service, account) in accounts { XCTAssertEqual(try accessibility(service: service, account: account), "whenUnlocked") }
        XCTAssertTrue(KeychainHelper.removeAll().success)
        for (service, account) in accounts {
            let result = KeychainHelper.read(service: service, account: account)
            XCTAssertFalse(result.success)
            XCTAssertEqual(result.status, errSecItemNotFound)
        }
    }

    // KeychainHelperTests.testAccessibilityAttributeScope: an item the SDK did not make (no creator tag) is not
    // the SDK's to change; with none of its own, setAccessibleAttribute fails and the other item keeps its class.
    func testAccessibilityAttributeScope() throws {
        let device = try deviceID()
        try secretTool(["store", "--label", "not the SDK's", "xdg:schema", "com.appgroupsim.GenericPassword", "device", device,
                        "service", "someone.else", "account", "other", "accessible", "whenPasscodeSetThisDeviceOnly"], input: "Test2")
        addTeardownBlock { try? self.secretTool(["clear", "device", device, "service", "someone.else"]) }
        XCTAssertFalse(KeychainHelper.setAccessibleAttribute(.afterFirstUnlock).success)
        XCTAssertEqual(try accessibility(service: "someone.else", account: "other"), "whenPasscodeSetThisDeviceOnly", "the original item is still there, unchanged")
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
