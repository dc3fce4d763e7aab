// The SDK's SFSDKAuthUtilTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/SFSDKAuthUtilTests.swift at aea9bf3),
// rewritten against the SDK-named SalesforceSDKCore: the session is made by TestSetupUtils, as in the SDK's test,
// for a simulated org (SimulatedOrg.testCredentials); then SFSDKOAuth2 refreshes it at the token endpoint. Cases:
// testAccessToken, testAccessTokenInvalidClientIdError, and testOpenIDToken, which here checks that a session
// without the `openid` scope gets no ID token (the fixture's connected app does not grant it; the SDK's test org
// does); and what the SDK's test leaves out: a refused refresh token, and a server that does not answer.
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

final class SFSDKAuthUtilTests: XCTestCase {
    nonisolated(unsafe) static var org: SimulatedOrg?
    var currentUser: UserAccount?

    override class func setUp() {
        super.setUp()
        let made = RestClientTests.blocking { () -> String in
            let device = try SimulatedDevice(keychain: .inMemory)
            let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
            SFSDKAuthUtilTests.org = org
            return try await org.testCredentials(app: appURL, username: "bob@acme.test", password: "bob-pass")
        }
        guard case .success(let json) = made else { fatalError("the simulated org gave no test credentials: \(made)") }
        TestSetupUtils.populateAuthCredentials(from: json)
        TestSetupUtils.synchronousAuthRefresh()
    }

    override class func tearDown() {
        UserAccountManager.shared.logoutAllUsers()
        if let org { _ = RestClientTests.blocking { await org.stop() } }
        super.tearDown()
    }

    override func setUp() { currentUser = UserAccountManager.shared.currentUserAccount }

    private func endpointRequest(clientID: String? = nil, refreshToken: String? = nil) throws -> SFSDKOAuthTokenEndpointRequest {
        let user = try XCTUnwrap(currentUser)
        let request = SFSDKOAuthTokenEndpointRequest()
        request.refreshToken = refreshToken ?? user.credentials.refreshToken ?? ""
        request.redirectURI = UserAccountManager.shared.oauthCompletionURL
        request.clientID = clientID ?? UserAccountManager.shared.oauthClientID
        request.serverURL = user.credentials.instanceUrl ?? request.serverURL
        return request
    }

    private func refresh(_ request: SFSDKOAuthTokenEndpointRequest) throws -> SFSDKOAuthTokenEndpointResponse {
        let finished = XCTestExpectation(description: "finished")
        var answer: SFSDKOAuthTokenEndpointResponse?
        SFSDKOAuth2().accessToken(forRefresh: request) { response in
            XCTAssertTrue(Thread.isMainThread, "the SDK calls the completion on the main queue")
            answer = response
            finished.fulfill()
        }
        wait(for: [finished], timeout: 30)
        return try XCTUnwrap(answer)
    }

    func testAccessToken() throws {
        let request = try endpointRequest()
        let response = try refresh(request)
        XCTAssertFalse(response.hasError, "\(response)")
        XCTAssertFalse(response.accessToken.isEmpty)
        XCTAssertEqual(response.refreshToken, request.refreshToken, "the refresh token sent is added to an answer that has none")
        XCTAssertEqual(response.scopes.map(Set.init), ["web", "api", "refresh_token"], "the scopes the login asked for (ScopeParser adds refresh_token)")
        XCTAssertEqual(response.instanceUrl, currentUser?.credentials.instanceUrl)
        XCTAssertNotNil(response.signature)
        XCTAssertLessThan(abs(response.issuedAt.timeIntervalSinceNow), 120)
        XCTAssertFalse(response.description.contains(response.accessToken), "no token in the description")
    }

    func testOpenIDTokenIsNilWithoutTheOpenIDScope() throws {
        let request = try endpointRequest()
        let finished = XCTestExpectation(description: "finished")
        var idToken: String? = "not called"
        SFSDKOAuth2().openIDToken(forRefresh: request) { token in
            idToken = token
            finished.fulfill()
        }
        wait(for: [finished], timeout: 30)
        XCTAssertNil(idToken)
    }

    func testAccessTokenInvalidClientIdError() throws {
        let response = try refresh(try endpointRequest(clientID: "DUMMY_CLIENT_ID"))
        XCTAssertTrue(response.hasError)
        let error = try XCTUnwrap(response.error)
        XCTAssertEqual((error.error as NSError).domain, kSFOAuthErrorDomain)
        XCTAssertEqual((error.error as NSError).code, kSFOAuthErrorInvalidClientId)
        XCTAssertEqual(error.tokenEndpointErrorCode, "invalid_client_id")
    }

    func testARefusedRefreshTokenIsInvalidGrant() throws {
        let response = try refresh(try endpointRequest(refreshToken: "not-a-refresh-token"))
        XCTAssertEqual((try XCTUnwrap(response.error).error as NSError).code, kSFOAuthErrorInvalidGrant)
        XCTAssertEqual(response.accessToken, "")
    }

    func testAServerThatDoesNotAnswerIsAnError() throws {
        let request = try endpointRequest()
        // A port nothing listens on (the org's, after a stop, would be reused): connection refused.
        request.serverURL = URL(string: "http://127.0.0.1:9")!
        request.timeout = 5
        let response = try refresh(request)
        XCTAssertTrue(response.hasError)
        XCTAssertEqual((try XCTUnwrap(response.error).error as NSError).code, kSFOAuthErrorUnknown)
    }
}
