import AppGroupSimTestSupport
import Foundation
import Keychain
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

final class FaultAndStateTests: XCTestCase {
    func testA5xxRateAnswers503AndTheSameSeedReplaysTheSameSequence() async throws {
        func statuses(seed: Int) async throws -> [Int] {
            let org = try await OrgHarness.start()
            defer { Task { await org.stop() } }
            let client = try await org.login()
            _ = try await org.admin(["errorRate": 0.5, "seed": seed])
            var out: [Int] = []
            for _ in 0..<12 {
                var status = 0
                let caught = await restError { status = try await client.send(.query("SELECT Id FROM Contact LIMIT 1")).status }
                if case .http(let code, let errors)? = caught {
                    XCTAssertEqual(errors.first?.errorCode, "SERVER_UNAVAILABLE")
                    status = code
                }
                out.append(status)
            }
            return out
        }
        let first = try await statuses(seed: 42)
        XCTAssertTrue(first.contains(503) && first.contains(200), "\(first)")
        let replay = try await statuses(seed: 42)
        XCTAssertEqual(first, replay)
    }

    func testMalformedBodiesAreAMalformedResponseError() async throws {
        let org = try await OrgHarness.start()
        let client = try await org.login()
        _ = try await org.admin(["malformedBodies": true])
        let response = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        XCTAssertThrowsError(try response.value()) { error in
            guard case .malformedResponse? = error as? RestError else { return XCTFail("\(error)") }
        }
        await org.stop()
    }

    func testAddedLatencyStillAnswers() async throws {
        let org = try await OrgHarness.start(faults: FaultSettings(latencyMs: 50))
        let client = try await org.login()
        let status = try await client.send(.query("SELECT Id FROM Contact LIMIT 1")).status
        XCTAssertEqual(status, 200)
        await org.stop()
    }

    func testAnOrgThatIsGoneIsOffline() async throws {
        let org = try await OrgHarness.start()
        let client = try await org.login()
        await org.stop()
        let caught = await restError {
            _ = try await client.send(.query("SELECT Id FROM Contact LIMIT 1"))
        }
        XCTAssertNotNil(caught, "a stopped org answered")
        if let error = caught {
            guard case .offline = error else { return XCTFail("\(error)") }
        }
    }

    func testWithAStateFileChangesAndSessionsSurviveARestart() async throws {
        let stateFile = try TestSupport.temporaryDirectory(self).appendingPathComponent("org-state.json")
        var org = try await OrgHarness.start(stateFile: stateFile)
        let client = try await org.login()
        let created = try await client.send(try .json("POST", "/services/data/v66.0/sobjects/Contact", ["LastName": "Durable"]))
        let id = try XCTUnwrap(try created.object()["id"] as? String)
        await org.stop()
        // The stopped org checkpointed its state into the file (SQLite, so bytes rather than text) and left no WAL.
        let bytes = try Data(contentsOf: stateFile)
        XCTAssertFalse(FileManager.default.fileExists(atPath: stateFile.path + "-wal"))
        XCTAssertNotNil(bytes.range(of: Data("Durable".utf8)), "the record is in the state file")
        XCTAssertNil(bytes.range(of: Data("5Aep861".utf8)), "the state file holds token hashes, not tokens")

        org = try await OrgHarness.start(stateFile: stateFile)
        let moved = RestClient(
            credentials: OAuthCredentials(
                clientId: client.credentials.clientId, redirectURI: client.credentials.redirectURI, loginHost: org.baseURL,
                instanceURL: org.baseURL, identityURL: client.credentials.identityURL, orgId: client.credentials.orgId,
                userId: client.credentials.userId, keychainAccount: client.credentials.keychainAccount),
            tokens: client.tokens)
        let record = try await moved.send(RestRequest(path: "/services/data/v66.0/sobjects/Contact/\(id)")).object()
        XCTAssertEqual(record["LastName"] as? String, "Durable", "the record survived, and the refresh token too")
        await org.stop()
    }

    func testTheFixtureIsTheSameOnEveryStart() async throws {
        func firstContacts() async throws -> [String] {
            let org = try await OrgHarness.start()
            let client = try await org.login()
            let body = try await client.send(.query("SELECT Id, FirstName, LastName, Email, LastModifiedDate FROM Contact ORDER BY Id LIMIT 3")).object()
            await org.stop()
            return (body["records"] as? [[String: Any]] ?? []).map { "\($0["Id"] ?? "") \($0["Email"] ?? "") \($0["LastModifiedDate"] ?? "")" }
        }
        let a = try await firstContacts()
        let b = try await firstContacts()
        XCTAssertEqual(a.count, 3)
        XCTAssertEqual(a, b)
    }

    func testGlobexHas50Contacts() async throws {
        let org = try await OrgHarness.start()
        let client = try await org.login("carol@globex.test", "carol-pass")
        let body = try await client.send(.query("SELECT Id FROM Contact")).object()
        XCTAssertEqual(body["totalSize"] as? Int, 50)
        await org.stop()
    }
}

final class OfflineTests: XCTestCase {
    func testGoingOfflineRefusesConnectionsUntilTheOrgComesBackOnTheSamePort() async throws {
        let org = try await OrgHarness.start()
        let client = try await org.login()
        let answer = try await org.admin(["offlineForSeconds": 1.5])
        XCTAssertEqual(answer["offlineForSeconds"] as? Double, 1.5)
        // The listener closes right after the admin answer; poll until a request is refused.
        var sawOffline = false
        for _ in 0..<100 where !sawOffline {
            if case .offline? = await restError({ _ = try await client.send(.query("SELECT Id FROM Contact LIMIT 1")) }) {
                sawOffline = true
            } else {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
        }
        XCTAssertTrue(sawOffline, "requests were never refused")
        // Then it comes back on the same port (a bounded wait, not a timing assertion).
        var back = false
        for _ in 0..<100 where !back {
            back = await restError({ _ = try await client.send(.query("SELECT Id FROM Contact LIMIT 1")) }) == nil
            if !back { try await Task.sleep(nanoseconds: 100_000_000) }
        }
        XCTAssertTrue(back, "the org did not come back")
        await org.stop()
    }
}
