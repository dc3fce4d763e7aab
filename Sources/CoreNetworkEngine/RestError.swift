import Foundation

/// One error of the REST API's `[{"errorCode", "message", "fields"}]` body.
package struct SalesforceError: Sendable, Equatable, Codable {
    package var errorCode: String
    package var message: String
    package var fields: [String]?
}

/// Why no answer came: what the connection did, kept as a value (the SDK-named face maps it to
/// `NSURLErrorDomain`'s codes, as URLSession's errors are on iOS).
package struct NetworkFailure: Error, Sendable, Equatable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        case refused, timedOut, hostNotFound, connectionLost, notConnected, cancelled, other
    }

    package var kind: Kind
    /// What to say; never the URL (its query may hold a secret).
    package var detail: String

    package init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    package var description: String { detail }
}

/// What can go wrong talking to the org. Descriptions never contain a token.
package enum RestError: Error, Sendable, Equatable {
    /// No connection to the org (refused, unreachable, timed out).
    case offline(NetworkFailure)
    /// The refresh token was refused (`invalid_grant`): the user must be logged out.
    case sessionRevoked
    /// An HTTP error with the org's error list.
    case http(status: Int, errors: [SalesforceError])
    /// An OAuth endpoint's `{"error", "error_description"}`.
    case oauth(status: Int, error: String, description: String)
    /// The org answered with something that is not what the API promises.
    case malformedResponse(String)
    /// The tokens could not be read or written.
    case keychain(String)
    /// Login: the org did not accept the username and password.
    case loginFailed(String)
    /// No tokens stored for this user: log in first.
    case notAuthenticated
    /// The org named an org or user id that cannot be one (`..`, empty, another kind): the login is refused.
    case invalidIdentity(String)
}

extension RestError: CustomStringConvertible, LocalizedError {
    package var description: String {
        switch self {
        case .offline(let detail): return "the org cannot be reached (\(detail)); check the --org URL and that sf-simulator is running"
        case .sessionRevoked: return "the session was revoked at the org (refresh token refused); log in again"
        case .http(let status, let errors):
            let first = errors.first.map { "\($0.errorCode): \($0.message)" } ?? "no error body"
            return "the org answered \(status) (\(first))"
        case .oauth(let status, let error, let description): return "OAuth error \(status) \(error): \(description)"
        case .malformedResponse(let detail): return "the org's response is malformed: \(detail)"
        case .keychain(let detail): return "the tokens cannot be used: \(detail)"
        case .loginFailed(let detail): return "login failed: \(detail)"
        case .notAuthenticated: return "no stored session for this user; log in first"
        case .invalidIdentity(let detail): return "login refused: \(detail); check the org (--org) is a Salesforce org you trust"
        }
    }

    package var errorDescription: String? { description }

    /// The first Salesforce error code of an HTTP error.
    package var errorCode: String? {
        if case .http(_, let errors) = self { return errors.first?.errorCode }
        return nil
    }
}
