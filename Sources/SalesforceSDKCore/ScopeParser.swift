import CoreNetworkEngine
import Foundation

/// The SDK's `ScopeParser` (`SFScopeParser`, SDK 13): OAuth scopes parsed and formatted by the engine's rules
/// (`OAuthScopes`), the rules its own login uses for the authorize request's `scope`.
public class ScopeParser: NSObject, @unchecked Sendable {
    public static let REFRESH_TOKEN = OAuthScopes.refreshToken
    public static let ID = OAuthScopes.identity

    public let scopes: Set<String>

    /// Sorted and space-separated; "" for none.
    public var scopesAsString: String { scopes.sorted().joined(separator: " ") }

    public init(scopes: [String]?) {
        self.scopes = OAuthScopes.parse(scopes)
        super.init()
    }

    public init(scopeString: String?) {
        scopes = OAuthScopes.parse(string: scopeString)
        super.init()
    }

    public static func parseScopes(_ scopeString: String?) -> ScopeParser { ScopeParser(scopeString: scopeString) }

    public static func computeScopeParameter(scopes: Set<String>?) -> String { OAuthScopes.parameter(scopes) }

    public static func computeScopeParameterWithURLEncoding(scopes: Set<String>?) -> String { OAuthScopes.encodedParameter(scopes) }

    public func hasScope(_ scope: String?) -> Bool { OAuthScopes.has(scope, in: scopes) }

    public func hasRefreshTokenScope() -> Bool { hasScope(Self.REFRESH_TOKEN) }

    public func hasIdentityScope() -> Bool { hasScope(Self.ID) }
}
