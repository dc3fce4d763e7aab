import SalesforceSDKCore
import XCTest

/// The face's builders give the engine's `CompositeBodies` each request's parts and send what it writes: the bodies
/// the SDK's `SFSDKCompositeRequest` and `SFSDKBatchRequest` send (the rule's own tests: CompositeBodiesTests).
final class CompositeRequestFaceTests: XCTestCase {
    func testTheBuildersWriteTheSDKsBodies() throws {
        // Made as RestClient's factories make them (RestClient.shared needs a process identity, which a unit test has not).
        let create = RestRequest(method: .POST, path: "/v66.0/sobjects/Contact", queryParams: nil)
        create.setCustomRequestBodyDictionary(["LastName": "Ng", "Active__c": true, "Score__c": 3], contentType: "application/json")
        let query = RestRequest(method: .GET, path: "/v66.0/query", queryParams: ["q": "SELECT Id FROM Contact"])
        let composite = CompositeRequestBuilder().setAllOrNone(true).add(create, referenceId: "c").add(query, referenceId: "q").buildCompositeRequest("v66.0")
        XCTAssertEqual(composite.path, "/v66.0/composite")
        let body = try XCTUnwrap(composite.requestBodyAsDictionary as? [String: Any])
        XCTAssertEqual(body["allOrNone"] as? Bool, true)
        let items = try XCTUnwrap(body["compositeRequest"] as? [[String: Any]])
        XCTAssertEqual(items.map { $0["referenceId"] as? String }, ["c", "q"])
        XCTAssertEqual(items[0]["url"] as? String, "/services/data/v66.0/sobjects/Contact")
        let created = try XCTUnwrap(items[0]["body"] as? [String: Any])
        XCTAssertEqual(created["LastName"] as? String, "Ng")
        XCTAssertEqual(created["Active__c"] as? Bool, true, "a boolean stays a boolean through the engine's JSON")
        XCTAssertEqual(created["Score__c"] as? Int, 3)
        XCTAssertNil(items[1]["body"])
        XCTAssertTrue((items[1]["url"] as? String ?? "").hasPrefix("/services/data/v66.0/query?q="), "\(items[1])")

        let batch = BatchRequestBuilder().setHaltOnError(true).add(query).add(create).buildBatchRequest("v66.0")
        XCTAssertEqual(batch.path, "/v66.0/composite/batch")
        let batchBody = try XCTUnwrap(batch.requestBodyAsDictionary as? [String: Any])
        XCTAssertEqual(batchBody["haltOnError"] as? Bool, true)
        let parts = try XCTUnwrap(batchBody["batchRequests"] as? [[String: Any]])
        XCTAssertTrue((parts[0]["url"] as? String ?? "").hasPrefix("/v66.0/query?q="), "\(parts[0])")
        XCTAssertEqual(parts[1]["url"] as? String, "/v66.0/sobjects/Contact")
        XCTAssertEqual((parts[1]["richInput"] as? [String: Any])?["LastName"] as? String, "Ng")
    }
}
