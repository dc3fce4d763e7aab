import AppGroup
import Crypto
import Foundation
import Keychain
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The login a Mobile SDK app does in its web view: the authorization-code flow with PKCE (S256).
/// It loads the org's login page, submits the username and password as the form does, takes the code
/// from the redirect to the app's callback URI, and exchanges it for tokens, which go straight to the keychain.
package enum OAuthLogin {
    package struct App: Sendable {
        package var clientId: String
        package var redirectURI: String
        package var scopes: [String]

        package init(clientId: String, redirectURI: String, scopes: [String]) {
            self.clientId = clientId
            self.redirectURI = redirectURI
            self.scopes = scopes
        }
    }

    package static func login(
        loginHost: URL, app: App, username: String, password: String, keychain: KeychainHelper, timeout: TimeInterval = 30,
        keychainAccount: String? = nil
    ) async throws(RestError) -> OAuthCredentials {
        let transport = HTTPTransport(timeout: timeout)
        let verifier = randomURLSafe(48)
        let challenge = Self.challenge(for: verifier)
        let authorize = loginHost.appendingPathComponent("services/oauth2/authorize")
        let params = [
            "response_type": "code", "client_id": app.clientId, "redirect_uri": app.redirectURI,
            "code_challenge": challenge, "code_challenge_method": "S256", "scope": OAuthScopes.parameter(OAuthScopes.parse(app.scopes)),
        ]
        var components = URLComponents(url: authorize, resolvingAgainstBaseURL: false)!
        components.queryItems = params.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let page = try await transport.send(URLRequest(url: components.url!))
        guard page.status == 200 else { throw RestClient.httpError(page) }

        let submit = formPost(authorize, params.merging(["username": username, "password": password]) { $1 })
        let redirect = try await transport.send(submit)
        guard redirect.status == 302, let location = redirect.headers["location"], location.hasPrefix(app.redirectURI) else {
            if redirect.status == 200 { throw .loginFailed("the org refused the username or password") }
            throw RestClient.httpError(redirect)
        }
        let query = URLComponents(string: location)?.queryItems ?? []
        guard let code = query.first(where: { $0.name == "code" })?.value else {
            throw .loginFailed(query.first(where: { $0.name == "error_description" })?.value ?? "no code in the redirect")
        }
        return try await exchange(
            code: code, verifier: verifier, loginHost: loginHost, app: app, keychain: keychain, keychainAccount: keychainAccount, transport: transport)
    }

    /// The token exchange of the code flow: the code and its PKCE verifier for tokens, which go straight to
    /// the keychain under `keychainAccount` (a new one when nil). A code from the web view or from an
    /// identity provider app is exchanged the same way.
    package static func exchange(
        code: String, verifier: String, loginHost: URL, app: App, keychain: KeychainHelper, keychainAccount: String? = nil, timeout: TimeInterval = 30
    ) async throws(RestError) -> OAuthCredentials {
        try await exchange(
            code: code, verifier: verifier, loginHost: loginHost, app: app, keychain: keychain, keychainAccount: keychainAccount,
            transport: HTTPTransport(timeout: timeout))
    }

    static func exchange(
        code: String, verifier: String, loginHost: URL, app: App, keychain: KeychainHelper, keychainAccount: String?, transport: HTTPTransport
    ) async throws(RestError) -> OAuthCredentials {
        let exchange = formPost(loginHost.appendingPathComponent("services/oauth2/token"), [
            "grant_type": "authorization_code", "code": code, "client_id": app.clientId, "redirect_uri": app.redirectURI,
            "code_verifier": verifier, "format": "json",
        ])
        let reply = try await transport.send(exchange)
        guard reply.status == 200 else { throw RestClient.httpError(reply) }
        guard let body = try? JSONDecoder().decode(OAuthTokenResponse.self, from: reply.body),
            let access = body.accessToken, let refresh = body.refreshToken,
            let instance = body.instanceURL.flatMap(URL.init(string:)), let identity = body.id.flatMap(URL.init(string:))
        else { throw .malformedResponse("the token response lacks access_token, refresh_token, instance_url or id") }
        let (orgId, userId) = try identityIds(identity)
        let credentials = OAuthCredentials(
            clientId: app.clientId, redirectURI: app.redirectURI, loginHost: loginHost, instanceURL: instance, identityURL: identity,
            orgId: orgId, userId: userId, keychainAccount: keychainAccount ?? newKeychainAccount(app))
        try await TokenStore(keychain: keychain, account: credentials.keychainAccount).save(accessToken: access, refreshToken: refresh)
        return credentials
    }

    /// The org and user ids of an identity URL (`…/id/<orgId>/<userId>`), each a Salesforce id of its kind:
    /// they name the user's folders, so `..`, an empty id or anything else is refused before a token is kept.
    package static func identityIds(_ identity: URL) throws(RestError) -> (orgId: String, userId: String) {
        // The path as sent: URL's pathComponents would drop an empty last part.
        let parts = identity.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        guard parts.count >= 4, parts[parts.count - 3] == "id" else {
            throw .malformedResponse("the identity URL \(SalesforceIdentifier.quoted(identity.absoluteString, limit: 200)) is not …/id/<orgId>/<userId>")
        }
        let source = "the org's identity URL \(SalesforceIdentifier.quoted(identity.absoluteString, limit: 200))"
        do {
            return (try SalesforceIdentifier.check(parts[parts.count - 2], .organization, from: source),
                try SalesforceIdentifier.check(parts[parts.count - 1], .user, from: source))
        } catch { throw .invalidIdentity(error.description) }
    }

    /// `POST services/oauth2/revoke` with a refresh token; the org's 200 is the only success.
    package static func revoke(refreshToken: String, at loginHost: URL, timeout: TimeInterval = 10) async throws(RestError) {
        let reply = try await HTTPTransport(timeout: timeout).send(formPost(loginHost.appendingPathComponent("services/oauth2/revoke"), ["token": refreshToken]))
        guard reply.status == 200 else { throw RestClient.httpError(reply) }
    }

    /// A new PKCE verifier (64 URL-safe characters) and its S256 challenge.
    package static func newVerifier() -> (verifier: String, challenge: String) {
        let verifier = randomURLSafe(48)
        return (verifier, challenge(for: verifier))
    }

    /// A random URL-safe string (state values).
    package static func randomState() -> String { randomURLSafe(24) }

    /// The keychain account of a new session's token items: `<clientId>-<random>`, as the SDK names it.
    package static func newKeychainAccount(_ app: App) -> String { "\(app.clientId)-\(randomURLSafe(9))" }

    /// base64url(SHA-256(verifier)) without padding.
    package static func challenge(for verifier: String) -> String {
        base64URL(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    static func randomURLSafe(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return base64URL(Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) }))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A POST of `fields` as `application/x-www-form-urlencoded`: every OAuth request the client makes.
    static func formPost(_ url: URL, _ fields: [String: String]) -> URLRequest {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        request.httpBody = form(fields)
        return request
    }

    /// The one form encoder: keys sorted, values percent-encoded but for RFC 3986's unreserved characters.
    static func form(_ fields: [String: String]) -> Data {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let body = fields.sorted { $0.key < $1.key }.map {
            "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return Data(body.utf8)
    }
}
