import AppGroupSimTestSupport
import Foundation
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

/// `connect/briefcase/priming-records`: the records of the briefcases assigned to the connected app, in
/// responses of at most `primingRecordsPerResponse` records chained by relay tokens.
final class BriefcaseTests: XCTestCase {
    var org: OrgHarness!
    var client: RestClient!
    static let explorer = OrgHarness.app.clientId

    func start(briefcases: [OrgDefinition.Briefcase]?, perResponse: Int? = nil) async throws {
        let app = OrgDefinition.ConnectedApp(
            consumerKey: Self.explorer, redirectURIs: [OrgHarness.app.redirectURI], scopes: ["web", "api", "refresh_token"],
            briefcases: briefcases, primingRecordsPerResponse: perResponse)
        org = try await OrgHarness.start(connectedApps: [app])
        client = try await org.login()
    }

    override func tearDown() async throws { await org?.stop(); (org, client) = (nil, nil) }

    func ids(_ soql: String) async throws -> [String] {
        (try await client.send(.query(soql)).object()["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String }
    }

    /// Every page until the relay token is null: the ids by object, and how many pages it took.
    func allPages(changedAfter: Int64? = nil) async throws -> (ids: [String: [String]], pages: Int, last: [String: Any]) {
        var byObject: [String: [String]] = [:]
        var relay: String?
        var pages = 0
        var body: [String: Any] = [:]
        repeat {
            body = try await client.send(.primingRecords(relayToken: relay, changedAfter: relay == nil ? changedAfter : nil)).object()
            for (object, byType) in body["primingRecords"] as? [String: [String: [[String: Any]]]] ?? [:] {
                XCTAssertEqual(Array(byType.keys), ["012000000000000AAA"], "the master record type")
                byObject[object, default: []] += byType.values.flatMap { $0 }.compactMap { $0["id"] as? String }
            }
            relay = body["relayToken"] as? String
            pages += 1
            XCTAssertLessThan(pages, 100)
        } while relay != nil
        return (byObject, pages, body)
    }

    func testRulesAreServedInOrderInPagesChainedByRelayTokensWithEveryIdOnce() async throws {
        try await start(briefcases: [.init(name: "Field", rules: [.init(object: "Account"), .init(object: "Contact", filter: "LastName LIKE 'A%'", limit: 30)])], perResponse: 50)
        let accounts = try await ids("SELECT Id FROM Account ORDER BY Id")
        let contacts = Array(try await ids("SELECT Id FROM Contact WHERE LastName LIKE 'A%' ORDER BY Id").prefix(30))
        XCTAssertEqual(accounts.count, 120)
        XCTAssertEqual(contacts.count, 30, "the fixture has at least 30 contacts named A…")
        let served = try await allPages()
        XCTAssertEqual(served.ids["Account"], accounts, "every account once, in id order")
        XCTAssertEqual(served.ids["Contact"], contacts, "the rule's record limit")
        XCTAssertEqual(served.pages, 3, "150 records by 50")
        XCTAssertTrue(served.last["relayToken"] is NSNull, "the last page's relay token is null")
        let stats = try XCTUnwrap(served.last["stats"] as? [String: Any])
        XCTAssertEqual(stats["ruleCountTotal"] as? Int, 2)
        XCTAssertEqual((served.last["ruleErrors"] as? [Any])?.count, 0)
    }

    func testChangedAfterTimestampServesOnlyRecordsChangedSince() async throws {
        try await start(briefcases: [.init(name: "Accounts", rules: [.init(object: "Account")])])
        let all = try await allPages(changedAfter: -1)
        XCTAssertEqual(all.ids["Account"]?.count, 120, "-1 (the SDK's never synced) is every record")
        let before = Int64(Date().timeIntervalSince1970 * 1000)
        try await Task.sleep(nanoseconds: 20_000_000)
        let id = try XCTUnwrap(all.ids["Account"]?[7])
        try await client.send(try .json("PATCH", "/services/data/v66.0/sobjects/Account/\(id)", ["Name": "Changed"]))
        let changed = try await allPages(changedAfter: before)
        XCTAssertEqual(changed.ids["Account"], [id])
    }

    func testBadInputIsRefusedWithTheReason() async throws {
        try await start(briefcases: [.init(name: "Accounts", rules: [.init(object: "Account")])], perResponse: 10)
        let first = try await client.send(.primingRecords(relayToken: nil, changedAfter: nil)).object()
        let token = try XCTUnwrap(first["relayToken"] as? String)
        var both = RestRequest.primingRecords(relayToken: token, changedAfter: nil)
        both.queryItems.append(URLQueryItem(name: "changedAfterTimestamp", value: "2026-01-01T00:00:00.000Z"))
        // A relay token whose id is a piece of SOQL, and one that is not base64 JSON at all.
        let injected = Data(#"{"rule":0,"after":"x' OR Name != 'y","served":0}"#.utf8).base64EncodedString()
        let badDate = RestRequest(
            path: "/services/data/v66.0/connect/briefcase/priming-records", queryItems: [URLQueryItem(name: "changedAfterTimestamp", value: "yesterday")])
        let cases: [(RestRequest, String)] = [
            (both, "either relayToken or changedAfterTimestamp"), (.primingRecords(relayToken: injected, changedAfter: nil), "Invalid relayToken"),
            (.primingRecords(relayToken: "%%%", changedAfter: nil), "Invalid relayToken"), (badDate, "Invalid changedAfterTimestamp"),
        ]
        for (request, expected) in cases {
            let failure = await refusal(request)
            XCTAssertEqual(failure?.status, 400, expected)
            XCTAssertEqual(failure?.error?.errorCode, "INVALID_API_INPUT", expected)
            XCTAssertTrue(failure?.error?.message.contains(expected) ?? false, failure?.error?.message ?? "answered: \(expected)")
        }
    }

    /// The status and first error of a refused request; nil when it was answered.
    func refusal(_ request: RestRequest) async -> (status: Int, error: CoreNetworkEngine.SalesforceError?)? {
        do {
            _ = try await client.send(request)
            return nil
        } catch {
            guard case .http(let status, let errors) = error else { return (0, nil) }
            return (status, errors.first)
        }
    }

    func testARuleWhoseFilterDoesNotRunIsARuleErrorAndTheOthersAreServed() async throws {
        try await start(briefcases: [.init(name: "Mixed", rules: [.init(object: "Account", filter: "NoSuchField__c = 1"), .init(object: "Account", limit: 5)])])
        let served = try await allPages()
        XCTAssertEqual(served.ids["Account"]?.count, 5)
        let errors = try XCTUnwrap(served.last["ruleErrors"] as? [[String: Any]])
        XCTAssertEqual(errors.map { $0["ruleId"] as? String }, ["Mixed#1"])
    }

    func testAnAppWithoutBriefcasesGetsNoRecordsAndNoRelayToken() async throws {
        try await start(briefcases: [])
        let body = try await client.send(.primingRecords(relayToken: nil, changedAfter: nil)).object()
        XCTAssertEqual((body["primingRecords"] as? [String: Any])?.count, 0)
        XCTAssertTrue(body["relayToken"] is NSNull)
    }

    func testARuleNamingAnObjectTheOrgDoesNotHaveIsRefusedAtStart() throws {
        let directory = try TestSupport.temporaryDirectory(self)
        for name in ["orgs.json", "objects.json"] {
            try FileManager.default.copyItem(at: OrgHarness.fixtureDirectory.appendingPathComponent(name), to: directory.appendingPathComponent(name))
        }
        let bad = OrgDefinition.ConnectedApp(
            consumerKey: Self.explorer, redirectURIs: [], scopes: [], briefcases: [.init(name: "Typo", rules: [.init(object: "Acount")])])
        XCTAssertThrowsError(try OrgDefinition.load(directory: directory, extraApps: [bad])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("briefcase 'Typo', rule 1: object Acount is not an object of this org"), text)
        }
    }
}
