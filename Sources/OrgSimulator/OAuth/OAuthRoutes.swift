import Crypto
import Foundation
import Hummingbird

/// `/services/oauth2/*` and the identity URL, as the Mobile SDK uses them: the authorization-code flow
/// with PKCE (S256) through an HTML login page, refresh, revoke, userinfo.
struct OAuthRoutes {
    let state: OrgState
    let baseURL: @Sendable () -> String

    func register(on router: Router<OrgContext>) {
        router.get("/services/oauth2/authorize") { request, _ in try await self.authorizePage(request) }
        router.post("/services/oauth2/authorize") { request, _ in try await self.authorizeSubmit(request) }
        router.post("/services/oauth2/token") { request, _ in try await self.token(request) }
        router.post("/secur/frontdoor.jsp") { request, _ in try await self.frontDoor(request) }
        router.post("/services/oauth2/revoke") { request, _ in try await self.revoke(request) }
        router.get("/services/oauth2/revoke") { request, _ in try await self.revoke(request) }
        router.get("/services/oauth2/userinfo") { request, _ in await self.userinfo(request) }
        router.get("/id/:orgId/:userId") { request, context in await self.identity(request, context) }
    }

    private func app(_ clientId: String?) -> OrgDefinition.ConnectedApp? { clientId.flatMap { state.definition.app(consumerKey: $0) } }

    /// The front door: an access token (`sid`, in the form body) becomes a web session, kept in a `sid`
    /// cookie, and the browser goes on to `retURL` (a path on this org). An identity provider app uses it
    /// to get a code for another connected app without the user typing a password.
    private func frontDoor(_ request: Request) async throws -> Outcome {
        let form = HTTP.form(try await HTTP.body(request))
        guard let sid = form["sid"], (try? state.grants.session(forAccessToken: sid)) != nil else {
            return HTTP.oauthError(.unauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
        }
        let retURL = form["retURL"] ?? "/"
        guard retURL.hasPrefix("/"), !retURL.hasPrefix("//") else {
            return HTTP.oauthError(.badRequest, "invalid_request", "retURL must be a path on this org")
        }
        var outcome = HTTP.redirect(retURL)
        outcome.headers[.setCookie] = "sid=\(sid); Path=/; HttpOnly"
        return outcome
    }

    /// The session of a `sid` cookie the front door set, if the access token in it is still good.
    private func webSession(_ request: Request) -> Session? {
        guard let cookies = request.headers[.cookie] else { return nil }
        for part in cookies.split(separator: ";") {
            let pair = part.trimmingCharacters(in: .whitespaces)
            if pair.hasPrefix("sid=") { return try? state.grants.session(forAccessToken: String(pair.dropFirst(4))) }
        }
        return nil
    }

    private func authorizePage(_ request: Request) async throws -> Outcome {
        let p = { (name: String) in HTTP.query(request, name) }
        if let failure = checkClient(clientId: p("client_id"), redirectURI: p("redirect_uri"), responseType: p("response_type")) {
            return failure
        }
        // A web session (from the front door): no login page, a code for the session's user at once.
        if let session = webSession(request), let app = app(p("client_id")), let redirectURI = p("redirect_uri") {
            if let method = p("code_challenge_method"), !method.isEmpty, method != "S256" {
                return HTTP.oauthError(.badRequest, "invalid_request", "code_challenge_method must be S256")
            }
            let requested = (p("scope") ?? "").split(separator: " ").map(String.init)
            let scopes = requested.isEmpty ? app.scopes : requested.filter { app.scopes.contains($0) }
            guard !scopes.isEmpty else { return HTTP.oauthError(.badRequest, "invalid_scope", "none of the requested scopes is allowed for this connected app") }
            let code = try state.grants.issueCode(.init(
                orgId: session.orgId, userId: session.userId, clientId: app.consumerKey, redirectURI: redirectURI,
                challenge: p("code_challenge").flatMap { $0.isEmpty ? nil : $0 }, scopes: scopes))
            var location = redirectURI + (redirectURI.contains("?") ? "&" : "?") + "code=" + code
            if let s = p("state"), !s.isEmpty { location += "&state=" + (s.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? s) }
            return HTTP.redirect(location)
        }
        return HTTP.html(.ok, loginPage(params: [
            "client_id": p("client_id") ?? "", "redirect_uri": p("redirect_uri") ?? "", "state": p("state") ?? "",
            "code_challenge": p("code_challenge") ?? "", "code_challenge_method": p("code_challenge_method") ?? "",
            "scope": p("scope") ?? "",
        ], error: nil))
    }

    private func authorizeSubmit(_ request: Request) async throws -> Outcome {
        let form = HTTP.form(try await HTTP.body(request))
        if let failure = checkClient(clientId: form["client_id"], redirectURI: form["redirect_uri"], responseType: "code") {
            return failure
        }
        if let method = form["code_challenge_method"], !method.isEmpty, method != "S256" {
            return HTTP.oauthError(.badRequest, "invalid_request", "code_challenge_method must be S256")
        }
        guard let app = app(form["client_id"]), let redirectURI = form["redirect_uri"] else { return HTTP.oauthError(.badRequest, "invalid_client_id", "client identifier invalid") }
        guard let (org, user) = state.grants.user(named: form["username"] ?? "", password: form["password"] ?? "") else {
            var params = form
            params["password"] = nil
            params["username"] = nil
            return HTTP.html(.ok, loginPage(params: params, error: "Please check your username and password. If you still can't log in, contact your Salesforce administrator."))
        }
        let challenge = form["code_challenge"].flatMap { $0.isEmpty ? nil : $0 }
        // The scopes granted are the ones asked for that the connected app allows (all of its scopes when
        // none were asked for); the token response names them, as Salesforce's does.
        let requested = (form["scope"] ?? "").split(separator: " ").map(String.init)
        let scopes = requested.isEmpty ? app.scopes : requested.filter { app.scopes.contains($0) }
        guard !scopes.isEmpty else { return HTTP.oauthError(.badRequest, "invalid_scope", "none of the requested scopes is allowed for this connected app") }
        let code = try state.grants.issueCode(.init(
            orgId: org.id, userId: user.id, clientId: app.consumerKey, redirectURI: redirectURI, challenge: challenge, scopes: scopes))
        var location = redirectURI + (redirectURI.contains("?") ? "&" : "?") + "code=" + code
        if let s = form["state"], !s.isEmpty { location += "&state=" + (s.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? s) }
        return HTTP.redirect(location)
    }

    private func checkClient(clientId: String?, redirectURI: String?, responseType: String?) -> Outcome? {
        guard let app = app(clientId) else {
            return HTTP.oauthError(.badRequest, "invalid_client_id", "client identifier invalid")
        }
        guard let redirectURI, app.redirectURIs.contains(redirectURI) else {
            return HTTP.oauthError(.badRequest, "redirect_uri_mismatch", "redirect_uri must match configuration")
        }
        guard responseType == "code" else {
            return HTTP.oauthError(.badRequest, "unsupported_response_type", "response type not supported")
        }
        return nil
    }

    private func token(_ request: Request) async throws -> Outcome {
        let form = HTTP.form(try await HTTP.body(request))
        guard let app = app(form["client_id"]) else {
            return HTTP.oauthError(.badRequest, "invalid_client_id", "client identifier invalid")
        }
        switch form["grant_type"] {
        case "authorization_code":
            let redeemed = try state.grants.redeemCode(form["code"] ?? "") { grant -> Outcome? in
                guard grant.clientId == app.consumerKey else { return HTTP.oauthError(.badRequest, "invalid_grant", "invalid authorization code") }
                guard form["redirect_uri"] == grant.redirectURI else {
                    return HTTP.oauthError(.badRequest, "redirect_uri_mismatch", "redirect_uri must match configuration")
                }
                // A code issued with a challenge needs its verifier: RFC 7636's 43 to 128 unreserved characters.
                if let challenge = grant.challenge {
                    guard let verifier = form["code_verifier"], Self.isWellFormedVerifier(verifier), Self.challenge(for: verifier) == challenge else {
                        return HTTP.oauthError(.badRequest, "invalid_grant", "invalid code verifier")
                    }
                }
                return nil
            }
            let grant: Grants.AuthCode
            switch redeemed {
            case nil: return HTTP.oauthError(.badRequest, "invalid_grant", "invalid authorization code")
            case .failure(let refusal)?: return refusal.value
            case .success(let code)?: grant = code
            }
            let refresh = try state.grants.issueRefreshToken(.init(orgId: grant.orgId, userId: grant.userId, clientId: grant.clientId, scopes: grant.scopes))
            let access = try state.grants.issueAccessToken(orgId: grant.orgId, userId: grant.userId, clientId: grant.clientId, refreshToken: refresh)
            return HTTP.json(.ok, tokenResponse(app: app, scopes: grant.scopes, access: access, refresh: refresh, orgId: grant.orgId, userId: grant.userId))
        case "refresh_token":
            guard let refresh = form["refresh_token"], let grant = try state.grants.grant(forRefreshToken: refresh), grant.clientId == app.consumerKey else {
                return HTTP.oauthError(.badRequest, "invalid_grant", "expired access/refresh token")
            }
            let access = try state.grants.issueAccessToken(orgId: grant.orgId, userId: grant.userId, clientId: grant.clientId, refreshToken: refresh)
            try state.grants.countRefresh()
            return HTTP.json(.ok, tokenResponse(app: app, scopes: grant.scopes, access: access, refresh: nil, orgId: grant.orgId, userId: grant.userId))
        default:
            return HTTP.oauthError(.badRequest, "unsupported_grant_type", "grant type not supported")
        }
    }

    private func tokenResponse(app: OrgDefinition.ConnectedApp, scopes: [String], access: String, refresh: String?, orgId: String, userId: String) -> [String: Any] {
        let issuedAt = String(Int64(Date().timeIntervalSince1970 * 1000))
        let id = "\(baseURL())/id/\(orgId)/\(userId)"
        let key = SymmetricKey(data: Data(app.consumerKey.utf8))
        let signature = Data(HMAC<SHA256>.authenticationCode(for: Data((id + issuedAt).utf8), using: key)).base64EncodedString()
        var body: [String: Any] = [
            "access_token": access, "instance_url": baseURL(), "id": id, "token_type": "Bearer", "issued_at": issuedAt,
            "signature": signature, "scope": scopes.joined(separator: " "),
        ]
        if let refresh { body["refresh_token"] = refresh }
        // A session granted `openid` gets an OpenID Connect ID token with each token answer, as Salesforce
        // sends one. Difference: signed with HS256 under the consumer key, where Salesforce signs with RS256
        // under the org's key; no client here verifies it.
        if scopes.contains("openid") {
            let now = Int(Date().timeIntervalSince1970)
            let claims: [String: Any] = ["iss": baseURL(), "sub": id, "aud": app.consumerKey, "iat": now, "exp": now + 300, "user_id": userId,
                                         "organization_id": orgId]
            body["id_token"] = Self.jwt(header: ["alg": "HS256", "typ": "JWT"], claims: claims, key: key)
        }
        return body
    }

    static func jwt(header: [String: Any], claims: [String: Any], key: SymmetricKey) -> String {
        func part(_ data: Data) -> String {
            data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        let json = { (value: [String: Any]) in (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])) ?? Data() }
        let signed = part(json(header)) + "." + part(json(claims))
        return signed + "." + part(Data(HMAC<SHA256>.authenticationCode(for: Data(signed.utf8), using: key)))
    }

    private func revoke(_ request: Request) async throws -> Outcome {
        var token = HTTP.query(request, "token")
        if token == nil { token = HTTP.form(try await HTTP.body(request))["token"] }
        guard let token, try state.grants.revoke(token: token) else {
            return HTTP.oauthError(.badRequest, "unsupported_token_type", "this token type is not supported")
        }
        return HTTP.empty(.ok)
    }

    /// What Salesforce answers the identity and userinfo URLs for a token it does not know: 403 with the text
    /// `Bad_OAuth_Token` as the whole body, which the SDK's retry policy (`URLSessionTask.shouldRetry`) compares.
    static let badOAuthToken = Outcome(status: .forbidden, headers: [.contentType: "text/plain;charset=UTF-8"], body: Data("Bad_OAuth_Token".utf8))

    private func userinfo(_ request: Request) async -> Outcome {
        guard let session = authenticate(request), let (org, user) = state.grants.user(orgId: session.orgId, userId: session.userId) else {
            return Self.badOAuthToken
        }
        return HTTP.json(.ok, [
            "sub": "\(baseURL())/id/\(org.id)/\(user.id)", "user_id": user.id, "organization_id": org.id,
            "preferred_username": user.username, "nickname": user.username.split(separator: "@").first.map(String.init) ?? user.username,
            "name": user.displayName, "email": user.email, "email_verified": true, "active": true, "user_type": "STANDARD",
            "language": "en_US", "locale": "en_US", "utcOffset": 0,
        ])
    }

    private func identity(_ request: Request, _ context: OrgContext) async -> Outcome {
        guard let session = authenticate(request) else {
            return Self.badOAuthToken
        }
        let orgId = context.parameters.get("orgId") ?? "", userId = context.parameters.get("userId") ?? ""
        guard session.orgId == orgId, let (org, user) = state.grants.user(orgId: orgId, userId: userId) else {
            return HTTP.oauthError(.forbidden, "Bad_Id", "Bad id \(orgId)/\(userId)")
        }
        var body: [String: Any] = [
            "id": "\(baseURL())/id/\(org.id)/\(user.id)", "asserted_user": true, "user_id": user.id, "organization_id": org.id,
            "username": user.username, "nick_name": user.username.split(separator: "@").first.map(String.init) ?? user.username,
            "display_name": user.displayName, "email": user.email, "first_name": String(user.displayName.split(separator: " ").first ?? ""),
            "last_name": String(user.displayName.split(separator: " ").last ?? ""), "active": true, "user_type": "STANDARD",
            "language": "en_US", "locale": "en_US", "utcOffset": 0, "is_app_installed": true,
            "urls": [
                "rest": "\(baseURL())/services/data/v{version}/", "query": "\(baseURL())/services/data/v{version}/query/",
                "sobjects": "\(baseURL())/services/data/v{version}/sobjects/", "recent": "\(baseURL())/services/data/v{version}/recent/",
            ],
        ]
        // A connected app's own policy wins over the org's.
        if let policy = app(session.clientId)?.mobilePolicy ?? org.mobilePolicy {
            body["mobile_policy"] = ["screen_lock": policy.screenLock, "pin_length": policy.pinLength]
        }
        return HTTP.json(.ok, body)
    }

    func authenticate(_ request: Request) -> Session? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        return try? state.grants.session(forAccessToken: String(header.dropFirst("Bearer ".count)))
    }

    /// PKCE S256: base64url(SHA-256(verifier)) without padding.
    static func isWellFormedVerifier(_ verifier: String) -> Bool {
        (43...128).contains(verifier.utf8.count)
            && verifier.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-._~".unicodeScalars.contains($0)) }
    }

    static func challenge(for verifier: String) -> String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    private func loginPage(params: [String: String], error: String?) -> String {
        let hidden = params.sorted { $0.key < $1.key }.map {
            "<input type=\"hidden\" name=\"\(HTTP.escapeHTML($0.key))\" value=\"\(HTTP.escapeHTML($0.value))\">"
        }.joined(separator: "\n      ")
        return """
            <!DOCTYPE html>
            <html><head><meta charset="utf-8"><title>Login | Salesforce (AppGroupSim)</title></head>
            <body>
              <h1>Log in to your org</h1>
              \(error.map { "<p class=\"loginError\" id=\"error\">\(HTTP.escapeHTML($0))</p>" } ?? "")
              <form method="post" action="/services/oauth2/authorize" id="login_form">
              \(hidden)
                <label>Username <input type="email" name="username" id="username"></label>
                <label>Password <input type="password" name="password" id="password"></label>
                <input type="submit" id="Login" value="Log In">
              </form>
            </body></html>
            """
    }
}
