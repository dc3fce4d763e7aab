import Foundation
import CoreEngine
import CoreNetworkEngine

/// `main-app status`: the app's app-group state, login flag, accounts and current user. It reads the
/// keychain's state but no token, so it works with a keychain it cannot use and says so.
package struct StatusReport: Codable, Sendable, Equatable {
    package var bundleIdentifier: String
    package var device: String
    package var appGroupName: String?
    package var appGroupEnabled: Bool
    package var msdkUserDefaults: String
    package var userLoggedIn: Bool
    package var currentUser: String?
    package var accounts: [String]
    package var keychainAccessGroups: [String]
    package var sdkFeatures: [String]
    package var screenLocked: Bool
    /// "ready", or why the keychain cannot be used (then nothing that needs it was read).
    package var keychain: String

    /// The report for a session started with `requireKeychain: false`.
    package init(_ session: AppSession) async throws {
        let launch = session.launch
        let keychainStatus = await launch.keychain.status()
        let msdk = try launch.dataSharing.msdkUserDefaults()
        bundleIdentifier = launch.sandbox.bundleIdentifier
        device = launch.sandbox.device.root.path
        appGroupName = try launch.dataSharing.appGroupName()
        appGroupEnabled = try launch.dataSharing.appGroupEnabled()
        msdkUserDefaults = msdk.url.path
        userLoggedIn = try msdk.bool(forKey: launch.userLogInStatusKey)
        (currentUser, accounts) = try Self.users(session)
        keychainAccessGroups = launch.sandbox.keychainAccessGroups
        sdkFeatures = session.sdk.features
        do {
            screenLocked = try session.screenLock.isLocked()
        } catch SDKError.keychainUnavailable, SDKError.accountKeyUnreadable, SDKError.accountKeyMissing {
            screenLocked = false  // the policies are in the sealed account files; `keychain` says why
        }
        keychain = keychainStatus.error?.message ?? "ready"
    }

    /// The current user and the accounts by username; when the account key cannot be read (the keychain
    /// is unusable, so the sealed files cannot be opened), by `orgId/userId`, marked as sealed.
    static func users(_ session: AppSession) throws -> (String?, [String]) {
        let accounts = session.accounts
        do {
            return (try accounts.currentUser()?.username, try accounts.allAccounts().map(\.username))
        } catch SDKError.keychainUnavailable, SDKError.accountKeyUnreadable, SDKError.accountKeyMissing {
            let sealed = " (sealed; the account key cannot be read)"
            let files = try session.launch.dataSharing.sdkRoot().accountFiles().map { "\($0.orgId)/\($0.userId)" + sealed }
            let current = UserIdentity(plist: try session.launch.dataSharing.msdkUserDefaults().value(forKey: UserAccountManager.lastUserIdentityKey))
            return (current.map { $0.description + sealed }, files)
        }
    }

    /// The report as aligned lines for a person.
    package var lines: [String] {
        var out = [
            "app:               \(bundleIdentifier)",
            "device:            \(device)",
            "app group:         \(appGroupName ?? "(none)") (\(appGroupEnabled ? "enabled" : "disabled"))",
            "msdkUserDefaults:  \(msdkUserDefaults)",
            "userLoggedIn:      \(userLoggedIn)",
            "current user:      \(currentUser ?? "(none)")",
            "accounts:          \(accounts.isEmpty ? "(none)" : accounts.joined(separator: ", "))",
            "keychain groups:   \(keychainAccessGroups.joined(separator: ", "))",
            "keychain:          \(keychain)",
        ]
        if screenLocked { out.append("screen lock:       locked (the next command needs --passcode)") }
        return out
    }

    /// The shell's one-line status.
    package static func shortLine(_ session: AppSession) throws -> String {
        let (user, all) = try users(session)
        let current = user ?? "(none)"
        let flag = try session.launch.dataSharing.msdkUserDefaults().bool(forKey: session.launch.userLogInStatusKey)
        return "current user: \(current); accounts: \(all.isEmpty ? "(none)" : all.joined(separator: ", ")); userLoggedIn: \(flag)"
    }
}
