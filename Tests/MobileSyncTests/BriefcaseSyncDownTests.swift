import AppGroupSimTestSupport
import CoreEngine
import CoreNetworkEngine
import FastJSON
import Foundation
import OrgSimulator
import SmartStoreEngine
import XCTest

@testable import MobileSyncEngine

/// The briefcase assigned to the app in these tests: every Account, then the first 500 Contacts by id.
let fieldAccounts = OrgDefinition.Briefcase(name: "Field accounts", rules: [.init(object: "Account"), .init(object: "Contact", limit: 500)])

/// The briefcase sync down: each type into its own soup, in slices of `countIdsPerRetrieve` ids.
final class BriefcaseSyncDownTests: SyncTestCase {
    override var connectedApps: [OrgDefinition.ConnectedApp] {
        [OrgDefinition.ConnectedApp(consumerKey: OrgHarness.app.clientId, redirectURIs: [], scopes: [], briefcases: [fieldAccounts])]
    }
    let accountsSoup = "accounts"
    var target: BriefcaseSyncDownTarget {
        BriefcaseSyncDownTarget(
            infos: [.init(soupName: accountsSoup, sobjectType: "Account", fieldlist: ["Name", "Industry"]), .init(soupName: soup, sobjectType: "Contact", fieldlist: ["LastName"])],
            countIdsPerRetrieve: 100)
    }

    override func setUp() async throws {
        try await super.setUp()
        try store.registerSoup(accountsSoup, indexSpecs: try store.indices(for: soup))
    }

    func ids(_ soql: String) async throws -> [String] { try await serverRecords(soql).compactMap { $0["Id"] as? String } }

    func localIds(_ soupName: String) throws -> [String] {
        try store.query(.smart("SELECT {\(soupName):Id} FROM {\(soupName)} ORDER BY {\(soupName):Id}", pageSize: 100_000)).compactMap { $0.arrayValue?.first?.stringValue }
    }

    func testEachTypeGoesToItsSoupInSlicesOfIdsAndReSyncFetchesOnlyWhatChanged() async throws {
        let log = ProgressLog()
        let sync = try await manager.syncDown(target: target, soupName: soup, name: "briefcase") { log.add($0) }
        XCTAssertEqual(sync.status, .done)
        XCTAssertEqual(sync.totalSize, 620)
        XCTAssertEqual(log.all.filter { $0.status == .running }.count, 1 + 7, "the start, then 620 ids by 100")
        let serverAccounts = try await ids("SELECT Id FROM Account ORDER BY Id")
        let serverContacts = try await ids("SELECT Id FROM Contact ORDER BY Id")
        XCTAssertEqual(try localIds(accountsSoup), serverAccounts)
        XCTAssertEqual(try localIds(soup), Array(serverContacts.prefix(500)))
        let account = try XCTUnwrap(try store.query(.all(soup: accountsSoup, pageSize: 1)).first?.objectValue)
        XCTAssertNotNil(account["Name"]?.stringValue)
        XCTAssertNotNil(account["LastModifiedDate"]?.stringValue, "the id and date fields are added to the list")
        XCTAssertEqual(account[SyncField.syncId], .int(sync.id))
        XCTAssertEqual(account[SyncField.local], .bool(false))
        XCTAssertNil(account["LastName"], "an account gets the account info's fields")

        let changed = try XCTUnwrap(try localIds(accountsSoup).dropFirst(3).first)
        try await client.send(try .json("PATCH", "/services/data/v66.0/sobjects/Account/\(changed)", ["Name": "Renamed"]))
        let again = try await manager.reSync(id: sync.id)
        XCTAssertEqual(again.totalSize, 1, "only the record changed after the last sync")
        XCTAssertEqual(try store.query(.exact(soup: accountsSoup, path: "Id", value: .string(changed))).first?["Name"], "Renamed")
    }

    func testTheStoredTargetIsTheSDKsFormAndComesBackTheSame() throws {
        let json = target.json
        XCTAssertEqual(json["type"], "briefcase")
        XCTAssertEqual(json["iOSImpl"], "SFBriefcaseSyncDownTarget")
        XCTAssertEqual(json["countIdsPerRetrieve"], .int(100))
        XCTAssertEqual(json["infos"]?.arrayValue?.first?["idFieldName"], "Id")
        let back = try XCTUnwrap(try manager.makeTarget(json) as? BriefcaseSyncDownTarget)
        XCTAssertEqual(back.infos, target.infos)
        XCTAssertEqual(BriefcaseSyncDownTarget(infos: target.infos, countIdsPerRetrieve: 5000).countIdsPerRetrieve, 2000, "above the maximum: the maximum")
        XCTAssertEqual(BriefcaseSyncDownTarget(infos: target.infos, countIdsPerRetrieve: 0).countIdsPerRetrieve, 2000)
        var custom = json.objectValue ?? [:]
        custom["infos"] = .array([BriefcaseObjectInfo(soupName: "a", sobjectType: "Account", fieldlist: [], idFieldName: "ExternalId__c").json])
        XCTAssertThrowsError(try manager.makeTarget(.object(custom))) { XCTAssertTrue("\($0)".contains("ExternalId__c"), "\($0)") }
    }

    func testGhostsAreCleanedInEverySoupAndLocalRecordsStay() async throws {
        let sync = try await manager.syncDown(target: target, soupName: soup, name: "briefcase")
        let accounts = try localIds(accountsSoup)
        let contacts = try localIds(soup)
        for id in accounts.prefix(2) { try await client.send(RestRequest(method: "DELETE", path: "/services/data/v66.0/sobjects/Account/\(id)")) }
        try await deleteOnServer(contacts[10])
        try store.upsert([["Id": "local_1", "Name": "Made here", SyncField.local: .bool(true), SyncField.locallyCreated: .bool(true)]], into: accountsSoup)
        let removed = try await manager.cleanResyncGhosts(syncId: sync.id)
        XCTAssertEqual(removed, 3)
        XCTAssertEqual(try localIds(accountsSoup), (Array(accounts.dropFirst(2)) + ["local_1"]).sorted())
        XCTAssertFalse(try localIds(soup).contains(contacts[10]))
        XCTAssertEqual(try localIds(soup).count, 499, "the contact that moved into the rule's 500 is not fetched by cleaning")
    }
}

/// The org answers 50 priming records at a time: a sync down reads the first page only, as the SDK at aea9bf3
/// does (it never keeps the relay token), while cleaning ghosts reads every page.
final class BriefcaseFirstPageTests: SyncTestCase {
    override var connectedApps: [OrgDefinition.ConnectedApp] {
        [OrgDefinition.ConnectedApp(consumerKey: OrgHarness.app.clientId, redirectURIs: [], scopes: [], briefcases: [fieldAccounts], primingRecordsPerResponse: 50)]
    }

    func testASyncDownReadsOnePageOfPrimingRecordsAndGhostCleaningReadsThemAll() async throws {
        try store.registerSoup("accounts", indexSpecs: try store.indices(for: soup))
        let target = BriefcaseSyncDownTarget(infos: [
            .init(soupName: "accounts", sobjectType: "Account", fieldlist: ["Name"]), .init(soupName: soup, sobjectType: "Contact", fieldlist: ["LastName"]),
        ])
        let sync = try await manager.syncDown(target: target, soupName: soup, name: "briefcase")
        XCTAssertEqual(sync.totalSize, 50)
        XCTAssertEqual(try store.count(.all(soup: "accounts")), 50)
        XCTAssertEqual(try localCount(), 0, "contacts come after the 120 accounts, past the first page")
        let remote = try await target.remoteIdsBySoup(client: client, store: store, soupName: soup)
        XCTAssertEqual(remote["accounts"]?.count, 120)
        XCTAssertEqual(remote[soup]?.count, 500)
        let removed = try await manager.cleanResyncGhosts(syncId: sync.id)
        XCTAssertEqual(removed, 0)
    }
}
