import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

/// `AuthHelper` as a developer's code calls it (issue 35, item 4): the SDK's `handleLogout` and
/// `loginIfRequired`, the same as `main-app` runs them, because the face only translates to the engine.
final class AuthHelperFaceTests: XCTestCase {
    var root: URL!
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    func loggedIn(_ usernames: [(String, String)]) async throws -> (SimulatedDevice, SimulatedOrg) {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        for (username, password) in usernames {
            // Globex's connected app asks for a screen-lock passcode.
            try await device.logIn(app: app, org: org, username: username, password: password, passcode: username.hasSuffix("globex.test") ? "1234" : nil)
        }
        return (device, org)
    }

    /// "If there is one existing account, automatically switch to that account" (SFSDKAuthHelper): after a logout
    /// that leaves one account, the developer's code has a current user again, as `main-app` has.
    func testHandleLogoutSwitchesToTheOneAccountLeft() async throws {
        let (device, org) = try await loggedIn([("alice@acme.test", "alice-pass"), ("bob@acme.test", "bob-pass")])
        defer { Task { await org.stop() } }
        let (current, ran) = try device.run(as: app) { () -> (String?, Bool) in
            XCTAssertEqual(UserAccountManager.shared.currentUserAccount?.idData.username, "bob@acme.test")
            UserAccountManager.shared.logout()
            XCTAssertNil(UserAccountManager.shared.currentUserAccount, "the logout clears the current user")
            var ran = false
            AuthHelper.handleLogout { ran = true }
            return (UserAccountManager.shared.currentUserAccount?.idData.username, ran)
        }
        XCTAssertEqual(current, "alice@acme.test")
        XCTAssertTrue(ran)
    }

    /// Several accounts left: the SDK shows its user picker, and nobody is made current.
    func testHandleLogoutLeavesThePickToTheUserWhenSeveralAccountsAreLeft() async throws {
        let (device, org) = try await loggedIn([("alice@acme.test", "alice-pass"), ("bob@acme.test", "bob-pass"), ("carol@globex.test", "carol-pass")])
        defer { Task { await org.stop() } }
        let current = try device.run(as: app) { () -> String? in
            UserAccountManager.shared.logout()
            AuthHelper.handleLogout {}
            return UserAccountManager.shared.currentUserAccount?.idData.username
        }
        XCTAssertNil(current)
    }

    /// `loginIfRequired`: a current user skips the login (its completion runs); none, with `shouldAuthenticate`,
    /// is the login screen (no completion here, where there is no UI); `shouldAuthenticate` off runs it.
    func testLoginIfRequiredRunsItsCompletionOnlyWhenTheSDKWould() async throws {
        let (device, org) = try await loggedIn([("alice@acme.test", "alice-pass")])
        defer { Task { await org.stop() } }
        XCTAssertTrue(try device.run(as: app) { () -> Bool in
            var ran = false
            AuthHelper.loginIfRequired { ran = true }
            return ran
        }, "a current user with a session")
        XCTAssertFalse(try device.run(as: app) { () -> Bool in
            UserAccountManager.shared.logout()
            var ran = false
            AuthHelper.loginIfRequired { ran = true }
            return ran
        }, "no user: the login screen, no completion")
        let boot = app.appendingPathComponent("bootconfig.plist")
        var config = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: boot), format: nil) as? [String: Any])
        config["shouldAuthenticate"] = false
        try PropertyListSerialization.data(fromPropertyList: config, format: .xml, options: 0).write(to: boot)
        XCTAssertTrue(try device.run(as: app) { () -> Bool in
            var ran = false
            AuthHelper.loginIfRequired { ran = true }
            return ran
        }, "shouldAuthenticate off: the app logs in later by itself")
    }
}
