import Foundation

/// The token endpoint's answer (code exchange and refresh) or its OAuth error.
public struct OAuthTokenResponse: Decodable, Sendable, Equatable {
    public var accessToken: String?
    public var refreshToken: String?
    public var instanceURL: String?
    /// The identity URL: `…/id/<orgId>/<userId>`.
    public var id: String?
    public var error: String?
    public var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", instanceURL = "instance_url", id, error
        case errorDescription = "error_description"
    }
}

/// The identity service's answer: who is logged in and the connected app's mobile policy.
public struct IdentityResponse: Decodable, Sendable, Equatable {
    public struct MobilePolicy: Decodable, Sendable, Equatable {
        /// The screen-lock timeout in minutes (0: no lock).
        public var screenLock: Int?
        public var pinLength: Int?

        enum CodingKeys: String, CodingKey { case screenLock = "screen_lock", pinLength = "pin_length" }
    }

    public var username: String?
    public var displayName: String?
    public var email: String?
    public var mobilePolicy: MobilePolicy?

    enum CodingKeys: String, CodingKey { case username, displayName = "display_name", email, mobilePolicy = "mobile_policy" }
}

/// One result of an sObject collection request (create, update, upsert, delete).
public struct CollectionResult: Decodable, Sendable, Equatable {
    public struct Failure: Decodable, Sendable, Equatable {
        public var statusCode: String?
        public var message: String?
    }

    public var id: String?
    public var success: Bool
    public var errors: [Failure]

    enum CodingKeys: String, CodingKey { case id, success, errors }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        success = try c.decodeIfPresent(Bool.self, forKey: .success) ?? false
        errors = try c.decodeIfPresent([Failure].self, forKey: .errors) ?? []
    }
}
