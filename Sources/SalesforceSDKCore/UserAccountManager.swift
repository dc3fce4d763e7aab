import AppGroup
import Foundation
import Keychain
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

}

/// The SDK's `UserAccountManager`: accounts persisted per org/user, the current user in
/// `msdkUserDefaults` (`LastUserIdentity`). This part reads and needs no network (an extension links
/// it); login, switching and logout in the SDK's order are in SalesforceSDK.
public final class UserAccountManager: Sendable {
    public static let lastUserIdentityKey = "LastUserIdentity"

    public let launch: ProcessLaunch
    public let events: SDKEvents

    public init(launch: ProcessLaunch, events: SDKEvents) {
        self.launch = launch
        self.events = events
    }

    package var files: AccountFiles { get throws { AccountFiles(sdkRoot: try launch.dataSharing.sdkRoot()) } }

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

    /// An account is logged in iff its refresh token in the keychain is not empty. A keychain that
    /// cannot be read is an error, never "not logged in".
    public func isLoggedIn(_ account: UserAccount) async throws -> Bool {
        do {
            return try await SessionTokenItems.hasRefreshToken(launch.keychain, account: account.credentials.keychainAccount)
        } catch {
            throw SDKError.keychainUnavailable("\(error)")
        }
    }
}
