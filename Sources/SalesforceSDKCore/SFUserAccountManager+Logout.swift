import Foundation
import CoreEngine
import CoreNetworkEngine
import SalesforceSDKCommon

// Logout and user switching, in the SDK's order, on the engine's facade (the same code `main-app logout`
// runs: will-logout, the user's files and stores, revoke at the org, the token items emptied, the current
// user cleared, did-logout). The SDK revokes without waiting; its blocks run after.
extension UserAccountManager {
    /// Logs the current user out.
    public func logout() { logout(SFLogoutReason.userInitiated) }

    public func logout(_ reason: SFLogoutReason) {
        guard let user = currentUserAccount else { return }
        logout(user, reason: reason)
    }

    public func logout(_ user: UserAccount, reason: SFLogoutReason = .userInitiated) {
        let accounts = engine.loadedAccounts()
        let account = user.engine
        do {
            _ = try SDKProcess.blocking { try await accounts.logout(account, reason: reason.name) }
        } catch {
            engine.warn("UserAccountManager could not log \(user.accountIdentity) out: \(error)")
        }
    }

    public func logoutAllUsers() {
        for user in userAccounts() ?? [] { logout(user, reason: .userInitiated) }
    }

    /// Makes the account the current user, with the will/did-switch notifications.
    public func switchToUserAccount(_ userAccount: UserAccount) {
        let from = currentUserAccount
        for delegate in delegates.all { delegate.userAccountManager(accountManager: self, willSwitchFrom: from, to: userAccount) }
        defer { for delegate in delegates.all { delegate.userAccountManager(accountManager: self, didSwitchFrom: from, to: userAccount) } }
        do { try engine.loadedAccounts().switchToUser(userAccount.engine) } catch {
            engine.warn("UserAccountManager could not switch to \(userAccount.accountIdentity): \(error)")
        }
    }
}

/// `SFLogoutReason`.
@objc public enum SFLogoutReason: Int, Sendable {
    case userInitiated = 0, unknown, tokenExpired, refreshTokenRotated, sessionTimeout, unexpected, unexpectedResponse

    var name: String {
        switch self {
        case .userInitiated: return "userInitiated"
        case .unknown: return "unknown"
        case .tokenExpired: return "tokenExpired"
        case .refreshTokenRotated: return "refreshTokenRotated"
        case .sessionTimeout: return "sessionTimeout"
        case .unexpected: return "unexpected"
        case .unexpectedResponse: return "unexpectedResponse"
        }
    }
}
