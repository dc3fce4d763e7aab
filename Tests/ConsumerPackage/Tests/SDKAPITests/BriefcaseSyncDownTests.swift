// The SDK's BriefcaseSyncDownTests (libs/MobileSync/MobileSyncTests/BriefcaseSyncDownTests.swift at aea9bf3), rewritten
// against the SDK-named products and a simulated org whose briefcase holds the records named BriefcaseTest_… (the
// SDK's test org has such a briefcase; its test makes the records, then syncs them down):
// testSyncDownFetchingTwoObjectTypesMultipleRetrieveCalls (two types, 3 ids per retrieve, each into its soup),
// testStartFetchWithMaxTimestamp (here as a re-sync, which fetches only what was made after the first sync),
// testCleanGhostsTwoObjectTypes (ghosts removed in both soups, local records kept) and testIdsToSkip (the dirty
// records of both soups). The SDK's priming-records response is read as the SDK's PrimingRecordsResponse.
import AppGroupSimTesting
import Foundation
import MobileSync
import XCTest

final class BriefcaseSyncDownTests: XCTestCase {
    let accountsSoup = "accounts"
    let contactsSoup = "contacts"
    let prefix = "BriefcaseTest_\(UUID().uuidString.prefix(6))_"

    /// The fixture org, with a briefcase for this app: the accounts and contacts named `BriefcaseTest_…`.
    func orgDefinition() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("briefcase-org-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let fixture = packageRoot.appendingPathComponent("Fixtures/org")
        try FileManager.default.copyItem(at: fixture.appendingPathComponent("objects.json"), to: directory.appendingPathComponent("objects.json"))
        var orgs = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: fixture.appendingPathComponent("orgs.json"))) as? [String: Any])
        var apps = try XCTUnwrap(orgs["connectedApps"] as? [[String: Any]])
        let explorer = try XCTUnwrap(apps.firstIndex { ($0["name"] as? String) == "MobileSyncExplorer" })
        apps[explorer]["briefcases"] = [["name": "Briefcase tests", "rules": [
            ["object": "Account", "filter": "Name LIKE 'BriefcaseTest_%'"], ["object": "Contact", "filter": "LastName LIKE 'BriefcaseTest_%'"],
        ]]]
        orgs["connectedApps"] = apps
        try JSONSerialization.data(withJSONObject: orgs).write(to: directory.appendingPathComponent("orgs.json"))
        return directory
    }

    /// The answer to `request`, waited for.
    func send(_ request: RestRequest) throws -> Any? {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<Any?, Error>>()
        RestClient.shared.send(request, failureBlock: { _, error, _ in
            box.value = .failure(error ?? NSError(domain: "test", code: 0))
            done.signal()
        }, successBlock: { response, _ in
            box.value = .success(response)
            done.signal()
        })
        XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
        return try XCTUnwrap(box.value).get()
    }

    /// Makes `count` records of `type` on the server; their ids by name.
    func createRecords(onServer count: Int, objectType type: String) throws -> [String: String] {
        var made: [String: String] = [:]
        for i in 0..<count {
            let name = "\(prefix)\(type)_\(i)"
            let fields: [String: Any] = type == "Contact" ? ["LastName": name] : ["Name": name]
            let answer = try send(RestClient.shared.requestForCreate(withObjectType: type, fields: fields, apiVersion: nil)) as? [String: Any]
            made[try XCTUnwrap(answer?["id"] as? String)] = name
        }
        return made
    }

    func deleteOnServer(_ ids: [String], objectType type: String) throws {
        for id in ids { _ = try send(RestClient.shared.requestForDelete(withObjectType: type, objectId: id, apiVersion: nil)) }
    }

    func syncDown(_ manager: SyncManager, _ target: SyncDownTarget) throws -> (state: SyncState, runningUpdates: Int) {
        let done = DispatchSemaphore(value: 0)
        let running = Box<Int>()
        let final = Box<SyncState>()
        _ = try manager.syncDown(
            target: target, options: SyncOptions.newSyncOptions(forSyncDown: .leaveIfChanged), soupName: accountsSoup, syncName: nil
        ) { state in
            if state.status == .running { running.value = (running.value ?? 0) + 1 }
            if state.status == .done || state.status == .failed {
                final.value = state
                done.signal()
            }
        }
        XCTAssertEqual(done.wait(timeout: .now() + 60), .success)
        return (try XCTUnwrap(final.value), running.value ?? 0)
    }

    func localIds(_ store: SmartStore, _ soup: String) throws -> Set<String> {
        let spec = QuerySpec.buildSmartQuerySpec(smartSql: "SELECT {\(soup):Id} FROM {\(soup)}", pageSize: 10_000)!
        return Set(try store.query(using: spec, startingFromPageIndex: 0).compactMap { ($0 as? [Any])?.first as? String })
    }

    func testTwoObjectTypesInSlicesThenReSyncThenGhostsThenIdsToSkip() async throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: try orgDefinition())
        defer { Task { await org.stop() } }
        try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")

        try device.run(as: appURL) {
            MobileSyncSDKManager.initializeSDK()
            let user = try XCTUnwrap(UserAccountManager.shared.currentUserAccount)
            let store = try XCTUnwrap(SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user))
            for soup in [accountsSoup, contactsSoup] where !store.soupExists(forName: soup) {
                try store.registerSoup(withName: soup, withIndices: SoupIndex.asArraySoupIndexes([
                    ["path": "Id", "type": "string"], ["path": "__local__", "type": "string"], ["path": "__sync_id__", "type": "integer"],
                ]))
            }
            let manager = SyncManager.sharedInstance(forUserAccount: user)

            // Priming records, read as the SDK reads them.
            let accounts = try createRecords(onServer: 12, objectType: "Account")
            let contacts = try createRecords(onServer: 12, objectType: "Contact")
            let priming = PrimingRecordsResponse(try XCTUnwrap(try send(RestClient.shared.request(forPrimingRecords: nil, changedAfterTimestamp: nil, apiVersion: nil)) as? [AnyHashable: Any]))
            XCTAssertEqual(Set(priming.primingRecords["Account"]?.values.flatMap { $0 }.map(\.objectId) ?? []), Set(accounts.keys))
            XCTAssertEqual(Set(priming.primingRecords["Contact"]?.values.flatMap { $0 }.map(\.objectId) ?? []), Set(contacts.keys))
            XCTAssertNil(priming.relayToken)
            XCTAssertTrue(priming.ruleErrors.isEmpty)
            XCTAssertNotNil(priming.primingRecords["Account"]?.values.first?.first?.systemModstamp)

            // testSyncDownFetchingTwoObjectTypesMultipleRetrieveCalls: 24 ids by 3 are 8 fetches.
            let accountInfo = BriefcaseObjectInfo(soupName: accountsSoup, sobjectType: "Account", fieldlist: ["Name", "Description"])
            let contactInfo = BriefcaseObjectInfo(soupName: contactsSoup, sobjectType: "Contact", fieldlist: ["LastName"])
            let target = BriefcaseSyncDownTarget(infos: [accountInfo, contactInfo], countIdsPerRetrieve: 3)
            let (state, updates) = try syncDown(manager, target)
            XCTAssertTrue(state.isDone(), state.error)
            XCTAssertEqual(state.totalSize, 24)
            XCTAssertEqual(updates, 1 + 8, "the start, then one update per fetch")
            XCTAssertEqual(try localIds(store, accountsSoup), Set(accounts.keys))
            XCTAssertTrue(Set(contacts.keys).isSubset(of: try localIds(store, contactsSoup)))

            // testStartFetchWithMaxTimestamp: records made after the sync are what a re-sync fetches.
            Thread.sleep(forTimeInterval: 1.0)
            let newer = try createRecords(onServer: 5, objectType: "Account").merging(try createRecords(onServer: 0, objectType: "Contact")) { a, _ in a }
            let reSynced = Box<SyncState>()
            let reDone = DispatchSemaphore(value: 0)
            _ = try manager.reSync(id: NSNumber(value: state.syncId)) { s in
                if s.status == .done || s.status == .failed { reSynced.value = s; reDone.signal() }
            }
            XCTAssertEqual(reDone.wait(timeout: .now() + 60), .success)
            XCTAssertEqual(reSynced.value?.totalSize, 5)
            XCTAssertTrue(Set(newer.keys).isSubset(of: try localIds(store, accountsSoup)))

            // testCleanGhostsTwoObjectTypes: ghosts go from both soups; records made on the device stay.
            let accountIds = Array(accounts.keys).sorted()
            let contactIds = Array(contacts.keys).sorted()
            try deleteOnServer(Array(accountIds[0..<2]), objectType: "Account")
            try deleteOnServer(Array(contactIds[2...]), objectType: "Contact")
            let local = store.upsert(entries: [
                ["Id": "local_1", "Name": "local_1", "attributes": ["type": "Account"], "__local__": true, "__locally_created__": true,
                 "__locally_updated__": false, "__locally_deleted__": false],
            ], forSoupNamed: accountsSoup)
            XCTAssertEqual(local.count, 1)
            let cleaned = DispatchSemaphore(value: 0)
            try manager.cleanResyncGhosts(forId: NSNumber(value: state.syncId)) { _, _ in cleaned.signal() }
            XCTAssertEqual(cleaned.wait(timeout: .now() + 30), .success)
            let accountsLeft = try localIds(store, accountsSoup)
            let contactsLeft = try localIds(store, contactsSoup)
            XCTAssertTrue(Set(accountIds[0..<2]).isDisjoint(with: accountsLeft))
            XCTAssertTrue(Set(contactIds[2...]).isDisjoint(with: contactsLeft))
            XCTAssertTrue(Set(accountIds[2...]).isSubset(of: accountsLeft))
            XCTAssertTrue(Set(contactIds[0..<2]).isSubset(of: contactsLeft))
            XCTAssertTrue(accountsLeft.contains("local_1"))

            // testIdsToSkip: the dirty records of both soups.
            let stored = try XCTUnwrap(manager.syncStatus(forId: NSNumber(value: state.syncId))?.target as? BriefcaseSyncDownTarget)
            // Read as Strings: on Linux an NSOrderedSet's `set` holds NSStrings, which AnyHashable does not equate
            // with Strings as iOS's bridging does.
            XCTAssertEqual(stored.getIdsToSkip(manager, soupName: "").array.compactMap { $0 as? String }, ["local_1"])
            let editedContact = contactIds[0]
            let spec = QuerySpec.buildExactQuerySpec(soupName: contactsSoup, path: "Id", matchKey: editedContact, orderPath: "Id", order: .ascending, pageSize: 1)
            var record = try XCTUnwrap(try store.query(using: spec, startingFromPageIndex: 0).first as? [AnyHashable: Any])
            record["__local__"] = true
            record["__locally_updated__"] = true
            _ = store.upsert(entries: [record], forSoupNamed: contactsSoup)
            XCTAssertEqual(Set(stored.getIdsToSkip(manager, soupName: "").array.compactMap { $0 as? String }), ["local_1", editedContact])
        }
    }
}
