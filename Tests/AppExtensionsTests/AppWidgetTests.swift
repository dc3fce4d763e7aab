import AppGroup
import Diagnostics
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

@testable import AppExtensions
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import GRDB

/// The widget's launch checks, in the sample's order, with the keychain double.
final class AppWidgetTests: FixtureAppTestCase {
    func widgetReport() async throws -> AppWidget.Report {
        try await AppWidget.evaluate(try launch(widgetURL))
    }

    func editPlist(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), options: [], format: nil) as? [String: Any] ?? [:]
        change(&plist)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url)
    }

    func testBeforeTheAppLogsInTheWidgetIsNotLoggedIn() async throws {
        _ = try launch(appURL)
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .notLoggedIn)
        XCTAssertEqual(report.state.exitCode, 10)
        XCTAssertNil(report.user)
        XCTAssertEqual(report.contacts, [])
    }

    func testAFlagWithNoCurrentUserIsAStaleFlagAndShowsNothing() async throws {
        try launch(appURL).dataSharing.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .notLoggedIn)
        XCTAssertTrue(report.message.contains("no current user"), report.message)
    }

    func testWithTheAppsFlagOffTheWidgetReadsItsOwnDefaultsAndSaysSo() async throws {
        try editPlist(widgetURL.appendingPathComponent("AppGroupConfig.plist")) { $0["appGroupsEnabled"] = false }
        try editPlist(appURL.appendingPathComponent("AppGroupConfig.plist")) { $0["appGroupsEnabled"] = false }
        try launch(appURL).dataSharing.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .notLoggedIn)
        XCTAssertTrue(report.message.contains("app groups are off"), report.message)
    }

    func testALockedKeychainIsKeychainUnavailable() async throws {
        let app = try launch(appURL)
        try app.dataSharing.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        keychain.setAvailability(.locked)
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .keychainUnavailable)
        XCTAssertEqual(report.state.exitCode, 12)
        XCTAssertTrue(report.message.contains("locked"), report.message)
    }

    func testAWidgetNotEntitledToTheAppGroupIsMisconfigured() async throws {
        try editPlist(widgetURL.appendingPathComponent("RecentContacts.entitlements")) {
            $0[Entitlements.applicationGroupsKey] = [String]()
        }
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertEqual(report.state.exitCode, 11)
        XCTAssertTrue(report.message.contains("com.apple.security.application-groups"), report.message)
    }

    func testAWidgetWithoutTheAppsKeychainGroupIsMisconfigured() async throws {
        try editPlist(widgetURL.appendingPathComponent("RecentContacts.entitlements")) {
            $0[Entitlements.keychainAccessGroupsKey] = ["$(AppIdentifierPrefix)com.other.group"]
        }
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertTrue(report.message.contains("SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"), report.message)
    }

    func testDifferentAppGroupNamesInTheTwoTargetsAreMisconfigured() async throws {
        try editPlist(widgetURL.appendingPathComponent("AppGroupConfig.plist")) { $0["appGroupName"] = "group.com.typo" }
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertTrue(report.message.contains("group.com.typo"), report.message)
    }

    func testAWidgetWithoutAppGroupConfigIsMisconfigured() async throws {
        try FileManager.default.removeItem(at: widgetURL.appendingPathComponent("AppGroupConfig.plist"))
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .misconfigured)
        XCTAssertTrue(report.message.contains("AppGroupConfig.plist"), report.message)
    }

    func testTheAppsKeptChoiceOverridesItsBundleAtLaterLaunches() throws {
        let first = try launch(appURL)
        try first.dataSharing.setAppGroupEnabled(false)
        try first.sandbox.standardDefaults.set(false, forKey: ProcessLaunch.appGroupsEnabledOverrideKey)
        XCTAssertFalse(try launch(appURL).dataSharing.appGroupEnabled(), "the bundle says on, the kept choice says off")
    }

    // MARK: logged in, with a token and a store

    /// alice logged in through the in-process org, and `contacts` saved into her store in this order
    /// (the last saved is the most recently modified).
    func loggedIn(_ org: OrgHarness, contacts: [String]) async throws -> SDKManager {
        let app = try launch(appURL)
        let sdk = SDKManager.initializeSDK(.smartStore, launch: app, events: SDKEvents())
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        try app.dataSharing.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        let store = try await sdk.userStore(for: alice)
        for (n, name) in contacts.enumerated() {
            _ = try store.upsert([["Id": .string("003LOCAL\(n)"), "FirstName": .string(name), "LastName": .string("Test")]], into: "contacts")
        }
        return sdk
    }

    func testALoggedInUserWithAStoreIsListedNewestFirst() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        _ = try await loggedIn(org, contacts: ["Ann", "Ben", "Cid", "Dee"])
        let report = try await widgetReport()
        XCTAssertEqual(report.state, .listed)
        XCTAssertEqual(report.state.exitCode, 0)
        XCTAssertEqual(report.user?.username, "alice@acme.test")
        XCTAssertEqual(report.contacts.map(\.FirstName), ["Dee", "Cid", "Ben"])
    }

    func testTheFlagUnsetOrFalseWhileAUserIsLoggedInWithATokenIsNotLoggedIn() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        _ = try await loggedIn(org, contacts: ["Ann"])
        let defaults = try launch(appURL).dataSharing.msdkUserDefaults()
        let baseline = try await widgetReport()
        XCTAssertEqual(baseline.state, .listed, "the baseline: flag set, user and token present")

        try defaults.set(false, forKey: "userLoggedIn")
        var report = try await widgetReport()
        XCTAssertEqual(report.state, .notLoggedIn, "the widget must check userLoggedIn before it bootstraps the SDK")
        XCTAssertEqual(report.contacts, [])
        XCTAssertNil(report.user)

        try defaults.removeObject(forKey: "userLoggedIn")
        report = try await widgetReport()
        XCTAssertEqual(report.state, .notLoggedIn)
        XCTAssertEqual(report.contacts, [])
    }

    func testTheWidgetOpensTheStoreReadOnlyAndNeverWritesIt() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try await loggedIn(org, contacts: ["Ann", "Ben"])
        let alice = try XCTUnwrap(try sdk.userAccountManager.currentUser())
        let file = try await sdk.storeManager().userDirectory(for: alice.storeUser).appendingPathComponent("stores/defaultStore/store.sqlite")
        SmartStore.checkpointOpenStores()
        let before = try Data(contentsOf: file)
        let widget = SDKManager.initializeSDK(.smartStore, launch: try launch(widgetURL), events: SDKEvents())
        await widget.userAccountManager.loadAccountKey()
        let store = try await XCTUnwrapAsync(try await widget.existingUserStore(for: alice))
        XCTAssertTrue(store.isReadOnly)
        XCTAssertThrowsError(try store.registerSoup("other", indexSpecs: [IndexSpec(path: "Id", type: .string)]), "a read-only store refuses writes")
        // While the app holds the writer's lock (a sync's transaction), the widget still lists at once:
        // it never asks for that lock. A widget that writes would wait out the busy timeout and fail.
        let app = try DatabaseQueue(path: file.path)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let writer = Thread {
            try? app.inTransaction(.immediate) { _ in
                holding.signal()
                release.wait()
                return .rollback
            }
        }
        writer.start()
        holding.wait()
        let report = await AppWidget.evaluateReporting(try launch(widgetURL))
        release.signal()
        XCTAssertEqual(report.state, .listed, report.message)
        XCTAssertEqual(try Data(contentsOf: file), before, "the widget changed the store file")
    }

    func testAStoreThatIsNotADatabaseIsUnreadableAndKept() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try await loggedIn(org, contacts: ["Ann"])
        let alice = try XCTUnwrap(try sdk.userAccountManager.currentUser())
        let file = try await sdk.storeManager().userDirectory(for: alice.storeUser).appendingPathComponent("stores/defaultStore/store.sqlite")
        SmartStore.checkpointOpenStores()
        let garbage = Data(repeating: 0x41, count: 8192)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        try garbage.write(to: file)
        let report = await AppWidget.evaluateReporting(try launch(widgetURL))
        XCTAssertEqual(report.state, .unreadable)
        XCTAssertEqual(report.state.exitCode, 13)
        XCTAssertTrue(report.message.contains(file.path), report.message)
        XCTAssertEqual(try Data(contentsOf: file), garbage, "the bad store must be kept as it was")
    }

    func testACorruptSuiteIsUnreadableNotACrash() async throws {
        let app = try launch(appURL)
        let suite = try app.dataSharing.msdkUserDefaults().url
        try FileManager.default.removeItem(at: suite)
        try FileManager.default.createDirectory(at: suite, withIntermediateDirectories: true)
        let report = await AppWidget.evaluateReporting(try launch(widgetURL))
        XCTAssertEqual(report.state, .unreadable)
        XCTAssertTrue(report.message.contains("is a directory where a file belongs"), report.message)
    }

    // MARK: Issue 25: team identity

    /// A copy of the fixture app signed by another team that names the victim's app group and keychain group
    /// literally: its widget read alice's account, tokens and contacts. Now the group belongs to the team that
    /// used it first and the keychain group to its team prefix: the attacker's widget gets nothing, the doctor
    /// names the bundle, and the victim's widget still lists.
    func testABundleOfAnotherTeamNamingTheVictimsGroupsGetsNothing() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        _ = try await loggedIn(org, contacts: ["Ann", "Ben", "Cid"])
        let evil = root.appendingPathComponent("Evil.app")
        try FileManager.default.copyItem(at: appURL, to: evil)
        let evilWidget = evil.appendingPathComponent("PlugIns/RecentContacts.appex")
        for (bundle, entitlements, id) in [
            (evil, "MobileSyncExplorer.entitlements", "com.evil.app"), (evilWidget, "RecentContacts.entitlements", "com.evil.app.RecentContacts"),
        ] {
            try editPlist(bundle.appendingPathComponent(entitlements)) {
                $0["com.apple.developer.team-identifier"] = "EVILTEAM01"
                $0[Entitlements.keychainAccessGroupsKey] = ["SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"]
            }
            try editPlist(bundle.appendingPathComponent("Info.plist")) { $0["CFBundleIdentifier"] = id }
        }
        let attacker = try launch(evilWidget)
        XCTAssertFalse(attacker.sandbox.keychainAccessGroups.contains("SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"))
        XCTAssertEqual(attacker.sandbox.keychainGroupsOfOtherTeams, ["SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer", "group.com.salesforce.mobilesdk.MobileSyncExplorer"])
        XCTAssertFalse(attacker.sandbox.isEntitled(toAppGroup: "group.com.salesforce.mobilesdk.MobileSyncExplorer"))
        XCTAssertThrowsError(try attacker.sandbox.groupContainer("group.com.salesforce.mobilesdk.MobileSyncExplorer")) {
            guard case AppGroupError.ownedByAnotherTeam(_, let owner, _, _) = $0 else { return XCTFail("\($0)") }
            XCTAssertEqual(owner, "SIMTEAM001")
        }
        let report = await AppWidget.evaluateReporting(attacker)
        XCTAssertNotEqual(report.state, .listed)
        XCTAssertNil(report.user)
        XCTAssertEqual(report.contacts.count, 0)
        let accounts = try? SDKManager.initializeSDK(.smartStore, launch: attacker, events: SDKEvents()).userAccountManager.allAccounts()
        XCTAssertEqual(accounts?.count ?? 0, 0, "no account of the victim's is readable")
        let findings = await Doctor.examine(app: evil.path, device: devicePath, secretStore: keychain)
        XCTAssertTrue(findings.contains { $0.id == "foreign-team-group" && $0.message.contains("EVILTEAM01") && $0.message.contains("belongs to team SIMTEAM001") }, "\(findings)")
        let victim = try await widgetReport()
        XCTAssertEqual(victim.state, .listed, "the victim's own widget still lists")
        let clean = await Doctor.examine(app: appURL.path, device: devicePath, secretStore: keychain)
        XCTAssertFalse(clean.contains { $0.id == "foreign-team-group" }, "\(clean)")
    }
}

func XCTUnwrapAsync<T>(_ value: T?, file: StaticString = #filePath, line: UInt = #line) async throws -> T {
    try XCTUnwrap(value, file: file, line: line)
}
