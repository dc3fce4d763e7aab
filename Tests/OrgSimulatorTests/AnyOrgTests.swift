import AppGroupSimTestSupport
import Foundation
import Keychain
import OrgSimulator
import XCTest

import CoreEngine
@testable import CoreNetworkEngine

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The REST surface a client of any org uses, route by route, over real sockets.
final class AnyOrgTests: XCTestCase {
    var org: OrgHarness!
    var client: RestClient!
    let v = "/services/data/v66.0"

    override func setUp() async throws {
        org = try await OrgHarness.start()
        client = try await org.login()
    }

    override func tearDown() async throws { await org?.stop(); (org, client) = (nil, nil) }

    func get(_ path: String) async throws -> [String: Any] { try await client.send(RestRequest(path: path)).object() }

    func code(_ request: RestRequest) async -> (Int, String?) {
        let caught = await restError { _ = try await client.send(request) }
        guard case .http(let status, let errors)? = caught else { return (0, "\(String(describing: caught))") }
        return (status, errors.first?.errorCode)
    }

    func testVersionsNeedNoSessionAndResourcesDo() async throws {
        let (data, response) = try await org.raw(URLRequest(url: org.baseURL.appendingPathComponent("services/data")))
        XCTAssertEqual(response.statusCode, 200)
        let versions = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
        XCTAssertEqual(versions.count, 36)
        XCTAssertEqual(versions.last?["version"] as? String, "66.0")
        XCTAssertEqual(versions.last?["label"] as? String, "Spring '26")
        XCTAssertEqual(versions.first?["url"] as? String, "/services/data/v31.0")
        let (body, unauthorized) = try await org.raw(URLRequest(url: org.baseURL.appendingPathComponent("services/data/v66.0")))
        XCTAssertEqual(unauthorized.statusCode, 401)
        XCTAssertTrue(String(decoding: body, as: UTF8.self).contains("INVALID_SESSION_ID"))
        let resources = try await get(v)
        XCTAssertEqual(resources["sobjects"] as? String, "\(v)/sobjects")
        let trailing = try await get(v + "/")
        XCTAssertEqual(trailing["search"] as? String, "\(v)/search")
        let (status, errorCode) = await code(RestRequest(path: "/services/data/v30.0/sobjects"))
        XCTAssertEqual(status, 404)
        XCTAssertEqual(errorCode, "NOT_FOUND")
    }

    func testGlobalDescribeAndObjectDescribe() async throws {
        let global = try await get(v + "/sobjects")
        let names = (global["sobjects"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String }
        XCTAssertEqual(Set(names), ["User", "Account", "Contact", "Opportunity", "WorkOrder__c", "WorkOrderLine__c", "Task", "MobilePushServiceDevice"])
        let describe = try await get(v + "/sobjects/Task/describe")
        let fields = Dictionary(uniqueKeysWithValues: (describe["fields"] as? [[String: Any]] ?? []).map { ($0["name"] as? String ?? "", $0) })
        XCTAssertEqual(fields["WhatId"]?["referenceTo"] as? [String], ["Account", "Opportunity", "WorkOrder__c"])
        XCTAssertEqual(fields["WhatId"]?["relationshipName"] as? String, "What")
        XCTAssertEqual(fields["Status"]?["type"] as? String, "picklist")
        XCTAssertEqual((fields["Priority"]?["picklistValues"] as? [[String: Any]])?.compactMap { $0["value"] as? String }, ["High", "Normal", "Low"])
        XCTAssertEqual(fields["ActivityDate"]?["type"] as? String, "date")
        XCTAssertEqual(fields["Id"]?["createable"] as? Bool, false)
        XCTAssertEqual(fields["OwnerId"]?["referenceTo"] as? [String], ["User"])
        XCTAssertTrue(fields["Subject"]?["nameField"] as? Bool ?? false)
        let custom = try await get(v + "/sobjects/WorkOrder__c/describe")
        XCTAssertEqual(custom["custom"] as? Bool, true)
        let est = (custom["fields"] as? [[String: Any]])?.first { $0["name"] as? String == "EstimatedHours__c" }
        XCTAssertEqual(est?["type"] as? String, "double")
        XCTAssertEqual(est?["custom"] as? Bool, true)
        let (status, errorCode) = await code(RestRequest(path: v + "/sobjects/Lead/describe"))
        XCTAssertEqual(status, 404)
        XCTAssertEqual(errorCode, "NOT_FOUND")
    }

    func testCRUDOnAnyObjectAndRecentItems() async throws {
        let created = try await client.send(try .json("POST", v + "/sobjects/Account", ["Name": "Kappa Mills", "NumberOfEmployees": 12, "Website": "https://kappa.example"]))
        XCTAssertEqual(created.status, 201)
        let id = try XCTUnwrap(try created.object()["id"] as? String)
        XCTAssertTrue(id.hasPrefix("001"))
        let opp = try await client.send(try .json("POST", v + "/sobjects/Opportunity", [
            "Name": "Kappa deal", "AccountId": id, "StageName": "Qualification", "CloseDate": "2026-12-24", "Amount": 1234.5, "Probability": 40,
        ]))
        let oppId = try XCTUnwrap(try opp.object()["id"] as? String)
        _ = try await client.send(try .json("PATCH", v + "/sobjects/Opportunity/\(oppId)", ["StageName": "Closed Won"]))
        let read = try await client.send(RestRequest(path: v + "/sobjects/Opportunity/\(oppId)", queryItems: [URLQueryItem(name: "fields", value: "StageName,Amount,CloseDate,AccountId")])).object()
        XCTAssertNil(read["Name"], "only the fields asked for")
        XCTAssertEqual(read["StageName"] as? String, "Closed Won")
        XCTAssertEqual(read["Amount"] as? Double, 1234.5)
        XCTAssertEqual(read["CloseDate"] as? String, "2026-12-24")
        XCTAssertEqual(read["AccountId"] as? String, id)
        let info = try await get(v + "/sobjects/Opportunity")
        XCTAssertEqual((info["objectDescribe"] as? [String: Any])?["keyPrefix"] as? String, "006")
        XCTAssertEqual((info["recentItems"] as? [[String: Any]])?.first?["Name"] as? String, "Kappa deal")
        _ = try await client.send(RestRequest(method: "DELETE", path: v + "/sobjects/Opportunity/\(oppId)"))
        let (status, errorCode) = await code(RestRequest(path: v + "/sobjects/Opportunity/\(oppId)"))
        XCTAssertEqual(status, 404)
        XCTAssertEqual(errorCode, "ENTITY_IS_DELETED")
    }

    func testExternalIdGetUpsertDeleteAndAmbiguousMatches() async throws {
        let base = v + "/sobjects/Account/ExternalKey__c/"
        let created = try await client.send(try .json("PATCH", base + "K-1", ["Name": "Keyed"]))
        XCTAssertEqual(created.status, 201)
        XCTAssertEqual(try created.object()["created"] as? Bool, true)
        let updated = try await client.send(try .json("PATCH", base + "K-1", ["Rating": "Warm"]))
        XCTAssertEqual(updated.status, 200)
        XCTAssertEqual(try updated.object()["created"] as? Bool, false)
        let byKey = try await get(base + "K-1")
        XCTAssertEqual(byKey["Rating"] as? String, "Warm")
        _ = try await client.send(RestRequest(method: "DELETE", path: base + "K-1"))
        let (status, _) = await code(RestRequest(path: base + "K-1"))
        XCTAssertEqual(status, 404)
        // Email is an idLookup field of Contact: two contacts with one address are 300 with both.
        for _ in 0..<2 { _ = try await client.send(try .json("POST", v + "/sobjects/Contact", ["LastName": "Twin", "Email": "twin@kappa.example"])) }
        let twins = try await client.send(RestRequest(path: v + "/sobjects/Contact/Email/twin@kappa.example"))
        XCTAssertEqual(twins.status, 300)
        XCTAssertEqual((try twins.json() as? [String])?.count, 2)
        // A field that is neither External ID nor idLookup cannot identify a record.
        let (notExternal, notExternalCode) = await code(try .json("PATCH", v + "/sobjects/Account/Rating/Hot", ["Name": "x"]))
        XCTAssertEqual(notExternal, 404)
        XCTAssertEqual(notExternalCode, "NOT_FOUND")
    }

    func testUpdatedAndDeletedBetweenStartAndEnd() async throws {
        let start = URLQueryItem(name: "start", value: "2026-01-01T00:00:00+00:00")
        let end = URLQueryItem(name: "end", value: ISO8601DateFormatter().string(from: Date().addingTimeInterval(300)))
        let created = try await client.send(try .json("POST", v + "/sobjects/Account", ["Name": "Replicated"]))
        let id = try XCTUnwrap(try created.object()["id"] as? String)
        let contact = try await client.send(try .json("POST", v + "/sobjects/Contact", ["LastName": "Gone"]))
        let contactId = try XCTUnwrap(try contact.object()["id"] as? String)
        _ = try await client.send(RestRequest(method: "DELETE", path: v + "/sobjects/Contact/\(contactId)"))
        let updated = try await client.send(RestRequest(path: v + "/sobjects/Account/updated/", queryItems: [start, end])).object()
        XCTAssertTrue((updated["ids"] as? [String] ?? []).contains(id))
        XCTAssertNotNil(updated["latestDateCovered"] as? String)
        let deleted = try await client.send(RestRequest(path: v + "/sobjects/Contact/deleted/", queryItems: [start, end])).object()
        XCTAssertEqual((deleted["deletedRecords"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, [contactId])
        let (status, errorCode) = await code(RestRequest(path: v + "/sobjects/Account/updated", queryItems: [URLQueryItem(name: "start", value: "yesterday"), end]))
        XCTAssertEqual(status, 400)
        XCTAssertEqual(errorCode, "INVALID_REPLICATION_DATE")
    }

    func testSearchLimitsAndUsageHeader() async throws {
        let found = try await client.send(RestRequest(path: v + "/search", queryItems: [URLQueryItem(name: "q", value: "FIND {Acme*} IN ALL FIELDS RETURNING Contact(Email LIMIT 3)")]))
        let records = try found.object()["searchRecords"] as? [[String: Any]] ?? []
        XCTAssertEqual(records.count, 3)
        XCTAssertTrue(records.allSatisfy { ($0["Email"] as? String)?.contains("acme") ?? false })
        let (status, errorCode) = await code(RestRequest(path: v + "/search", queryItems: [URLQueryItem(name: "q", value: "FIND Acme")]))
        XCTAssertEqual(status, 400)
        XCTAssertEqual(errorCode, "MALFORMED_SEARCH")
        let limits = try await client.send(RestRequest(path: v + "/limits"))
        let daily = try limits.object()["DailyApiRequests"] as? [String: Any]
        XCTAssertEqual(daily?["Max"] as? Int, 15000)
        XCTAssertLessThan(daily?["Remaining"] as? Int ?? 15000, 15000)
        var request = URLRequest(url: org.baseURL.appendingPathComponent("services/data/v66.0/limits"))
        let token = try await client.tokens.accessToken() ?? ""
        request.setValue("Bearer " + token, forHTTPHeaderField: "Authorization")
        let (_, response) = try await org.raw(request)
        XCTAssertTrue((response.value(forHTTPHeaderField: "Sforce-Limit-Info") ?? "").hasPrefix("api-usage="), "\(response.allHeaderFields)")
    }

    func testWritesAreCheckedByTheFieldsTypes() async throws {
        let cases: [(String, [String: Any], String)] = [
            ("Account", ["Name": "x", "NumberOfEmployees": "many"], "JSON_PARSER_ERROR"),
            ("Account", ["Name": "x", "Nope__c": 1], "INVALID_FIELD"),
            ("Account", ["Name": "x", "CreatedDate": "2026-01-01T00:00:00Z"], "INVALID_FIELD_FOR_INSERT_UPDATE"),
            ("Account", ["Name": "x", "Rating": "Lukewarm"], "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST"),
            ("Account", ["Name": String(repeating: "n", count: 256)], "STRING_TOO_LONG"),
            ("Contact", ["LastName": "x", "Email": "not-an-address"], "INVALID_EMAIL_ADDRESS"),
            ("Contact", ["LastName": "x", "AccountId": "006000000000000AAA"], "FIELD_INTEGRITY_EXCEPTION"),
            ("Contact", ["LastName": "x", "AccountId": "001000000000000AAA"], "INVALID_CROSS_REFERENCE_KEY"),
            ("Contact", ["LastName": "x", "AccountId": "nope"], "MALFORMED_ID"),
            ("Opportunity", ["Name": "x", "StageName": "Prospecting"], "REQUIRED_FIELD_MISSING"),
            ("Opportunity", ["Name": "x", "StageName": "Prospecting", "CloseDate": "soon"], "JSON_PARSER_ERROR"),
            ("User", ["LastName": "x"], "INVALID_TYPE_FOR_OPERATION"),
        ]
        for (type, body, expected) in cases {
            let (status, errorCode) = await code(try .json("POST", v + "/sobjects/\(type)", body))
            XCTAssertEqual(status, 400, "\(type) \(body)")
            XCTAssertEqual(errorCode, expected, "\(type) \(body)")
        }
        _ = try await client.send(try .json("POST", v + "/sobjects/Account", ["Name": "Unique", "ExternalKey__c": "U-1"]))
        let (status, errorCode) = await code(try .json("POST", v + "/sobjects/Account", ["Name": "Copy", "ExternalKey__c": "u-1"]))
        XCTAssertEqual(status, 400)
        XCTAssertEqual(errorCode, "DUPLICATE_VALUE")
    }

    func testCompositeAndCollectionsOverSeveralObjects() async throws {
        let composite = try await client.send(try .json("POST", v + "/composite", ["allOrNone": true, "compositeRequest": [
            ["method": "POST", "url": v + "/sobjects/Account", "referenceId": "acct", "body": ["Name": "Composite Co"]],
            ["method": "POST", "url": v + "/sobjects/Contact", "referenceId": "person", "body": ["LastName": "Comp", "AccountId": "@{acct.id}"]],
            ["method": "GET", "url": v + "/query?q=SELECT+Account.Name+FROM+Contact+WHERE+Id+%3D+'@{person.id}'", "referenceId": "check"],
        ]]))
        let responses = try XCTUnwrap(try composite.object()["compositeResponse"] as? [[String: Any]])
        XCTAssertEqual(responses.map { $0["httpStatusCode"] as? Int }, [201, 201, 200])
        XCTAssertTrue(((responses[0]["httpHeaders"] as? [String: String])?["Location"] ?? "").hasPrefix(v + "/sobjects/Account/001"))
        let row = ((responses[2]["body"] as? [String: Any])?["records"] as? [[String: Any]])?.first
        XCTAssertEqual((row?["Account"] as? [String: Any])?["Name"] as? String, "Composite Co")

        let mixed = try await client.send(try .json("POST", v + "/composite/sobjects", ["allOrNone": false, "records": [
            ["attributes": ["type": "Account"], "Name": "Mixed A"],
            ["attributes": ["type": "WorkOrder__c"], "Name": "WO", "Status__c": "New"],
            ["Name": "No type"],
        ]]))
        let results = try XCTUnwrap(try mixed.json() as? [[String: Any]])
        XCTAssertEqual(results.map { $0["success"] as? Bool }, [true, true, false])
        XCTAssertEqual((results[2]["errors"] as? [[String: Any]])?.first?["statusCode"] as? String, "INVALID_TYPE")
    }

    func testAConnectedAppAddedAtStartCanLogIn() async throws {
        let custom = try await OrgHarness.start(connectedApps: [.init(consumerKey: "3MVG9Imported.App", redirectURIs: ["imported://oauth/done"], scopes: ["api", "refresh_token"])])
        defer { Task { await custom.stop() } }
        let keychain = OrgHarness.keychain()
        let credentials = try await OAuthLogin.login(
            loginHost: custom.baseURL, app: .init(clientId: "3MVG9Imported.App", redirectURI: "imported://oauth/done", scopes: ["api", "refresh_token"]),
            username: "bob@acme.test", password: "bob-pass", keychain: keychain)
        let imported = RestClient(credentials: credentials, tokens: TokenStore(keychain: keychain, account: credentials.keychainAccount), timeout: 10)
        let count = try await imported.send(.query("SELECT COUNT() FROM Contact")).object()
        XCTAssertEqual(count["totalSize"] as? Int, 1000)
        let wrongRedirect = await restError {
            _ = try await OAuthLogin.login(
                loginHost: custom.baseURL, app: .init(clientId: "3MVG9Imported.App", redirectURI: "other://done", scopes: ["api"]),
                username: "bob@acme.test", password: "bob-pass", keychain: keychain)
        }
        XCTAssertNotNil(wrongRedirect)
    }
}

