import Foundation
import Keychain

/// The access and refresh tokens of a session, in the keychain under the SDK's service names.
package struct TokenStore: Sendable {
    package static let accessService = SessionTokenItems.accessService
    package static let refreshService = SessionTokenItems.refreshService

    package let keychain: KeychainHelper
    package let account: String

    package init(keychain: KeychainHelper, account: String) {
        self.keychain = keychain
        self.account = account
    }

    package func accessToken() async throws(RestError) -> String? { try await read(Self.accessService) }
    package func refreshToken() async throws(RestError) -> String? { try await read(Self.refreshService) }

    package func save(accessToken: String, refreshToken: String?) async throws(RestError) {
        try check(await keychain.write(Array(accessToken.utf8), service: Self.accessService, account: account))
        if let refreshToken {
            try check(await keychain.write(Array(refreshToken.utf8), service: Self.refreshService, account: account))
        }
    }

    /// Empties both items (the SDK resets them at logout rather than deleting them).
    package func reset() async throws(RestError) {
        for service in [Self.accessService, Self.refreshService] {
            let result = await keychain.reset(service: service, account: account)
            if result.status != .success && result.status != .itemNotFound { try check(result) }
        }
    }

    /// Deletes both items (a session that never became an account); a missing item is not an error.
    package func remove() async throws(RestError) {
        for service in [Self.accessService, Self.refreshService] {
            let result = await keychain.remove(service: service, account: account)
            if result.status != .success && result.status != .itemNotFound { try check(result) }
        }
    }

    private func read(_ service: String) async throws(RestError) -> String? {
        let result = await keychain.read(service: service, account: account)
        if result.status == .itemNotFound { return nil }
        try check(result)
        guard let bytes = result.data, !bytes.isEmpty else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    private func check(_ result: KeychainResult) throws(RestError) {
        if let error = result.error { throw .keychain(error.description) }
    }
}
