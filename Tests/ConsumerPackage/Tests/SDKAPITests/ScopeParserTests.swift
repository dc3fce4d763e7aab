// The SDK's ScopeParserTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/ScopeParserTests.swift at aea9bf3),
// rewritten against the SDK-named SalesforceSDKCore: computeScopeParameter (nil, empty, one, several, refresh_token
// already there) and computeScopeParameterWithURLEncoding (nil, empty, some); and the parser's own checks.
import Foundation
import SalesforceSDKCore
import XCTest

final class ScopeParserTests: XCTestCase {
    private let refreshToken = "refresh_token"
    private let api = "api"
    private let chatter = "chatter_api"
    private let custom = "custom_scope"

    func testComputeScopeParameterWithNilOrEmptyScopesIsEmpty() {
        XCTAssertEqual(ScopeParser.computeScopeParameter(scopes: nil), "")
        XCTAssertEqual(ScopeParser.computeScopeParameter(scopes: []), "")
    }

    func testComputeScopeParameterAddsRefreshTokenOnceAndSorts() {
        XCTAssertEqual(ScopeParser.computeScopeParameter(scopes: [api]), [api, refreshToken].sorted().joined(separator: " "))
        XCTAssertEqual(ScopeParser.computeScopeParameter(scopes: [chatter, api, custom]), [api, custom, chatter, refreshToken].sorted().joined(separator: " "))
        XCTAssertEqual(ScopeParser.computeScopeParameter(scopes: [api, refreshToken]), "api refresh_token", "no second refresh_token")
    }

    func testComputeScopeParameterWithURLEncoding() {
        XCTAssertEqual(ScopeParser.computeScopeParameterWithURLEncoding(scopes: nil), "")
        XCTAssertEqual(ScopeParser.computeScopeParameterWithURLEncoding(scopes: []), "")
        XCTAssertEqual(ScopeParser.computeScopeParameterWithURLEncoding(scopes: [api, refreshToken]), api + "%20" + refreshToken)
    }

    func testParsingTrimsAndAnswersWhatItHolds() {
        let parsed = ScopeParser.parseScopes("  web api\n id  api ")
        XCTAssertEqual(parsed.scopes, ["web", "api", "id"])
        XCTAssertEqual(parsed.scopesAsString, "api id web")
        XCTAssertTrue(parsed.hasIdentityScope())
        XCTAssertFalse(parsed.hasRefreshTokenScope())
        XCTAssertTrue(parsed.hasScope(" web "))
        XCTAssertFalse(parsed.hasScope("  "))
        XCTAssertEqual(ScopeParser(scopes: [" api", "", "api "]).scopes, ["api"])
        XCTAssertEqual(ScopeParser(scopeString: nil).scopesAsString, "")
    }
}
