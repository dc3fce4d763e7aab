import AppGroup
import CoreEngine
import Foundation
import Keychain
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Switching users and logging out: the session a user leaves, its tokens revoked and its files deleted.
extension UserAccountManager {
    package func switchToUser(_ account: UserAccount) throws {
        let current = try currentUser()
        guard current?.identity != account.identity else { return }
        events.post(.userWillSwitch, ["from": current?.identity.description ?? "", "to": account.identity.description])
        try setCurrentUser(account)
        events.post(.userDidSwitch, ["from": current?.identity.description ?? "", "to": account.identity.description])
    }

    /// What a logout could not do at the org. The SDK revokes without waiting for the answer, so a
    /// failure never stops the logout; AppGroupSim reports it instead of dropping it.
    package struct LogoutResult: Sendable, Equatable {
        /// Why the org was not told to revoke the refresh token (unreachable, an error), nil when it was.
        package var revokeFailure: String?
    }

    /// Logout in the SDK's order: will-logout; the user's files and stores; revoke at the org; empty the
    /// token items; clear the current user (without a did-change-user notification, as in the SDK);
    /// did-logout; org-did-logout when no account of the org is left. The refresh token is read before
    /// anything is deleted: a keychain that cannot be read stops the logout with nothing changed.
    @discardableResult
    package func logout(_ account: UserAccount, reason: String = "userInitiated") async throws -> LogoutResult {
        let refresh: String?
        do {
            refresh = try await tokens(account).refreshToken()
        } catch {
            throw SDKError.keychainUnavailable("\(error)")
        }
        events.post(.userWillLogout, ["user": account.identity.description, "reason": reason])
        // While the session still works: the org stops sending this device the user's notifications.
        await PushNotificationManager(launch: launch, events: events).unregister(account)
        try UserFiles.delete(account.identity, in: try launch.dataSharing.sdkRoot())
        var result = LogoutResult(revokeFailure: nil)
        if let refresh {
            do {
                try await revoke(refresh, at: account.credentials.loginHost)
                events.step("revoked")
            } catch {
                result.revokeFailure = "\(error)"
                events.step("revokeFailed", ["reason": "\(error)"])
            }
        }
        do {
            try await tokens(account).reset()
        } catch {
            throw SDKError.keychainUnavailable("\(error)")
        }
        if try currentUser()?.identity == account.identity || currentUser() == nil {
            try launch.dataSharing.msdkUserDefaults().set(nil, forKey: Self.lastUserIdentityKey)
        }
        try await screenLock.reset()
        // The SDK keeps its one push key (com.salesforce.mobilesdk.notificationKey) for the app's life. Here the
        // last logout also removes it, whether or not the org was reached: with no user on the device, nothing
        // delivered to it afterwards can be decrypted. The device record was dropped above, at the org or not.
        if try allAccounts().isEmpty {
            let removed = await launch.keychain.remove(service: PushKey.service)
            if removed.success { events.step("pushKeyRemoved") }
        }
        events.post(.userDidLogout, ["user": account.identity.description])
        if try allAccounts().allSatisfy({ $0.orgId != account.orgId }) {
            events.post(.orgDidLogout, ["org": account.orgId])
        }
        return result
    }

    /// POST `services/oauth2/revoke` with the refresh token, through RestClient's transport and form encoder.
    func revoke(_ refreshToken: String, at loginHost: URL) async throws {
        try await OAuthLogin.revoke(refreshToken: refreshToken, at: loginHost)
    }

}
