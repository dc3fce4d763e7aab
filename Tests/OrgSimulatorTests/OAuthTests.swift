import AppGroupSimTestSupport
import Foundation
import Keychain
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

final class OAuthTests: XCTestCase {
    var org: OrgHarness!

    override func setUp() async throws { org = try await OrgHarness.start() }
    override func tearDown() async throws { await org?.stop(); org = nil }

    func testTheCodeAndPKCELoginGivesASessionWhoseTokensAreOnlyInTheKeychain() async throws {
        let store = InMemorySecretStore()
        let keychain = KeychainHelper(store: store, deviceID: "d", accessGroups: ["g"])
        let client = try await org.login(keychain: keychain)
        XCTAssertEqual(client.credentials.orgId, "00D5g00000AcmeeEAA")
        XCTAssertEqual(client.credentials.userId, "0055g00000AliceAAA")
        XCTAssertEqual(client.credentials.instanceURL, org.baseURL)
        let services = try await keychain.items().map(\.service).sorted()
        XCTAssertEqual(services, [TokenStore.accessService, TokenStore.refreshService])
        let tokens = TokenStore(keychain: keychain, account: client.credentials.keychainAccount)
        let access = try await tokens.accessToken()
        let refresh = try await tokens.refreshToken()
        XCTAssertTrue(access?.hasPrefix("00D5g00000AcmeeEAA!") ?? false)
        let persisted = String(decoding: try JSONEncoder().encode(client.credentials), as: UTF8.self)
        XCTAssertFalse(persisted.contains(access ?? "-"), "credentials must not carry the access token")
        XCTAssertFalse(persisted.contains(refresh ?? "-"), "credentials must not carry the refresh token")
        let identity = try await client.identity().object()
        XCTAssertEqual(identity["username"] as? String, "alice@acme.test")
        XCTAssertNil(identity["mobile_policy"], "Acme has no screen-lock policy")
    }

    func testGlobexRequiresAScreenLockInItsMobilePolicy() async throws {
        let client = try await org.login("carol@globex.test", "carol-pass")
        let policy = try await client.identity().object()["mobile_policy"] as? [String: Any]
        XCTAssertEqual(policy?["screen_lock"] as? Int, 1)
        XCTAssertEqual(policy?["pin_length"] as? Int, 4)
    }

    func testAWrongPasswordFailsTheLogin() async throws {
        let caught = await restError {
            _ = try await org.login("alice@acme.test", "wrong")
        }
        XCTAssertNotNil(caught, "login succeeded")
        if let error = caught {
            guard case .loginFailed = error else { return XCTFail("\(error)") }
        }
    }

    func testAWrongClientIdIsInvalidClientId() async throws {
        let caught = await restError {
            _ = try await OAuthLogin.login(
                loginHost: org.baseURL, app: .init(clientId: "other", redirectURI: OrgHarness.app.redirectURI, scopes: []),
                username: "alice@acme.test", password: "alice-pass", keychain: OrgHarness.keychain())
        }
        XCTAssertNotNil(caught, "login succeeded")
        if let error = caught {
            XCTAssertEqual(error, .oauth(status: 400, error: "invalid_client_id", description: "client identifier invalid"))
        }
    }

    /// A code is used up only by the exchange it was issued for: the wrong client, a missing or malformed or
    /// wrong verifier, another redirect URI are each refused and leave it for the right client, which gets
    /// tokens once; a second exchange is refused.
    func testOnlyTheRightClientWithItsVerifierUsesUpACodeAndOnlyOnce() async throws {
        let app = OrgHarness.app
        let verifier = "the-right-verifier-0123456789-0123456789-abc"
        let challenge = OAuthLogin.challenge(for: verifier)
        var submit = URLRequest(url: org.baseURL.appendingPathComponent("services/oauth2/authorize"))
        submit.httpMethod = "POST"
        submit.httpBody = OAuthLogin.form([
            "client_id": app.clientId, "redirect_uri": app.redirectURI, "code_challenge": challenge, "code_challenge_method": "S256",
            "username": "alice@acme.test", "password": "alice-pass",
        ])
        let (_, redirect) = try await org.raw(submit)
        XCTAssertEqual(redirect.statusCode, 302)
        let location = try XCTUnwrap(redirect.value(forHTTPHeaderField: "Location"))
        let code = try XCTUnwrap(URLComponents(string: location)?.queryItems?.first { $0.name == "code" }?.value)
        func exchange(_ fields: [String: String?]) async throws -> (Int, [String: Any]) {
            var form = ["grant_type": "authorization_code", "code": code, "client_id": app.clientId, "redirect_uri": app.redirectURI, "code_verifier": verifier]
            for (key, value) in fields { form[key] = value }
            var request = URLRequest(url: org.baseURL.appendingPathComponent("services/oauth2/token"))
            request.httpMethod = "POST"
            request.httpBody = OAuthLogin.form(form)
            let (data, response) = try await org.raw(request)
            return (response.statusCode, (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:])
        }
        let refusals: [(String, [String: String?], String)] = [
            ("no verifier", ["code_verifier": nil], "invalid_grant"),
            ("an empty verifier", ["code_verifier": ""], "invalid_grant"),
            ("a short verifier", ["code_verifier": "abc"], "invalid_grant"),
            ("a wrong verifier", ["code_verifier": "a-wrong-verifier-0123456789-0123456789-abcde"], "invalid_grant"),
            ("another connected app", ["client_id": "3MVG9Acme.FieldSales", "redirect_uri": "fieldsales://oauth/done"], "invalid_grant"),
            ("another redirect URI", ["redirect_uri": "evil://steal"], "redirect_uri_mismatch"),
        ]
        for (what, fields, error) in refusals {
            let (status, body) = try await exchange(fields)
            XCTAssertEqual(status, 400, what)
            XCTAssertEqual(body["error"] as? String, error, what)
            XCTAssertNil(body["access_token"], what)
        }
        let (ok, tokens) = try await exchange([:])
        XCTAssertEqual(ok, 200, "failed attempts by others did not use up the code: \(tokens)")
        XCTAssertNotNil(tokens["refresh_token"])
        let (again, body) = try await exchange([:])
        XCTAssertEqual(again, 400, "a code gives tokens once")
        XCTAssertEqual(body["error"] as? String, "invalid_grant")
    }

    func testAnExpiredAccessTokenIsRefreshedOnceAndTheRequestSucceeds() async throws {
        let keychain = OrgHarness.keychain()
        let client = try await org.login(keychain: keychain)
        let tokens = TokenStore(keychain: keychain, account: client.credentials.keychainAccount)
        let before = try await tokens.accessToken()
        _ = try await org.admin(["expireTokens": true])
        let response = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        XCTAssertEqual(response.status, 200)
        let after = try await tokens.accessToken()
        XCTAssertNotEqual(before, after, "the refreshed token is in the keychain")
        let refresh = try await tokens.refreshToken()
        XCTAssertNotNil(refresh)
    }

    func testConcurrentRequestsAfterExpiryShareOneRefresh() async throws {
        let client = try await org.login()
        let before = try await org.admin(["expireTokens": true])["tokenRefreshes"] as? Int
        try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<8 { group.addTask { try await client.send(.query("SELECT Id FROM Contact LIMIT 1")).status } }
            for try await status in group { XCTAssertEqual(status, 200) }
        }
        let after = try await org.admin([:])["tokenRefreshes"] as? Int
        XCTAssertEqual((after ?? -1) - (before ?? 0), 1, "8 requests that each met an expired token must share one refresh at the org")
    }

    func testARevokedRefreshTokenIsSessionRevoked() async throws {
        let client = try await org.login()
        let answer = try await org.admin(["revokeUser": "alice@acme.test"])
        XCTAssertEqual(answer["revokedGrants"] as? Int, 1)
        let caught = await restError {
            _ = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        }
        XCTAssertNotNil(caught, "the request succeeded")
        if let error = caught {
            XCTAssertEqual(error, .sessionRevoked)
            XCTAssertFalse(error.description.contains("5Aep861"), "no token in the message")
        }
    }

    func testRevokeEndsTheSession() async throws {
        let keychain = OrgHarness.keychain()
        let client = try await org.login(keychain: keychain)
        let refresh = try await XCTUnwrapAsync(try await TokenStore(keychain: keychain, account: client.credentials.keychainAccount).refreshToken())
        var request = URLRequest(url: org.baseURL.appendingPathComponent("services/oauth2/revoke"))
        request.httpMethod = "POST"
        request.httpBody = OAuthLogin.form(["token": refresh])
        let (_, response) = try await org.raw(request)
        XCTAssertEqual(response.statusCode, 200)
        let caught = await restError {
            _ = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        }
        XCTAssertNotNil(caught, "the request succeeded")
        if let error = caught {
            XCTAssertEqual(error, .sessionRevoked)
        }
    }

    func XCTUnwrapAsync<T>(_ value: T?) async throws -> T { try XCTUnwrap(value) }

    /// The front door: an access token becomes a web session cookie; the authorize endpoint then gives a
    /// code without the login page, for the session's user, to a connected app the org knows.
    func testTheFrontDoorTurnsASessionIntoACodeForAnotherConnectedApp() async throws {
        let client = try await org.login()
        let fieldSales = OAuthLogin.App(clientId: "3MVG9Acme.FieldSales", redirectURI: "fieldsales://oauth/done", scopes: ["api", "refresh_token"])
        let (verifier, challenge) = OAuthLogin.newVerifier()
        let code = try await client.authorizationCode(for: fieldSales, codeChallenge: challenge, state: nil)
        let keychain = OrgHarness.keychain()
        let credentials = try await OAuthLogin.exchange(code: code, verifier: verifier, loginHost: org.baseURL, app: fieldSales, keychain: keychain)
        XCTAssertEqual(credentials.userId, "0055g00000AliceAAA")
        XCTAssertEqual(credentials.clientId, "3MVG9Acme.FieldSales")

        // Refusals: an unknown client id, a redirect URI the app does not have, a token that is no session.
        var refusal = ""
        do {
            _ = try await client.authorizationCode(for: OAuthLogin.App(clientId: "3MVG9Nope", redirectURI: "x://y", scopes: []), codeChallenge: challenge, state: nil)
        } catch {
            refusal = "\(error)"
        }
        XCTAssertEqual(refusal, "OAuth error 400 invalid_client_id: client identifier invalid")
        var door = URLRequest(url: org.baseURL.appendingPathComponent("secur/frontdoor.jsp"))
        door.httpMethod = "POST"
        door.httpBody = Data("sid=forged&retURL=%2F".utf8)
        let (_, forged) = try await URLSession.shared.data(for: door)
        XCTAssertEqual((forged as? HTTPURLResponse)?.statusCode, 401)
        let access = try await client.tokens.accessToken() ?? ""
        door.httpBody = OAuthLogin.form(["sid": access, "retURL": "https://elsewhere.test/"])
        let (_, offsite) = try await URLSession.shared.data(for: door)
        XCTAssertEqual((offsite as? HTTPURLResponse)?.statusCode, 400, "retURL must stay on the org")
    }
}
