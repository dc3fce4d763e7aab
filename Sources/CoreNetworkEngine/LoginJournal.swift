import AppGroup
import Foundation

/// Logins under way, in the app's own standard defaults: the keychain account a login is about to
/// store tokens under, the org it logs in to, and when it started. A login killed between the token
/// exchange and the account file leaves tokens no account points to; the next launch finds them, and
/// this tells it that they are the app's own and where to revoke them. No secret is kept here, only names.
struct LoginJournal {
    static let key = "AppGroupSimLoginsInProgress"
    /// An entry whose login left no token is dropped after this long: a killed process's last keychain
    /// write can still be on its way through the Secret Service for a moment after the kill.
    static let staleAfter: TimeInterval = 600

    struct Entry: Equatable {
        var loginHost: URL?
        var started: Date?
    }

    let defaults: SharedDefaults

    func begin(keychainAccount: String, loginHost: URL, now: Date = Date()) throws {
        try defaults.update(Self.key) { value in
            var entries = value?.dictionaryValue ?? [:]
            entries[keychainAccount] = .dictionary(["loginHost": .string(loginHost.absoluteString), "started": .date(now)])
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

    /// Every login under way, by keychain account.
    func entries() throws -> [String: Entry] {
        (try defaults.value(forKey: Self.key)?.dictionaryValue ?? [:]).mapValues { value in
            Entry(
                loginHost: value.dictionaryValue?["loginHost"]?.stringValue.flatMap(URL.init(string:)),
                started: value.dictionaryValue?["started"]?.dateValue)
        }
    }

    /// Drops the entries of logins that left nothing to clean up (not in `pending`) once they are stale.
    func prune(keeping pending: Set<String>, now: Date = Date()) throws {
        try defaults.update(Self.key) { value in
            guard let entries = value?.dictionaryValue else { return }
            let left = entries.filter { account, entry in
                guard !pending.contains(account) else { return true }
                let started = entry.dictionaryValue?["started"]?.dateValue ?? .distantPast
                return now.timeIntervalSince(started) < Self.staleAfter
            }
            value = left.isEmpty ? nil : .dictionary(left)
        }
    }

    func loginHost(keychainAccount: String) throws -> URL? {
        try entries()[keychainAccount]?.loginHost
    }
}
