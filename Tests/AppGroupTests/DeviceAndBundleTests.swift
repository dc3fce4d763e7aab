import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

final class DeviceAndBundleTests: XCTestCase {
    func testANewDeviceGetsAManifestWithAUUIDAndATeamAndKeepsIt() throws {
        let root = try TestSupport.temporaryDirectory(self).appendingPathComponent("device")
        let device = try Device.open(at: root, teamID: "ABCDE12345")
        XCTAssertEqual(device.teamID, "ABCDE12345")
        XCTAssertEqual(device.appIdentifierPrefix, "ABCDE12345.")
        let again = try Device.open(at: root, teamID: "OTHERTEAM0")
        XCTAssertEqual(again.id, device.id, "reopening keeps the id")
        XCTAssertEqual(again.teamID, "ABCDE12345", "and the team")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("device.json"))) as? [String: Any]
        XCTAssertEqual(json?["id"] as? String, device.id.uuidString)
        XCTAssertEqual(json?["teamId"] as? String, "ABCDE12345")
        XCTAssertNotNil(json?["created"])
    }

    func testTheCreationDateIsReadBackAsWrittenAndInOtherISO8601Forms() throws {
        let root = try TestSupport.temporaryDirectory(self).appendingPathComponent("device")
        let device = try Device.open(at: root)
        let again = try Device.open(at: root)
        XCTAssertEqual(again.created.timeIntervalSince1970, device.created.timeIntervalSince1970.rounded(.down), "written to the second")
        XCTAssertEqual(Device.date(iso8601: "2026-11-23T07:05:09Z")?.timeIntervalSince1970, 1_795_417_509)
        XCTAssertEqual(Device.date(iso8601: "2026-11-23T08:05:09+01:00")?.timeIntervalSince1970, 1_795_417_509, "an offset, as a person might write it")
        XCTAssertNil(Device.date(iso8601: "yesterday"))
        // A manifest whose date is not a date is corrupt, and kept.
        let text = #"{"id":"\#(device.id.uuidString)","teamId":"SIMTEAM001","created":"yesterday"}"#
        try Data(text.utf8).write(to: root.appendingPathComponent("device.json"))
        XCTAssertThrowsError(try Device.open(at: root)) { XCTAssertEqual($0 as? DeviceError, .corruptManifest(path: root.appendingPathComponent("device.json").path)) }
        XCTAssertEqual(try String(contentsOf: root.appendingPathComponent("device.json"), encoding: .utf8), text)
    }

    func testThreadsCreatingOneDeviceAgreeOnItsId() throws {
        let root = try TestSupport.temporaryDirectory(self).appendingPathComponent("device")
        let ids = ResultsOfIDs()
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            if let d = try? Device.open(at: root) { ids.add(d.id) }
        }
        XCTAssertEqual(ids.count, 8)
        XCTAssertEqual(ids.distinct, 1)
    }

    func testTheDeviceComesFromTheFlagThenTheEnvironment() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let fromEnv = try Device.resolve(path: nil, environment: [Device.environmentVariable: dir.appendingPathComponent("env").path])
        XCTAssertEqual(fromEnv.root.lastPathComponent, "env")
        let fromFlag = try Device.resolve(
            path: dir.appendingPathComponent("flag").path, environment: [Device.environmentVariable: dir.path])
        XCTAssertEqual(fromFlag.root.lastPathComponent, "flag")
        XCTAssertThrowsError(try Device.resolve(path: nil, environment: [:])) { error in
            XCTAssertEqual(error as? DeviceError, .notGiven)
            XCTAssertTrue("\(error)".contains("--device"))
        }
    }

    func testACorruptManifestIsAnErrorNotANewDevice() throws {
        let root = try TestSupport.temporaryDirectory(self)
        try Data("{".utf8).write(to: root.appendingPathComponent("device.json"))
        XCTAssertThrowsError(try Device.open(at: root)) { error in
            guard case .corruptManifest? = error as? DeviceError else { return XCTFail("\(error)") }
        }
        XCTAssertEqual(FileManager.default.contents(atPath: root.appendingPathComponent("device.json").path), Data("{".utf8))
    }

    func testTheFixtureAppAndItsWidgetParse() throws {
        let app = try AppBundle(at: TestSupport.fixtureApp)
        XCTAssertEqual(app.bundleIdentifier, "com.salesforce.mobilesdk.MobileSyncExplorer")
        XCTAssertFalse(app.isExtension)
        XCTAssertEqual(app.entitlements.applicationGroups, ["group.com.salesforce.mobilesdk.MobileSyncExplorer"])
        XCTAssertEqual(app.entitlements.keychainAccessGroups, ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.MobileSyncExplorer"])
        let plugIns = try app.plugIns()
        XCTAssertEqual(plugIns.map(\.bundleIdentifier), [
            "com.salesforce.mobilesdk.MobileSyncExplorer.NotificationService", "com.salesforce.mobilesdk.MobileSyncExplorer.RecentContacts",
        ])
        XCTAssertTrue(plugIns.allSatisfy(\.isExtension))
        XCTAssertEqual(plugIns.map(\.isNotificationServiceExtension), [true, false])
        XCTAssertEqual(plugIns[1].extensionPointIdentifier, "com.apple.widgetkit-extension")
        XCTAssertEqual(plugIns[1].entitlements.applicationGroups, app.entitlements.applicationGroups)
        XCTAssertEqual(app.entitlements.raw["aps-environment"]?.stringValue, "development")
        let config = try XCTUnwrap(try AppGroupConfig.load(from: app))
        XCTAssertEqual(config, AppGroupConfig(appGroupName: "group.com.salesforce.mobilesdk.MobileSyncExplorer", appGroupsEnabled: true))
        // The extension sets only the name and follows the app's flag.
        let widgetConfig = try XCTUnwrap(try AppGroupConfig.load(from: plugIns[1]))
        XCTAssertEqual(widgetConfig, AppGroupConfig(appGroupName: "group.com.salesforce.mobilesdk.MobileSyncExplorer", appGroupsEnabled: nil))
    }

    func testAppIdentifierPrefixExpandsAndKeychainGroupsFollowIOSOrder() {
        let e = Entitlements(applicationGroups: ["group.x"], keychainAccessGroups: ["$(AppIdentifierPrefix)com.x.shared", "$(TeamIdentifierPrefix)other"])
        XCTAssertEqual(Entitlements.expand("$(AppIdentifierPrefix)com.x", teamID: "T1"), "T1.com.x")
        XCTAssertEqual(
            e.effectiveKeychainAccessGroups(teamID: "T1", bundleID: "com.x.app"),
            ["T1.com.x.shared", "T1.other", "T1.com.x.app", "group.x"])
    }

    func testBrokenBundlesGiveErrorsNamingTheFile() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let bundle = dir.appendingPathComponent("Broken.app")
        try FileManager.default.createDirectory(at: bundle, withIntermediateDirectories: true)
        XCTAssertThrowsError(try AppBundle(at: bundle)) { error in
            XCTAssertEqual(error as? BundleError, .missingFile(path: bundle.appendingPathComponent("Info.plist").path))
        }
        try Data("<plist><dict><key>CFBundleIdentifier</key>".utf8).write(to: bundle.appendingPathComponent("Info.plist"))
        XCTAssertThrowsError(try AppBundle(at: bundle)) { error in
            guard case .invalidPlist(let path, _)? = error as? BundleError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, bundle.appendingPathComponent("Info.plist").path)
        }
        try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": "com.x"], format: .xml, options: 0)
            .write(to: bundle.appendingPathComponent("Info.plist"))
        XCTAssertThrowsError(try AppBundle(at: bundle)) { error in
            guard case .missingFile(let path)? = error as? BundleError else { return XCTFail("\(error)") }
            XCTAssertTrue(path.hasSuffix(".entitlements"))
        }
        for name in ["A.entitlements", "B.entitlements"] {
            try PropertyListSerialization.data(fromPropertyList: [String: Any](), format: .xml, options: 0)
                .write(to: bundle.appendingPathComponent(name))
        }
        XCTAssertThrowsError(try AppBundle(at: bundle)) { error in
            guard case .ambiguousEntitlements? = error as? BundleError else { return XCTFail("\(error)") }
        }
        try FileManager.default.removeItem(at: bundle.appendingPathComponent("B.entitlements"))
        try PropertyListSerialization.data(
            fromPropertyList: [Entitlements.applicationGroupsKey: "group.not-an-array"], format: .xml, options: 0
        ).write(to: bundle.appendingPathComponent("A.entitlements"))
        XCTAssertThrowsError(try AppBundle(at: bundle)) { error in
            guard case .invalidValue(_, let key, _)? = error as? BundleError else { return XCTFail("\(error)") }
            XCTAssertEqual(key, Entitlements.applicationGroupsKey)
        }
    }
}

final class ResultsOfIDs: @unchecked Sendable {
    private let lock = NSLock()
    private var ids: [UUID] = []
    func add(_ id: UUID) { lock.withLock { ids.append(id) } }
    var count: Int { lock.withLock { ids.count } }
    var distinct: Int { lock.withLock { Set(ids).count } }
}

/// Every path on a device comes from DeviceLayout: what the platform writes is where the layout says.
final class DeviceLayoutTests: XCTestCase {
    func testTheLayoutNamesWhereTheSandboxAndTheHelperWrite() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: root.appendingPathComponent("device"))
        let bundle = try AppBundle(at: TestSupport.fixtureApp)
        let sandbox = AppSandbox(device: device, bundle: bundle)
        let layout = device.layout
        try sandbox.standardDefaults.set(.string("v"), forKey: "k")
        XCTAssertTrue(FileManager.default.fileExists(atPath: layout.standardDefaults(bundleID: bundle.bundleIdentifier).path))
        XCTAssertEqual(layout.bundleIDsWithContainers(), [bundle.bundleIdentifier])
        let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
        try sandbox.suite(named: group).set(.bool(true), forKey: "k")
        XCTAssertEqual(sandbox.suite(named: group).url, layout.groupSuite(groupID: group))
        XCTAssertEqual(sandbox.suite(named: "group.not.mine").url, layout.privateSuite("group.not.mine", bundleID: bundle.bundleIdentifier),
                       "a suite the app is not entitled to stays in its own container")

        let helper = DataSharingHelper(sandbox: sandbox)
        try helper.setAppGroupName(group)
        try helper.setAppGroupEnabled(true)
        XCTAssertEqual(try helper.sdkRoot(), layout.groupSDKRoot(groupID: group))
        XCTAssertEqual(try helper.sdkRoot().url.path, root.path + "/device/Containers/Shared/AppGroup/\(group)/\(group)")
        let sdk = try helper.sdkRoot()
        let account = sdk.accountFile(orgId: "00Dx/y", userId: "005a")
        XCTAssertEqual(account.path, sdk.url.path + "/Library/00Dx_y/005a/UserAccount.plist", "the SDK's path rule on ids")
        let store = DeviceLayout.SDKRoot.storeFile(in: sdk.userStores(orgId: "00D1", userId: "0051", communityId: nil), named: "defaultStore")
        XCTAssertEqual(store.path, sdk.url.path + "/Documents/00D1/0051/internal/stores/defaultStore/store.sqlite")
        for file in [account, store, DeviceLayout.SDKRoot.storeFile(in: sdk.globalStores, named: "g")] {
            try SecureFiles.makeDirectory(file.deletingLastPathComponent())
            try Data("x".utf8).write(to: file)
        }
        XCTAssertEqual(sdk.accountFiles().map(\.url), [account])
        XCTAssertEqual(sdk.accountFiles().map(\.orgId), ["00Dx_y"])
        XCTAssertEqual(sdk.storeFiles().map(\.lastPathComponent), ["store.sqlite", "store.sqlite"])
        XCTAssertEqual(Set(layout.allSDKRoots()), [layout.privateSDKRoot(bundleID: bundle.bundleIdentifier), sdk])
    }
}
