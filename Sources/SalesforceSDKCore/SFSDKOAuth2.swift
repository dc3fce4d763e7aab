import CoreNetworkEngine
import Foundation

/// `kSFOAuthErrorDomain`: the domain of the token endpoint's errors.
public let kSFOAuthErrorDomain = OAuthTokenEndpoint.errorDomain
/// `kSFOAuthErrorUnknown`.
public let kSFOAuthErrorUnknown = OAuthTokenEndpoint.ErrorCode.unknown.rawValue
/// `kSFOAuthErrorTimeout`.
public let kSFOAuthErrorTimeout = OAuthTokenEndpoint.ErrorCode.timeout.rawValue
/// `kSFOAuthErrorMalformed`.
public let kSFOAuthErrorMalformed = OAuthTokenEndpoint.ErrorCode.malformed.rawValue
/// `kSFOAuthErrorAccessDenied`.
public let kSFOAuthErrorAccessDenied = OAuthTokenEndpoint.ErrorCode.accessDenied.rawValue
/// `kSFOAuthErrorInvalidClientId`.
public let kSFOAuthErrorInvalidClientId = OAuthTokenEndpoint.ErrorCode.invalidClientId.rawValue
/// `kSFOAuthErrorInvalidClientCredentials`.
public let kSFOAuthErrorInvalidClientCredentials = OAuthTokenEndpoint.ErrorCode.invalidClientCredentials.rawValue
/// `kSFOAuthErrorInvalidGrant`: an expired or revoked refresh token.
public let kSFOAuthErrorInvalidGrant = OAuthTokenEndpoint.ErrorCode.invalidGrant.rawValue
/// `kSFOAuthErrorInvalidRequest`.
public let kSFOAuthErrorInvalidRequest = OAuthTokenEndpoint.ErrorCode.invalidRequest.rawValue
/// `kSFOAuthErrorRequestCancelled`.
public let kSFOAuthErrorRequestCancelled = OAuthTokenEndpoint.ErrorCode.requestCancelled.rawValue
/// `kSFOAuthErrorInvalidURL`.
public let kSFOAuthErrorInvalidURL = OAuthTokenEndpoint.ErrorCode.invalidURL.rawValue

/// The SDK's `SFSDKOAuthTokenEndpointRequest`: what a grant to the token endpoint needs.
public final class SFSDKOAuthTokenEndpointRequest: NSObject, @unchecked Sendable {
    public var refreshToken = ""
    public var userAgentForAuth: String?
    public var redirectURI = ""
    public var clientID = ""
    public var approvalCode: String?
    public var codeVerifier: String?
    /// 0 (the default) is the SDK's network default, 60 seconds.
    public var timeout: TimeInterval = 0
    public var serverURL = URL(string: "https://login.salesforce.com")!
    public var additionalTokenRefreshParams: [AnyHashable: Any]?
    public var additionalOAuthParameterKeys: [String]?

    public override init() { super.init() }

    var additional: [String: String] {
        var fields: [String: String] = [:]
        for (key, value) in additionalTokenRefreshParams ?? [:] { if let key = key.base as? String { fields[key] = "\(value)" } }
        return fields
    }
}

/// The SDK's `SFSDKOAuthTokenEndpointErrorResponse`: the endpoint's `error` and `error_description`, and the
/// error in `kSFOAuthErrorDomain` with the SDK's code.
public final class SFSDKOAuthTokenEndpointErrorResponse: NSObject, @unchecked Sendable {
    public let tokenEndpointErrorCode: String
    public let tokenEndpointErrorDescription: String
    public let error: Error

    init(type: String, description: String) {
        tokenEndpointErrorCode = type
        tokenEndpointErrorDescription = description
        error = NSError(domain: kSFOAuthErrorDomain, code: OAuthTokenEndpoint.ErrorCode(errorType: type).rawValue,
                        userInfo: ["error": type, NSLocalizedDescriptionKey: description])
    }

    init(failure code: OAuthTokenEndpoint.ErrorCode) {
        tokenEndpointErrorCode = ""
        tokenEndpointErrorDescription = ""
        error = NSError(domain: kSFOAuthErrorDomain, code: code.rawValue, userInfo: nil)
    }
}

/// The SDK's `SFSDKOAuthTokenEndpointResponse`: the token endpoint's answer, or its error. Its description names
/// the fields it has, never their values (tokens).
public final class SFSDKOAuthTokenEndpointResponse: NSObject, @unchecked Sendable {
    private let values: [String: String]
    public let error: SFSDKOAuthTokenEndpointErrorResponse?
    public let additionalOAuthFields: [AnyHashable: Any]?

    init(_ outcome: OAuthTokenEndpoint.Outcome, additionalKeys: [String]?) {
        switch outcome {
        case .answer(let fields):
            values = fields
            error = nil
        case .error(let type, let description):
            values = [:]
            error = SFSDKOAuthTokenEndpointErrorResponse(type: type, description: description)
        case .failed(let code, _):
            values = [:]
            error = SFSDKOAuthTokenEndpointErrorResponse(failure: code)
        }
        let fields = values
        additionalOAuthFields = additionalKeys.map { keys in
            Dictionary(uniqueKeysWithValues: keys.compactMap { key in fields[key].map { (AnyHashable(key), $0 as Any) } })
        }
    }

    public var hasError: Bool { error != nil }
    public var accessToken: String { values["access_token"] ?? "" }
    public var refreshToken: String { values["refresh_token"] ?? "" }
    /// `issued_at`, milliseconds since 1970 as text, to a date (whole seconds, as the SDK).
    public var issuedAt: Date { Date(timeIntervalSince1970: TimeInterval((Int64(values["issued_at"] ?? "") ?? 0) / 1000)) }
    public var instanceUrl: URL? { values["instance_url"].flatMap(URL.init(string:)) }
    public var apiInstanceUrl: URL? { values["api_instance_url"].flatMap(URL.init(string:)) }
    public var identityUrl: URL? { values["id"].flatMap(URL.init(string:)) }
    public var idToken: String? { values["id_token"] }
    public var communityId: String? { values["sfdc_community_id"] }
    public var communityUrl: URL? { values["sfdc_community_url"].flatMap(URL.init(string:)) }
    public var apiUrl: URL? { values["api_url"].flatMap(URL.init(string:)) }
    public var signature: String? { values["signature"] }
    public var scopes: [String]? { values["scope"].map { $0.components(separatedBy: " ") } }
    public var tokenFormat: String? { values["token_format"] }

    /// The answer's fields, tokens included, as the SDK gives them.
    public func asDictionary() -> [AnyHashable: Any] { Dictionary(uniqueKeysWithValues: values.map { (AnyHashable($0.key), $0.value as Any) }) }

    public override var description: String {
        if let error { return "SFSDKOAuthTokenEndpointResponse(error: \(error.tokenEndpointErrorCode.isEmpty ? "\((error.error as NSError).code)" : error.tokenEndpointErrorCode))" }
        return "SFSDKOAuthTokenEndpointResponse(fields: \(values.keys.sorted().joined(separator: ", ")))"
    }
}

/// The SDK's `SFSDKOAuthProtocol`: the token endpoint's grants.
public protocol SFSDKOAuthProtocol: NSObjectProtocol {
    func accessToken(forApprovalCode endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (SFSDKOAuthTokenEndpointResponse) -> Void)
    func accessToken(forRefresh endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (SFSDKOAuthTokenEndpointResponse) -> Void)
    func openIDToken(forRefresh endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (String?) -> Void)
}

/// The SDK's `SFSDKOAuth2`: posts a grant to the request's server (`CoreNetworkEngine.OAuthTokenEndpoint` holds
/// the form and the error codes) and calls the completion on the main queue, as the SDK does. A connection that
/// fails is an error response with `kSFOAuthErrorTimeout` or `kSFOAuthErrorUnknown`. The SDK's `device_id`
/// field (the vendor id) is not sent: the simulated org does not read it.
public final class SFSDKOAuth2: NSObject, SFSDKOAuthProtocol, @unchecked Sendable {
    public override init() { super.init() }

    public func accessToken(forApprovalCode endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (SFSDKOAuthTokenEndpointResponse) -> Void) {
        send(.authorizationCode(code: endpointReq.approvalCode ?? "", verifier: endpointReq.codeVerifier), endpointReq, completionBlock)
    }

    public func accessToken(forRefresh endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (SFSDKOAuthTokenEndpointResponse) -> Void) {
        send(.refresh(token: endpointReq.refreshToken), endpointReq, completionBlock)
    }

    /// A refresh whose answer's `id_token` is given (nil when the session has no `openid` scope).
    public func openIDToken(forRefresh endpointReq: SFSDKOAuthTokenEndpointRequest, completion completionBlock: @escaping (String?) -> Void) {
        accessToken(forRefresh: endpointReq) { completionBlock($0.idToken) }
    }

    private func send(_ grant: OAuthTokenEndpoint.Grant, _ request: SFSDKOAuthTokenEndpointRequest, _ completion: @escaping (SFSDKOAuthTokenEndpointResponse) -> Void) {
        let server = request.serverURL.absoluteString, client = request.clientID, redirect = request.redirectURI
        let additional = request.additional, agent = request.userAgentForAuth, timeout = request.timeout, keys = request.additionalOAuthParameterKeys
        let deliver = UncheckedBox(completion)
        Task.detached {
            let outcome = await OAuthTokenEndpoint.send(grant, server: server, clientId: client, redirectURI: redirect, additional: additional, userAgent: agent, timeout: timeout)
            let response = UncheckedBox(SFSDKOAuthTokenEndpointResponse(outcome, additionalKeys: keys))
            DispatchQueue.main.async { deliver.value(response.value) }
        }
    }
}
