import AppGroup
import CoreEngine
import Foundation
import Keychain
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension BootConfig {
    var app: OAuthLogin.App { OAuthLogin.App(clientId: consumerKey, redirectURI: redirectURI, scopes: scopes) }
}

/// Login, switching and logout in the SDK's order, and the REST client of an account.
extension UserAccountManager {
    package func tokens(_ account: UserAccount) -> TokenStore {
        TokenStore(keychain: launch.keychain, account: account.credentials.keychainAccount)
    }

    package func restClient(_ account: UserAccount) -> RestClient {
        RestClient(credentials: account.credentials, tokens: tokens(account))
    }

    /// The web-view login: code + PKCE, then the identity service; a screen-lock policy must be met with a
    /// passcode (set now, or the app's existing one) before the account is kept. The org unreachable is an
    /// error that returns to login: no account, no current-user change, no notification but the will-log-in.
    package func login(org: URL, username: String, password: String, passcode: String?) async throws -> UserAccount {
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        return try await loginSteps(loginHost: org, username: username, passcode: passcode) { keychainAccount in
            try await OAuthLogin.login(
                loginHost: org, app: boot.app, username: username, password: password, keychain: self.launch.keychain, keychainAccount: keychainAccount)
        }
    }

    /// A session from saved credentials, as the SDK's `TestSetupUtils` makes one for a test: the refresh token
    /// (and the access token, when given) go to the keychain under a new account, a refresh grant proves them
    /// (`synchronousAuthRefresh`), then identity, policy and persist run as a login's steps 2 to 5. A refresh
    /// token the org refuses is `RestError.sessionRevoked`, and nothing is kept.
    package func logIn(
        refreshToken: String, accessToken: String?, app: OAuthLogin.App, loginHost: URL, instanceURL: URL, identityURL: URL
    ) async throws -> UserAccount {
        try await loginSteps(loginHost: loginHost, username: "", passcode: nil) { keychainAccount in
            let (orgId, userId) = try OAuthLogin.identityIds(identityURL)
            let credentials = OAuthCredentials(
                clientId: app.clientId, redirectURI: app.redirectURI, loginHost: loginHost, instanceURL: instanceURL, identityURL: identityURL,
                orgId: orgId, userId: userId, keychainAccount: keychainAccount)
            let tokens = TokenStore(keychain: self.launch.keychain, account: keychainAccount)
            try await tokens.save(accessToken: accessToken ?? "", refreshToken: refreshToken)
            _ = try await RestClient(credentials: credentials, tokens: tokens).refreshAccessToken()
            return credentials
        }
    }

    /// A login as its steps, shared by the password login and the identity provider login:
    /// 1. tokens: the web view's code flow, or a code from the IDP app, exchanged (`obtainTokens`, given the
    ///    keychain account to save them under);
    /// 2. identity; 3. the mobile policy; 4. its passcode; 5. persist (account file, current user).
    /// A login that does not finish keeps nothing: the org revokes what it issued, the items go.
    func loginSteps(
        loginHost: URL, username: String, passcode: String?, obtainTokens: (String) async throws -> OAuthCredentials
    ) async throws -> UserAccount {
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        events.post(.userWillLogIn, ["username": username])
        events.step("authenticate", ["org": loginHost.absoluteString])
        // Journaled before any token exists, so that a login killed at any later point leaves tokens
        // that the next launch can revoke and remove (cleanUpOrphanedTokens).
        let keychainAccount = OAuthLogin.newKeychainAccount(boot.app)
        try journal.begin(keychainAccount: keychainAccount, loginHost: loginHost)
        let credentials: OAuthCredentials
        do {
            credentials = try await obtainTokens(keychainAccount)
        } catch RestError.offline(let detail) {
            try? journal.end(keychainAccount: keychainAccount)
            events.step("authenticationFailed", ["reason": "orgUnreachable"])
            throw SDKError.orgUnreachable("the org at \(loginHost.absoluteString) cannot be reached (\(detail)); check --org and that sf-simulator is running")
        } catch {
            events.step("authenticationFailed", ["reason": "\(error)"])
            // The org may have issued tokens before the failure: take back whatever reached the keychain.
            await discardSession(keychainAccount: keychainAccount, loginHost: loginHost)
            throw error
        }
        do {
            let identity = try await identityStep(credentials)
            let policy = try await mobilePolicyStep(identity, passcode: passcode)
            let account = try await persistStep(credentials, identity: identity, policy: policy, username: username, passcode: passcode)
            try? journal.end(keychainAccount: keychainAccount)
            return account
        } catch {
            // Nothing of a login that did not finish is kept: the org revokes the session, the items go.
            await discardSession(keychainAccount: keychainAccount, loginHost: loginHost)
            throw error
        }
    }

    /// Step 2: the identity service, with the new session.
    private func identityStep(_ credentials: OAuthCredentials) async throws -> IdentityResponse {
        let client = RestClient(credentials: credentials, tokens: TokenStore(keychain: launch.keychain, account: credentials.keychainAccount))
        let response = try await client.identity()
        var identity = try response.decode(IdentityResponse.self)
        identity.fields = IdentityFields(json: response.body) ?? IdentityFields([:])
        return identity
    }

    /// What steps 3 and 4 decided: the policy's passcode length (nil without a screen-lock policy), and
    /// whether the app already had a passcode that this login gave.
    private struct PolicyOutcome {
        var pinLength: Int?
        var timeoutMinutes: Int?
        var existingPasscode: Bool
    }

    /// Steps 3 and 4: a screen-lock policy must be met with a passcode (set at persist, or the app's
    /// existing one, checked now) before anything is kept.
    private func mobilePolicyStep(_ identity: IdentityResponse, passcode: String?) async throws -> PolicyOutcome {
        let policy = identity.mobilePolicy
        guard let pinLength = policy?.pinLength.flatMap({ (policy?.screenLock ?? 0) > 0 ? $0 : nil }) else {
            return PolicyOutcome(pinLength: nil, timeoutMinutes: nil, existingPasscode: false)
        }
        events.step("screenLockPolicy", ["pinLength": String(pinLength)])
        // Another account already brought a policy and its passcode: this login must give that passcode.
        let existing = try screenLock.policy() != nil ? await screenLock.hasPasscode() : false
        let valid = passcode.map { $0.count == pinLength && $0.allSatisfy(\.isNumber) } ?? false
        if !valid || existing {
            do {
                guard valid, let passcode else {
                    throw passcode == nil ? SDKError.passcodeRequired(pinLength: pinLength) : SDKError.passcodeInvalid(pinLength: pinLength)
                }
                try await screenLock.unlock(passcode, events: events)
            } catch {
                // Cancelled or failed: nothing of the session is kept (the caller discards it).
                events.step("passcodeFailed")
                throw error
            }
        }
        return PolicyOutcome(pinLength: pinLength, timeoutMinutes: policy?.screenLock, existingPasscode: existing)
    }

    /// Step 5: the account file, the passcode, the current user; then did-log-in and push registration.
    private func persistStep(
        _ credentials: OAuthCredentials, identity: IdentityResponse, policy: PolicyOutcome, username: String, passcode: String?
    ) async throws -> UserAccount {
        var account = UserAccount(
            credentials: credentials, username: identity.username ?? username,
            displayName: identity.displayName ?? username, email: identity.email ?? "",
            screenLockPinLength: policy.pinLength, screenLockTimeoutMinutes: policy.timeoutMinutes)
        account.identityFields = identity.fields.withoutAccountKeys
        // The same user logging in again replaces the session in the account file; the one it replaces
        // must not stay live in the keychain with nothing pointing to it.
        // Journaled first, so that a kill anywhere after the save still leaves it to the next launch.
        try await ensureAccountKey()
        let replaced = try files.load(account.identity).map(\.credentials).flatMap { $0.keychainAccount == credentials.keychainAccount ? nil : $0 }
        if let replaced { try journal.begin(keychainAccount: replaced.keychainAccount, loginHost: replaced.loginHost) }
        try files.save(account)
        do {
            if policy.pinLength != nil, let passcode, !policy.existingPasscode {
                try await screenLock.setPasscode(passcode)
                events.step("passcodeSet")
            }
            try setCurrentUser(account)
        } catch {
            // The session is discarded by the caller; an account file without it would be a logged-out account.
            try? files.delete(account.identity)
            throw error
        }
        events.post(.userDidLogIn, ["user": account.identity.description, "username": account.username])
        // The SDK registers the device for notifications after every login; a failure never fails it.
        await PushNotificationManager(launch: launch, events: events).registerIfNeeded(account)
        if let replaced, !(await discardSession(keychainAccount: replaced.keychainAccount, loginHost: replaced.loginHost)) {
            events.step("replacedSessionKept", ["account": replaced.keychainAccount])
        }
        return account
    }

    var journal: LoginJournal { LoginJournal(defaults: launch.sandbox.standardDefaults) }

    /// Revokes a session at the org (when a refresh token reached the keychain) and removes its token
    /// items; ends its journal entry only when both happened, so a later launch can finish the job.
    @discardableResult
    func discardSession(keychainAccount: String, loginHost: URL?) async -> Bool {
        let tokens = TokenStore(keychain: launch.keychain, account: keychainAccount)
        guard let refresh = try? await tokens.refreshToken() else {
            // Nothing live (or the keychain cannot say): remove what is there, if anything.
            if (try? await tokens.remove()) != nil { try? journal.end(keychainAccount: keychainAccount) }
            return false
        }
        guard let loginHost else { return false }
        do {
            try await revoke(refresh, at: loginHost)
        } catch {
            events.step("orphanRevokeFailed", ["account": keychainAccount, "reason": "\(error)"])
            return false
        }
        guard (try? await tokens.remove()) != nil else { return false }
        try? journal.end(keychainAccount: keychainAccount)
        events.step("orphanedSessionDiscarded", ["account": keychainAccount])
        return true
    }

    /// Token items with a value that no account file points to, in any SDK root of the process (the
    /// app group's or its own container: the flag may have moved since the login). What a login killed
    /// between the token exchange and the account file leaves. Empty items (what logout leaves, as the
    /// SDK does) are not live and do not count.
    package func orphanedTokenAccounts() async throws -> [String] {
        var referenced = Set<String>()
        for root in try launch.dataSharing.allSDKRoots() {
            referenced.formUnion(try AccountFiles(sdkRoot: root, key: accountKey).all().map(\.credentials.keychainAccount))
        }
        let items: [KeychainItemInfo]
        do { items = try await launch.keychain.items() } catch { throw SDKError.keychainUnavailable(error.message) }
        let live = items.filter {
            ($0.service == TokenStore.refreshService || $0.service == TokenStore.accessService) && $0.valueLength > 0
        }
        return Array(Set(live.map(\.account)).subtracting(referenced)).sorted()
    }

    /// The standard-defaults key that says the app has launched since it was installed (it goes with the app).
    package static let launchedSinceInstallKey = "AppGroupSimLaunchedSinceInstall"

    /// At the first launch after an install (`revokeTokensOfPreviousInstall`): the live tokens that no account file
    /// points to were left by a previous install of the app (keychain values outlive it, and the SDK keeps them);
    /// each session is revoked at `loginHost`, then its items removed. A session the org cannot be reached for is
    /// kept, and tried again at the next launch (the marker is set only when none is left). Returns what was
    /// revoked and what was kept; nothing on later launches.
    package func revokeTokensOfPreviousInstall(loginHost: URL?) async throws -> (revoked: [String], kept: [String]) {
        let defaults = launch.sandbox.standardDefaults
        guard try defaults.value(forKey: Self.launchedSinceInstallKey) == nil else { return ([], []) }
        var revoked: [String] = []
        var kept: [String] = []
        for account in try await orphanedTokenAccounts() {
            if await discardSession(keychainAccount: account, loginHost: loginHost) { revoked.append(account) } else { kept.append(account) }
        }
        if !revoked.isEmpty { events.step("tokensOfPreviousInstallRevoked", ["count": String(revoked.count)]) }
        if kept.isEmpty { try defaults.set(.bool(true), forKey: Self.launchedSinceInstallKey) }
        return (revoked, kept)
    }

    /// At launch: revokes at the org, then removes, the live tokens of this app's logins that were
    /// interrupted before their account was saved: only sessions the login journal names are touched,
    /// never tokens whose story the app does not know (doctor reports those). Returns what was discarded
    /// and what could not be (the org unreachable): those stay for the next launch.
    package func cleanUpOrphanedTokens() async throws -> (discarded: [String], kept: [String]) {
        var discarded: [String] = []
        var kept: [String] = []
        let journaled = try journal.entries()
        guard !journaled.isEmpty else { return ([], []) }
        for account in try await orphanedTokenAccounts() {
            guard let host = journaled[account]?.loginHost else { continue }
            if await discardSession(keychainAccount: account, loginHost: host) { discarded.append(account) } else { kept.append(account) }
        }
        // Entries of logins killed before any token reached the keychain have nothing left to do.
        try? journal.prune(keeping: Set(kept))
        return (discarded, kept)
    }

    /// What a launch does with accounts it cannot read because the keychain cannot be: keep every file
    /// (AppGroupSim's default) or the SDK's destructive recovery.
    package typealias Recovery = AccountRecovery

    /// The launch's check of the keychain and the account key, before anything is changed. A keychain
    /// that cannot be used (locked, no Secret Service, no bus, no answer) stops the launch with one
    /// message and changes nothing. With `.sdkDestructive`, what the SDK does happens, for real: the key
    /// cannot be read, so a new one is made (where the keychain lets it), no account file decrypts, and
    /// each is deleted with its stores; the current user is cleared. Account files written before
    /// encryption are sealed. Returns the users that recovery deleted (empty otherwise).
    @discardableResult
    package func verifyAtLaunch(recovery: Recovery) async throws -> [String] {
        let status = await launch.keychain.status()
        let stored = try files.count()
        if let error = status.error {
            events.step(status.status == .interactionNotAllowed ? "keychainLockedAtLaunch" : "keychainUnavailableAtLaunch",
                        ["accounts": String(stored), "status": String(status.status.rawValue)])
            guard recovery == .sdkDestructive, stored > 0 else {
                if status.status == .interactionNotAllowed, stored > 0 { throw SDKError.keychainLockedAtLaunch(accounts: stored) }
                throw SDKError.keychainUnavailable(error.message)
            }
        }
        await loadAccountKey(recovery: recovery)
        guard recovery == .sdkDestructive else {
            if try files.hasPlainFiles() {
                try await ensureAccountKey()
                events.step("accountFilesSealed", ["count": String(try files.sealPlainFiles())])
            }
            return []
        }
        // The SDK's fetchAllAccounts: every file that does not decrypt with the key it has is deleted.
        let root = try launch.dataSharing.sdkRoot()
        let before = try launch.dataSharing.sdkRoot().accountFiles().map { UserIdentity(orgId: $0.orgId, userId: $0.userId) }
        let readable = Set(try allAccounts().map(\.identity))
        let deleted = before.filter { !readable.contains($0) }
        for identity in deleted {
            // The user's stores with the account: the SDK cannot open them without the key either (and recreates them empty).
            try UserFiles.delete(identity, in: root)
            events.step("deletedUnreadableAccount", ["user": identity.description])
        }
        if !deleted.isEmpty, let current = UserIdentity(plist: try launch.dataSharing.msdkUserDefaults().value(forKey: Self.lastUserIdentityKey)),
            deleted.contains(current)
        {
            try setCurrentUser(nil)
        }
        return deleted.map(\.description)
    }

    /// On a device restored from a backup, the account key stayed behind (its class is `…ThisDeviceOnly`), or came
    /// without the EC key pair that unwraps it (always `…ThisDeviceOnly`), so no account file can ever be read here again: each is set aside (renamed `UserAccount.plist.unreadable-<time>`,
    /// kept, never deleted) and the current user cleared, so that the user can log in again. The SDK deletes them
    /// instead (`--sdk-recovery`). Only when the key is in no group this process may read and the device says it
    /// was restored: a key missing for want of an entitlement is a misconfiguration, and is reported as one.
    /// Returns the users set aside.
    package func setAsideAccountsLeftByARestore() throws -> [String] {
        guard launch.sandbox.device.restoredFrom != nil else { return [] }
        switch accountKey {
        case .missing: break
        // The wrapped key came with the backup, the EC key pair that unwraps it did not (it never does).
        case .unreadable(let result) where result.status == .itemNotFound: break
        default: return []
        }
        let stamp = ISO8601DateFormatter().string(from: Date())
        var aside: [String] = []
        for file in try launch.dataSharing.sdkRoot().accountFiles() {
            let to = file.url.appendingPathExtension("unreadable-\(stamp)")
            try FileManager.default.moveItem(at: file.url, to: to)
            aside.append(UserIdentity(orgId: file.orgId, userId: file.userId).description)
            events.step("setAsideUnreadableAccount", ["user": aside.last!, "file": to.lastPathComponent])
        }
        if !aside.isEmpty { try setCurrentUser(nil) }
        return aside
    }

    /// Runs `body`, which talks to the org as `account`. A refresh token the org refuses
    /// (`RestError.sessionRevoked`) logs the user out, as the SDK does (reason `refreshTokenRevoked`),
    /// and is thrown as `SDKError.sessionRevoked`.
    package func withSession<T>(_ account: UserAccount, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch RestError.sessionRevoked {
            try await logout(account, reason: "refreshTokenRevoked")
            throw SDKError.sessionRevoked(username: account.username)
        }
    }

}
