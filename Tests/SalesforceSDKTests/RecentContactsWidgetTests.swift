import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

@testable import SalesforceSDK

/// The widget's launch checks, in the sample's order, with the keychain double.
final class RecentContactsWidgetTests: XCTestCase {
    var root: URL!
    var devicePath: String!
    let keychain = InMemorySecretStore()

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        devicePath = root.appendingPathComponent("device").path
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: appURL)
    }

    var appURL: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    var widgetURL: URL { appURL.appendingPathComponent("PlugIns/RecentContacts.appex") }

    func launch(_ bundle: URL) throws -> ProcessLaunch {
        try ProcessLaunch(bundlePath: bundle.path, devicePath: devicePath, secretStore: keychain)
    }

    func widgetReport() async throws -> RecentContactsWidget.Report {
        try await RecentContactsWidget.evaluate(try launch(widgetURL))
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
}
