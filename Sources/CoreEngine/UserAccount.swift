import AppGroup
import Foundation
import Keychain

/// A logged-in (or once logged-in) user, as the SDK keeps it in `UserAccount.plist`. No token is in
/// here: tokens live in the keychain under `credentials.keychainAccount`.
package struct UserAccount: Sendable, Codable, Equatable {
    package var credentials: OAuthCredentials
    package var username: String
    package var displayName: String
    package var email: String
    /// The connected app's screen-lock policy from the identity service (`nil` when none).
    package var screenLockPinLength: Int?
    /// The policy's lock timeout in minutes (`screen_lock`), when there is a policy.
    package var screenLockTimeoutMinutes: Int?
    /// The scopes the session was granted (`accessScopes`).
    package var accessScopes: [String] = []
    /// The rest of the identity service's answer (`idData`, as the SDK keeps it), beside the fields above
    /// (`IdentityFields.accountKeys`); empty for an account made before it was read.
    package var identityFields = IdentityFields([:])
    /// The app's own values kept with the account (`customData`): property-list values only, in the account
    /// file (sealed), so not for secrets, as the SDK says of it.
    package var customData: [String: PlistValue] = [:]

    /// Sets a custom value from Foundation's types; false (nothing changed) for a value a property list cannot hold.
    package mutating func setCustomData(_ value: Any, forKey key: String) -> Bool {
        guard let plist = PlistValue(foundation: value) else { return false }
        customData[key] = plist
        return true
    }

    /// What a build before the SDK's keys wrote (a plain plist of these names): still read, once.
    enum CodingKeys: String, CodingKey {
        case credentials, username, displayName, email, screenLockPinLength, screenLockTimeoutMinutes
    }

    package var orgId: String { credentials.orgId }
    package var userId: String { credentials.userId }
    package var identity: UserIdentity { UserIdentity(orgId: orgId, userId: userId) }

    package init(
        credentials: OAuthCredentials, username: String, displayName: String, email: String, screenLockPinLength: Int? = nil,
        screenLockTimeoutMinutes: Int? = nil
    ) {
        self.credentials = credentials
        self.username = username
        self.displayName = displayName
        self.email = email
        self.screenLockPinLength = screenLockPinLength
        self.screenLockTimeoutMinutes = screenLockTimeoutMinutes
    }
}

/// Which user: the SDK's `LastUserIdentity`.
package struct UserIdentity: Sendable, Codable, Hashable, CustomStringConvertible {
    package var orgId: String
    package var userId: String

    package init(orgId: String, userId: String) {
        self.orgId = orgId
        self.userId = userId
    }

    package var description: String { "\(orgId)/\(userId)" }

    /// `LastUserIdentity` as the SDK keeps it in `msdkUserDefaults` (keyed-archive data).
    var plist: PlistValue { .data(LastUserIdentityArchive.encode(self)) }

    /// Reads `LastUserIdentity`: the SDK's keyed archive, or the dictionary older builds wrote.
    package init?(plist: PlistValue?) {
        guard let identity = LastUserIdentityArchive.decode(plist) else { return nil }
        self = identity
    }
}

/// Reads and writes `Library/<orgId>/<userId>/UserAccount.plist` under the SDK root: the SDK's keys
/// (`AccountArchive`), sealed with the account key (`AccountEncryption`), written atomically, 0600.
package struct AccountFiles {
    package let sdkRoot: DeviceLayout.SDKRoot
    /// The account key as this process could read it.
    package let key: AccountKeyState
    /// With `.sdkDestructive`, a file that cannot be decrypted is deleted as the SDK's
    /// `fetchAllAccounts` does; otherwise it is kept and reading it is an error.
    package let recovery: AccountRecovery

    package init(sdkRoot: DeviceLayout.SDKRoot, key: AccountKeyState, recovery: AccountRecovery = .keepFiles) {
        self.sdkRoot = sdkRoot
        self.key = key
        self.recovery = recovery
    }

    package func directory(for identity: UserIdentity) -> URL {
        sdkRoot.accountDirectory(orgId: identity.orgId, userId: identity.userId)
    }

    package func save(_ account: UserAccount) throws {
        guard case .loaded(let key, _) = key else { throw keyError(sdkRoot.accountFile(orgId: account.orgId, userId: account.userId)) }
        let plain = try PlistValue.propertyListData(account.sdkArchive.dictionaryValue ?? [:])
        // Then the class `FileProtectionHelper` names for the path, as the SDK's persister sets it after writing.
        let file = sdkRoot.accountFile(orgId: account.orgId, userId: account.userId)
        try SecureFiles.writeAtomically(
            try AccountEncryption.seal(plain, with: key.symmetric), to: file, protection: FileProtectionPolicy.shared.protection(for: file))
    }

    package func load(_ identity: UserIdentity) throws -> UserAccount? {
        try read(sdkRoot.accountFile(orgId: identity.orgId, userId: identity.userId))
    }

    /// Every account on disk; with `.sdkDestructive`, those that cannot be decrypted are deleted first.
    package func all() throws -> [UserAccount] {
        try sdkRoot.accountFiles().compactMap { try read($0.url) }
    }

    /// How many account files there are, readable or not (no key needed).
    package func count() -> Int { sdkRoot.accountFiles().count }

    /// True when a build before encryption left a plain account file.
    package func hasPlainFiles() throws -> Bool {
        try sdkRoot.accountFiles().contains { try contents($0.url).map(AccountEncryption.isPlainPropertyList) ?? false }
    }

    /// Accounts written before encryption (plain property lists), sealed now; returns how many.
    package func sealPlainFiles() throws -> Int {
        guard case .loaded = key else { return 0 }
        var sealed = 0
        for file in sdkRoot.accountFiles() {
            guard let data = try contents(file.url), AccountEncryption.isPlainPropertyList(data),
                let account = try read(file.url)
            else { continue }
            try save(account)
            sealed += 1
        }
        return sealed
    }

    /// Removes the user's `Library/<orgId>/<userId>` folder, and nothing else (`SecureFiles.removeTree`).
    package func delete(_ identity: UserIdentity) throws {
        try SecureFiles.removeTree(directory(for: identity), inside: sdkRoot.library, depth: 2)
    }

    /// The file's bytes; a file the device's data protection does not open is `SDKError.accountFileProtected`.
    private func contents(_ url: URL) throws -> Data? {
        do { return try SecureFiles.readIfPresent(url) } catch let error as FileProtectionError { throw SDKError.accountFileProtected(error) }
    }

    private func read(_ url: URL) throws -> UserAccount? {
        let read: Data?
        do {
            read = try SecureFiles.readIfPresent(url)
        } catch let error as FileProtectionError {
            // The SDK's `fetchAllAccounts` cannot tell a file it cannot read from one it cannot decrypt: it
            // removes both, and the user is logged out (the field failure of a background launch while locked).
            if recovery == .sdkDestructive { return try destroy(url) }
            throw SDKError.accountFileProtected(error)
        }
        guard let data = read else { return nil }
        if AccountEncryption.isPlainPropertyList(data) {
            // Written before encryption: our older keys, or the SDK's keys unsealed.
            if let dict = PlistValue.dictionary(propertyList: data), let account = UserAccount(sdkArchive: .dictionary(dict)) { return account }
            if let account = try? PropertyListDecoder().decode(UserAccount.self, from: data) { return account }
            throw SDKError.corruptAccount(path: url.path)
        }
        guard case .loaded(let key, let group) = key else {
            if case .notLoaded = key { throw SDKError.accountKeyNotLoaded }
            if recovery == .sdkDestructive { return try destroy(url) }
            throw keyError(url)
        }
        let plain: Data
        do {
            plain = try AccountEncryption.open(data, with: key.symmetric)
        } catch AccountCipherError.cannotDecrypt(let why) {
            if recovery == .sdkDestructive { return try destroy(url) }
            throw SDKError.accountUndecryptable(path: url.path, group: group, detail: why)
        }
        guard let dict = PlistValue.dictionary(propertyList: plain), let account = UserAccount(sdkArchive: .dictionary(dict)) else {
            throw SDKError.corruptAccount(path: url.path)
        }
        return account
    }

    /// The SDK's `fetchAllAccounts`: an account it cannot load is removed from disk.
    private func destroy(_ url: URL) throws -> UserAccount? {
        try FileManager.default.removeItem(at: url)
        return nil
    }

    private func keyError(_ url: URL) -> SDKError {
        switch key {
        case .loaded, .notLoaded: return .accountKeyNotLoaded
        case .missing: return .accountKeyMissing(path: url.path)
        case .unreadable(let result):
            if result.status == .interactionNotAllowed {
                return .keychainUnavailable("keychain unavailable: \(result.error?.message ?? "the keychain is locked") (-25308), so \(url.path) cannot be decrypted")
            }
            return .accountKeyUnreadable(path: url.path, detail: result.error?.message ?? "status \(result.status.rawValue)", status: result.status.rawValue)
        }
    }
}

/// What to do with account files that cannot be read because the key cannot be: keep them (AppGroupSim's
/// default) or delete them as the SDK does (`--sdk-recovery`).
package enum AccountRecovery: Sendable, Equatable {
    case keepFiles
    case sdkDestructive
}

package enum SDKError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case notLoggedIn
    case noSuchAccount(String)
    case passcodeRequired(pinLength: Int)
    case passcodeInvalid(pinLength: Int)
    case corruptAccount(path: String)
    case sessionRevoked(username: String)
    case noLoginHost
    case missingBootConfig(String)
    case screenLocked(pinLength: Int)
    case passcodeWrong(attemptsLeft: Int)
    case screenLockExhausted(loggedOut: [String])
    case keychain(String)
    case orgUnreachable(String)
    case loginCancelled
    case keychainLockedAtLaunch(accounts: Int)
    /// An account file whose protection class the device's lock state does not open (kept; the SDK deletes it).
    case accountFileProtected(FileProtectionError)
    /// The Secret Service cannot be used (locked, no provider, no bus, timeout): nothing was changed.
    case keychainUnavailable(String)
    /// Account files exist, and no keychain group this process may read has their key.
    case accountKeyMissing(path: String)
    /// The key item exists and cannot be used (not entitled: -34018, or not a 32-byte key).
    case accountKeyUnreadable(path: String, detail: String, status: Int32)
    /// The file is not sealed with the key in `group` (another key, truncated, changed bytes).
    case accountUndecryptable(path: String, group: String, detail: String)
    /// A caller read accounts before `UserAccountManager.loadAccountKey` (a bug in the caller).
    case accountKeyNotLoaded
    /// IDP login asked of an app whose boot config names no identity provider app (or that is not one).
    case idpNotConfigured(String)
    /// An IDP URL command that is refused: no login pending in the scene, a state that does not match,
    /// a malformed command. Nothing was kept.
    case idpRefused(String)
    /// The identity provider app answered `error` (the user cancelled, the connected app refused the client…).
    case idpError(code: String, reason: String, description: String)

    package var description: String {
        switch self {
        case .notLoggedIn: return "no user is logged in; run main-app login --username U --password P"
        case .noSuchAccount(let who): return "no account for \(who) on this device; log in with main-app login first"
        case .passcodeRequired(let n):
            return "this org's connected app requires a screen-lock passcode; pass --passcode with \(n) digits (login cancelled, nothing kept)"
        case .passcodeInvalid(let n): return "the passcode must be \(n) digits (login cancelled, nothing kept)"
        case .corruptAccount(let path): return "\(path) is not a valid UserAccount.plist; it was left as it is: move it aside and log in again"
        case .sessionRevoked(let who): return "the session of \(who) was revoked at the org; the user was logged out, log in again"
        case .noLoginHost: return "no org URL: pass --org URL (for example the sf-simulator's 'listening on' address)"
        case .missingBootConfig(let path): return "\(path) is missing or invalid; it needs remoteAccessConsumerKey, oauthRedirectURI and oauthScopes"
        case .screenLocked(let n):
            return "the app is locked (the org's screen-lock policy); pass --passcode with your \(n)-digit passcode"
        case .passcodeWrong(let left): return "wrong passcode; \(left) attempt(s) left before every user under the policy is logged out"
        case .screenLockExhausted(let users):
            return "too many wrong passcodes: logged out \(users.joined(separator: ", ")) as the SDK does; log in again"
        case .keychain(let detail): return detail
        case .orgUnreachable(let detail):
            return "cannot log in: \(detail). Nothing changed on this device; back at the login screen"
        case .loginCancelled: return "login cancelled; nothing changed on this device"
        case .keychainLockedAtLaunch(let n):
            return "keychain unavailable: the keychain is locked (-25308, interaction not allowed: a launch before the first unlock, or a whenUnlocked item while the device is locked), so \(n) account(s) cannot be read; nothing was changed and nothing was deleted, the account files are kept as they are: unlock the device (msdk-sim device unlock) or the keyring and launch again (--sdk-recovery would delete them, as the SDK does)"
        case .accountFileProtected(let error):
            return "\(error.description); the account file was kept (the SDK's persister deletes an account file it cannot read, which logs the user out: --sdk-recovery does what the SDK does)"
        case .keychainUnavailable(let detail):
            let reason = detail.contains("keychain unavailable") ? detail : "keychain unavailable: \(detail)"
            return "\(reason); nothing was changed on this device"
        case .accountKeyMissing(let path):
            if let backup = Device.restoredFrom(containing: path) {
                return "\(path) is encrypted with the key \(AccountEncryption.keyService), which did not come along when this device was restored from backup \(backup): its class is afterFirstUnlockThisDeviceOnly, which a backup does not carry (errSecItemNotFound, -25300). The account cannot be read again: log in again (the file was left as it is; --sdk-recovery deletes it, as the SDK does)"
            }
            return "\(path) is encrypted with the key \(AccountEncryption.keyService), which is in no keychain group this process is entitled to (errSecItemNotFound, -25300): add the app's keychain group to this target's keychain-access-groups entitlement (the file was left as it is)"
        case .accountKeyUnreadable(let path, let detail, let status):
            return "the key of \(path) (\(AccountEncryption.keyService)) cannot be read (\(status)): \(detail); the file was left as it is"
        case .accountUndecryptable(let path, let group, let detail):
            return "\(path) cannot be decrypted with the account key in keychain group \(group) (\(detail)); it was left as it is: --sdk-recovery deletes it, as the SDK does"
        case .accountKeyNotLoaded:
            return "the account key was not read before the accounts (call UserAccountManager.loadAccountKey first)"
        case .idpNotConfigured(let detail): return "identity provider login is not set up: \(detail)"
        case .idpRefused(let detail): return "identity provider response refused: \(detail); nothing was kept"
        case .idpError(let code, let reason, let description):
            return "the identity provider app answered error \(code)\(reason.isEmpty ? "" : " (\(reason))")\(description.isEmpty ? "" : ": \(description)"); nothing was kept, log in again"
        }
    }

    package var errorDescription: String? { description }
}
