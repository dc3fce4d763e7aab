import AppGroup
import Foundation
import Keychain
import RestClient
import SmartStore

/// The bundle's `bootconfig.plist`: the connected app.
public struct BootConfig: Sendable, Equatable {
    public var consumerKey: String
    public var redirectURI: String
    public var scopes: [String]
    public var shouldAuthenticate: Bool
    /// The login host from the bundle's Info.plist (`SFDCOAuthLoginHost`, as in the SDK), when set.
    public var loginHost: URL?

    public static func load(from bundle: AppBundle) throws -> BootConfig {
        let path = bundle.resourceURL("bootconfig.plist").path
        guard let plist = try bundle.plistResource("bootconfig.plist"), let key = plist["remoteAccessConsumerKey"]?.stringValue,
            let redirect = plist["oauthRedirectURI"]?.stringValue
        else { throw SDKError.missingBootConfig(path) }
        return BootConfig(
            consumerKey: key, redirectURI: redirect, scopes: plist["oauthScopes"]?.arrayValue?.compactMap(\.stringValue) ?? ["api"],
            shouldAuthenticate: plist["shouldAuthenticate"]?.boolValue ?? true,
            loginHost: bundle.info["SFDCOAuthLoginHost"]?.stringValue.flatMap { host in
                URL(string: host.contains("://") ? host : "https://\(host)")
            })
    }

    var app: OAuthLogin.App { OAuthLogin.App(clientId: consumerKey, redirectURI: redirectURI, scopes: scopes) }
}

/// The SDK's `UserAccountManager`: accounts persisted per org/user, the current user in
/// `msdkUserDefaults` (`LastUserIdentity`), login, switching, and logout in the SDK's order.
public final class UserAccountManager: Sendable {
    public static let lastUserIdentityKey = "LastUserIdentity"

    public let launch: ProcessLaunch
    public let events: SDKEvents

    public init(launch: ProcessLaunch, events: SDKEvents) {
        self.launch = launch
        self.events = events
    }

    var files: AccountFiles { get throws { AccountFiles(sdkRoot: try launch.dataSharing.sdkRootDirectory()) } }

    public func allAccounts() throws -> [UserAccount] { try files.all() }

    public func account(_ identity: UserIdentity) throws -> UserAccount? { try files.load(identity) }

    public func account(username: String) throws -> UserAccount? {
        try allAccounts().first { $0.username.lowercased() == username.lowercased() }
    }

    /// `LastUserIdentity`, resolved against the stored accounts.
    public func currentUser() throws -> UserAccount? {
        guard let identity = UserIdentity(plist: try launch.dataSharing.msdkUserDefaults().value(forKey: Self.lastUserIdentityKey)) else {
            return nil
        }
        return try account(identity)
    }

    /// Setting the current user posts the did-change-user notification, as the SDK does.
    public func setCurrentUser(_ account: UserAccount?) throws {
        try launch.dataSharing.msdkUserDefaults().set(account?.identity.plist, forKey: Self.lastUserIdentityKey)
        events.post(.didChangeCurrentUser, ["user": account?.identity.description ?? ""])
    }

    /// An account is logged in iff its refresh token in the keychain is not empty.
    public func isLoggedIn(_ account: UserAccount) async -> Bool {
        (try? await tokens(account).refreshToken()) != nil
    }

    public func tokens(_ account: UserAccount) -> TokenStore {
        TokenStore(keychain: launch.keychain, account: account.credentials.keychainAccount)
    }

    public func restClient(_ account: UserAccount) -> RestClient {
        RestClient(credentials: account.credentials, tokens: tokens(account))
    }

    /// The web-view login: code + PKCE, then the identity service; a screen-lock policy must be met with a
    /// passcode (set now, or the app's existing one) before the account is kept. The org unreachable is an
    /// error that returns to login: no account, no current-user change, no notification but the will-log-in.
    public func login(org: URL, username: String, password: String, passcode: String?) async throws -> UserAccount {
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        events.post(.userWillLogIn, ["username": username])
        events.step("authenticate", ["org": org.absoluteString])
        let credentials: OAuthCredentials
        do {
            credentials = try await OAuthLogin.login(loginHost: org, app: boot.app, username: username, password: password, keychain: launch.keychain)
        } catch .offline(let detail) {
            events.step("authenticationFailed", ["reason": "orgUnreachable"])
            throw SDKError.orgUnreachable("the org at \(org.absoluteString) cannot be reached (\(detail)); check --org and that sf-simulator is running")
        } catch {
            events.step("authenticationFailed", ["reason": "\(error)"])
            throw error
        }
        let client = RestClient(credentials: credentials, tokens: TokenStore(keychain: launch.keychain, account: credentials.keychainAccount))
        let identity = try await client.identity().object()
        let policy = identity["mobile_policy"] as? [String: Any]
        let pinLength = (policy?["pin_length"] as? Int).flatMap { (policy?["screen_lock"] as? Int ?? 0) > 0 ? $0 : nil }
        let lock = ScreenLock(accounts: self)
        // Another account already brought a policy and its passcode: this login must give that passcode.
        var existing = false
        if let pinLength {
            events.step("screenLockPolicy", ["pinLength": String(pinLength)])
            existing = try lock.policy() != nil ? await lock.hasPasscode() : false
            let valid = passcode.map { $0.count == pinLength && $0.allSatisfy(\.isNumber) } ?? false
            if !valid || existing {
                do {
                    guard valid, let passcode else {
                        throw passcode == nil ? SDKError.passcodeRequired(pinLength: pinLength) : SDKError.passcodeInvalid(pinLength: pinLength)
                    }
                    try await lock.unlock(passcode, events: events)
                } catch {
                    // Cancelled or failed: nothing of the session is kept, and control returns to the app.
                    try? await revoke(credentials)
                    try? await TokenStore(keychain: launch.keychain, account: credentials.keychainAccount).reset()
                    events.step("passcodeFailed")
                    throw error
                }
            }
        }
        let account = UserAccount(
            credentials: credentials, username: identity["username"] as? String ?? username,
            displayName: identity["display_name"] as? String ?? username, email: identity["email"] as? String ?? "",
            screenLockPinLength: pinLength, screenLockTimeoutMinutes: pinLength == nil ? nil : (policy?["screen_lock"] as? Int))
        try files.save(account)
        if pinLength != nil, let passcode, !existing {
            try await lock.setPasscode(passcode)
            events.step("passcodeSet")
        }
        try setCurrentUser(account)
        events.post(.userDidLogIn, ["user": account.identity.description, "username": account.username])
        return account
    }

    /// What a launch does with accounts it cannot read because the keychain is locked (a background
    /// launch before the first unlock). The SDK deletes them, which logged users out in the field;
    /// AppGroupSim's default keeps every file and says so.
    public enum Recovery: Sendable {
        case keepFiles
        case sdkDestructive
    }

    /// The launch's check of the stored accounts against the keychain. Returns the usernames the SDK's
    /// destructive recovery deleted (empty otherwise).
    @discardableResult
    public func verifyAtLaunch(recovery: Recovery) async throws -> [String] {
        let stored = try allAccounts()
        guard !stored.isEmpty else { return [] }
        let status = await launch.keychain.status()
        guard status.status == .interactionNotAllowed else { return [] }
        events.step("keychainLockedAtLaunch", ["accounts": String(stored.count)])
        switch recovery {
        case .keepFiles:
            throw SDKError.keychainLockedAtLaunch(accounts: stored.count)
        case .sdkDestructive:
            let root = try launch.dataSharing.sdkRootDirectory()
            for account in stored {
                try StoreManager(sdkRoot: root, isLoggedIn: { _ in true }).removeAllStores(for: account.storeUser)
                try files.delete(account.identity)
                events.step("deletedUnreadableAccount", ["user": account.identity.description])
            }
            if try launch.dataSharing.msdkUserDefaults().value(forKey: Self.lastUserIdentityKey) != nil {
                try setCurrentUser(nil)
            }
            return stored.map(\.username)
        }
    }

    public func switchToUser(_ account: UserAccount) throws {
        let current = try currentUser()
        guard current?.identity != account.identity else { return }
        events.post(.userWillSwitch, ["from": current?.identity.description ?? "", "to": account.identity.description])
        try setCurrentUser(account)
        events.post(.userDidSwitch, ["from": current?.identity.description ?? "", "to": account.identity.description])
    }

    /// Logout in the SDK's order: will-logout; the user's files and stores; revoke at the org; empty the
    /// token items; clear the current user (without a did-change-user notification, as in the SDK);
    /// did-logout; org-did-logout when no account of the org is left.
    public func logout(_ account: UserAccount, reason: String = "userInitiated") async throws {
        events.post(.userWillLogout, ["user": account.identity.description, "reason": reason])
        let root = try launch.dataSharing.sdkRootDirectory()
        try StoreManager(sdkRoot: root, isLoggedIn: { _ in true }).removeAllStores(for: account.storeUser)
        try files.delete(account.identity)
        try? await revoke(account.credentials)
        try await tokens(account).reset()
        if try currentUser()?.identity == account.identity || currentUser() == nil {
            try launch.dataSharing.msdkUserDefaults().set(nil, forKey: Self.lastUserIdentityKey)
        }
        try await ScreenLock(accounts: self).reset()
        events.post(.userDidLogout, ["user": account.identity.description])
        if try allAccounts().allSatisfy({ $0.orgId != account.orgId }) {
            events.post(.orgDidLogout, ["org": account.orgId])
        }
    }

    private func revoke(_ credentials: OAuthCredentials) async throws {
        guard let refresh = try await TokenStore(keychain: launch.keychain, account: credentials.keychainAccount).refreshToken() else { return }
        var request = URLRequest(url: credentials.loginHost.appendingPathComponent("services/oauth2/revoke"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        request.httpBody = Data("token=\(refresh.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")".utf8)
        _ = try await URLSession.shared.data(for: request)
    }
}

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
