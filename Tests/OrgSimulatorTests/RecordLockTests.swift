import AppGroupSimTestSupport
import Foundation
import OrgSimulator
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

/// Salesforce's record locks (issue 39): a write waits for a record another transaction holds, and fails with
/// `UNABLE_TO_LOCK_ROW` after the org's record lock timeout; in a collection, per record, or for the whole request
/// with `allOrNone`. The lock is held by the `holdRecordLock` fault. On SQLite (the default) and, when
/// scripts/integration/org-postgres.sh runs these tests, on PostgreSQL, where the hold is a real row lock.
final class RecordLockTests: XCTestCase {
    var org: OrgHarness!
    var client: RestClient!
    let base = "/services/data/v66.0/sobjects/Contact"
    let collections = "/services/data/v66.0/composite/sobjects"

    override func setUp() async throws {
        // A short timeout: the tests wait for it. Salesforce's (and sf-simulator's default) is 10 s.
        org = try await OrgHarness.start(recordLockTimeout: 0.4)
        client = try await org.login()
    }

    override func tearDown() async throws { await org?.stop(); (org, client) = (nil, nil) }

    func create(_ lastName: String) async throws -> String {
        let created = try await client.send(try .json("POST", base, ["LastName": lastName]))
        return try XCTUnwrap(try created.object()["id"] as? String)
    }

    func lastName(_ id: String) async throws -> String? {
        try await client.send(RestRequest(path: "\(base)/\(id)")).object()["LastName"] as? String
    }

    func hold(_ id: String, seconds: Double) async throws {
        let answer = try await org.admin(["holdRecordLock": ["id": id, "seconds": seconds]])
        XCTAssertEqual((answer["heldRecordLock"] as? [String: Any])?["id"] as? String, id, "the fault was not applied: \(answer)")
    }

    func testAWriteToAHeldRecordIsUnableToLockRowAndChangesNothing() async throws {
        let id = try await create("Held")
        try await hold(id, seconds: 30)
        for request in [try RestRequest.json("PATCH", "\(base)/\(id)", ["LastName": "Changed"]), RestRequest(method: "DELETE", path: "\(base)/\(id)")] {
            let caught = await restError { _ = try await self.client.send(request) }
            guard case .http(let status, let errors)? = caught else { return XCTFail("\(request.method): \(String(describing: caught))") }
            XCTAssertEqual(status, 400, "\(request.method)")
            XCTAssertEqual(errors.first?.errorCode, "UNABLE_TO_LOCK_ROW", "\(request.method)")
            XCTAssertEqual(errors.first?.message, "unable to obtain exclusive access to this record or 1 records: \(id)")
        }
        // Reads take no lock: the record is read while it is held, unchanged.
        let name = try await lastName(id)
        XCTAssertEqual(name, "Held")
    }

    /// An upsert by a unique external id whose record is held names the record, as a write by id does (and as
    /// Salesforce does). On PostgreSQL the statement that waited is the one that would have said which record it
    /// was, and its transaction is aborted: the record is found after the rollback.
    func testAHeldUpsertByExternalIdNamesTheRecordAndChangesNothing() async throws {
        let path = "\(base)/DeviceRecordId__c/held-upsert-1"
        let created = try await client.send(try .json("PATCH", path, ["LastName": "Held"]))
        let id = try XCTUnwrap(try created.object()["id"] as? String)
        try await hold(id, seconds: 30)
        let caught = await restError { _ = try await self.client.send(try .json("PATCH", path, ["LastName": "Changed"])) }
        guard case .http(let status, let errors)? = caught else { return XCTFail(String(describing: caught)) }
        XCTAssertEqual(status, 400)
        XCTAssertEqual(errors.first?.errorCode, "UNABLE_TO_LOCK_ROW")
        XCTAssertEqual(errors.first?.message, "unable to obtain exclusive access to this record or 1 records: \(id)")
        let name = try await lastName(id)
        XCTAssertEqual(name, "Held")
    }

    func testAWriteWaitsForALockHeldLessThanTheTimeoutThenApplies() async throws {
        let id = try await create("Before")
        // Held for less than the timeout: the write waits for it, then applies.
        try await hold(id, seconds: 0.15)
        _ = try await client.send(try .json("PATCH", "\(base)/\(id)", ["LastName": "After"]))
        let name = try await lastName(id)
        XCTAssertEqual(name, "After")
    }

    func testInACollectionOnlyTheHeldRecordFailsAndAllOrNoneFailsThemAll() async throws {
        let held = try await create("Held")
        let free = try await create("Free")
        try await hold(held, seconds: 30)
        let records: [[String: Any]] = [
            ["attributes": ["type": "Contact"], "Id": free, "Title": "Changed"], ["attributes": ["type": "Contact"], "Id": held, "Title": "Changed"],
        ]
        let first = try await client.send(try .json("PATCH", collections, ["allOrNone": false, "records": records]))
        let results = try XCTUnwrap(try first.json() as? [[String: Any]])
        XCTAssertEqual(results.map { $0["success"] as? Bool }, [true, false])
        XCTAssertEqual((results[1]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "UNABLE_TO_LOCK_ROW")

        let free2 = try await create("Free too")
        let all: [[String: Any]] = [
            ["attributes": ["type": "Contact"], "Id": free2, "Title": "Rolled back"], ["attributes": ["type": "Contact"], "Id": held, "Title": "Changed"],
        ]
        let second = try await client.send(try .json("PATCH", collections, ["allOrNone": true, "records": all]))
        let rolled = try XCTUnwrap(try second.json() as? [[String: Any]])
        XCTAssertEqual(rolled.map { $0["success"] as? Bool }, [false, false])
        XCTAssertEqual(
            rolled.compactMap { ($0["errors"] as? [[String: Any]])?.first?["statusCode"] as? String }, ["ALL_OR_NONE_OPERATION_ROLLED_BACK", "UNABLE_TO_LOCK_ROW"])
        let title = try await client.send(RestRequest(path: "\(base)/\(free2)")).object()["Title"]
        XCTAssertTrue(title == nil || title is NSNull, "allOrNone kept a change: \(String(describing: title))")

        let third = try await client.send(RestRequest(method: "DELETE", path: collections, queryItems: [URLQueryItem(name: "ids", value: "\(held),\(free)")]))
        let deleted = try XCTUnwrap(try third.json() as? [[String: Any]])
        XCTAssertEqual(deleted.map { $0["success"] as? Bool }, [false, true])
        XCTAssertEqual((deleted[0]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "UNABLE_TO_LOCK_ROW")
    }

    func testTheFaultIsCheckedBeforeAnythingChanges() async throws {
        for bad: Any in [["id": "003000000000000AAA", "seconds": 5], ["id": "nonsense", "seconds": 5], ["seconds": 5], ["id": "003000000000000AAA", "seconds": 0], "x"] {
            var request = URLRequest(url: org.baseURL.appendingPathComponent("__admin/faults"))
            request.httpMethod = "POST"
            request.setValue(org.adminToken, forHTTPHeaderField: OrgSimulator.adminTokenHeader)
            request.httpBody = try JSONSerialization.data(withJSONObject: ["holdRecordLock": bad, "latencyMs": 5])
            let (data, response) = try await org.raw(request)
            XCTAssertEqual(response.statusCode, 400, "\(bad)")
            XCTAssertTrue(String(decoding: data, as: UTF8.self).contains("holdRecordLock"), "\(bad): \(String(decoding: data, as: UTF8.self))")
        }
        let faults = try await org.admin([:])
        XCTAssertEqual(faults["latencyMs"] as? Int, 0, "a refused change applied another value")
    }
}
