// The SDK's RestClientTest (libs/SalesforceSDKCore/SalesforceSDKCoreTests/RestClientTest.swift at aea9bf3), rewritten
// against the SDK-named products. Its session is made as the SDK's is, by TestSetupUtils (populateAuthCredentials…
// then synchronousAuthRefresh), from credentials that SimulatedOrg.testCredentials gives for a simulated org (the
// SDK's test reads its build's test_credentials.json for a real org). The process runs as the fixture app on
// APPGROUPSIM_DEVICE (set by scripts/integration/consumer-package.sh), as an iOS test host runs as its app.
// Cases: testFetchRecordsNonCombine, testAsyncFetchRecordsNonCombine, testQuery, testQueryWithDefaultBatchSize,
// testQueryWithNonDefaultBatchSize, testAsyncCompositeRequest, testAsyncCompositeRequestFailure and
// testAsyncCompositeRequestPartialSuccess.
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

struct QueriedContact: Decodable {
    var Id: String?
    var FirstName: String?
    var LastName: String?
}

final class RestClientTests: XCTestCase {
    nonisolated(unsafe) static var org: SimulatedOrg?
    nonisolated(unsafe) static var device: SimulatedDevice?
    nonisolated(unsafe) static var credentials: SFSDKTestCredentialsData?

    /// Waits for `operation` (class set-up and tear-down are synchronous).
    static func blocking<T>(_ operation: @escaping @Sendable () async throws -> T) -> Result<T, Error> {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<T, Error>>()
        Task.detached {
            do { box.value = .success(try await operation()) } catch { box.value = .failure(error) }
            done.signal()
        }
        done.wait()
        return box.value!
    }

    override class func setUp() {
        super.setUp()
        let made = blocking { () -> String in
            let device = try SimulatedDevice(keychain: .inMemory)
            let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
            RestClientTests.device = device
            RestClientTests.org = org
            return try await org.testCredentials(app: appURL, username: "alice@acme.test", password: "alice-pass")
        }
        guard case .success(let json) = made else { fatalError("the simulated org gave no test credentials: \(made)") }
        credentials = TestSetupUtils.populateAuthCredentials(from: json)
        TestSetupUtils.synchronousAuthRefresh()
    }

    override class func tearDown() {
        UserAccountManager.shared.logoutAllUsers()
        if let org { _ = blocking { await org.stop() } }
        // The device's folder goes with the object: a class's static outlives the tests, and the process ends
        // without running deinit (one temporary device folder was left by each run).
        org = nil
        device = nil
        super.tearDown()
    }

    func generateRecordName() -> String { "RestClientTests_\(UUID().uuidString.prefix(8))" }

    func testTheSessionIsTheTestUsersAndItsCredentialsDoNotPrintTheirTokens() throws {
        let user = try XCTUnwrap(UserAccountManager.shared.currentUserAccount)
        XCTAssertEqual(user.idData.username, "alice@acme.test")
        let credentials = try XCTUnwrap(Self.credentials)
        XCTAssertFalse(credentials.refreshToken.isEmpty)
        XCTAssertFalse("\(credentials)".contains(credentials.refreshToken))
        XCTAssertEqual(credentials.username, "alice@acme.test")
    }

    func testFetchRecordsNonCombine() {
        let expectation = XCTestExpectation(description: "queryTest")
        let request = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil)
        let failure = Box<RestClientError>()
        let count = Box<Int>()
        RestClient.shared.fetchRecords(ofModelType: QueriedContact.self, forRequest: request) { result in
            switch result {
            case .failure(let error): failure.value = error
            case .success(let page): count.value = page.records?.count
            }
            expectation.fulfill()
        }
        wait(for: [expectation], timeout: 10.0)
        XCTAssertNil(failure.value, "Query call should not have failed")
        XCTAssertGreaterThanOrEqual(count.value ?? 0, 1000, "the fixture org's contacts, and those the composite cases made")
    }

    func testAsyncFetchRecordsNonCombine() async throws {
        let request = RestClient.shared.request(forQuery: "select Id, LastName from CONTACT limit 5", apiVersion: nil)
        let result = try await RestClient.shared.fetchRecords(ofModelType: QueriedContact.self, forRequest: request)
        XCTAssertEqual(result.records?.count, 5)
        XCTAssertNotNil(result.records?.first?.LastName)
    }

    func testQuery() async throws {
        let request = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil)
        let result = try await RestClient.shared.send(request: request)
        XCTAssertGreaterThanOrEqual((try result.asJson() as? [String: Any])?["totalSize"] as? Int ?? 0, 1000)
    }

    /// Not in the SDK's test: queries written by the SDK's query builders, run at the org.
    func testQueriesFromTheSDKsQueryBuildersRunAtTheOrg() async throws {
        let soql = try XCTUnwrap(SFSDKSoqlBuilder.withFieldsArray(["Id", "LastName"]).from("Contact").whereClause("LastName != null").orderBy("LastName").limit(3).build())
        let queried = try await RestClient.shared.send(request: RestClient.shared.request(forQuery: soql, apiVersion: nil))
        XCTAssertEqual(((try queried.asJson() as? [String: Any])?["records"] as? [Any])?.count, 3)
        let plain = try XCTUnwrap(RestClient.SOQLQuery(withFields: ["Id", "Name", "Id"], sObject: "Contact", whereClause: nil, limit: 2))
        XCTAssertEqual(plain, "select Id,Name from Contact limit 2")
        let counted = try await RestClient.shared.send(request: RestClient.shared.request(forQuery: plain, apiVersion: nil))
        XCTAssertEqual((try counted.asJson() as? [String: Any])?["totalSize"] as? Int, 2)
        let sosl = try XCTUnwrap(RestClient.SOSLSearch(withSearchTerm: "Archer", fieldScope: "IN ALL FIELDS", objectScope: ["Contact": "Id, LastName"], limit: 500))
        XCTAssertEqual(sosl, "FIND {Archer} IN ALL FIELDS RETURNING Contact (Id, LastName) LIMIT 200")
        let searched = try await RestClient.shared.send(request: RestClient.shared.request(forSearch: sosl, apiVersion: nil))
        XCTAssertNotNil((try searched.asJson() as? [String: Any])?["searchRecords"], "the org answered the search: \(searched)")
    }

    func testQueryWithDefaultBatchSize() {
        let request = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil, batchSize: 2000)
        XCTAssertNil(request.customHeaders?["Sforce-Query-Options"])
    }

    func testQueryWithNonDefaultBatchSize() {
        let request500 = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil, batchSize: 500)
        let request199 = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil, batchSize: 199)
        let request2001 = RestClient.shared.request(forQuery: "select name from CONTACT", apiVersion: nil, batchSize: 2001)
        XCTAssertEqual(request500.customHeaders?["Sforce-Query-Options"] as? String, "batchSize=500")
        XCTAssertEqual(request199.customHeaders?["Sforce-Query-Options"] as? String, "batchSize=200")
        // The SDK's test looks under a misspelt key ("@SForce-Query-Options") here, so it cannot fail; its request
        // asks for 2,000 explicitly, as this one does.
        XCTAssertEqual(request2001.customHeaders?["Sforce-Query-Options"] as? String, "batchSize=2000")
    }

    func composite(query: String, allOrNone: Bool) -> (CompositeRequest, contactName: String) {
        let apiVersion = RestClient.shared.apiVersion
        let contactName = generateRecordName()
        let request = CompositeRequestBuilder()
            .add(RestClient.shared.requestForCreate(withObjectType: "Account", fields: ["Name": generateRecordName()], apiVersion: apiVersion), referenceId: "refAccount")
            .add(RestClient.shared.requestForCreate(withObjectType: "Contact", fields: ["LastName": contactName, "AccountId": "@{refAccount.id}"], apiVersion: apiVersion), referenceId: "refContact")
            .add(RestClient.shared.request(forQuery: query.replacingOccurrences(of: "NAME", with: contactName), apiVersion: apiVersion), referenceId: "refQuery")
            .setAllOrNone(allOrNone)
            .buildCompositeRequest(apiVersion)
        XCTAssertEqual(request.allSubRequests.count, 3)
        return (request, contactName)
    }

    func testAsyncCompositeRequest() async throws {
        let (request, _) = composite(query: "select Id, AccountId from Contact where LastName = 'NAME'", allOrNone: true)
        let response = try await RestClient.shared.send(compositeRequest: request)
        XCTAssertEqual(response.subResponses.map(\.httpStatusCode), [201, 201, 200])
        let account = try XCTUnwrap((response.subResponses[0].body as? [String: Any])?["id"] as? String)
        let contact = try XCTUnwrap((response.subResponses[1].body as? [String: Any])?["id"] as? String)
        let rows = try XCTUnwrap((response.subResponses[2].body as? [String: Any])?["records"] as? [[String: Any]])
        XCTAssertEqual(rows.count, 1, "Wrong number of results for query request")
        XCTAssertEqual(rows.first?["AccountId"] as? String, account, "Account id not returned by query")
        XCTAssertEqual(rows.first?["Id"] as? String, contact, "Contact id not returned by query")
    }

    func testAsyncCompositeRequestFailure() async throws {
        let (request, contactName) = composite(query: "select Id, AccountId", allOrNone: true)
        let response = try await RestClient.shared.send(compositeRequest: request)
        XCTAssertEqual(response.subResponses.map(\.httpStatusCode), [400, 400, 400], "all or none: a bad query rolls back the creates")
        let left = try await RestClient.shared.send(request: RestClient.shared.request(forQuery: "select Id from Contact where LastName = '\(contactName)'", apiVersion: nil))
        XCTAssertEqual((try left.asJson() as? [String: Any])?["totalSize"] as? Int, 0, "nothing of the rolled back request is kept")
    }

    func testAsyncCompositeRequestPartialSuccess() async throws {
        let (request, _) = composite(query: "select Id, AccountId", allOrNone: false)
        let response = try await RestClient.shared.send(compositeRequest: request)
        XCTAssertEqual(response.subResponses.map(\.httpStatusCode), [201, 201, 400])
    }
}
