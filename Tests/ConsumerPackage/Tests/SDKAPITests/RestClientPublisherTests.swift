// The SDK's RestClientPublisherTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests at aea9bf3), rewritten against the
// SDK-named products and a simulated org (the SDK's test logs in to a real org with TestSetupUtils): publishers of a
// query, of records, of a composite request built with CompositeRequestBuilder (references between sub-requests,
// all or none) and of a batch request built with BatchRequestBuilder (a bad query among them, haltOnError false).
// Each answer is checked, not only that one came.
import AppGroupSimTesting
import Combine
import Foundation
import SalesforceSDKCore
import XCTest

struct TestContact: Decodable {
    let Name: String?
}

final class RestClientPublisherTests: XCTestCase {
    /// The first value of `publisher`, or its failure, waited for.
    func first<P: Publisher>(_ publisher: P) -> Result<P.Output, P.Failure>? {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<P.Output, P.Failure>>()
        let cancellable = publisher.sink(receiveCompletion: { completion in
            if case .failure(let error) = completion { box.value = .failure(error) }
            done.signal()
        }, receiveValue: { box.value = .success($0) })
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        cancellable.cancel()
        return box.value
    }

    func testPublishersAgainstTheOrg() async throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")
        let accountName = "Publisher\(UUID().uuidString.prefix(8))"
        let contactName = "Publisher\(UUID().uuidString.prefix(8))"

        try device.run(as: appURL) {
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            let client = RestClient.shared
            let apiVersion = client.apiVersion

            guard case .success(let queried)? = first(client.publisher(for: client.request(forQuery: "select name from CONTACT", apiVersion: nil))) else {
                return XCTFail("the query publisher failed")
            }
            XCTAssertEqual(try queried.asJson() as? [String: Any] == nil, false)
            let records: AnyPublisher<RestClient.QueryResponse<TestContact>, Never> = client.records(forRequest: client.request(forQuery: "select name from CONTACT limit 3", apiVersion: nil))
            guard case .success(let page)? = first(records) else { return XCTFail("the records publisher gave nothing") }
            XCTAssertEqual(page.records?.count, 3)

            let composite = CompositeRequestBuilder()
                .add(client.requestForCreate(withObjectType: "Account", fields: ["Name": accountName], apiVersion: apiVersion), referenceId: "refAccount")
                .add(client.requestForCreate(withObjectType: "Contact", fields: ["LastName": contactName, "AccountId": "@{refAccount.id}"], apiVersion: apiVersion), referenceId: "refContact")
                .add(client.request(forQuery: "select Id, AccountId from Contact where LastName = '\(contactName)'", apiVersion: apiVersion), referenceId: "refQuery")
                .setAllOrNone(true)
                .buildCompositeRequest(apiVersion)
            XCTAssertTrue(composite.allOrNone)
            XCTAssertEqual(composite.allSubRequests.map(\.referenceId), ["refAccount", "refContact", "refQuery"])
            guard case .success(let answer)? = first(client.publisher(for: composite)) else { return XCTFail("the composite publisher failed") }
            XCTAssertEqual(answer.subResponses.map(\.httpStatusCode), [201, 201, 200])
            XCTAssertEqual(answer.subResponses.map(\.referenceId), ["refAccount", "refContact", "refQuery"])
            let accountId = (answer.subResponses[0].body as? [String: Any])?["id"] as? String
            let rows = (answer.subResponses[2].body as? [String: Any])?["records"] as? [[String: Any]]
            XCTAssertEqual(rows?.first?["AccountId"] as? String, accountId, "the contact refers to the account made before it")

            let batch = BatchRequestBuilder()
                .add(client.requestForCreate(withObjectType: "Account", fields: ["Name": accountName + "B"], apiVersion: apiVersion))
                .add(client.requestForCreate(withObjectType: "Contact", fields: ["LastName": contactName + "B"], apiVersion: apiVersion))
                .add(client.request(forQuery: "select Id from Account where Name ", apiVersion: apiVersion))
                .add(client.request(forQuery: "select Id from Contact where LastName = '\(contactName)B'", apiVersion: apiVersion))
                .setHaltOnError(false)
                .buildBatchRequest(apiVersion)
            guard case .success(let batched)? = first(client.publisher(for: batch)) else { return XCTFail("the batch publisher failed") }
            XCTAssertTrue(batched.hasErrors, "the bad query")
            XCTAssertEqual(batched.results.compactMap { ($0 as? [String: Any])?["statusCode"] as? Int }, [201, 201, 400, 200])
        }
    }
}
