import AppGroupSimTestSupport
import Foundation
import OrgSimulator
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import MobileSyncEngine

/// A real org on an ephemeral port, a store with the app's contacts soup, and a sync manager.
class SyncTestCase: XCTestCase {
    var org: OrgHarness!
    var client: RestClient!
    var store: SmartStore!
    var manager: SyncManager!
    let soup = "contacts"
    let fields = ["FirstName", "LastName", "Title", "MobilePhone", "Email", "Department", "HomePhone"]

    var username: String { "alice@acme.test" }
    var password: String { "alice-pass" }
    /// The org's record lock timeout (Salesforce's 10 s unless a test waits for it).
    var recordLockTimeout: TimeInterval { 10 }
    /// Connected apps laid over the fixture's (a test's own briefcases).
    var connectedApps: [OrgDefinition.ConnectedApp] { [] }

    override func setUp() async throws {
        org = try await OrgHarness.start(connectedApps: connectedApps, recordLockTimeout: recordLockTimeout)
        client = try await org.login(username, password)
        store = try SmartStore(url: try TestSupport.temporaryDirectory(self).appendingPathComponent("store.sqlite"), name: "test")
        try StoreConfig.load(TestSupport.fixtureApp.appendingPathComponent("userstore.json"))?.register(in: store)
        manager = try SyncManager(store: store, client: client)
    }

    override func tearDown() async throws { await org?.stop(); (org, client, store, manager) = (nil, nil, nil, nil) }

    var contactsQuery: SoqlSyncDownTarget { SoqlSyncDownTarget(query: "SELECT \(fields.joined(separator: ", ")) FROM Contact", maxBatchSize: 200) }

    func localCount() throws -> Int { try store.count(.all(soup: soup)) }

    func local(_ id: String) throws -> SoupEntry? {
        try store.query(.exact(soup: soup, path: "Id", value: .string(id))).first?.objectValue
    }

    func serverRecords(_ soql: String) async throws -> [[String: Any]] {
        try await client.send(.query(soql)).object()["records"] as? [[String: Any]] ?? []
    }

    func patchOnServer(_ id: String, _ fields: [String: Any]) async throws {
        try await client.send(try .json("PATCH", "/services/data/v66.0/sobjects/Contact/\(id)", fields))
    }

    func deleteOnServer(_ id: String) async throws {
        try await client.send(RestRequest(method: "DELETE", path: "/services/data/v66.0/sobjects/Contact/\(id)"))
    }
}

/// Progress values as the callback saw them.
final class ProgressLog: @unchecked Sendable {
    private let lock = NSLock()
    private var states: [SyncState] = []
    func add(_ s: SyncState) { lock.withLock { states.append(s) } }
    var all: [SyncState] { lock.withLock { states } }
}
