import Foundation

/// The org's token endpoint (`services/oauth2/token`) as the SDK's `SFSDKOAuth2` speaks to it: the form each
/// grant sends, what an answer holds, and the SDK's error codes in `com.salesforce.OAuth.ErrorDomain`.
/// `RestClient`'s own refresh (one on a 401) sends the same refresh form.
package enum OAuthTokenEndpoint {
    package static let errorDomain = "com.salesforce.OAuth.ErrorDomain"

    /// `kSFOAuthError…` (SFSDKOAuth2.h), numbered from 666 in the SDK's order.
    package enum ErrorCode: Int, Sendable, CaseIterable {
        case unknown = 666, timeout, malformed, accessDenied, invalidClientId, invalidClientCredentials, invalidGrant, invalidRequest,
            inactiveUser, inactiveOrg, rateLimitExceeded, unsupportedResponseType, wrongVersion, browserLaunchFailed,
            unknownAdvancedAuthConfig, invalidMDMConfiguration, jwtInvalidGrant, requestCancelled, refreshFailed, invalidURL

        /// The code of an OAuth `error` value, as `+[SFSDKOAuth2 errorWithType:description:]` maps it.
        package init(errorType: String) {
            switch errorType {
            case "access_denied": self = .accessDenied
            case "malformed_response": self = .malformed
            case "invalid_client_id": self = .invalidClientId
            case "invalid_client", "invalid_client_credentials": self = .invalidClientCredentials
            case "invalid_grant": self = .invalidGrant
            case "invalid_request": self = .invalidRequest
            case "inactive_user": self = .inactiveUser
            case "inactive_org": self = .inactiveOrg
            case "rate_limit_exceeded": self = .rateLimitExceeded
            case "unsupported_response_type": self = .unsupportedResponseType
            case "timeout": self = .timeout
            case "wrong_version": self = .wrongVersion
            case "browser_launch_failed": self = .browserLaunchFailed
            case "unknown_advanced_auth_config": self = .unknownAdvancedAuthConfig
            case "jwt_launch_failed": self = .jwtInvalidGrant
            default: self = .unknown
            }
        }

        /// A connection that failed (`sfErrorCodeFromError:`): a timeout is `timeout`, the rest `unknown`.
        package init(_ failure: NetworkFailure) {
            switch failure.kind {
            case .timedOut: self = .timeout
            case .cancelled: self = .requestCancelled
            default: self = .unknown
            }
        }
    }

    package enum Grant: Sendable {
        case refresh(token: String)
        case authorizationCode(code: String, verifier: String?)
    }

    /// What the endpoint said: its answer's fields (numbers as text), the OAuth error it returned, or why no
    /// answer came. Never logged: an answer holds tokens.
    package enum Outcome: Sendable {
        case answer([String: String])
        case error(type: String, description: String)
        case failed(ErrorCode, detail: String)
    }

    /// The form a grant posts: `format=json`, the client, the redirect URI when there is one, the grant's own
    /// fields, and the app's additional parameters (which cannot replace the grant's).
    package static func form(_ grant: Grant, clientId: String, redirectURI: String?, additional: [String: String] = [:]) -> [String: String] {
        var fields = additional
        fields["format"] = "json"
        fields["client_id"] = clientId
        if let redirectURI { fields["redirect_uri"] = redirectURI }
        switch grant {
        case .refresh(let token):
            fields["grant_type"] = "refresh_token"
            fields["refresh_token"] = token
        case .authorizationCode(let code, let verifier):
            fields["grant_type"] = "authorization_code"
            fields["code"] = code
            if let verifier { fields["code_verifier"] = verifier }
        }
        return fields
    }

    /// The token URL on a server: `https://` is added to a bare host, as the SDK does.
    package static func url(server: String) -> URL? {
        let base = server.hasPrefix("http") ? server : "https://" + server
        return URL(string: base.hasSuffix("/") ? String(base.dropLast()) + "/services/oauth2/token" : base + "/services/oauth2/token")
    }

    /// Posts a grant to the server's token endpoint.
    package static func send(
        _ grant: Grant, server: String, clientId: String, redirectURI: String?, additional: [String: String] = [:], userAgent: String? = nil,
        timeout: TimeInterval
    ) async -> Outcome {
        guard let url = url(server: server) else { return .failed(.invalidURL, detail: "the server URL is not a URL") }
        var request = OAuthLogin.formPost(url, form(grant, clientId: clientId, redirectURI: redirectURI, additional: additional))
        if let userAgent { request.setValue(userAgent, forHTTPHeaderField: "User-Agent") }
        let answer: HTTPClient.Answer
        do { answer = try await HTTPClient.send(request, timeout: timeout > 0 ? timeout : 60) } catch {
            if case .offline(let failure) = error { return .failed(ErrorCode(failure), detail: failure.detail) }
            return .failed(.unknown, detail: "\(error)")
        }
        let read = outcome(status: answer.status, body: answer.body)
        // A refresh answer carries no refresh token: the SDK adds the one it sent, "for consistency".
        if case .answer(var fields) = read, case .refresh(let token) = grant, (fields["refresh_token"] ?? "").isEmpty {
            fields["refresh_token"] = token
            return .answer(fields)
        }
        return read
    }

    /// Reads an answer: a JSON object whose `error` field, when present, makes it an error.
    package static func outcome(status: Int, body: Data) -> Outcome {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            return .error(type: "malformed_response", description: "the token endpoint's answer (status \(status)) is not a JSON object")
        }
        var fields: [String: String] = [:]
        for (key, value) in object {
            if let text = value as? String { fields[key] = text } else if let number = value as? NSNumber { fields[key] = number.stringValue }
        }
        if let type = fields["error"] { return .error(type: type, description: fields["error_description"] ?? "") }
        guard status < 400 else { return .error(type: "unknown_error", description: "the token endpoint answered \(status)") }
        return .answer(fields)
    }
}
