import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

@testable import CoreEngine

/// The SDK's upgrade manager (issue 36, item 4): the last version in msdkUserDefaults; the 9.2.1 steps stop, to
/// run again, when the keychain or protected data is not available (PR #3454).
final class SDKUpgradeTests: FixtureAppTestCase {
    func testVersionsCompareNumberByNumberAsTheSDKs() {
        XCTAssertTrue(SDKUpgrade.isOlder("9.1.0", than: "9.2.1"))
        XCTAssertTrue(SDKUpgrade.isOlder("9.2", than: "9.2.1"))
        XCTAssertTrue(SDKUpgrade.isOlder("9.10.0", than: "10.1.1"))
        XCTAssertFalse(SDKUpgrade.isOlder("9.10.0", than: "9.2.1"), "10 > 2, not a string comparison")
        XCTAssertFalse(SDKUpgrade.isOlder("13.1.0", than: "13.1.0"))
    }

    func testAStepTheLockedDeviceDoesNotAllowStopsTheUpgradeAndItRunsAgainAfterTheUnlock() async throws {
        let app = try launch(appURL)
        let device = app.sandbox.device
        // Version 1 left: an item whenUnlockedThisDeviceOnly, an account file complete, SDK 9.1.0.
        _ = await app.keychain.setAccessibility(.whenUnlockedThisDeviceOnly)
        let written = await app.keychain.write(Array("token".utf8), service: "com.salesforce.mobilesdk.oauth.refresh", account: "a")
        XCTAssertTrue(written.success)
        let root = try app.dataSharing.sdkRoot()
        let account = root.accountFile(orgId: "00D5g00000AcmeeEAA", userId: "0055g00000AliceAAA")
        try SecureFiles.writeAtomically(Data("sealed".utf8), to: account, protection: .complete)
        let defaults = try app.dataSharing.msdkUserDefaults()
        try defaults.set(.string("9.1.0"), forKey: SDKUpgrade.versionKey)

        try device.setLockState(.locked)
        let widget = try launch(widgetURL)
        let locked = await SDKUpgrade.run(widget, events: SDKEvents(), appSetsAccessibility: false)
        guard case .aborted(let from, let reason) = locked else { return XCTFail("\(locked)") }
        XCTAssertEqual(from, "9.1.0")
        XCTAssertTrue(reason.contains("errSecInteractionNotAllowed"), reason)
        XCTAssertEqual(try defaults.string(forKey: SDKUpgrade.versionKey), "9.1.0", "nothing kept: it runs again")

        try device.setLockState(.unlocked)
        let opened = await SDKUpgrade.run(try launch(appURL), events: SDKEvents(), appSetsAccessibility: false)
        XCTAssertEqual(opened, .upgraded(from: "9.1.0", steps: ["keychainAccessibility", "fileProtection(1)"]))
        XCTAssertEqual(try defaults.string(forKey: SDKUpgrade.versionKey), SDKUpgrade.currentVersion)
        XCTAssertEqual(FileProtection.storedClass(of: account), .completeUntilFirstUserAuthentication)
        XCTAssertEqual(Set(try keychain.search(["service": "com.salesforce.mobilesdk.oauth.refresh"]).map { $0.attributes["accessible"] }), ["afterFirstUnlockThisDeviceOnly"])
        let again = await SDKUpgrade.run(try launch(appURL), events: SDKEvents(), appSetsAccessibility: false)
        XCTAssertEqual(again, .upToDate)
    }

    func testCompleteFilesStopTheUpgradeWhileProtectedDataIsNotAvailable() async throws {
        let app = try launch(appURL)
        let root = try app.dataSharing.sdkRoot()
        let store = root.globalStores.appendingPathComponent("config/store.sqlite")
        try SecureFiles.writeAtomically(Data("db".utf8), to: store, protection: .complete)
        try app.sandbox.device.setLockState(.locked)
        // The app sets its own class: the keychain step is left alone, the files' step still needs protected data.
        let locked = await SDKUpgrade.run(app, events: SDKEvents(), appSetsAccessibility: true)
        guard case .aborted(nil, let reason) = locked else { return XCTFail("\(locked)") }
        XCTAssertTrue(reason.contains("complete protection and protected data is not available"), reason)
        XCTAssertEqual(SDKUpgrade.filesWithCompleteProtection(app), [store])
    }
}
