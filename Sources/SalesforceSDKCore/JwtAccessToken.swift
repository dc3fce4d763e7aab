import CoreNetworkEngine
import Foundation

/// The SDK's `JwtHeader`: a JWT access token's header fields.
public struct JwtHeader: Codable, Sendable {
    public let algorithm: String?
    public let type: String?
    public let keyId: String?
    public let tokenType: String?
    public let tenantKey: String?
    public let version: String?

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg", type = "typ", keyId = "kid", tokenType = "tty", tenantKey = "tnk", version = "ver"
    }
}

/// The SDK's `JwtPayload`: a JWT access token's claims that the SDK reads.
public struct JwtPayload: Codable, Sendable {
    public let audience: [String]?
    public let expirationTime: Int?
    public let issuer: String?
    public let notBeforeTime: Int?
    public let subject: String?
    public let scopes: String?
    public let clientId: String?

    enum CodingKeys: String, CodingKey {
        case audience = "aud", expirationTime = "exp", issuer = "iss", notBeforeTime = "nbf", subject = "sub", scopes = "scp", clientId = "client_id"
    }
}

/// The SDK's `JwtAccessToken` (SDK 13): a JWT access token's header and payload, read, not verified
/// (`CoreNetworkEngine.JWTToken` reads the parts). Its description never shows the token.
public class JwtAccessToken: NSObject, @unchecked Sendable {
    /// `JwtAccessToken.JwtError`.
    public enum JwtError: Error, Equatable {
        case invalidFormat
        case invalidBase64
    }

    public let rawJwt: String
    public let header: JwtHeader
    public let payload: JwtPayload

    public init(jwt: String) throws {
        rawJwt = jwt
        header = try Self.decode(JwtHeader.self, jwt, 0)
        payload = try Self.decode(JwtPayload.self, jwt, 1)
    }

    /// The payload's `exp` as a date; nil without one.
    public func expirationDate() -> Date? { payload.expirationTime.map { Date(timeIntervalSince1970: TimeInterval($0)) } }

    /// base64url to text, as the SDK's helper.
    public static func decodeBase64Url(_ string: String) throws -> String {
        do { return try JWTToken.decodeBase64URL(string) } catch { throw JwtError(error) }
    }

    public override var description: String { "JwtAccessToken(alg: \(header.algorithm ?? "?"), exp: \(payload.expirationTime.map(String.init) ?? "?"))" }

    private static func decode<T: Decodable>(_ type: T.Type, _ jwt: String, _ index: Int) throws -> T {
        let json: String
        do { json = try JWTToken.part(jwt, index) } catch { throw JwtError(error) }
        // A part that is not the JSON expected throws the decoder's error, as in the SDK.
        return try JSONDecoder().decode(T.self, from: Data(json.utf8))
    }
}

extension JwtAccessToken.JwtError {
    init(_ error: JWTToken.FormatError) {
        switch error {
        case .invalidFormat: self = .invalidFormat
        case .invalidBase64: self = .invalidBase64
        }
    }
}
