import AppGroup
import CoreEngine
import Foundation

/// The SDK's `AuthHelper`: the app's entry points to login and logout, and the blocks it registers
/// to reset its UI when the current user changes. With scenes (several windows of one app), a login,
/// logout or switch in one scene applies to every scene, and each scene's registered block runs so
/// that scene can reset its root. Nothing authenticates until `loginIfRequired` is called.
package final class AuthHelper: @unchecked Sendable {
    package typealias Block = @Sendable () -> Void

    /// What `handleLogout` did.
    package enum LogoutOutcome: Equatable, Sendable {
        /// Several accounts are left: the SDK shows its user picker; nobody is current until one is chosen.
        case userPicker([String])
        /// Exactly one account was left, and it is now the current user.
        case switched(String)
        /// No account is left: back to the login screen (`loginIfRequired`).
        case loginRequired
    }

    /// How `loginIfRequired` got to a current user, or why it did not.
    package enum LoginOutcome: Equatable, Sendable {
        /// The current user has a token: authentication skipped (and the screen lock passed).
        case alreadyLoggedIn(String)
        /// A new login through the login screen.
        case loggedIn(String)
        /// `shouldAuthenticate` is false in bootconfig.plist: the app logs in later by itself.
        case deferred
    }

    /// Where the login screen gets what the user types, nil for "cancelled".
    package struct LoginEntry: Sendable {
        package var loginHost: URL
        package var username: String
        package var password: String
        package var passcode: String?

        package init(loginHost: URL, username: String, password: String, passcode: String?) {
            self.loginHost = loginHost
            self.username = username
            self.password = password
            self.passcode = passcode
        }
    }

    private enum Kind { case logout, switchUser, login }

    package let sdk: SDKManager
    private let lock = NSLock()
    private var blocks: [(kind: Kind, scene: String?, block: Block)] = []
    private var lastLogoutOutcome: LogoutOutcome?

    package init(sdk: SDKManager) {
        self.sdk = sdk
        sdk.events.observe(.userDidLogout) { [weak self] _, _ in self?.didLogout() }
        sdk.events.observe(.userDidSwitch) { [weak self] _, _ in self?.run(.switchUser) }
        sdk.events.observe(.userDidLogIn) { [weak self] _, _ in self?.run(.login) }
    }

    var accounts: UserAccountManager { sdk.userAccountManager }

    // MARK: registering blocks

    /// Logout and switch: the SDK's `registerBlock(forCurrentUserChangeNotifications:)`.
    package func registerBlock(forCurrentUserChangeNotifications block: @escaping Block) {
        registerBlock(forLogoutNotifications: block)
        registerBlock(forSwitchUserNotifications: block)
    }

    /// Called after a logout, once `handleLogout` has switched to the remaining account, if any.
    package func registerBlock(forLogoutNotifications block: @escaping Block) { add(.logout, nil, block) }

    package func registerBlock(forSwitchUserNotifications block: @escaping Block) { add(.switchUser, nil, block) }

    /// The scene variant: `block` resets `scene`'s root after a login, logout or switch made in any scene.
    package func registerBlock(forCurrentUserChangeNotifications scene: String, block: @escaping Block) {
        add(.logout, scene, block)
        add(.switchUser, scene, block)
        add(.login, scene, block)
    }

    package func registerBlock(forLogoutNotifications scene: String, block: @escaping Block) { add(.logout, scene, block) }

    package func registerBlock(forSwitchUserNotifications scene: String, block: @escaping Block) { add(.switchUser, scene, block) }

    /// A closed scene's blocks go away with it.
    package func unregister(scene: String) {
        lock.withLock { blocks.removeAll { $0.scene == scene } }
    }

    private func add(_ kind: Kind, _ scene: String?, _ block: @escaping Block) {
        lock.withLock { blocks.append((kind, scene, block)) }
    }

    private func run(_ kind: Kind) {
        let matching = lock.withLock { blocks.filter { $0.kind == kind }.map(\.block) }
        for block in matching { block() }
    }

    // MARK: login and logout

    /// The SDK's `loginIfRequired`: a current user with a token skips authentication (then the screen
    /// lock, when a policy applies); otherwise the login screen, unless `shouldAuthenticate` is off.
    /// A cancelled login, a failed passcode or an unreachable org fire an internal event, change no
    /// user, and return control to the app with the error.
    package func loginIfRequired(
        passcode: String? = nil, loginScreen: () async throws -> LoginEntry?
    ) async throws -> LoginOutcome {
        let events = sdk.events
        events.step("loginIfRequired")
        if let current = try accounts.currentUser(), try await accounts.isLoggedIn(current) {
            events.step("validToken", ["user": current.identity.description])
            let screenLock = accounts.screenLock
            if try screenLock.isLocked() { try await screenLock.unlock(passcode, events: events) } else { try screenLock.touch() }
            return .alreadyLoggedIn(current.username)
        }
        let boot = try BootConfig.load(from: sdk.launch.sandbox.bundle)
        guard boot.shouldAuthenticate else {
            events.step("deferredLogin")
            return .deferred
        }
        events.step("showLoginScreen")
        guard let entry = try await loginScreen() else {
            events.step("loginCancelled")
            throw SDKError.loginCancelled
        }
        let account = try await accounts.login(org: entry.loginHost, username: entry.username, password: entry.password, passcode: entry.passcode)
        return .loggedIn(account.username)
    }

    /// The SDK's `handleLogout`: more than one account left → the user picker; exactly one → switch to
    /// it; none → the login screen. Runs by itself on did-logout; returns what it did last.
    @discardableResult
    package func handleLogout() throws -> LogoutOutcome {
        let left = try accounts.allAccounts()
        let outcome: LogoutOutcome
        switch left.count {
        case 0: outcome = .loginRequired
        case 1:
            outcome = .switched(left[0].username)
            if try accounts.currentUser()?.identity != left[0].identity {
                // No current user after a logout: the SDK sets the remaining one as current.
                try accounts.setCurrentUser(left[0])
            }
        default: outcome = .userPicker(left.map(\.username))
        }
        sdk.events.step("handleLogout", ["outcome": "\(outcome)"])
        lock.withLock { lastLogoutOutcome = outcome }
        return outcome
    }

    /// What the last `handleLogout` (run on did-logout) decided.
    package var lastLogout: LogoutOutcome? { lock.withLock { lastLogoutOutcome } }

    private func didLogout() {
        _ = try? handleLogout()
        run(.logout)
    }
}
