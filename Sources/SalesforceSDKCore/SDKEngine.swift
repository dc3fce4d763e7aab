import AppGroup
import Foundation
import Keychain
import CoreNetworkEngine
import CoreEngine
import SalesforceSDKCommon

/// The engine objects behind the SDK-named API for the current process identity (`SDKProcess.current`):
/// one launch, one event stream, one account manager with its key loaded, made again when the identity
/// changes (`SDKProcess.run(as:)`). Every face type reads through here, so the faces add no state of their
/// own that the engine's files do not hold.
package final class SDKEngine: @unchecked Sendable {
    package let process: SDKProcess
    package let launch: ProcessLaunch
    package let events: SDKEvents
    /// The engine's manager of this process: its flavour is the class the app called `initializeSDK()` on.
    private let manager: ManagerBox
    package var sdk: SDKManager { manager.value }
    package var accounts: CoreEngine.UserAccountManager { sdk.userAccountManager }

    /// `APPGROUPSIM_TRACE`: the file the binaries' `--trace` writes, so code run through the API shows up in
    /// the same JSON lines (launch steps and the SDK's notifications).
    package static let traceVariable = SDKProcess.traceVariable

    private init(process: SDKProcess) throws {
        self.process = process
        launch = try ProcessLaunch(sandbox: process.sandbox, dataSharing: process.dataSharing, keychain: process.keychain)
        let trace = ProcessInfo.processInfo.environment[Self.traceVariable].flatMap { $0.isEmpty ? nil : $0 }
        events = SDKEvents(traceFile: trace, append: true)
        manager = ManagerBox(SDKManager(flavour: .salesforce, launch: launch, events: events))
        // The engine's notifications carry the SDK's names: posted on NotificationCenter as the SDK posts
        // them, so AuthHelper's blocks and the app's own observers run.
        events.observe(nil) { name, info in
            NotificationCenter.default.post(name: Notification.Name(name.rawValue), object: nil, userInfo: info)
        }
    }

    private static let instance = PerProcess { () -> SDKEngine in
        let process = SDKProcess.current
        do { return try SDKEngine(process: process) } catch {
            SDKProcess.fail("AppGroupSim: \(process.sandbox.bundleIdentifier) cannot start the SDK: \(error)")
        }
    }

    /// The next `current` is made again (the account key read again).
    package static func reset() { instance.reset() }

    package static var current: SDKEngine { instance.value() }

    /// The account key, read before an account file is (the SDK reads it at its first account read), and
    /// read again until it is loaded: a process that had no account file in its own container finds the
    /// app's once it sets the group. What the key's state is decides what each read says; nothing is created
    /// or deleted.
    package func loadedAccounts() -> CoreEngine.UserAccountManager {
        if case .loaded = accounts.accountKey {} else {
            let accounts = self.accounts
            _ = try? SDKProcess.blocking { await accounts.loadAccountKey(recovery: .keepFiles) }
        }
        return accounts
    }

    /// `orgId/userId` of every account file in this process's SDK root.
    package func accountIdentities() throws -> [String] { try loadedAccounts().allAccounts().map(\.identity.description) }

    /// Whether the account's session has a refresh token (the engine's rule for "logged in").
    package func isLoggedIn(_ account: CoreEngine.UserAccount) -> Bool {
        let accounts = self.accounts
        return (try? SDKProcess.blocking { try await accounts.isLoggedIn(account) }) ?? false
    }

    /// A REST client for the account's session (its tokens from the keychain), as the SDK's `RestClient` for a user.
    package func restClient(orgId: String, userId: String) -> CoreNetworkEngine.RestClient? {
        guard let account = try? loadedAccounts().account(UserIdentity(orgId: orgId, userId: userId)) else { return nil }
        return CoreNetworkEngine.RestClient(
            credentials: account.credentials, tokens: TokenStore(keychain: launch.keychain, account: account.credentials.keychainAccount))
    }

    package func restClient(for user: UserAccount) -> CoreNetworkEngine.RestClient? {
        restClient(orgId: user.engine.orgId, userId: user.engine.userId)
    }

    /// `initializeSDK()` on `className` (a subclass of the SDK's manager, named as the app named it): the engine's
    /// rule, with its trace step. The account key read so far is kept: the same process, the same accounts.
    package func initializeSDK(_ flavour: SDKManager.Flavour, className: String) {
        manager.value = SDKManager.initializeSDK(flavour, className: className, launch: launch, events: events, accounts: accounts)
        // The SDK manager's init runs the SDK's upgrade (the engine's SDKUpgrade), as main-app and the widget do.
        let launch = self.launch, events = self.events
        let appSetsAccessibility = SalesforceSDKCommon.KeychainHelper.accessibilityAttribute != nil
        _ = try? SDKProcess.blocking { await SDKUpgrade.run(launch, events: events, appSetsAccessibility: appSetsAccessibility) }
    }

    /// The engine's `AuthHelper` for this process (its `handleLogout` and `loginIfRequired`), with the account key
    /// read, as every account read through the API has it.
    package var authHelper: CoreNetworkEngine.AuthHelper {
        _ = loadedAccounts()
        return manager.authHelper(for: sdk)
    }

    /// One line on stderr, once, for what the SDK's API reports only by a nil or an empty value.
    package func warn(_ line: String) { SDKProcess.warn(line) }
}

/// The engine's manager and its `AuthHelper`, made again when the app initialises the SDK with another class.
private final class ManagerBox: @unchecked Sendable {
    private let lock = NSLock()
    private var manager: SDKManager
    private var helper: (manager: ObjectIdentifier, helper: CoreNetworkEngine.AuthHelper)?

    init(_ manager: SDKManager) { self.manager = manager }

    var value: SDKManager {
        get { lock.withLock { manager } }
        set { lock.withLock { manager = newValue } }
    }

    func authHelper(for sdk: SDKManager) -> CoreNetworkEngine.AuthHelper {
        lock.withLock {
            if let helper, helper.manager == ObjectIdentifier(sdk) { return helper.helper }
            let made = CoreNetworkEngine.AuthHelper(sdk: sdk)
            helper = (ObjectIdentifier(sdk), made)
            return made
        }
    }
}
