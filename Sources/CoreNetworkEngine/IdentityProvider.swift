import AppGroup
import Foundation
import Keychain
import CoreEngine

/// The IDP settings of an app's boot config: `isIdentityProvider` for an IDP app, `idpAppURIScheme`
/// (the SDK's `identityProviderURLScheme`) for an SP app.
package struct IDPConfig: Sendable, Equatable {
    package var isIdentityProvider: Bool
    package var idpAppURIScheme: String?

    package static func load(from bundle: AppBundle) throws -> IDPConfig {
        let plist = try bundle.plistResource("bootconfig.plist") ?? [:]
        return IDPConfig(
            isIdentityProvider: plist["isIdentityProvider"]?.boolValue ?? false,
            idpAppURIScheme: plist["idpAppURIScheme"]?.stringValue.flatMap { $0.isEmpty ? nil : $0.lowercased() })
    }
}

/// A login this SP app asked an IDP for, pending in one scene until the answer comes. Kept in the app's
/// standard defaults (the process that asked may be gone when the answer launches the app); its PKCE
/// verifier is a secret and is kept in the keychain only.
struct PendingIDPLogin: Sendable, Equatable {
    var state: String
    var loginHost: URL
}

extension UserAccountManager {
    /// `UserAccountManager.IDPSceneKey` (`kSFIDPSceneIdKey`): the scene a response is handled in.
    package static let IDPSceneKey = "kSFIDPSceneIdKey"
    static let pendingIDPLoginsKey = "IDPAuthSessions"
    static let idpVerifierService = "com.salesforce.mobilesdk.idp.codeVerifier"

    /// The app's own URL scheme (its Info.plist's first `CFBundleURLSchemes`), where an IDP answers.
    func ownScheme() throws -> String {
        guard let scheme = DeviceApps.schemes(of: launch.sandbox.bundle).first else {
            throw SDKError.idpNotConfigured("\(launch.sandbox.bundle.url.lastPathComponent) claims no URL scheme, so the identity provider app cannot answer it: add CFBundleURLTypes with a scheme to its Info.plist")
        }
        return scheme
    }

    func pendingIDPLogins() throws -> [String: PendingIDPLogin] {
        let all = try launch.sandbox.standardDefaults.value(forKey: Self.pendingIDPLoginsKey)?.dictionaryValue ?? [:]
        return all.compactMapValues { value in
            guard let d = value.dictionaryValue, let state = d["state"]?.stringValue, let host = d["loginHost"]?.stringValue.flatMap(URL.init(string:))
            else { return nil }
            return PendingIDPLogin(state: state, loginHost: host)
        }
    }

    func savePendingIDPLogin(_ pending: PendingIDPLogin?, scene: String) throws {
        try launch.sandbox.standardDefaults.update(Self.pendingIDPLoginsKey) { value in
            var all = value?.dictionaryValue ?? [:]
            all[scene] = pending.map { .dictionary(["state": .string($0.state), "loginHost": .string($0.loginHost.absoluteString)]) }
            value = all.isEmpty ? nil : .dictionary(all)
        }
    }

    /// The SP side of SP-initiated login: a new state and PKCE pair for `scene` (replacing a login
    /// pending there), and the `authrequest` command to open at the IDP app.
    package func beginIdentityProviderLogin(scene: String, loginHost: URL, userHint: String?) async throws -> IDPCommand {
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        guard let idpScheme = try IDPConfig.load(from: launch.sandbox.bundle).idpAppURIScheme else {
            throw SDKError.idpNotConfigured("bootconfig.plist of \(launch.sandbox.bundle.url.lastPathComponent) has no idpAppURIScheme (the identity provider app's URL scheme)")
        }
        let mine = try ownScheme()
        // The SDK asks iOS whether it can open the IDP's URL before it starts: a login that cannot be sent
        // leaves nothing behind (no pending login, no verifier item).
        try requireOneAppClaiming(idpScheme)
        let (verifier, challenge) = OAuthLogin.newVerifier()
        let state = OAuthLogin.randomState()
        if let earlier = try pendingIDPLogins()[scene] { _ = await launch.keychain.remove(service: Self.idpVerifierService, account: earlier.state) }
        let written = await launch.keychain.write(Array(verifier.utf8), service: Self.idpVerifierService, account: state)
        guard written.success else { throw SDKError.keychainUnavailable(written.error?.message ?? "status \(written.status.rawValue)") }
        try savePendingIDPLogin(PendingIDPLogin(state: state, loginHost: loginHost), scene: scene)
        var params = [
            IDPCommand.Param.clientId: boot.consumerKey, IDPCommand.Param.redirectURI: boot.redirectURI,
            IDPCommand.Param.scopes: boot.scopes.joined(separator: ","), IDPCommand.Param.codeChallenge: challenge,
            IDPCommand.Param.state: state, IDPCommand.Param.appName: launch.sandbox.bundle.displayName ?? launch.sandbox.bundleIdentifier,
            IDPCommand.Param.loginHost: loginHost.absoluteString, IDPCommand.Param.callingAppURL: "\(mine)://\(IDPCommand.host)/\(IDPCommand.version)/authresponse",
            IDPCommand.Param.sceneId: scene,
        ]
        if let userHint { params[IDPCommand.Param.userHint] = userHint }
        let command = IDPCommand(scheme: idpScheme, name: .authRequest, params: params)
        events.step("idpCommandSent", command.traceInfo)
        return command
    }

    /// One installed app claims `scheme`, or the login cannot start: `idp_not_installed` as the SDK says it
    /// (no app), or the device's refusal of a scheme two apps claim (iOS would pick one at random: a
    /// squatter could receive the request).
    func requireOneAppClaiming(_ scheme: String) throws {
        let apps = try DeviceApps(device: launch.sandbox.device).apps().filter { $0.schemes.contains(scheme) }
        if apps.isEmpty {
            throw SDKError.idpError(code: "idp_not_installed", reason: "Identity provider app not installed",
                description: DeviceApps.Failure.unknownScheme(scheme).description)
        }
        if apps.count > 1 { throw DeviceApps.Failure.schemeClaimedTwice(scheme: scheme, apps: apps.map(\.bundleIdentifier)) }
    }

    /// Gives up the login pending in `scene` (no answer came): its record and verifier go.
    package func abandonIdentityProviderLogin(scene: String) async throws {
        guard let pending = try pendingIDPLogins()[scene] else { return }
        _ = await launch.keychain.remove(service: Self.idpVerifierService, account: pending.state)
        try savePendingIDPLogin(nil, scene: scene)
        events.step("idpLoginAbandoned", ["scene": scene])
    }

    /// The SP side of an answer: `authresponse` completes the login pending in the scene of `options`
    /// (`IDPSceneKey`, else the scene the command names) with the code and the kept verifier, through
    /// the same steps as a password login (identity, mobile policy, passcode, persist); `error` ends it.
    /// A state that matches no pending login, or a scene with none, is refused and changes nothing.
    package func handleIdentityProviderResponse(from url: URL, with options: [String: String] = [:], passcode: String? = nil) async throws -> UserAccount {
        guard let command = IDPCommand(url: url), command.name == .authResponse || command.name == .error else {
            throw SDKError.idpRefused("\(url.scheme ?? "?"): URL is not an IDP authresponse or error command")
        }
        events.step("idpCommandReceived", command.traceInfo)
        let scene = options[Self.IDPSceneKey] ?? command.params[IDPCommand.Param.sceneId] ?? "main"
        guard let pending = try pendingIDPLogins()[scene] else {
            events.step("idpResponseRefused", ["scene": scene, "reason": "noPendingLogin"])
            throw SDKError.idpRefused("no identity provider login is pending in scene \(scene) (the SDK: authentication session for sp app was evicted)")
        }
        guard command.params[IDPCommand.Param.state] == pending.state else {
            events.step("idpResponseRefused", ["scene": scene, "reason": "stateMismatch"])
            throw SDKError.idpRefused("its state does not match the login pending in scene \(scene)")
        }
        // A response that cannot be this login's answer is refused before anything is consumed, so a forged
        // one (no code, another host) never ends the real login pending here.
        let loginHost: URL
        if command.name == .authResponse {
            guard let code = command.params[IDPCommand.Param.code], !code.isEmpty else {
                events.step("idpResponseRefused", ["scene": scene, "reason": "noCode"])
                throw SDKError.idpRefused("the authresponse has no code")
            }
            loginHost = pending.loginHost
            if let named = command.params[IDPCommand.Param.loginHost], !Self.sameHost(named, pending.loginHost) {
                // The verifier goes only to the host this login was started for: never to one the answer names.
                events.step("idpResponseRefused", ["scene": scene, "reason": "otherLoginHost"])
                throw SDKError.idpRefused("it names login host \(Self.origin(named)), but the login pending in scene \(scene) was started at \(Self.origin(pending.loginHost.absoluteString)); the code is not exchanged anywhere else")
            }
        } else {
            loginHost = pending.loginHost
        }
        // One answer per request, whatever it says: the pending login and its verifier go now.
        let verifierItem = await launch.keychain.read(service: Self.idpVerifierService, account: pending.state)
        _ = await launch.keychain.remove(service: Self.idpVerifierService, account: pending.state)
        try savePendingIDPLogin(nil, scene: scene)
        if command.name == .error {
            let p = command.params
            events.step("idpLoginFailed", ["scene": scene, "errorCode": p[IDPCommand.Param.errorCode] ?? ""])
            throw SDKError.idpError(
                code: p[IDPCommand.Param.errorCode] ?? "unknown", reason: p[IDPCommand.Param.errorReason] ?? "",
                description: p[IDPCommand.Param.errorDescription] ?? "")
        }
        let code = command.params[IDPCommand.Param.code] ?? ""
        guard verifierItem.success, let bytes = verifierItem.data else {
            throw SDKError.keychainUnavailable("the PKCE verifier of the pending login cannot be read: \(verifierItem.error?.message ?? "status \(verifierItem.status.rawValue)")")
        }
        let boot = try BootConfig.load(from: launch.sandbox.bundle)
        let account = try await loginSteps(loginHost: loginHost, username: "", passcode: passcode) { keychainAccount in
            try await OAuthLogin.exchange(
                code: code, verifier: String(decoding: bytes, as: UTF8.self), loginHost: loginHost, app: boot.app,
                keychain: self.launch.keychain, keychainAccount: keychainAccount)
        }
        events.step("idpLoginCompleted", ["scene": scene, "user": account.identity.description])
        return account
    }

    /// Scheme, host and port of a login host given as text (what a host is compared by).
    static func origin(_ text: String) -> String {
        guard let c = URLComponents(string: text), let scheme = c.scheme, let host = c.host, !host.isEmpty else { return "\"\(text.prefix(80))\"" }
        return "\(scheme.lowercased())://\(host.lowercased())" + (c.port.map { ":\($0)" } ?? "")
    }

    static func sameHost(_ text: String, _ host: URL) -> Bool { origin(text) == origin(host.absoluteString) }

    /// The SP side of `idpinit`: the IDP asks this app to log its user in. A user the app already has
    /// becomes current; otherwise the SP-initiated flow starts (the returned `authrequest` to open).
    package func handleIdentityProviderInitiated(_ command: IDPCommand, scene: String = "main", fallbackLoginHost: URL?) async throws -> IDPCommand? {
        events.step("idpCommandReceived", command.traceInfo)
        let hint = command.params[IDPCommand.Param.userHint]
        if let hint, let account = try account(matchingHint: hint) {
            try switchToUser(account)
            events.step("idpInitSwitchedUser", ["user": account.identity.description])
            return nil
        }
        guard let host = command.params[IDPCommand.Param.loginHost].flatMap(URL.init(string:)) ?? fallbackLoginHost else { throw SDKError.noLoginHost }
        return try await beginIdentityProviderLogin(scene: scene, loginHost: host, userHint: hint)
    }

    /// The account a `user_hint` names: `userId:orgId` (the SDK's encoding) or a username.
    package func account(matchingHint hint: String) throws -> UserAccount? {
        let accounts = try allAccounts()
        let parts = hint.split(separator: ":").map(String.init)
        if parts.count == 2 { return accounts.first { $0.userId == parts[0] && $0.orgId == parts[1] } }
        return accounts.first { $0.username.lowercased() == hint.lowercased() }
    }

    /// The SDK's encoding of a user for `user_hint`.
    package static func userHint(_ account: UserAccount) -> String { "\(account.userId):\(account.orgId)" }

    // MARK: IDP side

    /// What the IDP app's user did on its user-selection screen.
    package enum IDPUserChoice: Sendable {
        case account(UserAccount)
        case cancelled
    }

    /// The IDP side of `authrequest`: the user picks an account (`choose`, given the app's accounts and the
    /// request's hint; it may log in first), the IDP gets a code for the SP's connected app with that
    /// account's session, and answers `authresponse` with it, or `error` with the SDK's parameters. The
    /// returned command is the answer to open at the SP app.
    ///
    /// The answer goes only to the scheme of `oauth_redirect_uri`, the callback the org has registered for the
    /// client id (the org refuses a code for any other), never to the `calling_app_url` the caller chose: an
    /// app asking in another app's name gets nothing. A request whose redirect URI has no usable scheme has
    /// nowhere to be answered and throws `idpRefused`.
    package func answerAuthRequest(_ request: IDPCommand, choose: ([UserAccount], String?) async throws -> IDPUserChoice) async throws -> IDPCommand {
        events.step("idpCommandReceived", request.traceInfo)
        let p = request.params
        guard let scheme = IDPCommand.scheme(of: p[IDPCommand.Param.redirectURI]) else {
            events.step("idpRequestRefused", ["reason": "noRedirectURI"])
            throw SDKError.idpRefused("the authrequest has no usable oauth_redirect_uri, so there is no app to answer; nothing was sent")
        }
        if let calling = p[IDPCommand.Param.callingAppURL], IDPCommand.scheme(of: calling) != scheme {
            events.step("idpCallingURLIgnored", ["to": scheme])
        }
        func refuse(_ code: String, _ reason: String, _ description: String) -> IDPCommand {
            var params = [IDPCommand.Param.errorCode: code, IDPCommand.Param.errorReason: reason, IDPCommand.Param.errorDescription: description]
            params[IDPCommand.Param.state] = p[IDPCommand.Param.state]
            params[IDPCommand.Param.sceneId] = p[IDPCommand.Param.sceneId]
            let answer = IDPCommand(scheme: scheme, name: .error, params: params)
            events.step("idpCommandSent", answer.traceInfo)
            return answer
        }
        guard (try? IDPConfig.load(from: launch.sandbox.bundle).isIdentityProvider) == true else {
            return refuse("not_identity_provider", "Not an identity provider", "\(launch.sandbox.bundle.url.lastPathComponent) is not an identity provider app (isIdentityProvider is not set in its bootconfig.plist)")
        }
        guard let clientId = p[IDPCommand.Param.clientId], let redirectURI = p[IDPCommand.Param.redirectURI],
            let challenge = p[IDPCommand.Param.codeChallenge], !challenge.isEmpty, p[IDPCommand.Param.state] != nil
        else {
            return refuse("invalid_request", "Malformed request", "the authrequest lacks oauth_client_id, oauth_redirect_uri, code_challenge or state")
        }
        let accounts: [UserAccount]
        let choice: IDPUserChoice
        do {
            accounts = try allAccounts()
            choice = try await choose(accounts, p[IDPCommand.Param.userHint])
        } catch {
            return refuse("login_failed", "Login failed", "\(error)")
        }
        guard case .account(let account) = choice else {
            events.step("idpUserCancelled")
            return refuse("user_cancelled", "User cancelled authentication", "the user cancelled the login in \(launch.sandbox.bundle.displayName ?? "the identity provider app")")
        }
        events.step("idpUserSelected", ["user": account.identity.description])
        let scopes = (p[IDPCommand.Param.scopes] ?? "").split(whereSeparator: { $0 == "," || $0 == " " }).map(String.init)
        let code: String
        do {
            code = try await restClient(account).authorizationCode(
                for: OAuthLogin.App(clientId: clientId, redirectURI: redirectURI, scopes: scopes), codeChallenge: challenge, state: nil)
        } catch .oauth(_, let oauthError, let description) {
            return refuse(oauthError, "The connected app refused the client", description)
        } catch .sessionRevoked {
            return refuse("session_revoked", "Session revoked", "the session of \(account.username) in the identity provider app was revoked at the org; log in to it again")
        } catch {
            return refuse("auth_code_failed", "Authorization code request failed", "\(error)")
        }
        let answer = IDPCommand(scheme: scheme, name: .authResponse, params: [
            IDPCommand.Param.code: code, IDPCommand.Param.state: p[IDPCommand.Param.state] ?? "",
            IDPCommand.Param.loginHost: account.credentials.loginHost.absoluteString, IDPCommand.Param.sceneId: p[IDPCommand.Param.sceneId] ?? "main",
        ].filter { !$0.value.isEmpty })
        events.step("idpCommandSent", answer.traceInfo)
        return answer
    }

    /// The IDP side of IDP-initiated login: `idpinit` for the SP app's scheme, naming the user.
    package func identityProviderInitiated(spScheme: String, account: UserAccount) -> IDPCommand {
        let command = IDPCommand(scheme: spScheme, name: .idpInit, params: [
            IDPCommand.Param.userHint: Self.userHint(account), IDPCommand.Param.loginHost: account.credentials.loginHost.absoluteString,
        ])
        events.step("idpCommandSent", command.traceInfo)
        return command
    }
}
