import AppGroupSimTestSupport
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import MobileSyncEngine

final class SyncUpTests: SyncTestCase {
    override var username: String { "carol@globex.test" }
    override var password: String { "carol-pass" }

    func target() -> SyncUpTarget { SyncUpTarget(createFieldlist: fields, updateFieldlist: fields) }

    func testThreeValidAndTwoInvalidRecordsEndDoneWithTheInvalidOnesDirtyAndTheServersMessage() async throws {
        for name in ["One", "Two", "Three"] { try manager.createLocally(["FirstName": "New", "LastName": .string(name)], soupName: soup) }
        try manager.createLocally(["FirstName": "No last name"], soupName: soup)
        try manager.createLocally(["LastName": .string(String(repeating: "x", count: 90))], soupName: soup)
        let sync = try await manager.syncUp(target: target(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        let dirty = try manager.dirtyRecords(soup)
        XCTAssertEqual(dirty.count, 2)
        let errors = dirty.compactMap { $0[SyncField.lastError]?.stringValue }.sorted()
        XCTAssertEqual(errors.count, 2)
        XCTAssertTrue(errors.contains { $0.contains("Required fields are missing: [LastName]") }, "\(errors)")
        XCTAssertTrue(errors.contains { $0.contains("STRING_TOO_LONG") }, "\(errors)")
        let clean = try store.query(.exact(soup: soup, path: SyncField.local, value: false, pageSize: 10))
        XCTAssertEqual(clean.count, 3)
        XCTAssertTrue(clean.allSatisfy { !($0["Id"]?.stringValue?.hasPrefix("local_") ?? true) }, "clean records carry the server's ids")
        let onServer = try await serverRecords("SELECT Id FROM Contact WHERE LastName IN ('One', 'Two', 'Three')")
        XCTAssertEqual(onServer.count, 3)
    }

    func testLocalUpdatesAndDeletesReachTheServerAndIdAndLastModifiedDateAreNeverSent() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
        let ids = try store.query(.all(soup: soup, orderPath: "Id", pageSize: 2)).compactMap { $0["Id"]?.stringValue }
        try manager.updateLocally(id: ids[0], changes: ["Title": "Pushed", "LastModifiedDate": "2001-01-01T00:00:00.000+0000"], soupName: soup)
        try manager.deleteLocally(id: ids[1], soupName: soup)
        let sync = try await manager.syncUp(target: target(), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        let server = try await serverRecords("SELECT Id, Title FROM Contact WHERE Id = '\(ids[0])'")
        XCTAssertEqual(server.first?["Title"] as? String, "Pushed")
        let gone = try await serverRecords("SELECT Id FROM Contact WHERE Id = '\(ids[1])'")
        XCTAssertEqual(gone.count, 0)
        XCTAssertNil(try local(ids[1]))
        XCTAssertEqual(try manager.dirtyRecords(soup).count, 0)
    }

    func testCreatedThenDeletedLocallyNeverReachesTheServer() async throws {
        let before = try await serverRecords("SELECT Id FROM Contact").count
        let made = try manager.createLocally(["LastName": "Ephemeral"], soupName: soup)
        XCTAssertEqual(made["Id"]?.stringValue?.hasPrefix("local_"), true)
        try manager.deleteLocally(id: made["Id"]!.stringValue!, soupName: soup)
        let sync = try await manager.syncUp(target: target(), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        XCTAssertEqual(try localCount(), 0)
        let after = try await serverRecords("SELECT Id FROM Contact").count
        XCTAssertEqual(after, before)
    }

    func testARecordDeletedOnBothSidesIsRemovedQuietly() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
        let id = try XCTUnwrap(try store.query(.all(soup: soup, pageSize: 1)).first?["Id"]?.stringValue)
        try await deleteOnServer(id)
        try manager.deleteLocally(id: id, soupName: soup)
        let sync = try await manager.syncUp(target: target(), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        XCTAssertNil(try local(id))
        XCTAssertEqual(try manager.dirtyRecords(soup).count, 0)
    }

    func testOverwriteRecreatesARecordDeletedOnTheServer() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
        let id = try XCTUnwrap(try store.query(.all(soup: soup, pageSize: 1)).first?["Id"]?.stringValue)
        try manager.updateLocally(id: id, changes: ["Title": "Resurrected"], soupName: soup)
        try await deleteOnServer(id)
        let sync = try await manager.syncUp(target: target(), options: SyncOptions(mergeMode: .overwrite), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        let recreated = try await serverRecords("SELECT Id, Title FROM Contact WHERE Title = 'Resurrected'")
        XCTAssertEqual(recreated.count, 1)
        let newId = try XCTUnwrap(recreated.first?["Id"] as? String)
        XCTAssertNotEqual(newId, id)
        XCTAssertEqual(try local(newId)?[SyncField.local], .bool(false))
    }

    func testLeaveIfChangedSkipsRecordsNewerOnTheServer() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
        let id = try XCTUnwrap(try store.query(.all(soup: soup, pageSize: 1)).first?["Id"]?.stringValue)
        try manager.updateLocally(id: id, changes: ["Title": "Mine"], soupName: soup)
        try await patchOnServer(id, ["Title": "Theirs"])
        let sync = try await manager.syncUp(target: target(), options: SyncOptions(mergeMode: .leaveIfChanged), soupName: soup)
        XCTAssertEqual(sync.status, .done)
        let theirs = try await serverRecords("SELECT Title FROM Contact WHERE Id = '\(id)'")
        XCTAssertEqual(theirs.first?["Title"] as? String, "Theirs")
        XCTAssertEqual(try local(id)?[SyncField.local], .bool(true), "the local edit stays, dirty")
    }

    func testANetworkFailureEndsFailedAndLosesNothing() async throws {
        for name in ["A", "B"] { try manager.createLocally(["LastName": .string(name)], soupName: soup) }
        await org.stop()
        let caught = await restError { _ = try await self.manager.syncUp(target: self.target(), soupName: self.soup, name: "up") }
        guard case .offline? = caught else { return XCTFail("\(String(describing: caught))") }
        XCTAssertEqual(try manager.syncStatus(name: "up")?.status, .failed)
        XCTAssertEqual(try manager.dirtyRecords(soup).count, 2, "both records are still there, still dirty")
    }
}

final class SyncManagerTests: SyncTestCase {
    func testManagerErrorsCarryTheSDKsCodes() async throws {
        XCTAssertThrowsError(try manager.syncStatus(id: 999).map { _ in () } ?? { throw MobileSyncError.noSuchSync("999") }()) {
            XCTAssertEqual(($0 as? MobileSyncError)?.code, 903)
        }
        let up = try manager.createSyncUp(target: SyncUpTarget(), soupName: soup)
        do {
            _ = try await manager.cleanResyncGhosts(syncId: up.id)
            XCTFail("ghosts on a sync up")
        } catch {
            XCTAssertEqual((error as? MobileSyncError)?.code, 904)
        }
        do {
            try await manager.restart(restartStoppedSyncs: false)
            XCTFail("restart while accepting syncs")
        } catch {
            XCTAssertEqual((error as? MobileSyncError)?.code, 901)
        }
        manager.stop()
        XCTAssertEqual(manager.state, .stopped)
        do {
            _ = try await manager.reSync(id: up.id)
            XCTFail("a stopped manager ran a sync")
        } catch {
            XCTAssertEqual((error as? MobileSyncError)?.code, 900)
        }
    }

    func testASyncAlreadyRunningIsRefused() async throws {
        _ = try await org.admin(["latencyMs": 300])
        let sync = try manager.createSyncDown(target: contactsQuery, soupName: soup)
        let manager = self.manager!
        let first = Task { try await manager.reSync(id: sync.id) }
        var code: Int?
        for _ in 0..<50 where code == nil {
            if try manager.syncStatus(id: sync.id)?.status == .running {
                do { _ = try await manager.reSync(id: sync.id) } catch { code = (error as? MobileSyncError)?.code }
            } else {
                try await Task.sleep(nanoseconds: 20_000_000)
            }
        }
        XCTAssertEqual(code, 902)
        _ = try await first.value
    }

    func testASyncLeftRunningByADeadProcessIsStoppedWhenAManagerOpensTheStore() async throws {
        var state = try manager.createSyncDown(target: contactsQuery, soupName: soup, name: "interrupted")
        state.status = .running
        try manager.save(state)
        let another = try SyncManager(store: store, client: client)
        XCTAssertEqual(try another.syncStatus(name: "interrupted")?.status, .stopped)
    }

    func testNamedSyncsFromTheBundleAreCreatedOnceAndNamesAreUnique() throws {
        let config = TestSupport.fixtureApp.appendingPathComponent("usersyncs.json")
        try manager.createSyncs(fromConfig: config)
        try manager.createSyncs(fromConfig: config)
        XCTAssertEqual(try manager.allSyncs().compactMap(\.name).sorted(), ["syncDownContacts", "syncUpContacts"])
        XCTAssertEqual(try manager.syncStatus(name: "syncUpContacts")?.options.mergeMode, .leaveIfChanged)
        XCTAssertThrowsError(try manager.createSyncDown(target: contactsQuery, soupName: soup, name: "syncDownContacts")) {
            XCTAssertEqual($0 as? MobileSyncError, .duplicateName("syncDownContacts"))
        }
        try manager.deleteSync(name: "syncDownContacts")
        XCTAssertNil(try manager.syncStatus(name: "syncDownContacts"))
    }

    func testTheSOQLTargetCompletesTheQueryAsTheSDKDoes() {
        XCTAssertEqual(
            SoqlSyncDownTarget.prepare("select FirstName, LastName from Contact limit 100", maxTimeStamp: -1),
            "select Id,LastModifiedDate,FirstName, LastName from Contact order by LastModifiedDate limit 100")
        XCTAssertEqual(
            SoqlSyncDownTarget.prepare("SELECT Id, LastModifiedDate FROM Contact WHERE Department = 'IT' OR Title = 'CEO' ORDER BY LastName", maxTimeStamp: 86_400_000),
            "SELECT Id, LastModifiedDate FROM Contact where LastModifiedDate > 1970-01-02T00:00:00.000Z and (Department = 'IT' OR Title = 'CEO') ORDER BY LastName")
    }
}

/// A record locked at the org when a sync up reaches it (issue 39): as Salesforce's clients must, Mobile Sync
/// keeps it dirty with the server's `UNABLE_TO_LOCK_ROW` in `__last_error__`, pushes the others, and the next sync
/// up retries it. The SDK does the same: `SFSyncUpTarget` records a failed record's error and leaves it local.
final class SyncUpRecordLockTests: SyncTestCase {
    override var recordLockTimeout: TimeInterval { 0.4 }

    func testARecordLockedAtTheOrgStaysDirtyWithTheErrorAndTheNextSyncPushesIt() async throws {
        _ = try await manager.syncDown(target: contactsQuery, soupName: soup)
        let ids = try store.query(.all(soup: soup, orderPath: "Id", pageSize: 2)).compactMap { $0["Id"]?.stringValue }
        try manager.updateLocally(id: ids[0], changes: ["Title": "Locked"], soupName: soup)
        try manager.updateLocally(id: ids[1], changes: ["Title": "Free"], soupName: soup)
        // Held for a few seconds: the first sync up comes at once; a later one, after the hold, pushes it.
        let answer = try await org.admin(["holdRecordLock": ["id": ids[0], "seconds": 4]])
        XCTAssertNotNil(answer["heldRecordLock"], "\(answer)")
        let first = try await manager.syncUp(target: SyncUpTarget(createFieldlist: fields, updateFieldlist: fields), soupName: soup)
        XCTAssertEqual(first.status, .done)
        let dirty = try manager.dirtyRecords(soup)
        XCTAssertEqual(dirty.compactMap { $0["Id"]?.stringValue }, [ids[0]])
        XCTAssertTrue(dirty.first?[SyncField.lastError]?.stringValue?.contains("UNABLE_TO_LOCK_ROW") == true, "\(String(describing: dirty.first?[SyncField.lastError]))")
        let free = try await serverRecords("SELECT Title FROM Contact WHERE Id = '\(ids[1])'")
        XCTAssertEqual(free.first?["Title"] as? String, "Free")

        // Sync up again until the lock is gone (each try waits for it 0.4 s): the record reaches the org.
        var tries = 0
        while try manager.dirtyRecords(soup).count > 0 && tries < 40 {
            tries += 1
            try await Task.sleep(for: .milliseconds(250))
            _ = try await manager.syncUp(target: SyncUpTarget(createFieldlist: fields, updateFieldlist: fields), soupName: soup)
        }
        let left = try manager.dirtyRecords(soup)
        XCTAssertEqual(left.count, 0, "the record stayed dirty: \(String(describing: left.first?[SyncField.lastError]))")
        let pushed = try await serverRecords("SELECT Title FROM Contact WHERE Id = '\(ids[0])'")
        XCTAssertEqual(pushed.first?["Title"] as? String, "Locked")
    }
}
