// The SDK's URLRequest+RestRequestTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests at aea9bf3), rewritten
// against the SDK-named products: a URLRequest to a RestRequest (method, base URL, path and endpoint, query, headers,
// timeout, body; nil without a URL), and back with prepare(forSend:) for an empty UserAccount().
import Foundation
import SalesforceSDKCore
import XCTest

final class URLRequestRestRequestTests: XCTestCase {
    func testConversion() throws {
        var request = URLRequest(url: URL(string: "https://example.com/api/v1/resource?param1=value1&param2=value2")!)
        request.httpMethod = "GET"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer token123", forHTTPHeaderField: "Authorization")
        request.timeoutInterval = 30
        let rest = try XCTUnwrap(request.toRestRequest())
        XCTAssertEqual(rest.method, .GET)
        XCTAssertEqual(rest.path, "/api/v1/resource")
        XCTAssertEqual(rest.endpoint, "/api/v1/resource", "the SDK sets the endpoint to the path too")
        XCTAssertEqual(rest.baseURL, "https://example.com")
        XCTAssertEqual(rest.queryParams?["param1"] as? String, "value1")
        XCTAssertEqual(rest.queryParams?["param2"] as? String, "value2")
        XCTAssertEqual(rest.customHeaders?["Content-Type"], "application/json")
        XCTAssertEqual(rest.customHeaders?["Authorization"], "Bearer token123")
        XCTAssertEqual(rest.timeoutInterval, 30)
        XCTAssertEqual(URLRequest(url: URL(string: "https://example.com/x")!).toRestRequest()?.queryParams?.count, 0)

        let methods: [(String, RestRequest.Method)] = [("GET", .GET), ("POST", .POST), ("PUT", .PUT), ("DELETE", .DELETE), ("HEAD", .HEAD), ("PATCH", .PATCH)]
        for (name, method) in methods {
            var r = URLRequest(url: URL(string: "https://example.com/x")!)
            r.httpMethod = name
            XCTAssertEqual(r.toRestRequest()?.method, method, name)
        }
        var noURL = URLRequest(url: URL(string: "https://example.com")!)
        noURL.url = nil
        XCTAssertNil(noURL.toRestRequest())
    }

    func testRoundTripConversion() throws {
        var original = URLRequest(url: URL(string: "https://example.com/services/data/v57.0/sobjects/Account")!)
        original.httpMethod = "POST"
        original.timeoutInterval = 30
        original.setValue("application/json", forHTTPHeaderField: "Content-Type")
        original.setValue("Bearer token123", forHTTPHeaderField: "Authorization")
        original.setValue("custom-value", forHTTPHeaderField: "X-Custom-Header")
        let body = ["Name": "Test Account", "Type": "Prospect", "Industry": "Technology", "BillingCity": "San Francisco"]
        original.httpBody = try JSONSerialization.data(withJSONObject: body)

        let converted = try XCTUnwrap(original.toRestRequest()?.prepare(forSend: UserAccount()))
        XCTAssertEqual(converted.url?.scheme, "https")
        XCTAssertEqual(converted.url?.host, "example.com")
        XCTAssertEqual(converted.url?.path, "/services/data/v57.0/sobjects/Account")
        XCTAssertEqual(converted.httpMethod, "POST")
        for header in ["Content-Type", "Authorization", "X-Custom-Header"] {
            XCTAssertEqual(converted.value(forHTTPHeaderField: header), original.value(forHTTPHeaderField: header), header)
        }
        XCTAssertEqual(converted.timeoutInterval, 30)
        let sent = try XCTUnwrap(converted.httpBody.flatMap { try JSONSerialization.jsonObject(with: $0) as? [String: String] })
        XCTAssertEqual(sent, body)
    }
}
