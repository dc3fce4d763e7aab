import AppGroup
import Foundation
import Keychain
import SmartStore

/// A logged-in (or once logged-in) user, as the SDK keeps it in `UserAccount.plist`. No token is in
/// here: tokens live in the keychain under `credentials.keychainAccount`.
public struct UserAccount: Sendable, Codable, Equatable {
    public var credentials: OAuthCredentials
    public var username: String
    public var displayName: String
    public var email: String
    /// The connected app's screen-lock policy from the identity service (`nil` when none).
    public var screenLockPinLength: Int?
    /// The policy's lock timeout in minutes (`screen_lock`), when there is a policy.
    public var screenLockTimeoutMinutes: Int?

    public var orgId: String { credentials.orgId }
    public var userId: String { credentials.userId }
    public var identity: UserIdentity { UserIdentity(orgId: orgId, userId: userId) }
    public var storeUser: StoreUser { StoreUser(orgId: orgId, userId: userId) }

    public init(
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
public struct UserIdentity: Sendable, Codable, Hashable, CustomStringConvertible {
    public var orgId: String
    public var userId: String

    public init(orgId: String, userId: String) {
        self.orgId = orgId
        self.userId = userId
    }

    public var description: String { "\(orgId)/\(userId)" }

    var plist: PlistValue { .dictionary(["orgId": .string(orgId), "userId": .string(userId)]) }

    init?(plist: PlistValue?) {
        guard let d = plist?.dictionaryValue, let org = d["orgId"]?.stringValue, let user = d["userId"]?.stringValue else { return nil }
        self.init(orgId: org, userId: user)
    }
}

/// Reads and writes `Library/<orgId>/<userId>/UserAccount.plist` under the SDK root (atomically, 0600).
package struct AccountFiles {
    package let sdkRoot: DeviceLayout.SDKRoot

    package init(sdkRoot: DeviceLayout.SDKRoot) { self.sdkRoot = sdkRoot }

    package func directory(for identity: UserIdentity) -> URL {
        sdkRoot.accountDirectory(orgId: identity.orgId, userId: identity.userId)
    }

    package func save(_ account: UserAccount) throws {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try SecureFiles.writeAtomically(try encoder.encode(account), to: sdkRoot.accountFile(orgId: account.orgId, userId: account.userId))
    }

    package func load(_ identity: UserIdentity) throws -> UserAccount? {
        let url = sdkRoot.accountFile(orgId: identity.orgId, userId: identity.userId)
        guard let data = try SecureFiles.readIfPresent(url) else { return nil }
        do { return try PropertyListDecoder().decode(UserAccount.self, from: data) } catch {
            throw SDKError.corruptAccount(path: url.path)
        }
    }

    package func all() throws -> [UserAccount] {
        var out: [UserAccount] = []
        for file in sdkRoot.accountFiles() {
            guard let data = try SecureFiles.readIfPresent(file.url) else { continue }
            guard let account = try? PropertyListDecoder().decode(UserAccount.self, from: data) else {
                throw SDKError.corruptAccount(path: file.url.path)
            }
            out.append(account)
        }
        return out
    }

    package func delete(_ identity: UserIdentity) throws {
        let dir = directory(for: identity)
        if FileManager.default.fileExists(atPath: dir.path) { try FileManager.default.removeItem(at: dir) }
    }
}

public enum SDKError: Error, Equatable, CustomStringConvertible, LocalizedError {
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
    /// The Secret Service cannot be used (locked, no provider, no bus, timeout): nothing was changed.
    case keychainUnavailable(String)

    public var description: String {
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
            return "keychain unavailable: the keychain is locked (-25308, interaction not allowed: a launch before the first unlock), so \(n) account(s) cannot be read; nothing was changed and nothing was deleted, the account files are kept as they are: unlock the keyring and launch again (--sdk-recovery would delete them, as the SDK does)"
        case .keychainUnavailable(let detail):
            let reason = detail.contains("keychain unavailable") ? detail : "keychain unavailable: \(detail)"
            return "\(reason); nothing was changed on this device"
        }
    }

    public var errorDescription: String? { description }
}
