import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

/// AuthHelper, the screen lock and the login screen's configuration, against the in-process org.
final class AuthHelperTests: FixtureAppTestCase {

    func sdk(_ events: SDKEvents = SDKEvents()) throws -> SDKManager {
        let launch = try ProcessLaunch(bundlePath: appURL.path, devicePath: devicePath, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: events)
    }

    /// Records notifications and steps by name.
    final class Recorder: @unchecked Sendable {
        private let lock = NSLock()
        private var names: [String] = []
        var all: [String] { lock.withLock { names } }
        func add(_ name: String) { lock.withLock { names.append(name) } }
    }

    func testLoginLogoutAndSwitchInOneSceneResetEveryScene() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let auth = AuthHelper(sdk: sdk)
        let resets = Recorder()
        auth.registerBlock(forCurrentUserChangeNotifications: "left") { resets.add("left") }
        auth.registerBlock(forCurrentUserChangeNotifications: "right") { resets.add("right") }
        let accounts = sdk.userAccountManager

        let outcome = try await auth.loginIfRequired {
            AuthHelper.LoginEntry(loginHost: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        }
        XCTAssertEqual(outcome, .loggedIn("alice@acme.test"))
        XCTAssertEqual(resets.all.sorted(), ["left", "right"])

        let bob = try await accounts.login(org: org.baseURL, username: "bob@acme.test", password: "bob-pass", passcode: nil)
        let alice = try XCTUnwrap(try accounts.account(username: "alice@acme.test"))
        try accounts.switchToUser(alice)
        XCTAssertEqual(resets.all.count, 6, "login of bob and the switch each reset both scenes: \(resets.all)")

        auth.unregister(scene: "right")
        try await accounts.logout(alice)
        XCTAssertEqual(auth.lastLogout, .switched("bob@acme.test"), "one account left: handleLogout switches to it")
        XCTAssertEqual(try accounts.currentUser()?.identity, bob.identity)
        XCTAssertEqual(resets.all.suffix(1), ["left"], "a closed scene is not reset")
        XCTAssertTrue(try sdk.launch.dataSharing.msdkUserDefaults().value(forKey: "LastUserIdentity") != nil)

        try await accounts.logout(bob)
        XCTAssertEqual(auth.lastLogout, .loginRequired)
        XCTAssertNil(try accounts.currentUser())
    }

    func testHandleLogoutWithSeveralAccountsLeftShowsTheUserPicker() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let auth = AuthHelper(sdk: sdk)
        let accounts = sdk.userAccountManager
        _ = try await accounts.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        _ = try await accounts.login(org: org.baseURL, username: "bob@acme.test", password: "bob-pass", passcode: nil)
        let carol = try await accounts.login(org: org.baseURL, username: "carol@globex.test", password: "carol-pass", passcode: "1234")
        try await accounts.logout(carol)
        XCTAssertEqual(auth.lastLogout, .userPicker(["alice@acme.test", "bob@acme.test"]))
        XCTAssertNil(try accounts.currentUser(), "nobody is current until the user picks")
    }

    func testAValidTokenSkipsTheLoginScreen() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        _ = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let auth = AuthHelper(sdk: sdk)
        let shown = Recorder()
        let outcome = try await auth.loginIfRequired {
            shown.add("login screen")
            return nil
        }
        XCTAssertEqual(outcome, .alreadyLoggedIn("alice@acme.test"))
        XCTAssertEqual(shown.all, [])
    }

    func testACancelledLoginAndAnUnreachableOrgChangeNoUser() async throws {
        let events = SDKEvents()
        let seen = Recorder()
        events.observe(nil) { name, _ in seen.add(name.rawValue) }
        let auth = AuthHelper(sdk: try sdk(events))
        do {
            _ = try await auth.loginIfRequired { nil }
            XCTFail("a cancelled login returned")
        } catch let error as SDKError {
            XCTAssertEqual(error, .loginCancelled)
        }
        do {
            _ = try await auth.loginIfRequired {
                AuthHelper.LoginEntry(loginHost: URL(string: "http://127.0.0.1:1")!, username: "alice@acme.test", password: "alice-pass", passcode: nil)
            }
            XCTFail("an unreachable org logged in")
        } catch let error as SDKError {
            guard case .orgUnreachable(let detail) = error else { return XCTFail("\(error)") }
            XCTAssertTrue(detail.contains("127.0.0.1:1"), detail)
        }
        XCTAssertFalse(seen.all.contains(SDKNotification.didChangeCurrentUser.rawValue), "\(seen.all)")
        XCTAssertFalse(seen.all.contains(SDKNotification.userDidLogIn.rawValue))
        XCTAssertEqual(try auth.sdk.userAccountManager.allAccounts(), [])
    }

    func testWithShouldAuthenticateOffLoginIsLeftToTheApp() async throws {
        let url = appURL.appendingPathComponent("bootconfig.plist")
        var plist = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as! [String: Any]
        plist["shouldAuthenticate"] = false
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url)
        let outcome = try await AuthHelper(sdk: try sdk()).loginIfRequired {
            XCTFail("the login screen was shown")
            return nil
        }
        XCTAssertEqual(outcome, .deferred)
    }

    func testThePasscodeIsKeptHashedAndAskedForAfterTheTimeout() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        _ = try await accounts.login(org: org.baseURL, username: "carol@globex.test", password: "carol-pass", passcode: "2468")
        let lock = accounts.screenLock
        XCTAssertEqual(try lock.policy(), ScreenLock.Policy(pinLength: 4, timeoutMinutes: 1))
        let read = await sdk.launch.keychain.read(service: ScreenLock.passcodeService, account: "")
        let stored = try XCTUnwrap(read.data)
        XCTAssertNil(String(decoding: stored, as: UTF8.self).range(of: "2468"), "the passcode itself is not stored")
        XCTAssertFalse(try lock.isLocked(), "just unlocked by the login")
        XCTAssertTrue(try lock.isLocked(now: Date().addingTimeInterval(61)), "idle past screen_lock (1 minute)")

        // A second account under the same policy must give the same passcode.
        do {
            _ = try await accounts.login(org: org.baseURL, username: "carol@globex.test", password: "carol-pass", passcode: "1111")
            XCTFail("a different passcode was accepted")
        } catch let error as SDKError {
            XCTAssertEqual(error, .passcodeWrong(attemptsLeft: 9))
        }
    }

    func testTenWrongPasscodesLogOutTheUsersUnderThePolicy() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        _ = try await accounts.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        _ = try await accounts.login(org: org.baseURL, username: "carol@globex.test", password: "carol-pass", passcode: "2468")
        let lock = accounts.screenLock
        for attempt in 1...9 {
            do {
                try await lock.unlock("0000", events: sdk.events)
                XCTFail("a wrong passcode unlocked")
            } catch let error as SDKError {
                XCTAssertEqual(error, .passcodeWrong(attemptsLeft: 10 - attempt))
            }
        }
        do {
            try await lock.unlock("0000", events: sdk.events)
            XCTFail("a wrong passcode unlocked")
        } catch let error as SDKError {
            XCTAssertEqual(error, .screenLockExhausted(loggedOut: ["carol@globex.test"]))
        }
        XCTAssertEqual(try accounts.allAccounts().map(\.username), ["alice@acme.test"])
        XCTAssertNil(try lock.policy())
        let after = await sdk.launch.keychain.read(service: ScreenLock.passcodeService, account: "")
        XCTAssertEqual(after.status, .itemNotFound)
    }

    func testTheLoginScreenConfigurationComesFromTheBundle() throws {
        let bundle = try AppBundle(at: appURL)
        let config = try LoginViewConfig.load(from: bundle)
        XCTAssertEqual(config.title, "MobileSyncExplorer")
        XCTAssertEqual(config.navBarColor, "#032D60")
        XCTAssertEqual(config.navBarFontName, "Helvetica-Bold")
        XCTAssertEqual(config.navBarFontSize, 18)
        let bar = config.renderBar(loginHost: URL(string: "http://127.0.0.1:9")!, ansi: true)
        XCTAssertTrue(bar.contains("\u{1B}[1;38;2;255;255;255;48;2;3;45;96m"), "bold white on #032D60: \(bar.debugDescription)")
        XCTAssertTrue(bar.contains("⚙"))

        var hidden = config
        hidden.showsNavigationBar = false
        hidden.showsSettingsIcon = false
        let plain = hidden.renderBar(loginHost: URL(string: "http://127.0.0.1:9")!, ansi: true)
        XCTAssertFalse(plain.contains("MobileSyncExplorer") || plain.contains("⚙") || plain.contains("settings"), plain)

        let url = appURL.appendingPathComponent(LoginViewConfig.fileName)
        try Data(String(decoding: Data(contentsOf: url), as: UTF8.self).replacingOccurrences(of: "#032D60", with: "navy").utf8).write(to: url)
        XCTAssertThrowsError(try LoginViewConfig.load(from: try AppBundle(at: appURL))) { error in
            XCTAssertTrue("\(error)".contains("navBarColor"), "\(error)")
        }
    }

    func testALockedKeychainAtLaunchKeepsTheAccountsUnlessTheSDKsRecoveryIsAskedFor() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        let alice = try await accounts.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let untouched = try await accounts.verifyAtLaunch(recovery: .keepFiles)
        XCTAssertEqual(untouched, [], "an unlocked keychain changes nothing")

        // Each launch below is a new process: its own manager, which has not read the account key yet.
        keychain.setAvailability(.locked)
        let locked = try self.sdk().userAccountManager
        do {
            try await locked.verifyAtLaunch(recovery: .keepFiles)
            XCTFail("a locked keychain at launch went unnoticed")
        } catch let error as SDKError {
            XCTAssertEqual(error, .keychainLockedAtLaunch(accounts: 1))
            XCTAssertTrue(error.description.contains("nothing was deleted"))
        }
        XCTAssertThrowsError(try locked.allAccounts(), "the account file is sealed with a key the locked keychain keeps")
        keychain.setAvailability(.ready)
        let unlocked = try self.sdk().userAccountManager
        try await unlocked.verifyAtLaunch(recovery: .keepFiles)
        XCTAssertEqual(try unlocked.allAccounts().map(\.username), ["alice@acme.test"])
        XCTAssertEqual(try unlocked.currentUser()?.identity, alice.identity)

        keychain.setAvailability(.locked)
        let recovering = try self.sdk().userAccountManager
        let deleted = try await recovering.verifyAtLaunch(recovery: .sdkDestructive)
        XCTAssertEqual(deleted, [alice.identity.description], "the SDK could not decrypt the file, so it deleted it")
        keychain.setAvailability(.ready)
        let after = try self.sdk().userAccountManager
        await after.loadAccountKey()
        XCTAssertEqual(try after.allAccounts(), [])
        XCTAssertNil(try after.currentUser())
    }
}
