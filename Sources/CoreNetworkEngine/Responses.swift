import CoreEngine
import Foundation

/// The token endpoint's answer (code exchange and refresh) or its OAuth error.
package struct OAuthTokenResponse: Decodable, Sendable, Equatable {
    package var accessToken: String?
    package var refreshToken: String?
    package var instanceURL: String?
    /// The identity URL: `…/id/<orgId>/<userId>`.
    package var id: String?
    package var error: String?
    package var errorDescription: String?

    enum CodingKeys: String, CodingKey {
        case accessToken = "access_token", refreshToken = "refresh_token", instanceURL = "instance_url", id, error
        case errorDescription = "error_description"
    }
}

/// The identity service's answer: who is logged in and the connected app's mobile policy.
package struct IdentityResponse: Decodable, Sendable, Equatable {
    package struct MobilePolicy: Decodable, Sendable, Equatable {
        /// The screen-lock timeout in minutes (0: no lock).
        package var screenLock: Int?
        package var pinLength: Int?

        enum CodingKeys: String, CodingKey { case screenLock = "screen_lock", pinLength = "pin_length" }
    }

    package var username: String?
    package var displayName: String?
    package var email: String?
    package var mobilePolicy: MobilePolicy?
    /// The whole answer, kept with the account (`idData`).
    package var fields = IdentityFields([:])

    enum CodingKeys: String, CodingKey { case username, displayName = "display_name", email, mobilePolicy = "mobile_policy" }
}

/// One result of an sObject collection request (create, update, upsert, delete).
package struct CollectionResult: Decodable, Sendable, Equatable {
    package struct Failure: Decodable, Sendable, Equatable {
        package var statusCode: String?
        package var message: String?
    }

    package var id: String?
    package var success: Bool
    package var errors: [Failure]

    enum CodingKeys: String, CodingKey { case id, success, errors }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decodeIfPresent(String.self, forKey: .id)
        success = try c.decodeIfPresent(Bool.self, forKey: .success) ?? false
        errors = try c.decodeIfPresent([Failure].self, forKey: .errors) ?? []
    }
}
