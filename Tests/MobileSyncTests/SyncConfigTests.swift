import FastJSON
import AppGroupSimTestSupport
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import MobileSyncEngine

/// `usersyncs.json` files from the SDK's own repository, loaded unchanged; `syncs_soup` as the SDK sets it up.
final class SyncConfigTests: SyncTestCase {
    private func sdkConfig(_ name: String) -> URL {
        TestSupport.packageRoot.appendingPathComponent("Tests/MobileSyncTests/Fixtures/\(name)-usersyncs.json")
    }

    private func storedTarget(_ name: String) throws -> [String: JSON] {
        try XCTUnwrap(try manager.syncStatus(name: name)?.target.objectValue, name)
    }

    func testTheMobileSyncExplorerSamplesConfigLoadsUnchangedAndRuns() async throws {
        try manager.createSyncs(fromConfig: sdkConfig("MobileSyncExplorer"))
        XCTAssertEqual(try manager.allSyncs().map(\.name), ["syncDownContacts", "syncUpContacts"])
        let down = try storedTarget("syncDownContacts")
        XCTAssertEqual(down["iOSImpl"], "SFSoqlSyncDownTarget")
        XCTAssertEqual(
            down["query"], "select Id,LastModifiedDate,FirstName, LastName, Title, MobilePhone, Email, Department, HomePhone from Contact order by LastModifiedDate limit 10000")
        let up = try storedTarget("syncUpContacts")
        XCTAssertEqual(up["iOSImpl"], "SFCollectionSyncUpTarget")
        XCTAssertEqual(up["type"], "rest")
        XCTAssertEqual(up["createFieldlist"]?.arrayValue?.count, 7)
        XCTAssertEqual(try manager.syncStatus(name: "syncUpContacts")?.options.mergeMode, .leaveIfChanged)

        let ran = try await manager.reSync(name: "syncDownContacts")
        XCTAssertEqual(ran.status, .done)
        XCTAssertGreaterThan(try localCount(), 0)
        let up2 = try await manager.reSync(name: "syncUpContacts")
        XCTAssertEqual(up2.status, .done)
    }

    /// The Mobile Sync test app's config names every target type the SDK has. All twelve syncs are
    /// created; the simulated ones are stored in the SDK's serialised form; the others are kept as
    /// written, and running one says why it cannot run, instead of failing at load.
    func testTheMobileSyncTestAppsConfigWithEveryTargetTypeLoadsUnchanged() async throws {
        try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Id", type: .string)])
        try manager.createSyncs(fromConfig: sdkConfig("MobileSyncTestApp"))
        XCTAssertEqual(
            try manager.allSyncs().map(\.name),
            ["soqlSyncDown", "soqlSyncDownWithBatchSize", "soslSyncDown", "mruSyncDown", "refreshSyncDown", "layoutSyncDown", "metadataSyncDown",
             "parentChildrenSyncDown", "briefcaseSyncDown", "noBatchSyncUp", "batchSyncUp", "parentChildrenSyncUp"])
        XCTAssertEqual(try storedTarget("soqlSyncDownWithBatchSize")["maxBatchSize"], 200)
        XCTAssertEqual(try storedTarget("mruSyncDown")["iOSImpl"], "SFMruSyncDownTarget")
        let refresh = try storedTarget("refreshSyncDown")
        XCTAssertEqual(refresh["iOSImpl"], "SFRefreshSyncDownTarget")
        XCTAssertEqual(refresh["soupName"], "accounts", "a key we do not model is kept")
        XCTAssertEqual(try storedTarget("noBatchSyncUp")["iOSImpl"], "SFSyncUpTarget", "the config's implementation is kept")
        XCTAssertEqual(try storedTarget("batchSyncUp")["idFieldName"], "IdX", "the config's field names are kept")
        let sosl = try storedTarget("soslSyncDown")
        XCTAssertEqual(sosl["query"], "FIND {Joe} IN NAME FIELDS RETURNING Account")
        XCTAssertNil(sosl["iOSImpl"], "kept as written")
        XCTAssertEqual(try storedTarget("parentChildrenSyncUp")["parent"]?["sobjectType"], "Account")
        XCTAssertNil(try storedTarget("briefcaseSyncDown")["iOSImpl"], "a briefcase info names IdX: kept as written")

        for (name, words) in [
            ("soslSyncDown", "sosl is not simulated"), ("parentChildrenSyncDown", "parent_children is not simulated"),
            ("parentChildrenSyncUp", "SFParentChildrenSyncUpTarget is not simulated"), ("batchSyncUp", "idFieldName IdX is not simulated"),
            ("briefcaseSyncDown", "briefcase info Contact: idFieldName IdX is not simulated"),
        ] {
            do {
                _ = try await manager.reSync(name: name)
                XCTFail("\(name) ran")
            } catch {
                XCTAssertTrue("\(error)".contains(words), "\(name): \(error)")
            }
            XCTAssertEqual(try manager.syncStatus(name: name)?.status, .failed, name)
        }
        let soql = try await manager.reSync(name: "soqlSyncDown")
        XCTAssertEqual(soql.status, .done)
        // Loading again creates nothing twice.
        try manager.createSyncs(fromConfig: sdkConfig("MobileSyncTestApp"))
        XCTAssertEqual(try manager.allSyncs().count, 12)
    }

    func testSyncsSoupHasTheSDKsJson1Indexes() throws {
        XCTAssertEqual(
            try store.indices(for: "syncs_soup"),
            [IndexSpec(path: "type", type: .json1), IndexSpec(path: "name", type: .json1), IndexSpec(path: "status", type: .json1)])
    }

    /// A syncs_soup that an older build registered with string columns is altered to the SDK's json1
    /// indexes when the sync manager opens it; every sync keeps its id and state.
    func testAnOlderSyncsSoupIsAlteredToJson1KeepingEverySync() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup, name: "down")
        let before = try manager.allSyncs()
        try store.alterSoup(
            "syncs_soup",
            indexSpecs: [IndexSpec(path: "name", type: .string), IndexSpec(path: "type", type: .string), IndexSpec(path: "status", type: .string)],
            reIndexData: true)
        SyncManager.removeSharedInstance(for: store)
        let reopened = try SyncManager(store: store, client: client)
        XCTAssertEqual(try store.indices(for: "syncs_soup").map(\.type), [.json1, .json1, .json1])
        let after = try reopened.allSyncs()
        XCTAssertEqual(after.map(\.id), before.map(\.id))
        XCTAssertEqual(after.map(\.status), before.map(\.status))
        XCTAssertEqual(try reopened.syncStatus(name: "down")?.maxTimeStamp, before.first?.maxTimeStamp)
    }
}

extension SyncConfigTests {
    /// A syncs_soup entry damaged by hand or by another tool: every read names the store and the entry,
    /// nothing is skipped or deleted, and the other syncs' entries are untouched.
    func testACorruptSyncStateIsNamedAndKept() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup, name: "down")
        let damaged = try store.upsert([["type": "sideways", "name": "broken", "soupName": "contacts"]], into: "syncs_soup")
        let id = try XCTUnwrap(damaged.first?[SoupField.entryId]?.intValue)
        for read in [{ _ = try self.manager.allSyncs() }, { _ = try self.manager.syncStatus(id: id) }, { _ = try self.manager.syncStatus(name: "broken") }] {
            XCTAssertThrowsError(try read()) { error in
                guard case MobileSyncError.corruptSyncState(let path, let entry, let detail) = error else { return XCTFail("\(error)") }
                XCTAssertEqual(path, self.store.url.path)
                XCTAssertEqual(entry, id)
                XCTAssertTrue(detail.contains("sideways"), detail)
                XCTAssertTrue("\(error)".contains("left as it is"), "\(error)")
            }
        }
        XCTAssertEqual(try store.count(.all(soup: "syncs_soup")), 2, "nothing deleted")
        XCTAssertThrowsError(try SyncManager(store: store, client: client), "a new manager reads every state at start, and says so too")
        XCTAssertEqual(try manager.syncStatus(name: "down")?.status, .done, "a good entry still reads by name")
    }
}
