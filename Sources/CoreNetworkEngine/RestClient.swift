import CoreEngine
import FastJSON
import Foundation
import Keychain
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A request to the org, relative to the instance URL.
package struct RestRequest: Sendable {
    package var method: String
    package var path: String
    package var queryItems: [URLQueryItem]
    package var body: Data?
    package var headers: [String: String]
    /// This request's own timeout, when it has one (else the client's).
    package var timeout: TimeInterval?

    package init(method: String = "GET", path: String, queryItems: [URLQueryItem] = [], body: Data? = nil, headers: [String: String] = [:], timeout: TimeInterval? = nil) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.body = body
        self.headers = headers
        self.timeout = timeout
    }

    package static func query(_ soql: String, batchSize: Int? = nil, all: Bool = false, version: String = RestClient.apiVersion) -> RestRequest {
        RestRequest(
            path: "/services/data/\(version)/\(all ? "queryAll" : "query")", queryItems: [URLQueryItem(name: "q", value: soql)],
            headers: batchSize.map { ["Sforce-Query-Options": "batchSize=\($0)"] } ?? [:])
    }

    /// The SDK's `Sforce-Query-Options` for a batch size: none for the default 2,000, else the size brought
    /// within 200…2,000 (so 2,001 asks for 2,000 explicitly, as the SDK's request does).
    package static func queryOptions(batchSize: Int) -> String? {
        batchSize == 2000 ? nil : "batchSize=\(min(max(batchSize, 200), 2000))"
    }

    /// The next page of a query: `nextRecordsUrl` is a path.
    package static func queryMore(_ nextRecordsUrl: String) -> RestRequest { RestRequest(path: nextRecordsUrl) }

    /// Briefcase priming records (`connect/briefcase/priming-records`): the ids of the records in the briefcases
    /// assigned to the connected app. As the SDK builds it, a `changedAfterTimestamp` (epoch ms, sent as an ISO
    /// 8601 string) replaces the relay token when both are given: the Connect API takes one or the other.
    package static func primingRecords(relayToken: String?, changedAfter timestamp: Int64?, version: String = RestClient.apiVersion) -> RestRequest {
        var items: [URLQueryItem] = []
        if let relayToken { items = [URLQueryItem(name: "relayToken", value: relayToken)] }
        if let timestamp { items = [URLQueryItem(name: "changedAfterTimestamp", value: SalesforceTime.soqlLiteral(timestamp))] }
        return RestRequest(path: "/services/data/\(version)/connect/briefcase/priming-records", queryItems: items)
    }

    /// At most this many ids in one collection retrieve (`SFRestCollectionRetrieveMaxSize`).
    package static let collectionRetrieveMaxSize = 2000

    /// A collection retrieve: the records of one type by id, with these fields (`composite/sobjects/<type>`).
    package static func collectionRetrieve(_ objectType: String, ids: [String], fields: [String], version: String = RestClient.apiVersion) -> RestRequest {
        .json("POST", "/services/data/\(version)/composite/sobjects/\(objectType)", value: ["ids": .array(ids.map(JSON.string)), "fields": .array(fields.map(JSON.string))])
    }

    /// A request whose body is a JSON value, written by FastJSON (the one JSON model of the client side).
    package static func json(_ method: String, _ path: String, value: JSON) -> RestRequest {
        RestRequest(method: method, path: path, body: value.data, headers: ["Content-Type": "application/json"])
    }

    /// A request whose body is an Encodable value.
    package static func json<T: Encodable>(_ method: String, _ path: String, encoding value: T) throws -> RestRequest {
        RestRequest(method: method, path: path, body: try JSONEncoder().encode(value), headers: ["Content-Type": "application/json"])
    }
}

package struct RestResponse: Sendable {
    package var status: Int
    package var body: Data
    /// The response's headers, names in lower case.
    package var headers: [String: String] = [:]

    /// The body as a JSON value (FastJSON); an empty body is an empty object.
    package func value() throws(RestError) -> JSON {
        guard !body.isEmpty else { return .object([:]) }
        guard let value = JSON(data: body) else { throw .malformedResponse("the body is not JSON (status \(status))") }
        return value
    }

    /// The body decoded as `T` (a token, an identity, collection results).
    package func decode<T: Decodable>(_ type: T.Type) throws(RestError) -> T {
        do { return try JSONDecoder().decode(T.self, from: body) } catch {
            throw .malformedResponse("the body is not a \(T.self) (status \(status)): \(error)")
        }
    }
}

/// Talks to the org for one logged-in user: `Authorization: Bearer`, and on a 401 one refresh of the
/// access token (shared by concurrent requests) and one replay. A refused refresh is
/// `RestError.sessionRevoked`, for the SDK layer to log the user out.
package actor RestClient {
    package static let apiVersion = "v66.0"

    package nonisolated let credentials: OAuthCredentials
    package nonisolated let tokens: TokenStore
    let transport: HTTPTransport
    private var refreshing: Task<String, any Error>?

    package init(credentials: OAuthCredentials, tokens: TokenStore, timeout: TimeInterval = 30) {
        self.credentials = credentials
        self.tokens = tokens
        transport = HTTPTransport(timeout: timeout)
    }

    /// Sends the request; HTTP errors (status ≥ 400) are thrown as `RestError.http` with the org's error list.
    @discardableResult
    package func send(_ request: RestRequest) async throws(RestError) -> RestResponse {
        guard let token = try await tokens.accessToken() else {
            _ = try await refreshAccessToken()
            return try await send(request)
        }
        var reply = try await transport.send(try urlRequest(request, token: token))
        if Self.isExpiredSession(reply) {
            let current = try await tokens.accessToken()
            let fresh = current != nil && current != token ? current! : try await refreshAccessToken()
            reply = try await transport.send(try urlRequest(request, token: fresh))
        }
        guard reply.status < 400 else { throw Self.httpError(reply) }
        return RestResponse(status: reply.status, body: reply.body, headers: reply.headers)
    }

    /// Refreshes the access token with the refresh token, once for all concurrent callers.
    package func refreshAccessToken() async throws(RestError) -> String {
        if let refreshing {
            do { return try await refreshing.value } catch { throw error as? RestError ?? .malformedResponse("\(error)") }
        }
        let task = Task<String, any Error> { try await self.performRefresh() }
        refreshing = task
        defer { refreshing = nil }
        do { return try await task.value } catch { throw error as? RestError ?? .malformedResponse("\(error)") }
    }

    /// The identity URL's answer (user, org, `mobile_policy`); read it with `.decode(IdentityResponse.self)`.
    package func identity() async throws(RestError) -> RestResponse {
        try await send(RestRequest(path: credentials.identityURL.path))
    }

    /// An authorization code for another connected app (an SP app's), got with this session as an identity
    /// provider app gets it: the org's front door turns the access token into a web session (`POST
    /// /secur/frontdoor.jsp`, the token in the body, never in a URL), and the authorize endpoint, seeing
    /// that session, redirects to the app's callback with a code instead of showing the login page.
    /// An expired access token is refreshed once. The org's refusal (an unknown client id, a redirect
    /// URI it does not know) is `RestError.oauth` with its error and description.
    package func authorizationCode(for app: OAuthLogin.App, codeChallenge: String, state: String?) async throws(RestError) -> String {
        var query = [
            "response_type": "code", "client_id": app.clientId, "redirect_uri": app.redirectURI,
            "code_challenge": codeChallenge, "code_challenge_method": "S256", "scope": OAuthScopes.parameter(OAuthScopes.parse(app.scopes)),
        ]
        if let state { query["state"] = state }
        var authorize = URLComponents()
        authorize.path = "/services/oauth2/authorize"
        authorize.queryItems = query.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        let retURL = authorize.url!.absoluteString
        var token: String
        if let current = try await tokens.accessToken() { token = current } else { token = try await refreshAccessToken() }
        var door = try await frontDoor(token: token, retURL: retURL)
        if door.status == 401 {
            token = try await refreshAccessToken()
            door = try await frontDoor(token: token, retURL: retURL)
        }
        guard door.status == 302, let cookie = door.headers["set-cookie"]?.split(separator: ";").first.map(String.init), cookie.hasPrefix("sid=")
        else { throw Self.httpError(door) }
        guard let url = URL(string: retURL, relativeTo: credentials.instanceURL)?.absoluteURL else { throw .malformedResponse("bad authorize URL") }
        var request = URLRequest(url: url)
        request.setValue(cookie, forHTTPHeaderField: "Cookie")
        let reply = try await transport.send(request)
        guard reply.status == 302, let location = reply.headers["location"], location.hasPrefix(app.redirectURI) else {
            if reply.status == 200 { throw .loginFailed("the org showed its login page: the web session was not accepted") }
            throw Self.httpError(reply)
        }
        let items = URLComponents(string: location)?.queryItems ?? []
        guard let code = items.first(where: { $0.name == "code" })?.value else {
            throw .oauth(status: 302, error: items.first { $0.name == "error" }?.value ?? "no_code",
                         description: items.first { $0.name == "error_description" }?.value ?? "no code in the redirect")
        }
        return code
    }

    private func frontDoor(token: String, retURL: String) async throws(RestError) -> HTTPTransport.Reply {
        try await transport.send(OAuthLogin.formPost(credentials.instanceURL.appendingPathComponent("secur/frontdoor.jsp"), ["sid": token, "retURL": retURL]))
    }

    private func performRefresh() async throws(RestError) -> String {
        guard let refresh = try await tokens.refreshToken() else { throw .notAuthenticated }
        let request = OAuthLogin.formPost(
            credentials.loginHost.appendingPathComponent("services/oauth2/token"),
            OAuthTokenEndpoint.form(.refresh(token: refresh), clientId: credentials.clientId, redirectURI: nil))
        let reply = try await transport.send(request)
        let body = try? JSONDecoder().decode(OAuthTokenResponse.self, from: reply.body)
        if reply.status >= 400 {
            let error = body?.error ?? "unknown"
            if error == "invalid_grant" { throw .sessionRevoked }
            throw .oauth(status: reply.status, error: error, description: body?.errorDescription ?? "")
        }
        guard let access = body?.accessToken else { throw .malformedResponse("token response without access_token") }
        try await tokens.save(accessToken: access, refreshToken: body?.refreshToken)
        return access
    }

    private func urlRequest(_ request: RestRequest, token: String) throws(RestError) -> URLRequest {
        guard var components = URLComponents(url: credentials.instanceURL, resolvingAgainstBaseURL: false) else {
            throw .malformedResponse("bad instance URL")
        }
        components.path = request.path.split(separator: "?").first.map(String.init) ?? request.path
        if !request.queryItems.isEmpty { components.queryItems = request.queryItems }
        // SOQL may contain '+', which URLComponents leaves alone but servers read as a space.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw .malformedResponse("bad request path") }
        var urlRequest = URLRequest(url: url)
        if let timeout = request.timeout { urlRequest.timeoutInterval = timeout }
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (k, v) in request.headers { urlRequest.setValue(v, forHTTPHeaderField: k) }
        urlRequest.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        urlRequest.setValue("application/json", forHTTPHeaderField: "Accept")
        return urlRequest
    }

    /// 401, or 403 `Bad_OAuth_Token`, means the access token is no longer good.
    static func isExpiredSession(_ reply: HTTPTransport.Reply) -> Bool {
        if reply.status == 401 { return true }
        if reply.status == 403, String(decoding: reply.body, as: UTF8.self).contains("Bad_OAuth_Token") { return true }
        return false
    }

    static func httpError(_ reply: HTTPTransport.Reply) -> RestError {
        if let errors = try? JSONDecoder().decode([SalesforceError].self, from: reply.body) {
            return .http(status: reply.status, errors: errors)
        }
        if let body = try? JSONDecoder().decode(OAuthTokenResponse.self, from: reply.body), let error = body.error {
            return .oauth(status: reply.status, error: error, description: body.errorDescription ?? "")
        }
        return .http(status: reply.status, errors: [])
    }
}
