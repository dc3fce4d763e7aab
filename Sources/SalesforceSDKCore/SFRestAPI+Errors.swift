import CoreNetworkEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The engine's errors as the SDK's: an answer of the org is `SFRestErrorDomain` with the HTTP status as its code
/// (the body, Salesforce's `[{"errorCode", "message", "fields"}]`, goes to the failure block as the SDK's does, and
/// the first `errorCode` is in `userInfo`); no connection is `NSURLErrorDomain` with URLSession's code; a refused
/// session is the SDK's OAuth error. Translation only: the engine decided what happened.
enum RestErrors {
    /// The codes the SDK's `SFRestAPI.isNetworkError:` treats as the network's.
    static let networkCodes: Set<Int> = [
        NSURLErrorNotConnectedToInternet, NSURLErrorCannotFindHost, NSURLErrorCannotConnectToHost, NSURLErrorNetworkConnectionLost,
        NSURLErrorDNSLookupFailed, NSURLErrorTimedOut, NSURLErrorResourceUnavailable,
    ]
    /// The SDK's `kSFOAuthErrorDomain`, and its code for a refused refresh token (`kSFOAuthErrorInvalidGrant`).
    static let oauthDomain = "com.salesforce.OAuth.ErrorDomain"
    static let oauthInvalidGrant = 666
    static let errorCodeKey = "errorCode"

    static var noUser: NSError {
        NSError(domain: SFRestErrorDomain, code: SFRestErrorCode, userInfo: [NSLocalizedDescriptionKey: "no current user: log in first"])
    }

    static func invalidURL(_ text: String) -> NSError {
        NSError(domain: NSURLErrorDomain, code: NSURLErrorBadURL, userInfo: [NSLocalizedDescriptionKey: "not a URL: \(text.prefix(200))"])
    }

    static func response(_ url: URL, status: Int, headers: [String: String]) -> HTTPURLResponse {
        // Only a status outside 100...599 makes this nil; the org's are inside.
        HTTPURLResponse(url: url, statusCode: (100...599).contains(status) ? status : 500, httpVersion: "HTTP/1.1", headerFields: headers)!
    }

    /// The SDK's error for an answer with this status and body.
    static func httpError(status: Int, body: Any?, url: URL) -> NSError {
        var info: [String: Any] = [NSLocalizedDescriptionKey: "HTTP \(status) from \(url.host ?? "the org")", NSURLErrorFailingURLErrorKey: url]
        if let first = (body as? [[String: Any]])?.first {
            info[errorCodeKey] = first["errorCode"]
            if let message = first["message"] as? String { info[NSLocalizedDescriptionKey] = message }
        }
        return NSError(domain: SFRestErrorDomain, code: status, userInfo: info)
    }

    /// An engine error as the SDK's error, the body the failure block gets, and the status when the org answered.
    static func translate(_ error: RestError, url: URL) -> (NSError, Any?, Int?) {
        switch error {
        case .http(let status, let errors):
            let body: [[String: Any]] = errors.map { e in
                var item: [String: Any] = ["errorCode": e.errorCode, "message": e.message]
                if let fields = e.fields { item["fields"] = fields }
                return item
            }
            return (httpError(status: status, body: body, url: url), body, status)
        case .oauth(let status, let code, let description):
            let body: [String: Any] = ["error": code, "error_description": description]
            let info: [String: Any] = [NSLocalizedDescriptionKey: description, errorCodeKey: code, NSURLErrorFailingURLErrorKey: url]
            return (NSError(domain: SFRestErrorDomain, code: status, userInfo: info), body, status)
        case .offline(let failure):
            return (nsError(failure, url: url), nil, nil)
        case .sessionRevoked:
            return (NSError(domain: oauthDomain, code: oauthInvalidGrant, userInfo: [NSLocalizedDescriptionKey: "\(error)", errorCodeKey: "invalid_grant"]), nil, nil)
        case .malformedResponse, .keychain, .loginFailed, .notAuthenticated, .invalidIdentity:
            return (NSError(domain: SFRestErrorDomain, code: SFRestErrorCode, userInfo: [NSLocalizedDescriptionKey: "\(error)"]), nil, nil)
        }
    }

    static func nsError(_ error: any Error, url: URL) -> NSError {
        switch error {
        case let failure as NetworkFailure:
            let code: Int
            switch failure.kind {
            case .refused: code = NSURLErrorCannotConnectToHost
            case .timedOut: code = NSURLErrorTimedOut
            case .hostNotFound: code = NSURLErrorCannotFindHost
            case .connectionLost: code = NSURLErrorNetworkConnectionLost
            case .notConnected: code = NSURLErrorNotConnectedToInternet
            case .cancelled: code = NSURLErrorCancelled
            case .other: code = NSURLErrorUnknown
            }
            return NSError(domain: NSURLErrorDomain, code: code, userInfo: [NSLocalizedDescriptionKey: failure.detail, NSURLErrorFailingURLErrorKey: url])
        case let rest as RestError:
            return translate(rest, url: url).0
        case is CancellationError:
            return NSError(domain: NSURLErrorDomain, code: NSURLErrorCancelled, userInfo: [NSLocalizedDescriptionKey: "cancelled", NSURLErrorFailingURLErrorKey: url])
        default:
            return NSError(domain: SFRestErrorDomain, code: SFRestErrorCode, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }
}
