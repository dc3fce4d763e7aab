import AppGroupSimTestSupport
import Foundation
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

final class CompositeTests: XCTestCase {
    var org: OrgHarness!
    var client: RestClient!
    let collections = "/services/data/v66.0/composite/sobjects"

    override func setUp() async throws {
        org = try await OrgHarness.start()
        client = try await org.login()
    }

    override func tearDown() async throws { await org?.stop(); (org, client) = (nil, nil) }

    func array(_ response: RestResponse) throws -> [[String: Any]] {
        try XCTUnwrap(try response.json() as? [[String: Any]])
    }

    func count(_ soql: String) async throws -> Int {
        try await client.send(.query(soql)).object()["totalSize"] as? Int ?? -1
    }

    func contact(_ fields: [String: Any]) -> [String: Any] {
        fields.merging(["attributes": ["type": "Contact"]]) { a, _ in a }
    }

    func testCollectionsCreateGivesAResultPerRecordWithTheServersMessage() async throws {
        let records = [
            contact(["LastName": "One"]), contact(["FirstName": "No last name"]), contact(["LastName": "Two"]),
            contact(["LastName": String(repeating: "y", count: 90)]), contact(["LastName": "Three"]),
        ]
        let results = try array(try await client.send(try .json("POST", collections, ["allOrNone": false, "records": records])))
        XCTAssertEqual(results.map { $0["success"] as? Bool }, [true, false, true, false, true])
        let errors = results.compactMap { ($0["errors"] as? [[String: Any]])?.first?["statusCode"] as? String }
        XCTAssertEqual(errors, ["REQUIRED_FIELD_MISSING", "STRING_TOO_LONG"])
        XCTAssertEqual(
            (results[1]["errors"] as? [[String: Any]])?.first?["message"] as? String, "Required fields are missing: [LastName]")
        let n162 = try await count("SELECT Id FROM Contact WHERE LastName IN ('One', 'Two', 'Three')")
        XCTAssertEqual(n162, 3)
    }

    func testCollectionsCreateWithAllOrNoneWritesNothingWhenOneRecordIsInvalid() async throws {
        let records = [contact(["LastName": "Kept?"]), contact(["FirstName": "Invalid"])]
        let results = try array(try await client.send(try .json("POST", collections, ["allOrNone": true, "records": records])))
        XCTAssertEqual(results.map { $0["success"] as? Bool }, [false, false])
        XCTAssertEqual((results[0]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "ALL_OR_NONE_OPERATION_ROLLED_BACK")
        let n831 = try await count("SELECT Id FROM Contact WHERE LastName = 'Kept?'")
        XCTAssertEqual(n831, 0)
    }

    func testCollectionsUpdateRetrieveAndDelete() async throws {
        let created = try array(try await client.send(try .json("POST", collections, ["records": [contact(["LastName": "A"]), contact(["LastName": "B"])]])))
        let ids = created.compactMap { $0["id"] as? String }
        XCTAssertEqual(ids.count, 2)
        let updates: [[String: Any]] = [
            contact(["Id": ids[0], "Title": "Boss"]), contact(["Id": "003000000000000AAA", "Title": "Ghost"]),
            contact(["Id": ids[1], "LastName": String(repeating: "z", count: 81)]),
        ]
        let updated = try array(try await client.send(try .json("PATCH", collections, ["records": updates])))
        XCTAssertEqual(updated.map { $0["success"] as? Bool }, [true, false, false])
        XCTAssertEqual((updated[1]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "INVALID_CROSS_REFERENCE_KEY")

        let retrieved = try await client.send(try .json("POST", collections + "/Contact", ["ids": ids + ["003000000000000AAA"], "fields": ["Title", "LastName"]]))
        let rows = try XCTUnwrap(try retrieved.json() as? [Any])
        XCTAssertEqual(rows.count, 3)
        XCTAssertEqual((rows[0] as? [String: Any])?["Title"] as? String, "Boss")
        XCTAssertTrue(rows[2] is NSNull, "a missing id gives null")

        let deleted = try array(try await client.send(RestRequest(method: "DELETE", path: collections, queryItems: [URLQueryItem(name: "ids", value: ids.joined(separator: ","))])))
        XCTAssertEqual(deleted.map { $0["success"] as? Bool }, [true, true])
        let again = try array(try await client.send(RestRequest(method: "DELETE", path: collections, queryItems: [URLQueryItem(name: "ids", value: ids[0])])))
        XCTAssertEqual((again[0]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "ENTITY_IS_DELETED")
    }

    func testCollectionLimits() async throws {
        let tooMany = (0..<201).map { contact(["LastName": "N\($0)"]) }
        let caught = await restError { _ = try await self.client.send(try .json("POST", self.collections, ["records": tooMany])) }
        XCTAssertEqual(caught?.errorCode, "EXCEEDED_ID_LIMIT")
        let ids = (0..<2001).map { _ in "003000000000000AAA" }
        let retrieve = await restError { _ = try await self.client.send(try .json("POST", self.collections + "/Contact", ["ids": ids, "fields": ["Id"]])) }
        XCTAssertEqual(retrieve?.errorCode, "EXCEEDED_ID_LIMIT")
    }

    func testCompositeResolvesReferencesBetweenSubRequests() async throws {
        let body: [String: Any] = [
            "allOrNone": false,
            "compositeRequest": [
                ["method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "new", "body": ["LastName": "Referenced"]],
                ["method": "GET", "url": "/services/data/v66.0/sobjects/Contact/@{new.id}?fields=LastName", "referenceId": "read"],
                ["method": "PATCH", "url": "/services/data/v66.0/sobjects/Contact/@{new.id}", "referenceId": "edit", "body": ["Title": "Seen @{read.LastName}"]],
                ["method": "GET", "url": "/services/data/v66.0/query?q=SELECT+Id,Title+FROM+Contact+WHERE+Id='@{new.id}'", "referenceId": "q"],
            ],
        ]
        let answer = try await client.send(try .json("POST", "/services/data/v66.0/composite", body)).object()
        let responses = try XCTUnwrap(answer["compositeResponse"] as? [[String: Any]])
        XCTAssertEqual(responses.map { $0["httpStatusCode"] as? Int }, [201, 200, 204, 200])
        let rows = ((responses[3]["body"] as? [String: Any])?["records"] as? [[String: Any]]) ?? []
        XCTAssertEqual(rows.first?["Title"] as? String, "Seen Referenced")
    }

    func testCompositeAllOrNoneRollsBackEarlierSubRequests() async throws {
        let body: [String: Any] = [
            "allOrNone": true,
            "compositeRequest": [
                ["method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "ok", "body": ["LastName": "RolledBack"]],
                ["method": "POST", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "bad", "body": ["FirstName": "x"]],
                ["method": "GET", "url": "/services/data/v66.0/sobjects/Contact/@{ok.id}", "referenceId": "after"],
            ],
        ]
        let answer = try await client.send(try .json("POST", "/services/data/v66.0/composite", body)).object()
        let responses = try XCTUnwrap(answer["compositeResponse"] as? [[String: Any]])
        XCTAssertEqual(responses.map { $0["httpStatusCode"] as? Int }, [400, 400, 400])
        let codes = responses.compactMap { (($0["body"] as? [[String: Any]])?.first?["errorCode"]) as? String }
        XCTAssertEqual(codes, ["PROCESSING_HALTED", "REQUIRED_FIELD_MISSING", "PROCESSING_HALTED"])
        let n274 = try await count("SELECT Id FROM Contact WHERE LastName = 'RolledBack'")
        XCTAssertEqual(n274, 0)
    }

    func testCompositeAllowsAtMost25SubRequests() async throws {
        let requests = (0..<26).map { ["method": "GET", "url": "/services/data/v66.0/sobjects/Contact", "referenceId": "r\($0)"] }
        let caught = await restError { _ = try await self.client.send(try .json("POST", "/services/data/v66.0/composite", ["compositeRequest": requests])) }
        XCTAssertEqual(caught?.errorCode, "INVALID_BATCH_REQUEST")
    }

    // MARK: composite/batch (issue 37): independent sub-requests, haltOnError

    func batch(_ requests: [[String: Any]], haltOnError: Bool? = nil) async throws -> [String: Any] {
        var body: [String: Any] = ["batchRequests": requests]
        if let haltOnError { body["haltOnError"] = haltOnError }
        return try await client.send(try .json("POST", "/services/data/v66.0/composite/batch", body)).object()
    }

    func testBatchRunsEachSubRequestOnItsOwn() async throws {
        let answer = try await batch([
            ["method": "POST", "url": "v66.0/sobjects/Contact", "richInput": ["LastName": "Batched"]],
            ["method": "POST", "url": "v66.0/sobjects/Contact", "richInput": ["FirstName": "no last name"]],
            ["method": "GET", "url": "/services/data/v66.0/query?q=SELECT+Id+FROM+Contact+WHERE+LastName='Batched'"],
            ["method": "GET", "url": "v66.0/sobjects/Contact/003000000000000AAA"],
        ])
        XCTAssertEqual(answer["hasErrors"] as? Bool, true)
        let results = try XCTUnwrap(answer["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["statusCode"] as? Int }, [201, 400, 200, 404])
        XCTAssertEqual((results[0]["result"] as? [String: Any])?["success"] as? Bool, true)
        XCTAssertEqual(((results[1]["result"] as? [[String: Any]])?.first?["errorCode"]) as? String, "REQUIRED_FIELD_MISSING")
        XCTAssertEqual((results[2]["result"] as? [String: Any])?["totalSize"] as? Int, 1, "the first sub-request stays done though the second failed")
        let n = try await count("SELECT Id FROM Contact WHERE LastName = 'Batched'")
        XCTAssertEqual(n, 1)
    }

    func testBatchHaltOnErrorStopsAfterTheFirstFailureWith412() async throws {
        let id = try await client.send(try .json("POST", "/services/data/v66.0/sobjects/Contact", ["LastName": "Halted"])).object()["id"] as? String ?? ""
        let answer = try await batch([
            ["method": "PATCH", "url": "v66.0/sobjects/Contact/\(id)", "richInput": ["Title": "Changed"]],
            ["method": "DELETE", "url": "v66.0/sobjects/Contact/003000000000000AAA"],
            ["method": "PATCH", "url": "v66.0/sobjects/Contact/\(id)", "richInput": ["Title": "Never"]],
        ], haltOnError: true)
        let results = try XCTUnwrap(answer["results"] as? [[String: Any]])
        XCTAssertEqual(results.map { $0["statusCode"] as? Int }, [204, 404, 412])
        XCTAssertTrue(results[0]["result"] is NSNull, "a 204's result is null")
        XCTAssertEqual(((results[2]["result"] as? [[String: Any]])?.first?["errorCode"]) as? String, "BATCH_PROCESSING_HALTED")
        let title = try await client.send(.query("SELECT Title FROM Contact WHERE Id = '\(id)'")).object()
        XCTAssertEqual(((title["records"] as? [[String: Any]])?.first?["Title"]) as? String, "Changed")
    }

    func testBatchAllowsAtMost25SubRequests() async throws {
        let requests = (0..<26).map { _ in ["method": "GET", "url": "v66.0/limits"] }
        let caught = await restError { _ = try await self.batch(requests) }
        XCTAssertEqual(caught?.errorCode, "INVALID_BATCH_REQUEST")
    }
}
