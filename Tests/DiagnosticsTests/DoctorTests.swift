import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import CoreEngine
@testable import CoreNetworkEngine
import XCTest

import AppExtensions
@testable import Diagnostics

/// Every broken fixture gives exactly its own finding; the good fixture gives none; device states
/// built with the SDK's own code give theirs.
final class DoctorTests: XCTestCase {
    static var broken: URL { TestSupport.packageRoot.appendingPathComponent("Fixtures/broken") }

    func testTheGoodFixtureHasNoFinding() async throws {
        let findings = await Doctor.examine(app: TestSupport.fixtureApp.path)
        XCTAssertEqual(findings, [])
    }

    func testEachBrokenFixtureGivesExactlyItsFinding() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.broken.path).filter { !$0.hasSuffix(".md") }.sorted()
        XCTAssertGreaterThanOrEqual(names.count, 15)
        for name in names {
            let app = Self.broken.appendingPathComponent(name).appendingPathComponent("MobileSyncExplorer.app")
            let findings = await Doctor.examine(app: app.path)
            XCTAssertEqual(findings.map(\.id), [name], "\(name): \(findings)")
            for finding in findings {
                XCTAssertFalse(finding.message.isEmpty || finding.fix.isEmpty, "\(finding)")
            }
        }
    }

    /// One evaluation: wherever the doctor finds an error about the widget (or the app's setup it
    /// follows), the widget's own launch check is `misconfigured` with that finding's words; where
    /// the doctor finds only warnings or nothing, the launch check lets the widget go on.
    func testTheWidgetsLaunchCheckIsTheDoctorsEvaluation() async throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.broken.path).filter { !$0.hasSuffix(".md") }.sorted()
        var compared = 0
        for name in names {
            let app = Self.broken.appendingPathComponent(name).appendingPathComponent("MobileSyncExplorer.app")
            guard let widget = try? FileManager.default.contentsOfDirectory(atPath: app.appendingPathComponent("PlugIns").path).first(where: { $0 == "RecentContacts.appex" }) else { continue }
            let device = try TestSupport.temporaryDirectory(self).appendingPathComponent("device-\(name)")
            guard let launch = try? ProcessLaunch(
                bundlePath: app.appendingPathComponent("PlugIns/\(widget)").path, devicePath: device.path, secretStore: InMemorySecretStore())
            else { continue }
            let report = await AppWidget.evaluateReporting(launch)
            // Findings about another extension (the notification service) or the app alone do not stop the widget.
            let errors = await Doctor.examine(app: app.path).filter {
                $0.severity == .error && !["config-invalid", "bundle-invalid"].contains($0.id) && ($0.subject == nil || $0.subject == widget)
            }
            if let first = errors.first {
                XCTAssertEqual(report.state, .misconfigured, "\(name): the doctor says \(first.id)")
                XCTAssertTrue(report.message.hasPrefix(first.message), "\(name): \(report.message) vs \(first.message)")
                compared += 1
            } else {
                XCTAssertNotEqual(report.state, .misconfigured, "\(name): \(report.message)")
            }
        }
        XCTAssertGreaterThanOrEqual(compared, 8)
    }

    // MARK: device states

    var root: URL!
    let keychain = InMemorySecretStore()

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
    }

    var device: String { root.appendingPathComponent("device").path }

    func launch(_ bundle: URL = TestSupport.fixtureApp) throws -> ProcessLaunch {
        try ProcessLaunch(bundlePath: bundle.path, devicePath: device, secretStore: keychain)
    }

    func deviceFindings() async -> [String] {
        await Doctor.examine(app: TestSupport.fixtureApp.path, device: device, secretStore: keychain).map(\.id)
    }

    /// An account file as a login writes it, with or without its tokens.
    func storeAccount(_ launch: ProcessLaunch, tokens: Bool) async throws -> UserAccount {
        let credentials = OAuthCredentials(
            clientId: "3MVG9AppGroupSim.MobileSyncExplorer.Sample", redirectURI: "testsfdc:///mobilesdk/detect/oauth/done",
            loginHost: URL(string: "http://127.0.0.1:1")!, instanceURL: URL(string: "http://127.0.0.1:1")!,
            identityURL: URL(string: "http://127.0.0.1:1/id/00D5g00000AcmeeEAA/0055g00000AliceAAA")!,
            orgId: "00D5g00000AcmeeEAA", userId: "0055g00000AliceAAA", keychainAccount: "test-alice")
        let account = UserAccount(credentials: credentials, username: "alice@acme.test", displayName: "Alice", email: "alice@acme.test")
        let manager = UserAccountManager(launch: launch, events: SDKEvents())
        try await manager.ensureAccountKey()
        try manager.files.save(account)
        try manager.setCurrentUser(account)
        if tokens { try await manager.tokens(account).save(accessToken: "a", refreshToken: "r") }
        return account
    }

    func testAFreshDeviceHasNoFinding() async throws {
        let findings = await deviceFindings()
        XCTAssertEqual(findings, [])
    }

    func testALoggedInDeviceHasNoFinding() async throws {
        _ = try await storeAccount(try launch(), tokens: true)
        let findings = await deviceFindings()
        XCTAssertEqual(findings, [])
    }

    func testAStaleLoginFlag() async throws {
        let app = try launch()
        try app.dataSharing.msdkUserDefaults().set(true, forKey: "userLoggedIn")
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["stale-login-flag"])
    }

    func testAnAccountWithoutTokens() async throws {
        _ = try await storeAccount(try launch(), tokens: false)
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["account-without-tokens"])
    }

    func testAppGroupsOffOnTheDevice() async throws {
        let app = try launch()
        try app.dataSharing.setAppGroupEnabled(false)
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["device-app-groups-off"])
    }

    func testAMissingGroupContainer() async throws {
        let app = try launch()
        try FileManager.default.removeItem(at: app.sandbox.device.sharedContainer(groupID: "group.com.salesforce.mobilesdk.MobileSyncExplorer"))
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["group-container-missing"])
    }

    func testAccountFilesStrandedInTheAppsContainer() async throws {
        let app = try launch()
        // Where the SDK keeps accounts with app groups off: Library/<bundle id>/<org>/<user>.
        let stray = app.sandbox.dataContainer.appendingPathComponent("Library/\(app.sandbox.bundleIdentifier)/00D5g00000AcmeeEAA/0055g00000AliceAAA/UserAccount.plist")
        try SecureFiles.writeAtomically(Data("<plist/>".utf8), to: stray)
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["stranded-account-files"])
    }

    func testALockedKeychainIsSaidNotGuessed() async throws {
        _ = try await storeAccount(try launch(), tokens: true)
        keychain.setAvailability(.locked)
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["keychain-unavailable"])
    }

    /// The account files are sealed with a key that is in no keychain group the app may read (the
    /// keychain was reset, or the app's keychain group changed): the SDK would make a new key and delete
    /// them; the doctor says so before anything runs.
    func testAnAccountFileWhoseKeyIsGone() async throws {
        _ = try await storeAccount(try launch(), tokens: true)
        XCTAssertTrue(try keychain.delete(["service": AccountEncryption.keyService]))
        let findings = await deviceFindings()
        XCTAssertEqual(findings, ["account-key-missing"])
    }

    /// The IDP fixtures: both apps clean; the client app on a device without its identity provider gets a
    /// warning, gone once the IDP app is installed.
    func testTheIDPFixturesAreCleanAndAClientWithoutItsIdentityProviderIsWarned() async throws {
        let idpRoot = TestSupport.packageRoot.appendingPathComponent("Fixtures/IDP")
        let companyLogin = await Doctor.examine(app: idpRoot.appendingPathComponent("CompanyLogin.app").path)
        let fieldSalesBundle = await Doctor.examine(app: idpRoot.appendingPathComponent("FieldSales.app").path)
        XCTAssertEqual(companyLogin, [])
        XCTAssertEqual(fieldSalesBundle, [])
        let device = try TestSupport.temporaryDirectory(self).appendingPathComponent("device")
        let fieldSales = idpRoot.appendingPathComponent("FieldSales.app").path
        let apps = DeviceApps(device: try Device.open(at: device))
        try apps.install(try AppBundle(at: URL(fileURLWithPath: fieldSales)))
        let without = await Doctor.examine(app: fieldSales, device: device.path, secretStore: InMemorySecretStore()).map(\.id)
        XCTAssertEqual(without, ["idp-app-not-installed"])
        try apps.install(try AppBundle(at: idpRoot.appendingPathComponent("CompanyLogin.app")))
        let with = await Doctor.examine(app: fieldSales, device: device.path, secretStore: InMemorySecretStore()).map(\.id)
        XCTAssertEqual(with, [])
    }

    /// An idpAppURIScheme that is no URL scheme (a space in it) trapped the doctor building its URL: now a finding.
    func testAnIDPSchemeThatIsNoSchemeIsAFindingNotACrash() async throws {
        let work = try TestSupport.temporaryDirectory(self)
        let app = work.appendingPathComponent("FieldSales.app")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/IDP/FieldSales.app"), to: app)
        let boot = app.appendingPathComponent("bootconfig.plist")
        var plist = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: boot), format: nil) as? [String: Any])
        plist["idpAppURIScheme"] = "company login"
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: boot)
        let findings = await Doctor.examine(app: app.path, device: work.appendingPathComponent("device").path, secretStore: InMemorySecretStore())
        XCTAssertEqual(findings.map(\.id), ["idp-scheme-invalid"])
    }
}
