import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

/// `DataSharingHelper` and `msdkUserDefaults` with the real SDK's rules, seen from two processes
/// (two sandboxes of one device: the app and its widget).
final class DataSharingHelperTests: XCTestCase {
    let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
    var device: Device!
    var app: AppSandbox!
    var widget: AppSandbox!

    override func tearDown() { (device, app, widget) = (nil, nil, nil); super.tearDown() }

    override func setUpWithError() throws {
        device = try Device.open(at: try TestSupport.temporaryDirectory(self).appendingPathComponent("device"))
        app = AppSandbox(device: device, bundle: try AppBundle(at: TestSupport.fixtureApp))
        widget = AppSandbox(device: device, bundle: try AppBundle(at: TestSupport.fixtureWidget))
    }

    func testTheNameLivesInStandardDefaultsAndTheFlagInTheGroupSuite() throws {
        let helper = DataSharingHelper(sandbox: app)
        XCTAssertFalse(try helper.appGroupEnabled(), "no name, no flag")
        try helper.setAppGroupName(group)
        try helper.setAppGroupEnabled(true)
        XCTAssertEqual(try app.standardDefaults.string(forKey: "KAppGroupName"), group)
        XCTAssertNil(try app.standardDefaults.value(forKey: "kAccessGroupEnabled"))
        XCTAssertEqual(try app.suite(named: group).value(forKey: "kAccessGroupEnabled"), .bool(true))
        XCTAssertEqual(
            app.suite(named: group).url.path,
            device.root.path + "/Containers/Shared/AppGroup/\(group)/Library/Preferences/\(group).plist")
    }

    func testAProcessMustSetTheNameBeforeItCanReadTheFlag() throws {
        let appHelper = DataSharingHelper(sandbox: app)
        try appHelper.setAppGroupName(group)
        try appHelper.setAppGroupEnabled(true)
        let widgetHelper = DataSharingHelper(sandbox: widget)
        XCTAssertFalse(try widgetHelper.appGroupEnabled(), "the widget has not set its name yet")
        try widgetHelper.setAppGroupName(group)
        XCTAssertTrue(try widgetHelper.appGroupEnabled(), "the flag is shared once the name is set")
    }

    func testWithTheFlagOffTheWidgetSeesNothingOfTheAppsDefaultsAndWithItOnItSeesThem() throws {
        let appHelper = DataSharingHelper(sandbox: app)
        let widgetHelper = DataSharingHelper(sandbox: widget)
        for h in [appHelper, widgetHelper] { try h.setAppGroupName(group) }

        try appHelper.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        XCTAssertEqual(try appHelper.msdkUserDefaults().url, app.standardDefaults.url)
        XCTAssertFalse(try widgetHelper.msdkUserDefaults().bool(forKey: "userLoggedIn"))
        XCTAssertEqual(try widgetHelper.msdkUserDefaults().url, widget.standardDefaults.url)

        try appHelper.setAppGroupEnabled(true)
        XCTAssertTrue(try widgetHelper.msdkUserDefaults().bool(forKey: "userLoggedIn"), "migrated into the suite and shared")
        try appHelper.msdkUserDefaults().set("005000000000001AAA", forKey: "LastUserIdentity")
        XCTAssertEqual(try widgetHelper.msdkUserDefaults().string(forKey: "LastUserIdentity"), "005000000000001AAA")
    }

    func testResolutionHappensOnEveryCall() throws {
        let appHelper = DataSharingHelper(sandbox: app)
        let widgetHelper = DataSharingHelper(sandbox: widget)
        for h in [appHelper, widgetHelper] { try h.setAppGroupName(group) }
        try appHelper.setAppGroupEnabled(true)
        XCTAssertEqual(try widgetHelper.msdkUserDefaults().url, widget.suite(named: group).url)
        try appHelper.setAppGroupEnabled(false)
        XCTAssertEqual(try widgetHelper.msdkUserDefaults().url, widget.standardDefaults.url, "the app turned it off for both")
    }

    func testEnablingMigratesStandardDefaultsOnceAndDisablingCopiesBack() throws {
        let helper = DataSharingHelper(sandbox: app)
        try helper.setAppGroupName(group)
        try app.standardDefaults.set("before", forKey: "LoginHost")
        try helper.setAppGroupEnabled(true)
        let suite = app.suite(named: group)
        XCTAssertEqual(try suite.string(forKey: "LoginHost"), "before")
        XCTAssertEqual(try app.standardDefaults.value(forKey: DataSharingHelper.migratedKey), .bool(true))
        XCTAssertNil(try suite.value(forKey: DataSharingHelper.appGroupNameKey), "bookkeeping keys are not copied")

        try app.standardDefaults.set("changed later", forKey: "LoginHost")
        try helper.setAppGroupEnabled(true)
        XCTAssertEqual(try suite.string(forKey: "LoginHost"), "before", "the migration runs once")

        try suite.set("in the group", forKey: "LoginHost")
        try helper.setAppGroupEnabled(false)
        XCTAssertEqual(try app.standardDefaults.string(forKey: "LoginHost"), "in the group", "copied back")
        XCTAssertNil(try app.standardDefaults.value(forKey: DataSharingHelper.migratedKey), "the marker is cleared")
    }

    func testWhicheverProcessEnablesFirstMigratesItsOwnDefaultsIntoTheSuite() throws {
        try app.standardDefaults.set("app's", forKey: "SFDCOAuthLoginHost")
        try widget.standardDefaults.set("widget's", forKey: "SFDCOAuthLoginHost")
        let widgetHelper = DataSharingHelper(sandbox: widget)
        try widgetHelper.setAppGroupName(group)
        try widgetHelper.setAppGroupEnabled(true)
        let appHelper = DataSharingHelper(sandbox: app)
        try appHelper.setAppGroupName(group)
        XCTAssertTrue(try appHelper.appGroupEnabled())
        XCTAssertEqual(try appHelper.msdkUserDefaults().string(forKey: "SFDCOAuthLoginHost"), "widget's",
                       "the app reads what the widget migrated; its own value stays behind until it migrates")
    }

    func testSDKFilesFollowTheFlag() throws {
        let helper = DataSharingHelper(sandbox: app)
        try helper.setAppGroupName(group)
        XCTAssertEqual(try helper.sdkRootDirectory().path, app.dataContainer.path)
        try helper.setAppGroupEnabled(true)
        XCTAssertEqual(try helper.sdkRootDirectory().path, device.sharedContainer(groupID: group).appendingPathComponent(group).path)
    }

    /// Writes an account file and a store file under a process's own container, as with app groups off: the
    /// SDK's `NSSearchPathForDirectoriesInDomains(type)[0]/<bundle id>` for the library and documents types.
    private func ownFiles(_ sandbox: AppSandbox) throws -> [URL] {
        let id = sandbox.bundleIdentifier
        let account = sandbox.dataContainer.appendingPathComponent("Library/\(id)/00DORG/005USER/UserAccount.plist")
        let store = sandbox.dataContainer.appendingPathComponent("Documents/\(id)/00DORG/005USER/internal/stores/defaultStore/store.sqlite")
        for file in [account, store] {
            try SecureFiles.makeDirectory(file.deletingLastPathComponent())
            try Data("x".utf8).write(to: file)
        }
        return [account, store]
    }

    func testTheFirstProcessToEnableMovesItsOwnFilesIntoTheGroupOnce() throws {
        let files = try ownFiles(app)
        let helper = DataSharingHelper(sandbox: app)
        try helper.setAppGroupName(group)
        try helper.setAppGroupEnabled(true)
        let root = device.sharedContainer(groupID: group).appendingPathComponent(group)
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("Library/00DORG/005USER/UserAccount.plist").path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: root.appendingPathComponent("00DORG/005USER/internal/stores/defaultStore/store.sqlite").path),
                      "documents go to the group's SDK folder itself, as SFDirectoryManager's migrateFiles moves them")
        XCTAssertFalse(files.contains { FileManager.default.fileExists(atPath: $0.path) })
        XCTAssertTrue(FileManager.default.fileExists(atPath: app.dataContainer.appendingPathComponent("Library/Preferences").path), "preferences stay")
        XCTAssertTrue(try app.suite(named: group).bool(forKey: DataSharingHelper.filesSharedKey))
    }

    func testWhenTheExtensionEnablesFirstTheAppsFilesAreStranded() throws {
        let files = try ownFiles(app)
        let widgetHelper = DataSharingHelper(sandbox: widget)
        try widgetHelper.setAppGroupName(group)
        try widgetHelper.setAppGroupEnabled(true)
        let appHelper = DataSharingHelper(sandbox: app)
        try appHelper.setAppGroupName(group)
        try appHelper.setAppGroupEnabled(true)
        XCTAssertTrue(files.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "the app's files stay in its own container")
        let root = try appHelper.sdkRootDirectory()
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("Library/00DORG").path))
    }

    func testAGroupThatIsNotEntitledHasNoContainerAndOnlyAPrivateSuite() throws {
        let unentitled = try bundle(copying: TestSupport.fixtureWidget, applicationGroups: [])
        let sandbox = AppSandbox(device: device, bundle: unentitled)
        XCTAssertNil(sandbox.containerURL(forSecurityApplicationGroupIdentifier: group))
        XCTAssertThrowsError(try sandbox.groupContainer(group)) { error in
            guard case .notEntitled(let g, let id, _, _)? = error as? AppGroupError else { return XCTFail("\(error)") }
            XCTAssertEqual(g, group)
            XCTAssertEqual(id, unentitled.bundleIdentifier)
            XCTAssertTrue("\(error)".contains("com.apple.security.application-groups"), "the message names the fix")
        }
        XCTAssertTrue(sandbox.suite(named: group).url.path.hasPrefix(sandbox.dataContainer.path), "iOS gives a private suite")

        let appHelper = DataSharingHelper(sandbox: app)
        try appHelper.setAppGroupName(group)
        try appHelper.setAppGroupEnabled(true)
        try appHelper.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        let helper = DataSharingHelper(sandbox: sandbox)
        try helper.setAppGroupName(group)
        XCTAssertFalse(try helper.appGroupEnabled(), "the unentitled widget reads its private suite, where the flag is off")
        XCTAssertFalse(try helper.msdkUserDefaults().bool(forKey: "userLoggedIn"))
    }

    private func bundle(copying source: URL, applicationGroups: [String]) throws -> AppBundle {
        let dest = try TestSupport.temporaryDirectory(self).appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: dest)
        let original = try AppBundle(at: dest)
        var plist = original.entitlements.raw.mapValues(\.foundationValue)
        plist[Entitlements.applicationGroupsKey] = applicationGroups
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: original.entitlementsURL)
        return try AppBundle(at: dest)
    }
}
