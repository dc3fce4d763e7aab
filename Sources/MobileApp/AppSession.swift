import AppGroup
import Foundation
import Keychain
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

/// How the app is launched: what `main-app`'s options say, for a process or an in-process test alike.
package struct AppLaunchOptions: Sendable {
    /// The app bundle (`.app` directory).
    package var bundle: String
    /// The device directory (nil: `$APPGROUPSIM_DEVICE`).
    package var device: String?
    /// The org's URL for login; nil: the bundle's `bootconfig.plist` login host.
    package var org: String?
    /// Where the launch steps and SDK notifications go as JSON lines.
    package var trace: String?
    /// The screen-lock passcode, when a policy applies.
    package var passcode: String?
    /// Recover as the real SDK does: delete accounts that cannot be read at launch.
    package var sdkRecovery: Bool
    /// A Secret Service other than libsecret's (tests use the in-memory double).
    package var secretStore: (any SecretStore)?
    /// Add to `trace` instead of starting it afresh (an app launched to handle another app's URL).
    package var appendTrace = false
    /// Make `device` a device even when it is a directory AppGroupSim did not make (`--init`).
    package var initDevice = false
    /// A background launch (a background fetch, a prewarm, `main-app --background`): no UI, in any lock state.
    /// A foreground launch needs an unlocked device, as a user opens an app only after unlocking it.
    package var background = false

    package init(bundle: String, device: String? = nil, org: String? = nil, trace: String? = nil, passcode: String? = nil,
                sdkRecovery: Bool = false, secretStore: (any SecretStore)? = nil) {
        self.bundle = bundle
        self.device = device
        self.org = org
        self.trace = trace
        self.passcode = passcode
        self.sdkRecovery = sdkRecovery
        self.secretStore = secretStore
    }
}

/// A failure that is not about the arguments: one line for the user, exit status 1.
package struct AppError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ message: String) { description = message }
}

/// One launch of the app as its bundle configures it: app group applied before `initializeSDK`, the
/// SDK initialized, and the sample's `userLoggedIn` writer registered, so that the flag in
/// msdkUserDefaults always equals "there is a current user" after every current-user change.
package final class AppSession: @unchecked Sendable {
    package let launch: ProcessLaunch
    package let events: SDKEvents
    package let sdk: SDKManager
    package let auth: AuthHelper
    /// The login host: `--org`, else the boot config's.
    package let org: URL?
    package let options: AppLaunchOptions
    /// Held for the life of the session: one instance of the app per device.
    private let instance: AppInstanceLock

    private init(_ options: AppLaunchOptions) throws {
        self.options = options
        events = SDKEvents(traceFile: options.trace, append: options.appendTrace)
        // Taken before ProcessLaunch, which already writes (it applies the bundle's app-group settings).
        let bundle = try AppBundle(at: URL(fileURLWithPath: options.bundle))
        let sandbox = AppSandbox(device: try Device.resolve(path: options.device, initialize: options.initDevice), bundle: bundle)
        try sandbox.checkContainers()
        instance = try AppInstanceLock(sandbox: sandbox)
        launch = try ProcessLaunch(bundlePath: options.bundle, devicePath: options.device, secretStore: options.secretStore, initializeDevice: options.initDevice)
        events.step("appGroupConfigApplied", ["enabled": String(try launch.dataSharing.appGroupEnabled())])
        sdk = SDKManager.initializeSDK(.mobileSync, launch: launch, events: events)
        org = options.org.flatMap(URL.init(string:)) ?? (try? BootConfig.load(from: launch.sandbox.bundle))?.loginHost
        auth = AuthHelper(sdk: sdk)
        let accounts = sdk.userAccountManager
        let launch = self.launch
        events.observe(.didChangeCurrentUser) { _, _ in Self.resetUserLoginStatus(launch, accounts) }
    }

    /// The sample's `resetUserloginStatus` (its AppDelegate): `userLoggedIn` in msdkUserDefaults is whether there is a
    /// current user. It runs on every current-user change, and in `loginIfRequired`'s completion at every launch.
    private static func resetUserLoginStatus(_ launch: ProcessLaunch, _ accounts: UserAccountManager) {
        let loggedIn = (try? accounts.currentUser()) != nil
        try? launch.dataSharing.msdkUserDefaults().set(.bool(loggedIn), forKey: launch.userLogInStatusKey)
    }

    /// `loginIfRequired`'s completion as the sample's `application(_:didFinishLaunchingWithOptions:)` passes it: with
    /// a current user that has a token there is no login screen, and the completion runs at once, writing the flag
    /// again. So a flag that a launch killed before it wrote it (a login ended between the account and the flag) is
    /// right again at the next launch, as on a phone.
    package func loginIfRequiredCompleted() async {
        guard let current = try? accounts.currentUser(), (try? await accounts.isLoggedIn(current)) == true else { return }
        Self.resetUserLoginStatus(launch, accounts)
    }

    /// Launches the app. Before anything changes it waits for any other instance of this app on the
    /// device, then checks the keychain: unusable, it stops with one message and nothing changed
    /// (unless `sdkRecovery`). `unlock`: the screen lock is shown (and must be passed with the
    /// passcode) when a policy applies. `requireKeychain`: false only for the status report, which
    /// reports a keychain it cannot use instead of stopping.
    /// `finishLaunching`: false for the shell, whose `login-if-required` command is the sample's launch.
    package static func start(
        _ options: AppLaunchOptions, unlock: Bool = true, requireKeychain: Bool = true, finishLaunching: Bool = true,
        note: @escaping @Sendable (String) -> Void = { _ in }
    ) async throws -> AppSession {
        let session = try AppSession(options)
        if !options.background {
            let device = session.launch.sandbox.device
            let state = try device.lockState()
            guard state == .unlocked else {
                throw AppError(
                    "the device is \(state.rawValue): a user opens the app only after unlocking it; run msdk-sim device unlock --device \(device.root.path), "
                        + "or give main-app --background for a background launch (a background fetch, a prewarm), which sees only what iOS lets it see while \(state.rawValue)")
            }
        }
        // The SDK manager's init runs the SDK's upgrade steps; a step the device's state does not allow stops it,
        // to run again at the next launch.
        if case .aborted(_, let reason) = await SDKUpgrade.run(
            session.launch, events: session.events, appSetsAccessibility: session.launch.config?.keychainAccessibility != nil)
        {
            note("the SDK's upgrade to \(SDKUpgrade.currentVersion) did not run: \(reason); it runs again at the next launch")
        }
        // The class the bundle sets (AppGroupConfig.plist's keychainAccessibility), as an AppDelegate calls
        // KeychainHelper.setAccessibleAttribute at launch: the SDK's items are saved again with it. Only in the
        // foreground (unlocked); none made yet is fine.
        if !options.background, session.launch.config?.keychainAccessibility != nil {
            let keychain = session.launch.keychain
            let result = await keychain.setAccessibility(keychain.accessibility)
            if !result.success, result.status != .itemNotFound, let error = result.error { note("keychain class not applied: \(error.message)") }
        }
        // The app's own code at its first launch after an install: the status report runs it too when the keychain
        // can be used (it is a launch of the app like any other, as LaunchPreparation says; msdk-sim explore's
        // relaunch is one).
        let keychainUsable = try await LaunchPreparation.run(
            session.launch, accounts: session.accounts, recovery: options.sdkRecovery ? .sdkDestructive : .keepFiles,
            requireKeychain: requireKeychain, note: note)
        if keychainUsable, session.launch.config?.revokeTokensOfPreviousInstall == true {
            let leftover = try await session.accounts.revokeTokensOfPreviousInstall(loginHost: options.org.flatMap(URL.init(string:)))
            if !leftover.revoked.isEmpty {
                note("revoked at the org and removed the tokens of \(leftover.revoked.count) session(s) a previous install of the app left in the keychain (revokeTokensOfPreviousInstall)")
            }
            if !leftover.kept.isEmpty {
                note("\(leftover.kept.count) session(s) a previous install left in the keychain could not be revoked yet (no --org, or the org is unreachable); they are kept and tried again at the next launch")
            }
        }
        // The sample's didFinishLaunching: loginIfRequired, then its completion (the status report too: it is a launch).
        if finishLaunching, keychainUsable { await session.loginIfRequiredCompleted() }
        guard keychainUsable else { return session }
        if requireKeychain {
            if try await session.screenLock.checkForScreenLockUsers() {
                session.events.step("screenLockPasscodeForgotten", ["why": "no account on the device needs it (keychain values outlive the app)"])
                note("the screen-lock passcode left in the keychain was forgotten: no account on this device needs it (the app was removed and installed again, as SalesforceSDKManager's checkForScreenLockUsers does)")
            }
            if unlock { try await session.unlockIfNeeded(options.passcode) }
        }
        // As the SDK at each launch (the status report's too, when the keychain can be used): the current user's
        // device is registered for notifications again when its token changed or an earlier registration failed, or
        // a login was killed before it registered (no request otherwise).
        if let account = try? session.accounts.currentUser() {
            await PushNotificationManager(launch: session.launch, events: session.sdk.userAccountManager.events).registerIfNeeded(account)
        }
        return session
    }

    package var accounts: UserAccountManager { sdk.userAccountManager }

    package func currentAccount() throws -> UserAccount {
        guard let account = try accounts.currentUser() else { throw SDKError.notLoggedIn }
        return account
    }

    package var screenLock: ScreenLock { accounts.screenLock }

    /// The screen lock at launch: when a policy applies and the app has been idle past its timeout.
    package func unlockIfNeeded(_ passcode: String?) async throws {
        if try screenLock.isLocked() { try await screenLock.unlock(passcode, events: events) } else { try screenLock.touch() }
    }

    /// Runs `body` with the SDK's session handling (a refused refresh logs the user out; AuthHelper's
    /// handleLogout then runs on did-logout) and says what the app shows next.
    package func withSession<T>(_ account: UserAccount, _ body: () async throws -> T) async throws -> T {
        do {
            return try await accounts.withSession(account, body)
        } catch SDKError.sessionRevoked(let username) {
            throw AppError("\(SDKError.sessionRevoked(username: username)); \(describe(auth.lastLogout))")
        }
    }

    /// What `AuthHelper.handleLogout` decided, in words.
    package func describe(_ outcome: AuthHelper.LogoutOutcome?) -> String {
        switch outcome {
        case .switched(let who): return "switched to \(who)"
        case .userPicker(let left): return "accounts left: \(left.joined(separator: ", ")); choose one with main-app switch-user"
        case .loginRequired, nil: return "no account left; log in with main-app login"
        }
    }

    /// Logs in at the session's login host (or `host`), with the screen-lock passcode when one is set.
    package func login(username: String, password: String, host: URL? = nil) async throws -> UserAccount {
        guard let org = host ?? org else { throw SDKError.noLoginHost }
        return try await accounts.login(org: org, username: username, password: password, passcode: options.passcode)
    }

    /// Logs the current user out (revokes at the org) and says what the app shows next.
    package func logoutCurrentUser() async throws -> (account: UserAccount, revokeFailure: String?, next: String) {
        let account = try currentAccount()
        let result = try await accounts.logout(account)
        return (account, result.revokeFailure.map { "\($0)" }, describe(auth.lastLogout))
    }

    /// Makes another logged-in account on this device the current user.
    package func switchUser(to username: String) throws -> UserAccount {
        guard let account = try accounts.account(username: username) else { throw SDKError.noSuchAccount(username) }
        try accounts.switchToUser(account)
        return account
    }

    /// Turns app groups on or off for this app (DataSharingHelper's migration), kept for later launches.
    /// Returns msdkUserDefaults' path after the change.
    package func setAppGroups(enabled: Bool) throws -> String {
        guard try launch.dataSharing.appGroupName() != nil else {
            throw AppError("the bundle has no \(AppGroupConfig.fileName) with an appGroupName; add one to \(options.bundle)")
        }
        try launch.dataSharing.setAppGroupEnabled(enabled)
        try launch.sandbox.standardDefaults.set(.bool(enabled), forKey: ProcessLaunch.appGroupsEnabledOverrideKey)
        return try launch.dataSharing.msdkUserDefaults().url.path
    }
}
