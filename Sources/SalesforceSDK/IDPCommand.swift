import Foundation

/// One URL command between a client (SP) app and its identity provider (IDP) app, as the SDK writes
/// them: `<scheme>://oauth2/v1.0/<command>?<params>` (`SFSDKIDPConstants`: host `oauth2`, spec `v1.0`).
public struct IDPCommand: Sendable, Equatable {
    public enum Name: String, Sendable, CaseIterable {
        case authRequest = "authrequest", authResponse = "authresponse", idpInit = "idpinit", error
    }

    /// The SDK's parameter names.
    public enum Param {
        public static let clientId = "oauth_client_id", redirectURI = "oauth_redirect_uri", scopes = "scopes"
        public static let codeChallenge = "code_challenge", state = "state", appName = "app_name", loginHost = "login_host"
        public static let userHint = "user_hint", callingAppURL = "calling_app_url", code = "code", startURL = "start_url"
        public static let errorCode = "errorCode", errorReason = "errorReason", errorDescription = "errorDescription"
        /// The persistent identifier of the SP scene that asked (iOS routes the answer to that scene's
        /// delegate; here the id travels with the command and back).
        public static let sceneId = "scene_id"
    }

    public static let host = "oauth2"
    public static let version = "v1.0"

    public var scheme: String
    public var name: Name
    public var params: [String: String]

    public init(scheme: String, name: Name, params: [String: String]) {
        self.scheme = scheme.lowercased()
        self.name = name
        self.params = params
    }

    /// Parses a URL; nil when it is not an IDP command.
    public init?(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme,
            components.host == Self.host
        else { return nil }
        let parts = components.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[0] == Self.version, let name = Name(rawValue: parts[1]) else { return nil }
        var params: [String: String] = [:]
        for item in components.queryItems ?? [] { params[item.name] = item.value ?? "" }
        self.init(scheme: scheme, name: name, params: params)
    }

    public var url: URL {
        var components = URLComponents()
        components.scheme = scheme
        components.host = Self.host
        components.path = "/\(Self.version)/\(name.rawValue)"
        components.queryItems = params.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        // '+' in a value (base64url has none, scopes are joined by ',') would read as a space elsewhere.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        return components.url!
    }

    /// What a trace may show of the command: its name and target, never its code, state or challenge.
    public var traceInfo: [String: String] {
        var info = ["command": name.rawValue, "to": scheme]
        if let scene = params[Param.sceneId] { info["scene"] = scene }
        if let code = params[Param.errorCode] { info["errorCode"] = code }
        return info
    }
}
