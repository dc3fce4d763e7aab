import FastJSON
import AppGroupSimTestSupport
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import MobileSyncEngine

final class SyncDownTests: SyncTestCase {
    func testA1000ContactSyncDownBy200ReportsProgressAndEndsDoneWithTheNewestTimestamp() async throws {
        let log = ProgressLog()
        let sync = try await manager.syncDown(target: contactsQuery, soupName: soup, name: "down") { log.add($0) }
        XCTAssertEqual(sync.status, .done)
        XCTAssertEqual(sync.totalSize, 1000)
        let running = log.all.filter { $0.status == .running }.map(\.progress)
        XCTAssertEqual(running, [0, 20, 40, 60, 80, 100])
        XCTAssertEqual(log.all.last?.status, .done)
        XCTAssertEqual(try localCount(), 1000)
        let newest = try await serverRecords("SELECT LastModifiedDate FROM Contact ORDER BY LastModifiedDate DESC LIMIT 1")
        let expected = try XCTUnwrap((newest.first?["LastModifiedDate"] as? String).flatMap(SalesforceTime.milliseconds))
        XCTAssertEqual(sync.maxTimeStamp, expected)
        XCTAssertEqual(try manager.syncStatus(name: "down")?.status, .done, "the state is in syncs_soup")
        let entry = try XCTUnwrap(try store.query(.all(soup: soup, pageSize: 1)).first?.objectValue)
        XCTAssertEqual(entry[SyncField.local], .bool(false))
        XCTAssertEqual(entry[SyncField.syncId], .int(sync.id))
    }

    func testAReSyncAfterThreeServerEditsFetchesExactlyThose() async throws {
        let first = try await manager.syncDown(target: contactsQuery, soupName: soup, name: "down")
        let some = try await serverRecords("SELECT Id FROM Contact LIMIT 3")
        for record in some { try await patchOnServer(record["Id"] as! String, ["Title": "Changed"]) }
        let again = try await manager.reSync(id: first.id)
        XCTAssertEqual(again.status, .done)
        XCTAssertEqual(again.totalSize, 3)
        XCTAssertEqual(try store.count(.exact(soup: soup, path: "Id", value: .string(some[0]["Id"] as! String))), 1)
        XCTAssertEqual(try localCount(), 1000)
        XCTAssertGreaterThan(again.maxTimeStamp, first.maxTimeStamp)
    }

    func testLeaveIfChangedKeepsLocalEditsAndOverwriteReplacesThem() async throws {
        let sync = try await manager.syncDown(target: contactsQuery, options: SyncOptions(mergeMode: .leaveIfChanged), soupName: soup, name: "down")
        let id = try XCTUnwrap(try store.query(.all(soup: soup, pageSize: 1)).first?["Id"]?.stringValue)
        try manager.updateLocally(id: id, changes: ["Title": "Local"], soupName: soup)
        try await patchOnServer(id, ["Title": "Server"])
        _ = try await manager.reSync(id: sync.id)
        XCTAssertEqual(try local(id)?["Title"], "Local", "LEAVE_IF_CHANGED keeps the local edit")
        XCTAssertEqual(try local(id)?[SyncField.local], .bool(true))

        let overwrite = try await manager.syncDown(target: contactsQuery, options: SyncOptions(mergeMode: .overwrite), soupName: soup)
        XCTAssertEqual(overwrite.status, .done)
        XCTAssertEqual(try local(id)?["Title"], "Server", "OVERWRITE replaces it")
        XCTAssertEqual(try local(id)?[SyncField.local], .bool(false))
    }

    func testGhostsOfThisSyncAreRemovedButDirtyRecordsStay() async throws {
        let sync = try await manager.syncDown(target: contactsQuery, soupName: soup, name: "down")
        let ids = try await serverRecords("SELECT Id FROM Contact LIMIT 3").compactMap { $0["Id"] as? String }
        for id in ids { try await deleteOnServer(id) }
        try manager.updateLocally(id: ids[2], changes: ["Title": "Still editing"], soupName: soup)
        let removed = try await manager.cleanResyncGhosts(syncId: sync.id)
        XCTAssertEqual(removed, 2)
        XCTAssertNil(try local(ids[0]))
        XCTAssertNotNil(try local(ids[2]), "a dirty record is never a ghost")
        XCTAssertEqual(try localCount(), 998)
    }

    func testInjected5xxFailsTheSyncAndALaterReSyncCompletes() async throws {
        _ = try await org.admin(["errorRate": 1.0])
        let sync = try manager.createSyncDown(target: contactsQuery, soupName: soup, name: "down")
        let caught = await restError { _ = try await self.manager.reSync(id: sync.id) }
        XCTAssertNotNil(caught)
        let failed = try XCTUnwrap(try manager.syncStatus(id: sync.id))
        XCTAssertEqual(failed.status, .failed)
        XCTAssertTrue(failed.error?.contains("SERVER_UNAVAILABLE") ?? false, failed.error ?? "")
        _ = try await org.admin(["reset": true])
        let done = try await manager.reSync(id: sync.id)
        XCTAssertEqual(done.status, .done)
        XCTAssertEqual(try localCount(), 1000)
    }

    func testStopMidwayThenRestartStoppedSyncsCompletesWithEveryIdOnce() async throws {
        SyncManager.register(customTarget: "onePerPage") { json in
            OnePerPageTarget(query: json["query"]?.stringValue ?? "")
        }
        let target = OnePerPageTarget(query: "SELECT Id, LastModifiedDate, LastName FROM Contact ORDER BY LastModifiedDate")
        let log = ProgressLog()
        let manager = self.manager!
        let sync = try await manager.syncDown(target: target, soupName: soup, name: "slow") { state in
            log.add(state)
            if state.progress >= 50 && state.status == .running { manager.stop() }
        }
        XCTAssertEqual(sync.status, .stopped)
        XCTAssertEqual(manager.state, .stopped)
        XCTAssertLessThan(try localCount(), 1000)
        let stoppedError: MobileSyncError?
        do {
            _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
            stoppedError = nil
        } catch {
            stoppedError = error as? MobileSyncError
        }
        XCTAssertEqual(stoppedError?.code, 900)
        try await manager.restart(restartStoppedSyncs: true)
        XCTAssertEqual(try manager.syncStatus(name: "slow")?.status, .done)
        let ids = try store.query(.smart("SELECT {contacts:Id} FROM {contacts}", pageSize: 5000)).compactMap { $0.arrayValue?.first?.stringValue }
        XCTAssertEqual(ids.count, 1000)
        XCTAssertEqual(Set(ids).count, 1000, "no duplicate ids")
    }

    func testMRUAndRefreshTargets() async throws {
        let some = try await serverRecords("SELECT Id FROM Contact LIMIT 2").compactMap { $0["Id"] as? String }
        for id in some { _ = try await client.send(RestRequest(path: "/services/data/v66.0/sobjects/Contact/\(id)")) }
        let mru = try await manager.syncDown(target: MruSyncDownTarget(sobjectType: "Contact", fieldlist: ["LastName"]), soupName: soup)
        XCTAssertEqual(mru.status, .done)
        XCTAssertEqual(Set(try store.query(.all(soup: soup)).compactMap { $0["Id"]?.stringValue }), Set(some))
        try await patchOnServer(some[0], ["LastName": "Refreshed"])
        let refresh = try await manager.syncDown(
            target: RefreshSyncDownTarget(sobjectType: "Contact", fieldlist: ["LastName"], countIdsPerSoql: 1), soupName: soup)
        XCTAssertEqual(refresh.status, .done)
        XCTAssertEqual(try local(some[0])?["LastName"], "Refreshed")
    }
}

extension SyncDownTests {
    /// syncs_soup entries in the SDK's format: error "" when there is none, targets with iOSImpl, the id
    /// and modification-date field names, and the refresh target's count under iOS's spelling; the
    /// Android spelling and an older entry's null error still read.
    func testSyncStatesAndTargetsAreStoredInTheSDKsFormat() throws {
        let refresh = try manager.createSyncDown(
            target: RefreshSyncDownTarget(sobjectType: "Contact", fieldlist: ["LastName"], countIdsPerSoql: 7), soupName: soup, name: "refresh")
        let stored = try XCTUnwrap(try store.query(.all(soup: "syncs_soup", pageSize: 10)).compactMap(\.objectValue).first { $0["name"] == "refresh" })
        XCTAssertEqual(stored["error"], "")
        XCTAssertNil(try manager.syncStatus(id: refresh.id)?.error)
        let target = try XCTUnwrap(stored["target"]?.objectValue)
        XCTAssertEqual(target["iOSImpl"], "SFRefreshSyncDownTarget")
        XCTAssertEqual(target["idFieldName"], "Id")
        XCTAssertEqual(target["modificationDateFieldName"], "LastModifiedDate")
        XCTAssertEqual(target["coundIdsPerSoql"], 7)
        let soql = try manager.createSyncDown(target: SoqlSyncDownTarget(query: "SELECT Id FROM Contact"), soupName: soup, name: "soql")
        XCTAssertEqual(soql.target["iOSImpl"], "SFSoqlSyncDownTarget")
        XCTAssertEqual(soql.target["query"], "select LastModifiedDate,Id from Contact order by LastModifiedDate", "stored as rewritten at creation")

        let android = try XCTUnwrap(try manager.makeTarget(["type": "refresh", "sobjectType": "Contact", "fieldlist": ["Id"], "countIdsPerSoql": 3])
            as? RefreshSyncDownTarget)
        XCTAssertEqual(android.countIdsPerSoql, 3)
        var old = stored
        old["error"] = .null
        XCTAssertNil(SyncState(entry: old)?.error, "an entry written before this change")
    }
}

/// A custom target that serves a query one record per page, so a test can stop a sync midway.
struct OnePerPageTarget: SyncDownTarget {
    var query: String
    var json: JSON { ["type": "custom", "customType": "onePerPage", "query": .string(query)] }

    func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage {
        let soql = SoqlSyncDownTarget.prepare(query, maxTimeStamp: maxTimeStamp)
        var records: [SoupEntry] = []
        var page = try SyncPage(response: await client.send(.query(soql)))
        records += page.records
        while let next = page.nextRecordsUrl {
            page = try SyncPage(response: await client.send(.queryMore(next)))
            records += page.records
        }
        return pageAt(0, of: records)
    }

    func continueFetch(client: RestClient, after page: SyncPage) async throws -> SyncPage? {
        guard let next = page.nextRecordsUrl, let index = Int(next) else { return nil }
        return pageAt(index, of: OnePerPageTarget.cache.records)
    }

    func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String> { [] }

    private func pageAt(_ index: Int, of records: [SoupEntry]) -> SyncPage {
        OnePerPageTarget.cache.records = records
        return SyncPage(records: [records[index]], totalSize: records.count, nextRecordsUrl: index + 1 < records.count ? String(index + 1) : nil)
    }

    final class Cache: @unchecked Sendable { var records: [SoupEntry] = [] }
    static let cache = Cache()
}
