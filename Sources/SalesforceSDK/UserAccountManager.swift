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

    public static func load(from bundle: AppBundle) throws -> BootConfig {
        let path = bundle.resourceURL("bootconfig.plist").path
        guard let plist = try bundle.plistResource("bootconfig.plist"), let key = plist["remoteAccessConsumerKey"]?.stringValue,
            let redirect = plist["oauthRedirectURI"]?.stringValue
        else { throw SDKError.missingBootConfig(path) }
        return BootConfig(
            consumerKey: key, redirectURI: redirect, scopes: plist["oauthScopes"]?.arrayValue?.compactMap(\.stringValue) ?? ["api"],
            shouldAuthenticate: plist["shouldAuthenticate"]?.boolValue ?? true)
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

    /// The web-view login: code + PKCE, then the identity service; a screen-lock policy must be met with a passcode.
    public func login(org: URL, username: String, password: String, passcode: String?) async throws -> UserAccount {
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        events.post(.userWillLogIn, ["username": username])
        events.step("authenticate", ["org": org.absoluteString])
        let credentials = try await OAuthLogin.login(loginHost: org, app: boot.app, username: username, password: password, keychain: launch.keychain)
        let client = RestClient(credentials: credentials, tokens: TokenStore(keychain: launch.keychain, account: credentials.keychainAccount))
        let identity = try await client.identity().object()
        let pinLength = ((identity["mobile_policy"] as? [String: Any])?["pin_length"] as? Int)
            .flatMap { ((identity["mobile_policy"] as? [String: Any])?["screen_lock"] as? Int ?? 0) > 0 ? $0 : nil }
        if let pinLength {
            events.step("screenLockPolicy", ["pinLength": String(pinLength)])
            guard let passcode, passcode.count == pinLength, passcode.allSatisfy(\.isNumber) else {
                // Cancelled or failed: nothing of the session is kept.
                try? await revoke(credentials)
                try? await TokenStore(keychain: launch.keychain, account: credentials.keychainAccount).reset()
                events.step("passcodeFailed")
                throw passcode == nil ? SDKError.passcodeRequired(pinLength: pinLength) : SDKError.passcodeInvalid(pinLength: pinLength)
            }
            events.step("passcodeSet")
        }
        let account = UserAccount(
            credentials: credentials, username: identity["username"] as? String ?? username,
            displayName: identity["display_name"] as? String ?? username, email: identity["email"] as? String ?? "",
            screenLockPinLength: pinLength)
        try files.save(account)
        try setCurrentUser(account)
        events.post(.userDidLogIn, ["user": account.identity.description, "username": account.username])
        return account
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
