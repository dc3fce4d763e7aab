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
        var expected = AppGroupConfig(appGroupName: "group.com.salesforce.mobilesdk.MobileSyncExplorer", appGroupsEnabled: true)
        expected.revokeTokensOfPreviousInstall = true  // the app revokes what a previous install left (scenario k's fix)
        XCTAssertEqual(config, expected)
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
        XCTAssertEqual(store.path, sdk.url.path + "/00D1/0051/internal/stores/defaultStore/store.sqlite", "SFDirectoryManager: documents are the group's SDK folder")
        for file in [account, store, DeviceLayout.SDKRoot.storeFile(in: sdk.globalStores, named: "g")] {
            try SecureFiles.makeDirectory(file.deletingLastPathComponent())
            try Data("x".utf8).write(to: file)
        }
        XCTAssertEqual(sdk.accountFiles().map(\.url), [account])
        XCTAssertEqual(sdk.accountFiles().map(\.orgId), ["00Dx_y"])
        XCTAssertEqual(sdk.storeFiles().map(\.lastPathComponent), ["store.sqlite", "store.sqlite"])
        XCTAssertEqual(Set(layout.allSDKRoots()), [layout.privateSDKRoot(bundleID: bundle.bundleIdentifier), sdk])
        // With app groups off, the SDK's folders are named after the bundle id inside each type's folder.
        let own = layout.privateSDKRoot(bundleID: bundle.bundleIdentifier)
        XCTAssertEqual(own.library.path, layout.dataContainer(bundleID: bundle.bundleIdentifier).path + "/Library/\(bundle.bundleIdentifier)")
        XCTAssertEqual(own.documents.path, layout.dataContainer(bundleID: bundle.bundleIdentifier).path + "/Documents/\(bundle.bundleIdentifier)")
        XCTAssertEqual(own.other("Library/Caches").path, layout.dataContainer(bundleID: bundle.bundleIdentifier).path + "/Library/Caches/\(bundle.bundleIdentifier)")
        XCTAssertEqual(sdk.other("Library/Caches"), sdk.url, "in the group, only the library type gets a folder of its own")
    }

    // MARK: Issue 25: the device

    func bundle(in dir: URL, id: String, groups: [String] = ["group.com.acme"], keychain: [String] = [], team: String? = nil) throws -> URL {
        let url = dir.appendingPathComponent("\(UUID().uuidString.prefix(6)).app")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try PropertyListSerialization.data(fromPropertyList: ["CFBundleIdentifier": id], format: .xml, options: 0).write(to: url.appendingPathComponent("Info.plist"))
        var entitlements: [String: Any] = [Entitlements.applicationGroupsKey: groups, Entitlements.keychainAccessGroupsKey: keychain]
        if let team { entitlements["com.apple.developer.team-identifier"] = team }
        try PropertyListSerialization.data(fromPropertyList: entitlements, format: .xml, options: 0).write(to: url.appendingPathComponent("App.entitlements"))
        return url
    }

    /// '../../../../x' as a bundle id made files outside the device, and a launch spun with memory growing.
    func testBundleIdsAndAppGroupsMustBeReverseDNS() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        for bad in ["../../../../x", "a/b", "com..acme", ".com.acme", "com.acme.", "com acme", "com.acme/../../x", ""] {
            XCTAssertThrowsError(try AppBundle(at: try bundle(in: dir, id: bad)), bad) { XCTAssertTrue("\($0)".contains("CFBundleIdentifier"), "\($0)") }
        }
        for good in ["com.acme.app", "com.acme.App-2", "A1"] { XCTAssertNoThrow(try AppBundle(at: try bundle(in: dir, id: good)), good) }
        XCTAssertThrowsError(try AppBundle(at: try bundle(in: dir, id: "com.acme", groups: ["group.com/../../x"]))) {
            XCTAssertTrue("\($0)".contains("application-groups"), "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.deletingLastPathComponent().appendingPathComponent("x").path))
    }

    /// A bundle may use only keychain groups of its own team, and an app group belongs to the team that first
    /// used it on the device.
    func testTeamIdentityDecidesKeychainGroupsAndAppGroups() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: dir.appendingPathComponent("device"))
        let victim = AppSandbox(device: device, bundle: try AppBundle(at: try bundle(in: dir, id: "com.acme.app", keychain: ["$(AppIdentifierPrefix)com.acme.shared"])))
        XCTAssertEqual(victim.teamID, "SIMTEAM001")
        XCTAssertEqual(victim.keychainAccessGroups, ["SIMTEAM001.com.acme.shared", "SIMTEAM001.com.acme.app", "group.com.acme"])
        _ = try victim.groupContainer("group.com.acme")
        XCTAssertEqual(victim.owner(ofAppGroup: "group.com.acme"), "SIMTEAM001")

        let evilBundle = try AppBundle(at: try bundle(in: dir, id: "com.evil.app", keychain: ["SIMTEAM001.com.acme.shared", "$(AppIdentifierPrefix)evil"], team: "EVILTEAM01"))
        let evil = AppSandbox(device: device, bundle: evilBundle)
        XCTAssertEqual(evil.teamID, "EVILTEAM01")
        XCTAssertEqual(evil.keychainAccessGroups, ["EVILTEAM01.evil", "EVILTEAM01.com.evil.app"], "neither the victim's keychain group nor its app group")
        XCTAssertEqual(evil.keychainGroupsOfOtherTeams, ["SIMTEAM001.com.acme.shared", "group.com.acme"])
        XCTAssertFalse(evil.isEntitled(toAppGroup: "group.com.acme"))
        XCTAssertNil(evil.containerURL(forSecurityApplicationGroupIdentifier: "group.com.acme"))
        XCTAssertNotEqual(evil.suite(named: "group.com.acme").url, victim.suite(named: "group.com.acme").url, "a private suite, as for any group it may not use")
        // A later process of the same team as the owner still may.
        let sibling = AppSandbox(device: device, bundle: try AppBundle(at: try bundle(in: dir, id: "com.acme.app.Widget")))
        XCTAssertTrue(sibling.isEntitled(toAppGroup: "group.com.acme"))
    }

    /// A container that is a link out of the device is refused, never written through.
    func testAContainerThatIsALinkIsRefused() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: dir.appendingPathComponent("device"))
        let outside = dir.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        let sandbox = AppSandbox(device: device, bundle: try AppBundle(at: try bundle(in: dir, id: "com.acme.app")))
        try FileManager.default.createDirectory(at: sandbox.dataContainer.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: sandbox.dataContainer, withDestinationURL: outside)
        XCTAssertThrowsError(try sandbox.checkContainers()) { XCTAssertEqual($0 as? DeviceError, .containerIsLink(path: sandbox.dataContainer.path)) }
        try FileManager.default.removeItem(at: sandbox.dataContainer)
        XCTAssertNoThrow(try sandbox.checkContainers())
        // A group container, or a directory on the way to it.
        let shared = device.root.appendingPathComponent("Containers/Shared")
        try FileManager.default.createSymbolicLink(at: shared, withDestinationURL: outside)
        XCTAssertThrowsError(try sandbox.checkContainers()) { XCTAssertEqual($0 as? DeviceError, .containerIsLink(path: shared.path)) }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [])
    }

    /// A directory AppGroupSim did not make is not adopted as a device without --init.
    func testADirectoryNotMadeByAppGroupSimIsNotAdoptedWithoutInit() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let withFiles = dir.appendingPathComponent("with-files")
        try FileManager.default.createDirectory(at: withFiles, withIntermediateDirectories: true)
        try Data("mine".utf8).write(to: withFiles.appendingPathComponent("notes.txt"))
        let shared = dir.appendingPathComponent("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: true)
        XCTAssertEqual(chmod(shared.path, 0o1777), 0)
        for (url, reason) in [(withFiles, "notes.txt"), (shared, "mode 1777")] {
            XCTAssertThrowsError(try Device.open(at: url)) { XCTAssertTrue("\($0)".contains(reason) && "\($0)".contains("--init"), "\($0)") }
            XCTAssertFalse(FileManager.default.fileExists(atPath: url.appendingPathComponent("device.json").path))
        }
        XCTAssertNoThrow(try Device.open(at: withFiles, initialize: true))
        XCTAssertEqual(try String(contentsOf: withFiles.appendingPathComponent("notes.txt"), encoding: .utf8), "mine")
        // An empty private directory of this user is taken as it is (what mktemp -d makes).
        let empty = dir.appendingPathComponent("empty")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        XCTAssertNoThrow(try Device.open(at: empty))
    }
}
