import AppGroup
import CoreEngine
import Foundation

/// What the app does at every launch before it changes anything, in this order: the device's file
/// rules restored in what it owns, the keychain checked (unusable: stop with nothing changed, or the
/// SDK's recovery when asked for), and the tokens of logins that were killed before their account was
/// saved revoked and removed. `note` gets what the app should say on stderr, one line each, as it
/// happens (so a launch that then stops has said what it repaired first).
package enum LaunchPreparation {
    /// - Parameter requireKeychain: false for a launch that only reports (`status`): it goes on with a
    ///   keychain it cannot use, and so touches nothing that needs it. With a keychain it can use, it is a launch
    ///   of the app like any other and prepares as each does (what an interrupted login left is discarded, an
    ///   account a restore left unreadable set aside): opening the app runs the same code whatever it shows.
    /// - Returns: whether the keychain could be used (always true when `requireKeychain`, which throws otherwise).
    @discardableResult
    package static func run(
        _ launch: ProcessLaunch, accounts: UserAccountManager, recovery: UserAccountManager.Recovery, requireKeychain: Bool,
        note: (String) -> Void
    ) async throws -> Bool {
        let repaired = launch.sandbox.restoreFileRules()
        if let first = repaired.tightened.first {
            note("tightened \(repaired.tightened.count) path(s) that others could read (e.g. \(first.path), was \(String(first.mode, radix: 8))): the device keeps directories 0700 and files 0600")
        }
        if let first = repaired.removed.first {
            note("removed \(repaired.removed.count) temp file(s) left by writers that were killed (e.g. \(first))")
        }
        let usable = requireKeychain ? true : await launch.keychain.status().success
        guard usable else {
            // Read the account key if the keychain allows; a report then says what it could not read.
            await accounts.loadAccountKey()
            return false
        }
        let deleted = try await accounts.verifyAtLaunch(recovery: recovery)
        if !deleted.isEmpty {
            note("the SDK's recovery deleted the account(s) it could not read or decrypt (the device's data protection kept the file closed, its key could not be read, or it was not sealed with it): \(deleted.joined(separator: ", "))")
            // A keychain that cannot be used is why the recovery ran: nothing more to do with it.
            if await launch.keychain.status().error != nil { return false }
        }
        let aside = try accounts.setAsideAccountsLeftByARestore()
        if !aside.isEmpty {
            note("this device was restored from backup \(launch.sandbox.device.restoredFrom ?? ""): the account key stayed behind (afterFirstUnlockThisDeviceOnly, which a backup does not carry), so \(aside.joined(separator: ", ")) can never be read here; the account file(s) were set aside as UserAccount.plist.unreadable-… (kept, not deleted: the SDK deletes them, --sdk-recovery); log in again")
        }
        let orphans = try await accounts.cleanUpOrphanedTokens()
        if !orphans.discarded.isEmpty {
            note("revoked at the org and removed the tokens of \(orphans.discarded.count) login(s) that were interrupted before their account was saved")
        }
        if !orphans.kept.isEmpty {
            note("\(orphans.kept.count) interrupted login(s) left tokens that could not be revoked yet (the org is unreachable); they are kept and retried at the next launch")
        }
        return true
    }
}
