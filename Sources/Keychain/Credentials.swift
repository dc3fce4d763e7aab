import Foundation

/// Who is logged in and where: everything about a session except its tokens, which live only in the
/// keychain (`TokenStore`). Safe to persist (the SDK keeps this in `UserAccount.plist`).
package struct OAuthCredentials: Sendable, Codable, Equatable {
    package var clientId: String
    package var redirectURI: String
    package var loginHost: URL
    package var instanceURL: URL
    package var identityURL: URL
    package var orgId: String
    package var userId: String
    /// The keychain account of this session's token items (`<clientId>-<random>`, as the SDK names it).
    package var keychainAccount: String

    package init(
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
package enum SessionTokenItems {
    package static let accessService = "com.salesforce.mobilesdk.oauth.access"
    package static let refreshService = "com.salesforce.mobilesdk.oauth.refresh"

    /// Whether the session has a refresh token (an empty item is a logged-out session). A keychain
    /// that cannot be read throws: it is never "no token".
    package static func hasRefreshToken(_ keychain: KeychainHelper, account: String) async throws(KeychainError) -> Bool {
        let result = await keychain.read(service: refreshService, account: account)
        if result.status == .itemNotFound { return false }
        if let error = result.error { throw error }
        return !(result.data ?? []).isEmpty
    }
}
