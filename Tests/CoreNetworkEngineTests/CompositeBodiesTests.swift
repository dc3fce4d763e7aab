@testable import CoreNetworkEngine
import FastJSON
import XCTest

/// The bodies of the SDK's composite and batch requests (SFSDKCompositeRequest, SFSDKBatchRequest), as the SDK
/// writes them: a GET or DELETE carries its query in its URL, the others their body; a composite's URL starts at
/// the endpoint, a batch's at the version, and a batch's body is `richInput`.
final class CompositeBodiesTests: XCTestCase {
    let query = CompositeBodies.Part(
        method: "GET", endpoint: "/services/data", path: "/v66.0/query", relativeURL: "/services/data/v66.0/query?q=SELECT%20Id%20FROM%20Contact", body: nil)
    let create = CompositeBodies.Part(
        method: "POST", endpoint: "/services/data", path: "/v66.0/sobjects/Contact", relativeURL: "/services/data/v66.0/sobjects/Contact",
        body: .object(["LastName": .string("Ng")]))
    let delete = CompositeBodies.Part(
        method: "DELETE", endpoint: "/services/data", path: "/v66.0/sobjects/Contact/003xx", relativeURL: "/services/data/v66.0/sobjects/Contact/003xx", body: nil)

    func testACompositeBodyNamesEachPartAndKeepsItsBody() {
        let body = CompositeBodies.composite([("q", query), ("c", create), ("d", delete)], allOrNone: true)
        XCTAssertEqual(body, .object([
            "allOrNone": .bool(true),
            "compositeRequest": .array([
                .object(["referenceId": .string("q"), "method": .string("GET"), "url": .string("/services/data/v66.0/query?q=SELECT%20Id%20FROM%20Contact")]),
                .object(["referenceId": .string("c"), "method": .string("POST"), "url": .string("/services/data/v66.0/sobjects/Contact"),
                         "body": .object(["LastName": .string("Ng")])]),
                .object(["referenceId": .string("d"), "method": .string("DELETE"), "url": .string("/services/data/v66.0/sobjects/Contact/003xx")]),
            ]),
        ]))
        XCTAssertEqual(CompositeBodies.compositePath(apiVersion: "v66.0"), "/v66.0/composite")
    }

    func testABatchBodyStartsItsURLsAtTheVersionAndCarriesBodiesAsRichInput() {
        let body = CompositeBodies.batch([query, create], haltOnError: false)
        XCTAssertEqual(body, .object([
            "haltOnError": .bool(false),
            "batchRequests": .array([
                .object(["method": .string("GET"), "url": .string("/v66.0/query?q=SELECT%20Id%20FROM%20Contact")]),
                .object(["method": .string("POST"), "url": .string("/v66.0/sobjects/Contact"), "richInput": .object(["LastName": .string("Ng")])]),
            ]),
        ]))
        XCTAssertEqual(CompositeBodies.batchPath(apiVersion: "v66.0"), "/v66.0/composite/batch")
    }
}
