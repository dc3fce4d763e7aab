import Foundation

/// The SDK's OAuth scope rules (`ScopeParser`, SDK 13): scopes are trimmed, non-empty and unique; the
/// `scope` parameter of an authorize request is empty when none are given (the org then grants all of the
/// connected app's), otherwise the scopes with `refresh_token` added, sorted, space-separated.
package enum OAuthScopes {
    package static let refreshToken = "refresh_token"
    package static let identity = "id"

    package static func parse(_ scopes: [String]?) -> Set<String> {
        Set((scopes ?? []).map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty })
    }

    package static func parse(string: String?) -> Set<String> {
        parse(string?.components(separatedBy: .whitespacesAndNewlines))
    }

    /// The `scope` parameter: "" for none, else with `refresh_token`, sorted, space-separated.
    package static func parameter(_ scopes: Set<String>?) -> String {
        guard var scopes, !scopes.isEmpty else { return "" }
        scopes.insert(refreshToken)
        return scopes.sorted().joined(separator: " ")
    }

    /// `parameter`, percent-encoded for a query string.
    package static func encodedParameter(_ scopes: Set<String>?) -> String {
        let text = parameter(scopes)
        return text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? text
    }

    /// Whether `scope`, trimmed, is one of `scopes`.
    package static func has(_ scope: String?, in scopes: Set<String>) -> Bool {
        guard let trimmed = scope?.trimmingCharacters(in: .whitespacesAndNewlines), !trimmed.isEmpty else { return false }
        return scopes.contains(trimmed)
    }
}
