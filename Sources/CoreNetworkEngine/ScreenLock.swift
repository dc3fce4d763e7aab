import AppGroup
import Crypto
import CoreEngine
import Foundation
import Keychain

/// The connected app's screen-lock policy (`mobile_policy` of the identity service), applied as the
/// SDK's screen-lock manager does: app-wide, with the strictest policy of any account on the device.
/// The passcode is set at the login that brought the policy, kept only as a salted hash in the
/// keychain, asked for again at a launch once the app has been idle longer than the policy's timeout,
/// and after `maxAttempts` wrong passcodes every account under the policy is logged out.
package struct ScreenLock: Sendable {
    package static let passcodeService = "com.salesforce.mobilesdk.screenlock.passcode"
    /// App-private bookkeeping (standard defaults): when the app was last unlocked or used, failed attempts.
    package static let lastActiveKey = "AppGroupSimScreenLockLastActive"
    package static let failedAttemptsKey = "AppGroupSimScreenLockFailedAttempts"
    package static let maxAttempts = 10

    package struct Policy: Sendable, Equatable {
        package var pinLength: Int
        package var timeoutMinutes: Int
    }

    let launch: ProcessLaunch
    /// The device's accounts (their policies), and how to log one out: the account manager's, handed in,
    /// so that the lock is a collaborator of the manager and knows nothing else of it.
    let accounts: @Sendable () throws -> [UserAccount]
    let logout: @Sendable (UserAccount, _ reason: String) async throws -> Void

    package init(
        launch: ProcessLaunch, accounts: @escaping @Sendable () throws -> [UserAccount],
        logout: @escaping @Sendable (UserAccount, String) async throws -> Void
    ) {
        self.launch = launch
        self.accounts = accounts
        self.logout = logout
    }

    /// The strictest policy among the device's accounts, nil when none has one.
    package func policy() throws -> Policy? {
        let policies = try accounts().compactMap { a in
            a.screenLockPinLength.map { Policy(pinLength: $0, timeoutMinutes: a.screenLockTimeoutMinutes ?? 1) }
        }
        guard !policies.isEmpty else { return nil }
        return Policy(pinLength: policies.map(\.pinLength).max()!, timeoutMinutes: policies.map(\.timeoutMinutes).min()!)
    }

    /// Whether a launch now has to show the lock screen.
    package func isLocked(now: Date = Date()) throws -> Bool {
        guard let policy = try policy() else { return false }
        guard let last = try launch.sandbox.standardDefaults.value(forKey: Self.lastActiveKey)?.dateValue else { return true }
        return now.timeIntervalSince(last) > Double(policy.timeoutMinutes * 60) || now < last
    }

    /// Records use of the unlocked app (the timeout counts from the last use, as on a device in the foreground).
    package func touch(now: Date = Date()) throws {
        guard try policy() != nil else { return }
        try launch.sandbox.standardDefaults.set(.date(now), forKey: Self.lastActiveKey)
    }

    /// Is a passcode already set for this app?
    package func hasPasscode() async -> Bool {
        await launch.keychain.read(service: Self.passcodeService, account: "").data.map { !$0.isEmpty } ?? false
    }

    /// Sets the passcode (only a salted SHA-256 goes to the keychain) and unlocks.
    package func setPasscode(_ passcode: String) async throws {
        var salt = [UInt8](repeating: 0, count: 16)
        for i in salt.indices { salt[i] = UInt8.random(in: 0...255) }
        let result = await launch.keychain.write(salt + Self.hash(passcode, salt: salt), service: Self.passcodeService, account: "")
        if let error = result.error { throw SDKError.keychain(error.description) }
        try launch.sandbox.standardDefaults.set(nil, forKey: Self.failedAttemptsKey)
        try touch()
    }

    /// Checks `passcode` against the stored hash. Wrong: counts the attempt and throws; at the last
    /// attempt the accounts under the policy are logged out (returned in the error).
    package func unlock(_ passcode: String?, events: SDKEvents) async throws {
        guard let policy = try policy() else { return }
        events.step("screenLockShown", ["pinLength": String(policy.pinLength)])
        guard let passcode else {
            events.step("screenLockCancelled")
            throw SDKError.screenLocked(pinLength: policy.pinLength)
        }
        let stored = await launch.keychain.read(service: Self.passcodeService, account: "")
        if let error = stored.error, stored.status != .itemNotFound { throw SDKError.keychain(error.description) }
        guard let bytes = stored.data, bytes.count > 16 else {
            // A policy but no passcode (the keychain was reset): the user sets one now, as on first login.
            guard passcode.count == policy.pinLength, passcode.allSatisfy(\.isNumber) else {
                throw SDKError.passcodeInvalid(pinLength: policy.pinLength)
            }
            try await setPasscode(passcode)
            events.step("passcodeSet")
            return
        }
        let salt = Array(bytes.prefix(16))
        if Self.hash(passcode, salt: salt) == Array(bytes.dropFirst(16)) {
            try launch.sandbox.standardDefaults.set(nil, forKey: Self.failedAttemptsKey)
            try touch()
            events.step("screenUnlocked")
            return
        }
        let failed = (try launch.sandbox.standardDefaults.value(forKey: Self.failedAttemptsKey)?.intValue ?? 0) + 1
        try launch.sandbox.standardDefaults.set(.int(failed), forKey: Self.failedAttemptsKey)
        events.step("passcodeFailed", ["attempt": String(failed)])
        guard failed >= Self.maxAttempts else {
            throw SDKError.passcodeWrong(attemptsLeft: Self.maxAttempts - failed)
        }
        // The SDK logs out every user when the attempts run out.
        var loggedOut: [String] = []
        for account in try accounts() where account.screenLockPinLength != nil {
            try await logout(account, "screenLockAttemptsExhausted")
            loggedOut.append(account.username)
        }
        try await reset()
        throw SDKError.screenLockExhausted(loggedOut: loggedOut)
    }

    /// The SDK's `checkForScreenLockUsers` at each launch, "because keychain values can outlive the app": a
    /// passcode left in the keychain with no account on the device that needs it (the app was removed and
    /// installed again, its account files gone with it) is forgotten, so no lock screen asks for it. True when
    /// one was.
    package func checkForScreenLockUsers() async throws -> Bool {
        guard try policy() == nil else { return false }
        let stored = await launch.keychain.read(service: Self.passcodeService, account: "")
        guard stored.success else { return false }
        try await reset()
        return true
    }

    /// Forgets the passcode when no account needs it any more (the SDK does this on the last such logout).
    package func reset() async throws {
        guard try policy() == nil else { return }
        _ = await launch.keychain.remove(service: Self.passcodeService, account: "")
        try launch.sandbox.standardDefaults.set(nil, forKey: Self.failedAttemptsKey)
        try launch.sandbox.standardDefaults.set(nil, forKey: Self.lastActiveKey)
    }

    static func hash(_ passcode: String, salt: [UInt8]) -> [UInt8] {
        var digest = Array(SHA256.hash(data: salt + Array(passcode.utf8)))
        for _ in 0..<10_000 { digest = Array(SHA256.hash(data: salt + digest)) }
        return digest
    }
}

extension UserAccountManager {
    /// The app's screen lock, over this manager's accounts.
    package var screenLock: ScreenLock {
        ScreenLock(launch: launch, accounts: { try self.allAccounts() }, logout: { account, reason in _ = try await self.logout(account, reason: reason) })
    }
}
