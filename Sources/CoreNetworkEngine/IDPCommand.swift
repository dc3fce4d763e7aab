import Foundation

/// One URL command between a client (SP) app and its identity provider (IDP) app, as the SDK writes
/// them: `<scheme>://oauth2/v1.0/<command>?<params>` (`SFSDKIDPConstants`: host `oauth2`, spec `v1.0`).
package struct IDPCommand: Sendable, Equatable {
    package enum Name: String, Sendable, CaseIterable {
        case authRequest = "authrequest", authResponse = "authresponse", idpInit = "idpinit", error
    }

    /// The SDK's parameter names.
    package enum Param {
        package static let clientId = "oauth_client_id", redirectURI = "oauth_redirect_uri", scopes = "scopes"
        package static let codeChallenge = "code_challenge", state = "state", appName = "app_name", loginHost = "login_host"
        package static let userHint = "user_hint", callingAppURL = "calling_app_url", code = "code", startURL = "start_url"
        package static let errorCode = "errorCode", errorReason = "errorReason", errorDescription = "errorDescription"
        /// The persistent identifier of the SP scene that asked (iOS routes the answer to that scene's
        /// delegate; here the id travels with the command and back).
        package static let sceneId = "scene_id"
    }

    package static let host = "oauth2"
    package static let version = "v1.0"

    package var scheme: String
    package var name: Name
    package var params: [String: String]

    package init(scheme: String, name: Name, params: [String: String]) {
        self.scheme = scheme.lowercased()
        self.name = name
        self.params = params
    }

    /// Parses a URL; nil when it is not an IDP command.
    package init?(url: URL) {
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false), let scheme = components.scheme,
            components.host == Self.host
        else { return nil }
        let parts = components.path.split(separator: "/").map(String.init)
        guard parts.count == 2, parts[0] == Self.version, let name = Name(rawValue: parts[1]) else { return nil }
        var params: [String: String] = [:]
        for item in components.queryItems ?? [] { params[item.name] = item.value ?? "" }
        self.init(scheme: scheme, name: name, params: params)
    }

    /// Whether `scheme` can name an app: RFC 3986's `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )`. A command
    /// is only ever built for such a scheme; anything else (empty, a path, a space) has nowhere to go.
    package static func isUsableScheme(_ scheme: String) -> Bool {
        guard let first = scheme.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else { return false }
        return scheme.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+-.".unicodeScalars.contains($0)) }
    }

    /// The scheme of a URL given as text (`oauth_redirect_uri`, `calling_app_url`), lowercased; nil when it
    /// has no usable one.
    package static func scheme(of text: String?) -> String? {
        guard let text, let colon = text.firstIndex(of: ":") else { return nil }
        let scheme = String(text[..<colon]).lowercased()
        return isUsableScheme(scheme) ? scheme : nil
    }

    package struct UnusableScheme: Error, CustomStringConvertible {
        package var scheme: String
        package var description: String { "\"\(scheme)\" is not a URL scheme an app can claim (letters, digits, '+', '-', '.', starting with a letter)" }
    }

    /// The command as a URL; throws when its scheme cannot name an app (never traps, whatever the input).
    package func url() throws(UnusableScheme) -> URL {
        guard Self.isUsableScheme(scheme) else { throw UnusableScheme(scheme: scheme) }
        var components = URLComponents()
        components.scheme = scheme
        components.host = Self.host
        components.path = "/\(Self.version)/\(name.rawValue)"
        components.queryItems = params.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
        // '+' in a value (base64url has none, scopes are joined by ',') would read as a space elsewhere.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw UnusableScheme(scheme: scheme) }
        return url
    }

    /// What a trace may show of the command: its name and target, never its code, state or challenge.
    package var traceInfo: [String: String] {
        var info = ["command": name.rawValue, "to": scheme]
        if let scene = params[Param.sceneId] { info["scene"] = scene }
        if let code = params[Param.errorCode] { info["errorCode"] = code }
        return info
    }
}
