import Foundation

/// The SDK's `SessionTaskRetryPolicy` (`URLSessionTask.shouldRetry`): an answer means "refresh the token and try
/// again" when it is a 401, or a 403 from an OAuth URL (`/services/oauth2…`) whose whole body is
/// `Bad_OAuth_Token`; never while the app's biometric lock is on. The engine's own client decides more widely
/// (`RestClient.isExpiredSession`: a 403 naming `Bad_OAuth_Token` on any URL, which the identity URL sends).
package enum SessionRetryPolicy {
    package static func shouldRetry(status: Int?, path: String?, body: Data?, locked: Bool) -> Bool {
        guard let status else { return false }
        let notAuthorized = status == 401
        let badOAuthToken = status == 403 && (path ?? "").hasPrefix("/services/oauth2")
            && String(data: body ?? Data(), encoding: .utf8) == "Bad_OAuth_Token"
        return (notAuthorized || badOAuthToken) && !locked
    }
}
