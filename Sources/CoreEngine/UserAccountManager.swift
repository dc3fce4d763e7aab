import AppGroup
import Foundation
import Keychain

/// The bundle's `bootconfig.plist`: the connected app.
package struct BootConfig: Sendable, Equatable {
    package var consumerKey: String
    package var redirectURI: String
    package var scopes: [String]
    package var shouldAuthenticate: Bool
    /// The login host from the bundle's Info.plist (`SFDCOAuthLoginHost`, as in the SDK), when set.
    package var loginHost: URL?

    package static func load(from bundle: AppBundle) throws -> BootConfig {
        let path = bundle.resourceURL("bootconfig.plist").path
        guard let plist = try bundle.plistResource("bootconfig.plist"), let key = plist["remoteAccessConsumerKey"]?.stringValue,
            let redirect = plist["oauthRedirectURI"]?.stringValue
        else { throw SDKError.missingBootConfig(path) }
        return BootConfig(
            consumerKey: key, redirectURI: redirect, scopes: plist["oauthScopes"]?.arrayValue?.compactMap(\.stringValue) ?? ["api"],
            shouldAuthenticate: plist["shouldAuthenticate"]?.boolValue ?? true,
            loginHost: bundle.info["SFDCOAuthLoginHost"]?.stringValue.flatMap(loginHostURL))
    }

    /// A login host as the SDK's files write it (`login.salesforce.com`, or a URL) as a URL.
    package static func loginHostURL(_ host: String) -> URL? {
        URL(string: host.contains("://") ? host : "https://\(host)")
    }

}

/// `SFSDKAppConfig`'s rules over its dictionary (`BootConfig` in Swift): what a missing `shouldAuthenticate` means, the
/// trimming of the key and the redirect URI, where `fromConfigFile` looks, and what `validate` refuses, with its error
/// domain, codes and messages (the SDK's English Localizable.strings).
package enum AppConfigRules {
    package static let errorDomain = "com.salesforce.mobilesdk.AppConfigErrorDomain"
    /// `SFSDKDefaultNativeAppConfigFilePath`.
    package static let defaultFilePath = "/bootconfig.plist"
    static let consumerKey = "remoteAccessConsumerKey", redirectURI = "oauthRedirectURI", scopes = "oauthScopes", shouldAuthenticate = "shouldAuthenticate"

    package enum Failure: Int, Error, Sendable {
        case noConsumerKey = 966
        case noRedirectURI = 967

        package var message: String {
            switch self {
            case .noConsumerKey: return "Your app config does not specify a Connected App Consumer Key."
            case .noRedirectURI: return "Your app config does not specify a Connected App Redirect URI."
            }
        }
    }

    /// `initWithDict:`: `shouldAuthenticate` true when absent; the consumer key and redirect URI trimmed of
    /// whitespace and newlines.
    package static func normalized(_ dictionary: [String: Any]?) -> [String: Any] {
        var out = dictionary ?? [:]
        if out[shouldAuthenticate] == nil { out[shouldAuthenticate] = true }
        for key in [consumerKey, redirectURI] {
            out[key] = (out[key] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        return out
    }

    /// `initWithConfigFile:`: the file at `file` under the main bundle's resources (appended, even when it starts
    /// with `/`); nil when it does not exist or is not a property-list dictionary.
    package static func contents(ofConfigFile file: String, resources: URL) -> [String: Any]? {
        let url = resources.appendingPathComponent(file)
        guard let data = try? SecureFiles.readRegularFileNoFollow(url),
            let plist = try? PlistValue.foundationPropertyList(from: data) as? [String: Any]
        else { return nil }
        return plist
    }

    /// `validate:`: a consumer key, then a redirect URI, neither empty.
    package static func validate(_ dictionary: [String: Any]) throws(Failure) {
        guard let key = dictionary[consumerKey] as? String, !key.isEmpty else { throw .noConsumerKey }
        guard let uri = dictionary[redirectURI] as? String, !uri.isEmpty else { throw .noRedirectURI }
    }

    /// `oauthScopes`: the array as a set (duplicates once).
    package static func scopes(_ dictionary: [String: Any]) -> Set<String> { Set((dictionary[scopes] as? [Any] ?? []).compactMap { $0 as? String }) }
}

final class RecoveryBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored = AccountRecovery.keepFiles
    var value: AccountRecovery {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

/// The SDK's `UserAccountManager`: accounts persisted per org/user, the current user in
/// `msdkUserDefaults` (`LastUserIdentity`). This part reads and needs no network (an extension links
/// it); login, switching and logout in the SDK's order are in SalesforceSDK.
package final class UserAccountManager: Sendable {
    package static let lastUserIdentityKey = "LastUserIdentity"

    package let launch: ProcessLaunch
    package let events: SDKEvents

    private let key = AccountKeyBox()
    private let recoveryBox = RecoveryBox()

    package init(launch: ProcessLaunch, events: SDKEvents) {
        self.launch = launch
        self.events = events
    }

    package var files: AccountFiles {
        get throws { AccountFiles(sdkRoot: try launch.dataSharing.sdkRoot(), key: key.state, recovery: recoveryBox.value) }
    }

    /// What this process does with files it cannot read (`--sdk-recovery`: what the SDK does), as
    /// `loadAccountKey` was told.
    package var recovery: AccountRecovery { recoveryBox.value }

    /// The account key's state in this process (`.notLoaded` before `loadAccountKey`).
    package var accountKey: AccountKeyState { key.state }

    /// Reads the key that seals `UserAccount.plist` from the keychain group, once per process, before any
    /// account is read (the SDK's `KeyGenerator.encryptionKey(for:)`, with its cache). A process with no
    /// account file does not ask the keychain. With `.sdkDestructive` (the SDK's behaviour): a missing or
    /// unusable key is replaced by a new one, and then every file sealed with the old one is deleted when
    /// read. With `.keepFiles`, nothing is created or deleted, and each read says why it cannot be done.
    /// Never throws: the first account read reports the state, naming the file.
    @discardableResult
    package func loadAccountKey(recovery: AccountRecovery = .keepFiles) async -> AccountKeyState {
        recoveryBox.value = recovery
        if case .loaded = key.state { return key.state }
        guard (try? files.count()) ?? 0 > 0 else {
            key.state = .missing
            return key.state
        }
        let destructive = recovery == .sdkDestructive
        let state = await launch.keychain.accountKey(create: destructive, regenerate: destructive)
        key.state = state
        if case .loaded(_, let group) = state { events.step("accountKeyLoaded", ["group": group]) }
        return state
    }

    /// The key, made now if no entitled group has one (the SDK makes it at the first save); before an
    /// account file is written. An unusable key item is an error, not replaced.
    package func ensureAccountKey() async throws {
        if case .loaded = key.state { return }
        let state = await launch.keychain.accountKey(create: true)
        switch state {
        case .loaded(_, let group):
            key.state = state
            events.step("accountKeyLoaded", ["group": group])
        case .unreadable(let result):
            throw SDKError.keychainUnavailable("the account key (\(AccountEncryption.keyService)) cannot be read or written: \(result.error?.message ?? "status \(result.status.rawValue)")")
        case .missing, .notLoaded:
            throw SDKError.accountKeyNotLoaded
        }
    }

    package func allAccounts() throws -> [UserAccount] { try files.all() }

    package func account(_ identity: UserIdentity) throws -> UserAccount? { try files.load(identity) }

    package func account(username: String) throws -> UserAccount? {
        try allAccounts().first { $0.username.lowercased() == username.lowercased() }
    }

    /// `LastUserIdentity`, resolved against the stored accounts.
    package func currentUser() throws -> UserAccount? {
        guard let identity = UserIdentity(plist: try launch.dataSharing.msdkUserDefaults().value(forKey: Self.lastUserIdentityKey)) else {
            return nil
        }
        return try account(identity)
    }

    /// Setting the current user posts the did-change-user notification, as the SDK does.
    package func setCurrentUser(_ account: UserAccount?) throws {
        try launch.dataSharing.msdkUserDefaults().set(account?.identity.plist, forKey: Self.lastUserIdentityKey)
        events.post(.didChangeCurrentUser, ["user": account?.identity.description ?? ""])
    }

    /// An account is logged in iff its refresh token in the keychain is not empty. A keychain that
    /// cannot be read is an error, never "not logged in".
    package func isLoggedIn(_ account: UserAccount) async throws -> Bool {
        do {
            return try await SessionTokenItems.hasRefreshToken(launch.keychain, account: account.credentials.keychainAccount)
        } catch {
            throw SDKError.keychainUnavailable("\(error)")
        }
    }
}
