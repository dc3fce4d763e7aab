import Foundation

/// Who is logged in and where: everything about a session except its tokens, which live only in the
/// keychain (`TokenStore`). Safe to persist (the SDK keeps this in `UserAccount.plist`).
public struct OAuthCredentials: Sendable, Codable, Equatable {
    public var clientId: String
    public var redirectURI: String
    public var loginHost: URL
    public var instanceURL: URL
    public var identityURL: URL
    public var orgId: String
    public var userId: String
    /// The keychain account of this session's token items (`<clientId>-<random>`, as the SDK names it).
    public var keychainAccount: String

    public init(
        clientId: String, redirectURI: String, loginHost: URL, instanceURL: URL, identityURL: URL, orgId: String, userId: String,
        keychainAccount: String
    ) {
        self.clientId = clientId
        self.redirectURI = redirectURI
        self.loginHost = loginHost
        self.instanceURL = instanceURL
        self.identityURL = identityURL
        self.orgId = orgId
        self.userId = userId
        self.keychainAccount = keychainAccount
    }
}

/// The keychain items of a session's tokens, under the SDK's service names, keyed by
/// `OAuthCredentials.keychainAccount`. RestClient's `TokenStore` reads and writes them; an extension
/// that only needs to know whether a session is live reads the refresh item here, with no networking.
public enum SessionTokenItems {
    public static let accessService = "com.salesforce.mobilesdk.oauth.access"
    public static let refreshService = "com.salesforce.mobilesdk.oauth.refresh"

    /// Whether the session has a refresh token (an empty item is a logged-out session). A keychain
    /// that cannot be read throws: it is never "no token".
    public static func hasRefreshToken(_ keychain: KeychainHelper, account: String) async throws(KeychainError) -> Bool {
        let result = await keychain.read(service: refreshService, account: account)
        if result.status == .itemNotFound { return false }
        if let error = result.error { throw error }
        return !(result.data ?? []).isEmpty
    }
}
