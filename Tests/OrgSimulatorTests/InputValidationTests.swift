import AppGroupSimTestSupport
import Foundation
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Hostile and out-of-range input to sf-simulator: refused with Salesforce's error shape, nothing
/// applied, never a crash, and the server keeps serving.
final class InputValidationTests: XCTestCase {
    var org: OrgHarness!

    override func setUp() async throws { org = try await OrgHarness.start() }
    override func tearDown() async throws { await org?.stop(); org = nil }

    func post(_ path: String, _ body: Data, method: String = "POST") async throws -> (Int, Any?) {
        var request = URLRequest(url: org.baseURL.appendingPathComponent(path))
        request.httpMethod = method
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.setValue(org.adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.httpBody = body
        let (data, response) = try await org.raw(request)
        return (response.statusCode, try? JSONSerialization.jsonObject(with: data))
    }

    /// `[{"message", "errorCode", "fields"}]`: the first error code, or nil when the body is not that shape.
    func errorCode(_ body: Any?) -> String? {
        guard let list = body as? [[String: Any]], let first = list.first, first["message"] is String, first["fields"] is [Any] else { return nil }
        return first["errorCode"] as? String
    }

    func testOutOfRangeAndMistypedFaultsAre400AndChangeNothing() async throws {
        let before = try await org.admin([:])
        let bad: [String] = [
            #"{"offlineForSeconds": 100000000000}"#, #"{"offlineForSeconds": -1}"#, #"{"errorRate": 7}"#, #"{"errorRate": "abc"}"#,
            #"{"seed": -1}"#, #"{"seed": 1.5}"#, #"{"latencyMs": -5}"#, #"{"latencyMs": 1e12}"#, #"{"malformedBodies": 1}"#,
            #"{"tokenLifetime": 0}"#, #"{"writeResponseDelayMs": 99999999}"#, #"{"latencyMs": 10, "errorRate": 2}"#, #"{"noSuchFault": true}"#,
            #"{"revokeUser": 5}"#,
        ]
        for body in bad {
            let (status, answer) = try await post("__admin/faults", Data(body.utf8))
            XCTAssertEqual(status, 400, body)
            XCTAssertEqual(errorCode(answer), "INVALID_FIELD", "\(body): \(String(describing: answer))")
        }
        let after = try await org.admin([:])
        XCTAssertEqual(after["latencyMs"] as? Int, before["latencyMs"] as? Int, "a refused change applied part of itself")
        XCTAssertEqual(after["errorRate"] as? Double, before["errorRate"] as? Double)
        XCTAssertEqual(after["seed"] as? Int, before["seed"] as? Int)
        let client = try await org.login()
        let alive = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        XCTAssertEqual(alive.status, 200, "the server keeps serving")
    }

    func testInRangeFaultsAreApplied() async throws {
        let answer = try await org.admin(["latencyMs": 5, "errorRate": 0.25, "seed": 7, "writeResponseDelayMs": 1])
        XCTAssertEqual(answer["latencyMs"] as? Int, 5)
        XCTAssertEqual(answer["errorRate"] as? Double, 0.25)
        XCTAssertEqual(answer["seed"] as? Int, 7)
        XCTAssertEqual(answer["writeResponseDelayMs"] as? Int, 1)
    }

    func testUnknownRoutesAndWrongMethodsAnswerInSalesforcesShape() async throws {
        for path in ["nope", "services/data/v66.0/nope/at/all", "services/oauth2/nothing"] {
            let (status, body) = try await post(path, Data(), method: "GET")
            XCTAssertEqual(status, 404, path)
            XCTAssertEqual(errorCode(body), "NOT_FOUND", "\(path): \(String(describing: body))")
        }
    }

    func testABodyOverTheLimitIs413InSalesforcesShape() async throws {
        let client = try await org.login()
        let token = try await client.tokens.accessToken() ?? ""
        var request = URLRequest(url: org.baseURL.appendingPathComponent("services/data/v66.0/sobjects/Contact"))
        request.httpMethod = "POST"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(count: 50 << 20)
        let (data, response) = try await org.raw(request)
        XCTAssertEqual(response.statusCode, 413)
        XCTAssertEqual(errorCode(try? JSONSerialization.jsonObject(with: data)), "REQUEST_ENTITY_TOO_LARGE")
    }

    func testARequestLineOverTheParsersLimitIs400InSalesforcesShape() async throws {
        let q = String(repeating: "a", count: 1_000_000)
        var request = URLRequest(url: URL(string: org.baseURL.absoluteString + "/services/data/v66.0/query?q=" + q)!)
        request.httpMethod = "GET"
        let (data, response) = try await org.raw(request)
        XCTAssertEqual(response.statusCode, 400)
        XCTAssertEqual(errorCode(try? JSONSerialization.jsonObject(with: data)), "MALFORMED_REQUEST", String(decoding: data.prefix(200), as: UTF8.self))
        let client = try await org.login()
        let alive = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        XCTAssertEqual(alive.status, 200)
    }

    func testAQueryOfAnotherObjectNamesThatObject() async throws {
        let client = try await org.login()
        let caught = await restError { _ = try await client.send(.query("SELECT Id, Status FROM Lead")) }
        guard case .http(let status, let errors)? = caught else { return XCTFail("\(String(describing: caught))") }
        XCTAssertEqual(status, 400)
        XCTAssertEqual(errors.first?.errorCode, "INVALID_TYPE")
        XCTAssertTrue(errors.first?.message.contains("Lead") ?? false, "\(errors)")
        XCTAssertFalse(errors.first?.message.contains("Contact") ?? true, "\(errors)")
        // An object the org has, with a field it has not: the error names that object.
        let field = await restError { _ = try await client.send(.query("SELECT Id, Password FROM User")) }
        guard case .http(_, let fieldErrors)? = field else { return XCTFail("\(String(describing: field))") }
        XCTAssertEqual(fieldErrors.first?.errorCode, "INVALID_FIELD")
        XCTAssertTrue(fieldErrors.first?.message.contains("'User'") ?? false, "\(fieldErrors)")
    }

    func testACollectionsUpsertByExternalIdSentTwiceIsOneRecord() async throws {
        let client = try await org.login()
        let records: [[String: Any]] = [
            ["attributes": ["type": "Contact"], "LastName": "Once", "DeviceRecordId__c": "DEV-1"],
            ["attributes": ["type": "Contact"], "LastName": "Twice", "DeviceRecordId__c": "DEV-2"],
        ]
        let path = "/services/data/v66.0/composite/sobjects/Contact/DeviceRecordId__c"
        let first = try await client.send(try .json("PATCH", path, ["allOrNone": false, "records": records])).json() as? [[String: Any]] ?? []
        let second = try await client.send(try .json("PATCH", path, ["allOrNone": false, "records": records])).json() as? [[String: Any]] ?? []
        XCTAssertEqual(first.map { $0["created"] as? Bool }, [true, true])
        XCTAssertEqual(second.map { $0["created"] as? Bool }, [false, false])
        XCTAssertEqual(first.map { $0["id"] as? String }, second.map { $0["id"] as? String })
        let count = try await client.send(.query("SELECT Id FROM Contact WHERE LastName IN ('Once', 'Twice')")).object()["totalSize"] as? Int
        XCTAssertEqual(count, 2)
        let missing = try await client.send(try .json("PATCH", path, ["allOrNone": false, "records": [["LastName": "NoKey"]]])).json() as? [[String: Any]]
        XCTAssertEqual(missing?.first?["success"] as? Bool, false)
    }

    // MARK: Issue 25: the simulator's own routes

    /// `/__admin/*` and `/__apns/*` answer only with the admin token: without it, or with another, 401 in
    /// Salesforce's shape and nothing done (here: no fault applied, no mapping kept).
    func testAdminAndAPNsRoutesRefuseRequestsWithoutTheAdminToken() async throws {
        let body = Data(#"{"latencyMs": 500, "username": "alice@acme.test", "title": "t", "body": "b", "token": "tok", "inbox": "/tmp/x/Notifications/a.b/inbox", "device": "d"}"#.utf8)
        for path in ["__admin/faults", "__admin/push", "__apns/devices", "__admin", "__apns"] {
            for token in [nil, "", "wrong", org.adminToken + "x", String(org.adminToken.dropLast())] as [String?] {
                var request = URLRequest(url: org.baseURL.appendingPathComponent(path))
                request.httpMethod = "POST"
                request.httpBody = body
                if let token { request.setValue(token, forHTTPHeaderField: "X-AppGroupSim-Admin-Token") }
                let (data, response) = try await org.raw(request)
                XCTAssertEqual(response.statusCode, 401, "\(path) with \(token ?? "no token")")
                XCTAssertEqual(errorCode(try? JSONSerialization.jsonObject(with: data)), "INVALID_ADMIN_TOKEN", path)
            }
        }
        let now = try await org.admin([:])
        XCTAssertEqual(now["latencyMs"] as? Int, 0, "no fault was applied")
    }

    /// A device directory as AppGroupSim makes it: device.json with its id.
    func makeDevice(_ root: URL, id: UUID = UUID()) throws -> (URL, UUID) {
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        try Data(#"{"id": "\#(id.uuidString)", "teamId": "SIMTEAM001", "created": "2026-11-23T00:00:00Z"}"#.utf8).write(to: root.appendingPathComponent("device.json"))
        return (root, id)
    }

    func registerAPNs(inbox: String, device: String) async throws -> Int {
        let body = try JSONSerialization.data(withJSONObject: ["token": "tok-\(UUID().uuidString)", "inbox": inbox, "device": device])
        return try await post("__apns/devices", body).0
    }

    /// An APNs mapping points only into `Notifications/<bundle id>/inbox` of the device that registered it:
    /// never an arbitrary path, another device, a path with '..', or one reached through a link; the server
    /// creates nothing outside the device.
    func testAnAPNsMappingPointsOnlyIntoTheDeviceThatRegisteredIt() async throws {
        let work = try TestSupport.temporaryDirectory(self)
        let (device, id) = try makeDevice(work.appendingPathComponent("device"))
        let inbox = device.appendingPathComponent("Notifications/com.acme.app/inbox")
        let accepted = try await registerAPNs(inbox: inbox.path, device: id.uuidString)
        XCTAssertEqual(accepted, 200)
        var isDir: ObjCBool = false
        XCTAssertTrue(FileManager.default.fileExists(atPath: inbox.path, isDirectory: &isDir) && isDir.boolValue)

        let outside = work.appendingPathComponent("elsewhere")
        let (other, otherID) = try makeDevice(work.appendingPathComponent("other"))
        try FileManager.default.createSymbolicLink(at: work.appendingPathComponent("link-to-device"), withDestinationURL: device)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: other.appendingPathComponent("Notifications"), withDestinationURL: outside)
        let refused: [(String, String, String)] = [
            ("an arbitrary path", work.appendingPathComponent("evil/deep/dir").path, id.uuidString),
            ("an inbox of a directory that is no device", outside.appendingPathComponent("Notifications/com.acme.app/inbox").path, id.uuidString),
            ("another device's id", inbox.path, otherID.uuidString),
            ("'..' in the path", device.appendingPathComponent("Notifications/com.acme.app/inbox").path.replacingOccurrences(of: "/device/", with: "/device/../device/"), id.uuidString),
            ("a device reached through a link", work.appendingPathComponent("link-to-device/Notifications/com.acme.app/inbox").path, id.uuidString),
            ("Notifications is a link out of the device", other.appendingPathComponent("Notifications/com.acme.app/inbox").path, otherID.uuidString),
            ("a bundle id with a slash", device.path + "/Notifications/a/b/inbox", id.uuidString),
            ("a relative path", "device/Notifications/com.acme.app/inbox", id.uuidString),
        ]
        for (what, path, deviceID) in refused {
            let status = try await registerAPNs(inbox: path, device: deviceID)
            XCTAssertEqual(status, 400, what)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: work.appendingPathComponent("evil").path), "nothing is made for an arbitrary path")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside.path), [], "nothing is made through the link")
    }
}
