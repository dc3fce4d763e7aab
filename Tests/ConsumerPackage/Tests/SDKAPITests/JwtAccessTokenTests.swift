// The SDK's JwtAccessTokenTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/JwtAccessTokenTests.swift at aea9bf3),
// rewritten against the SDK-named SalesforceSDKCore: a token's header and payload read from its parts (plain base64
// and base64url), a string that is not a token refused as invalidFormat; and what the SDK's test leaves out: a part
// that is not base64, and the expiry as a date.
import Foundation
import SalesforceSDKCore
import XCTest

final class JwtAccessTokenTests: XCTestCase {
    private let headerJSON = #"{"alg":"RS256","typ":"JWT","kid":"k-1","tty":"sfdc-core-token","tnk":"tenant-1","ver":"1.0"}"#
    private let payloadJSON = #"{"aud":["https://acme.my.salesforce.test"],"exp":1767225600,"iss":"https://acme.my.salesforce.test","nbf":1767225000,"sub":"uid:0055g00000AliceAAA","scp":"api refresh_token","client_id":"acme-app","iat":1767225000}"#

    private func token(urlSafe: Bool) -> String {
        [headerJSON, payloadJSON, "not-a-signature"].map { part -> String in
            let base64 = Data(part.utf8).base64EncodedString()
            guard urlSafe else { return base64 }
            return base64.replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }.joined(separator: ".")
    }

    func testHeaderIsRead() throws {
        for urlSafe in [false, true] {
            let header = try JwtAccessToken(jwt: token(urlSafe: urlSafe)).header
            XCTAssertEqual(header.algorithm, "RS256")
            XCTAssertEqual(header.type, "JWT")
            XCTAssertEqual(header.keyId, "k-1")
            XCTAssertEqual(header.tokenType, "sfdc-core-token")
            XCTAssertEqual(header.tenantKey, "tenant-1")
            XCTAssertEqual(header.version, "1.0")
        }
    }

    func testPayloadIsRead() throws {
        let jwt = try JwtAccessToken(jwt: token(urlSafe: true))
        XCTAssertEqual(jwt.payload.audience, ["https://acme.my.salesforce.test"])
        XCTAssertEqual(jwt.payload.expirationTime, 1_767_225_600)
        XCTAssertEqual(jwt.payload.issuer, "https://acme.my.salesforce.test")
        XCTAssertEqual(jwt.payload.notBeforeTime, 1_767_225_000)
        XCTAssertEqual(jwt.payload.subject, "uid:0055g00000AliceAAA")
        XCTAssertEqual(jwt.payload.scopes, "api refresh_token")
        XCTAssertEqual(jwt.payload.clientId, "acme-app")
        XCTAssertEqual(jwt.expirationDate(), Date(timeIntervalSince1970: 1_767_225_600))
        XCTAssertFalse(String(describing: jwt).contains(jwt.rawJwt), "the token is not in its description")
    }

    func testNotATokenIsInvalidFormat() {
        XCTAssertThrowsError(try JwtAccessToken(jwt: "no-dots-here")) { error in
            XCTAssertEqual(error as? JwtAccessToken.JwtError, .invalidFormat)
        }
    }

    func testAPartThatIsNotBase64IsInvalidBase64() {
        XCTAssertThrowsError(try JwtAccessToken(jwt: "***.***.x")) { error in
            XCTAssertEqual(error as? JwtAccessToken.JwtError, .invalidBase64)
        }
        XCTAssertEqual(try JwtAccessToken.decodeBase64Url("aGk"), "hi", "padding is optional")
    }
}
