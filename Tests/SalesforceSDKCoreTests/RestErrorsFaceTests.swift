import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

/// The one HTTP path's errors as a developer's code sees them (issue 35, item 1): the org's answer keeps its
/// HTTP status and Salesforce's `errorCode` (`SFRestErrorDomain`), no connection is `NSURLErrorDomain` with
/// URLSession's code, and `isNetworkError` reads the domain and the code, never the words of a message.
final class RestErrorsFaceTests: XCTestCase {
    var root: URL!
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    /// The error the SDK's failure block gets for `request`, as a developer's code sends it; nil on success.
    static func failure(of request: RestRequest) -> NSError? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var error: NSError?
        RestClient.shared.send(request, failureBlock: { _, failure, _ in
            error = failure as NSError?
            done.signal()
        }, successBlock: { _, _ in done.signal() })
        done.wait()
        return error
    }

    func testAnOrgsErrorKeepsItsStatusAndErrorCodeAndANoConnectionIsANetworkError() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")

        let missing = try device.run(as: app) {
            Self.failure(of: RestClient.shared.requestForRetrieve(withObjectType: "Contact", objectId: "003000000000000AAA", fieldList: "Id", apiVersion: nil))
        }
        let notFound = try XCTUnwrap(missing)
        XCTAssertEqual(notFound.domain, SFRestErrorDomain)
        XCTAssertEqual(notFound.code, 404, "the HTTP status, not one code for every error")
        XCTAssertEqual(notFound.userInfo["errorCode"] as? String, "NOT_FOUND")
        XCTAssertFalse(RestRequest.isNetworkError(notFound))

        await org.stop()
        let offline = try device.run(as: app) { Self.failure(of: RestClient.shared.request(forQuery: "SELECT Id FROM Contact", apiVersion: nil)) }
        let refused = try XCTUnwrap(offline)
        XCTAssertEqual(refused.domain, NSURLErrorDomain)
        XCTAssertEqual(refused.code, NSURLErrorCannotConnectToHost)
        XCTAssertTrue(RestRequest.isNetworkError(refused))
        // The same domain and code with other words is still the network; a message naming the network is not.
        XCTAssertTrue(RestRequest.isNetworkError(NSError(domain: NSURLErrorDomain, code: NSURLErrorTimedOut, userInfo: [NSLocalizedDescriptionKey: "x"])))
        XCTAssertFalse(RestRequest.isNetworkError(NSError(domain: SFRestErrorDomain, code: 999, userInfo: [NSLocalizedDescriptionKey: "connection refused"])))
    }
}
