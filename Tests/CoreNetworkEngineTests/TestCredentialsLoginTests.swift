import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

/// A session from saved credentials (the SDK's TestSetupUtils): a refresh grant, then a login's steps 2 to 5.
final class TestCredentialsLoginTests: FixtureAppTestCase {
    func accounts() throws -> UserAccountManager {
        let launch = try ProcessLaunch(bundlePath: appURL.path, devicePath: devicePath, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents()).userAccountManager
    }

    func testARefreshTokenMakesTheCurrentUserAndABadOneKeepsNothing() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        // Credentials as a test_credentials.json holds them: another client's login gave the refresh token.
        let other = OrgHarness.keychain()
        let given = try await OAuthLogin.login(loginHost: org.baseURL, app: OrgHarness.app, username: "alice@acme.test", password: "alice-pass", keychain: other)
        let stored = try await TokenStore(keychain: other, account: given.keychainAccount).refreshToken()
        let refresh = try XCTUnwrap(stored)
        let accounts = try accounts()

        var bad: Error?
        do {
            _ = try await accounts.logIn(refreshToken: "not-a-token", accessToken: nil, app: OrgHarness.app, loginHost: org.baseURL,
                                         instanceURL: given.instanceURL, identityURL: given.identityURL)
        } catch { bad = error }
        XCTAssertNotNil(bad, "a refresh token the org refuses")
        XCTAssertFalse("\(bad.map { "\($0)" } ?? "")".contains("not-a-token"), "the token is not in the error")
        XCTAssertNil(try accounts.currentUser())
        XCTAssertEqual(try accounts.allAccounts().count, 0, "nothing is kept")

        let user = try await accounts.logIn(refreshToken: refresh, accessToken: nil, app: OrgHarness.app, loginHost: org.baseURL,
                                            instanceURL: given.instanceURL, identityURL: given.identityURL)
        XCTAssertEqual(user.username, "alice@acme.test", "from the identity service")
        XCTAssertEqual(try accounts.currentUser()?.identity, user.identity)
        let tokens = accounts.tokens(user)
        let kept = try await tokens.refreshToken()
        let access = try await tokens.accessToken()
        XCTAssertEqual(kept, refresh)
        XCTAssertFalse((access ?? "").isEmpty, "the refresh grant gave an access token")
    }
}
