import AppGroupSimTestSupport
import Crypto
import Foundation
import Keychain
import XCTest

import CoreNetworkEngine
import OrgSimulator

/// The token endpoint as the SDK's `SFSDKOAuth2` speaks to it (`CoreNetworkEngine.OAuthTokenEndpoint`): a
/// refresh answer, the SDK's error codes, and the OpenID Connect ID token of a session granted `openid`.
final class TokenEndpointTests: XCTestCase {
    static let openIDApp = "3MVG9AppGroupSim.OpenID.Test"

    func testARefreshOfAnOpenIDSessionGetsAnIDTokenSignedByTheOrg() async throws {
        let app = OrgDefinition.ConnectedApp(consumerKey: Self.openIDApp, redirectURIs: [OrgHarness.app.redirectURI], scopes: ["api", "openid", "refresh_token"])
        let org = try await OrgHarness.start(connectedApps: [app])
        defer { Task { await org.stop() } }
        let keychain = OrgHarness.keychain()
        let client = OAuthLogin.App(clientId: Self.openIDApp, redirectURI: OrgHarness.app.redirectURI, scopes: ["api", "openid"])
        let session = try await OAuthLogin.login(loginHost: org.baseURL, app: client, username: "alice@acme.test", password: "alice-pass", keychain: keychain)
        let refresh = try await TokenStore(keychain: keychain, account: session.keychainAccount).refreshToken()
        let token = try XCTUnwrap(refresh)

        let outcome = await OAuthTokenEndpoint.send(.refresh(token: token), server: org.baseURL.absoluteString, clientId: Self.openIDApp,
                                                    redirectURI: OrgHarness.app.redirectURI, timeout: 10)
        guard case .answer(let fields) = outcome else { return XCTFail("\(outcome)") }
        XCTAssertEqual(fields["refresh_token"], token, "the SDK adds the refresh token it sent")
        XCTAssertEqual(fields["scope"].map { Set($0.split(separator: " ").map(String.init)) }, ["api", "openid", "refresh_token"])
        let idToken = try XCTUnwrap(fields["id_token"])
        let claims = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(try JWTToken.part(idToken, 1).utf8)) as? [String: Any])
        XCTAssertEqual(claims["aud"] as? String, Self.openIDApp)
        XCTAssertEqual(claims["sub"] as? String, session.identityURL.absoluteString)
        XCTAssertEqual(try JWTToken.part(idToken, 0), #"{"alg":"HS256","typ":"JWT"}"#)
        // Its signature is the org's (HMAC-SHA256 under the consumer key), over the first two parts.
        let parts = idToken.split(separator: ".").map(String.init)
        let mac = HMAC<SHA256>.authenticationCode(for: Data((parts[0] + "." + parts[1]).utf8), using: SymmetricKey(data: Data(Self.openIDApp.utf8)))
        XCTAssertEqual(Data(mac).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: ""), parts[2])

        // The fixture's app does not grant openid: no ID token.
        let plain = try await org.login()
        let plainRefresh = try await plain.tokens.refreshToken()
        let plainOutcome = await OAuthTokenEndpoint.send(.refresh(token: try XCTUnwrap(plainRefresh)), server: org.baseURL.absoluteString,
                                                         clientId: OrgHarness.app.clientId, redirectURI: nil, timeout: 10)
        guard case .answer(let plainFields) = plainOutcome else { return XCTFail("\(plainOutcome)") }
        XCTAssertNil(plainFields["id_token"])
    }

    func testErrorsAreTheSDKsCodes() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let unknownClient = await OAuthTokenEndpoint.send(.refresh(token: "x"), server: org.baseURL.absoluteString, clientId: "DUMMY", redirectURI: nil, timeout: 10)
        guard case .error(let type, _) = unknownClient else { return XCTFail("\(unknownClient)") }
        XCTAssertEqual(OAuthTokenEndpoint.ErrorCode(errorType: type).rawValue, 670, "kSFOAuthErrorInvalidClientId")
        let badGrant = await OAuthTokenEndpoint.send(.refresh(token: "x"), server: org.baseURL.absoluteString, clientId: OrgHarness.app.clientId, redirectURI: nil, timeout: 10)
        guard case .error(let grantType, _) = badGrant else { return XCTFail("\(badGrant)") }
        XCTAssertEqual(OAuthTokenEndpoint.ErrorCode(errorType: grantType).rawValue, 672, "kSFOAuthErrorInvalidGrant")
        XCTAssertEqual(OAuthTokenEndpoint.ErrorCode.allCases.last?.rawValue, 685, "kSFOAuthErrorInvalidURL ends the SDK's list")
        guard case .error("malformed_response", _) = OAuthTokenEndpoint.outcome(status: 200, body: Data("<html>".utf8)) else { return XCTFail() }
        XCTAssertEqual(OAuthTokenEndpoint.ErrorCode(errorType: "malformed_response"), .malformed)
        XCTAssertEqual(OAuthTokenEndpoint.url(server: "login.salesforce.com")?.absoluteString, "https://login.salesforce.com/services/oauth2/token")
        XCTAssertEqual(OAuthTokenEndpoint.form(.refresh(token: "r"), clientId: "c", redirectURI: nil, additional: ["grant_type": "password", "extra": "1"])["grant_type"],
                       "refresh_token", "additional parameters cannot replace the grant's")
    }
}
