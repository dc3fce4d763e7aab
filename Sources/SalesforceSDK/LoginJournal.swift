import AppGroup
import Foundation

/// Logins under way, in the app's own standard defaults: the keychain account a login is about to
/// store tokens under, and the org it logs in to. A login killed between the token exchange and the
/// account file leaves tokens no account points to; the next launch finds them, and this tells it
/// where to revoke them. No secret is kept here, only names.
struct LoginJournal {
    static let key = "AppGroupSimLoginsInProgress"
    let defaults: SharedDefaults

    func begin(keychainAccount: String, loginHost: URL) throws {
        try defaults.update(Self.key) { value in
            var entries = value?.dictionaryValue ?? [:]
            entries[keychainAccount] = .string(loginHost.absoluteString)
            value = .dictionary(entries)
        }
    }

    func end(keychainAccount: String) throws {
        try defaults.update(Self.key) { value in
            var entries = value?.dictionaryValue ?? [:]
            entries[keychainAccount] = nil
            value = entries.isEmpty ? nil : .dictionary(entries)
        }
    }

    func loginHost(keychainAccount: String) throws -> URL? {
        try defaults.value(forKey: Self.key)?.dictionaryValue?[keychainAccount]?.stringValue.flatMap(URL.init(string:))
    }
}
