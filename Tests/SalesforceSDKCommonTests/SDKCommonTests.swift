import AppGroup
import AppGroupSimTestSupport
import Foundation
import SalesforceSDKCommon
import XCTest

/// Code written against the SDK's SalesforceSDKCommon, run as the fixture app and then as its widget on one
/// device: the same rules and files as the binaries (issue 26). Written the way the SDK's Swift template
/// writes its extension's setup: set the group's name and flag on `DataSharingHelper.shared`, then read
/// `UserDefaults.msdk()`.
final class SDKCommonTests: XCTestCase {
    var root: URL!
    var device: URL { root.appendingPathComponent("device") }
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    var widget: URL { app.appendingPathComponent("PlugIns/RecentContacts.appex") }
    let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    func asApp<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: app, device: device, body) }
    func asWidget<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: widget, device: device, body) }

    func testTheAppsLoginStateReachesTheWidgetOnlyOnceTheWidgetSetsTheGroup() throws {
        try asApp {
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            UserDefaults.msdk().set(true, forKey: "userLoggedIn")
            XCTAssertTrue(UserDefaults.msdk().bool(forKey: "userLoggedIn"))
        }
        try asWidget {
            // The name lives in each process's own defaults: before the widget sets it, it reads its own.
            XCTAssertNil(DataSharingHelper.shared.appGroupName)
            XCTAssertFalse(DataSharingHelper.shared.isAppGroupEnabled)
            XCTAssertFalse(UserDefaults.msdk().bool(forKey: "userLoggedIn"), "without the group's name the widget reads its private defaults")
            DataSharingHelper.shared.appGroupName = group
            XCTAssertTrue(DataSharingHelper.shared.isAppGroupEnabled, "the flag is the app's, read from the group's suite")
            XCTAssertTrue(UserDefaults.msdk().bool(forKey: "userLoggedIn"))
            XCTAssertNotNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group))
        }
        // The same file the binaries read: the group's suite on the device.
        let suite = try Device.open(at: device).layout.groupSuite(groupID: group)
        let plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: suite), format: nil) as? [String: Any])
        XCTAssertEqual(plist["userLoggedIn"] as? Bool, true)
        XCTAssertEqual(plist["kAccessGroupEnabled"] as? Bool, true)
    }

    /// A widget not entitled to the group its code names: as on iOS, a nil container and a private suite.
    func testAWidgetNotEntitledToTheGroupGetsNoContainerAndAPrivateSuite() throws {
        try asApp {
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            UserDefaults.msdk().set("alice", forKey: "LastUserName")
        }
        let entitlements = widget.appendingPathComponent("RecentContacts.entitlements")
        var plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: entitlements), format: nil) as? [String: Any])
        plist[Entitlements.applicationGroupsKey] = [String]()
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: entitlements)
        let trace = root.appendingPathComponent("trace.jsonl")
        setenv(SDKProcess.traceVariable, trace.path, 1)
        defer { unsetenv(SDKProcess.traceVariable) }
        try asWidget {
            DataSharingHelper.shared.appGroupName = group
            XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group))
            XCTAssertNil(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group))
            XCTAssertFalse(DataSharingHelper.shared.isAppGroupEnabled)
            XCTAssertNil(UserDefaults.msdk().string(forKey: "LastUserName"))
            UserDefaults.msdk().set("mallory", forKey: "LastUserName")
        }
        try asApp { XCTAssertEqual(UserDefaults.msdk().string(forKey: "LastUserName"), "alice", "the widget's write stayed in its own suite") }
        // One trace line says why, however often the code asks.
        let lines = try String(contentsOf: trace, encoding: .utf8).split(separator: "\n").filter { $0.contains("appGroupNotEntitled") }
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines.first?.contains(group) == true && lines.first?.contains("RecentContacts") == true, "\(lines)")
    }

    /// As on iOS, one instance of the app per device: a process running as the app holds the app's instance
    /// lock (a second instance waits for it, as a second main-app does); one running as the extension does not.
    func testAnAppProcessHoldsTheInstanceLockAndAnExtensionDoesNot() throws {
        let sandbox = { (bundle: URL) in AppSandbox(device: try Device.open(at: self.device, initialize: true), bundle: try AppBundle(at: bundle)) }
        try asApp {
            XCTAssertThrowsError(try AppInstanceLock(sandbox: sandbox(app), timeout: 0), "the app's process holds the lock")
        }
        try asWidget {
            XCTAssertNoThrow(try AppInstanceLock(sandbox: sandbox(app), timeout: 0), "the extension's process does not")
        }
        XCTAssertNoThrow(try AppInstanceLock(sandbox: sandbox(app), timeout: 0), "the lock ends with run(as:)")
    }

    /// Turning the flag on copies the app's standard defaults into the group once, as the SDK does.
    func testEnablingTheGroupMigratesTheStandardDefaultsOnce() throws {
        try asApp {
            UserDefaults.msdk().set(["a", "b"], forKey: "recents")
            UserDefaults.msdk().set(Date(timeIntervalSince1970: 1_790_000_000), forKey: "lastSync")
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            XCTAssertEqual(UserDefaults.msdk().stringArray(forKey: "recents"), ["a", "b"])
            XCTAssertEqual((UserDefaults.msdk().object(forKey: "lastSync") as? Date)?.timeIntervalSince1970, 1_790_000_000)
            UserDefaults.msdk().removeObject(forKey: "recents")
            XCTAssertNil(UserDefaults.msdk().object(forKey: "recents"))
        }
    }
}
