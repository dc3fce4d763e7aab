import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

/// A developer's own test of their extension on a locked device (issue 36, item 8), through `SimulatedDevice`:
/// the SDK's default class gives the widget the user's session while the phone is locked, nothing before its
/// first unlock, and everything again once unlocked; an uninstall leaves the keychain's items behind.
final class LockedDeviceFaceTests: XCTestCase {
    var root: URL!
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    var widget: URL { app.appendingPathComponent("PlugIns/RecentContacts.appex") }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    func testTheWidgetOnALockedARebootedAndAnUnlockedDevice() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        let refresh = "com.salesforce.mobilesdk.oauth.refresh"

        try device.lock()
        XCTAssertEqual(try device.lockState, "locked")
        // The widget's side, as the sample's extension writes it: the group first, then the SDK.
        let locked = try device.run(as: widget) { () -> (String?, Bool) in
            DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            SalesforceManager.initializeSDK()
            let user = UserAccountManager.shared.currentUserAccount
            return (user?.idData.username, user?.credentials.accessToken != nil)
        }
        XCTAssertEqual(locked.0, "alice@acme.test", "afterFirstUnlockThisDeviceOnly: the widget reads the account while locked")
        XCTAssertTrue(locked.1)

        try device.reboot()
        XCTAssertEqual(try device.lockState, "beforeFirstUnlock")
        try device.lock()
        XCTAssertEqual(try device.lockState, "beforeFirstUnlock", "locking a device before its first unlock changes nothing")
        let before = try device.run(as: widget) { KeychainHelper.read(service: refresh, account: nil) }
        XCTAssertEqual(before.status, errSecInteractionNotAllowed)
        XCTAssertNil(before.data)

        try device.unlock()
        let unlocked = try device.run(as: widget) { KeychainHelper.read(service: refresh, account: nil) }
        XCTAssertTrue(unlocked.success)
        XCTAssertNotNil(unlocked.data, "nothing was lost while the device could not give it out")

        try device.uninstall("com.salesforce.mobilesdk.MobileSyncExplorer")
        let reinstalled = try device.run(as: app) { () -> (String?, Bool) in
            (UserAccountManager.shared.currentUserAccount?.idData.username, KeychainHelper.read(service: refresh, account: nil).success)
        }
        XCTAssertNil(reinstalled.0, "the account file went with the app's containers")
        XCTAssertTrue(reinstalled.1, "keychain values outlive the app")
    }

    func testABackupRestoredToANewPhoneLeavesTheSDKsItemsBehind() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        try device.lock()
        XCTAssertThrowsError(try device.backup(), "iOS asks for the passcode before a backup")
        try device.unlock()
        let backup = try device.backup()
        XCTAssertEqual(backup.keychainItems, 0, "every item the SDK made is afterFirstUnlockThisDeviceOnly")
        XCTAssertGreaterThanOrEqual(backup.keychainItemsLeftOut, 3)
        let files = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: backup.file), format: nil) as? [String: Any])["Files"] as? [[String: Any]]
        XCTAssertTrue(files?.contains { ($0["Path"] as? String)?.hasSuffix("/UserAccount.plist") == true } ?? false)

        let phone = try device.restore(backup)
        XCTAssertNotEqual(phone.url, device.url)
        let widgetSees = try phone.run(as: widget) { () -> (String?, Bool) in
            DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            SalesforceManager.initializeSDK()
            return (UserAccountManager.shared.currentUserAccount?.idData.username, KeychainHelper.read(service: "com.salesforce.mobilesdk.oauth.refresh", account: nil).success)
        }
        XCTAssertNil(widgetSees.0, "the account key stayed behind: the account cannot be read on the new phone")
        XCTAssertFalse(widgetSees.1, "nor is there a refresh token")
        let old = try device.run(as: widget) { () -> String? in
            DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            SalesforceManager.initializeSDK()
            return UserAccountManager.shared.currentUserAccount?.idData.username
        }
        XCTAssertEqual(old, "alice@acme.test", "the old phone is unchanged")
    }

    /// A test's backups do not pile up in the temporary directory: the file goes with the device that made it.
    func testABackupFileGoesWithTheDeviceThatMadeIt() throws {
        var file: URL?
        do {
            let device = try SimulatedDevice(keychain: .inMemory)
            file = try device.backup().file
            XCTAssertTrue(FileManager.default.fileExists(atPath: try XCTUnwrap(file).path))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: try XCTUnwrap(file).path), "the backup outlived its device")
    }

    /// The SDK's upgrade runs when code run as a bundle initialises the SDK, as in main-app and the widget: an older
    /// version kept in msdkUserDefaults is upgraded and the current one kept.
    func testInitializeSDKRunsTheSDKsUpgrade() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
        let suite = device.url.appendingPathComponent("Containers/Shared/AppGroup/\(group)/Library/Preferences/\(group).plist")
        let key = "com.salesforce.mobilesdk.salesforcesdkmanager.version"
        func version() throws -> String? {
            (try PropertyListSerialization.propertyList(from: Data(contentsOf: suite), format: nil) as? [String: Any])?[key] as? String
        }
        XCTAssertEqual(try version(), "13.1.0", "main-app's launch kept the current version")
        var plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: suite), format: nil) as? [String: Any])
        plist[key] = "9.1.0"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: suite)
        try device.run(as: widget) {
            DataSharingHelper.shared.appGroupName = group
            SalesforceManager.initializeSDK()
        }
        XCTAssertEqual(try version(), "13.1.0", "the widget's initializeSDK ran the upgrade")
    }
}
