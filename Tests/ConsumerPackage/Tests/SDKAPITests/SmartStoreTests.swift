// Mirrors the Mobile SDK's libs/SmartStore/SmartStoreTests/SmartStoreTests.swift (testRegisterSoup,
// testBadRegisterSoup, testQuery), rewritten here and run against AppGroupSim's SmartStore product, plus the
// SmartStore API's error values. The process runs as the fixture app on a simulated device
// (APPGROUPSIM_BUNDLE / APPGROUPSIM_DEVICE, set by scripts/integration/consumer-package.sh), as an iOS
// test host runs as its app.
import Foundation
import SmartStore
import XCTest

final class SmartStoreTests: XCTestCase {
    let testStoreName = "SmartStoreTestsGlobalStore"
    var store: SmartStore?

    override func setUp() {
        store = SmartStore.sharedGlobal(withName: testStoreName)
    }

    override func tearDown() {
        SmartStore.removeSharedGlobal(withName: testStoreName)
    }

    // SmartStoreTests.testRegisterSoup
    func testRegisterSoup() {
        let result = store!.registerSoup(withName: "MyTestSoup", withIndexPaths: ["key", "owner"])
        switch result {
        case .success(let val): XCTAssertTrue(val)
        case .failure: XCTFail("registerSoup should not have failed")
        }
        XCTAssertTrue(store!.soupExists(forName: "MyTestSoup"))
        XCTAssertEqual(store!.indices(forSoupNamed: "MyTestSoup").map(\.indexType), [kSoupIndexTypeJSON1, kSoupIndexTypeJSON1])
    }

    // SmartStoreTests.testBadRegisterSoup
    func testBadRegisterSoup() {
        let result = store!.registerSoup(withName: "", withIndexPaths: ["key", "owner"])
        switch result {
        case .success: XCTFail("registerSoup should have failed")
        case .failure(let error): XCTAssertNotNil(error)
        }
    }

    // SmartStoreTests.testQuery
    func testQuery() {
        _ = store!.registerSoup(withName: "MyTestSoup", withIndexPaths: ["key", "owner"])
        store!.upsert(entries: [["key": "key1", "owner": "owner1"],
                                ["key": "key2", "owner": "owner2"],
                                ["key": "key3", "owner": "owner1"]], forSoupNamed: "MyTestSoup")
        let result = store!.query("select {MyTestSoup:key} from {MyTestSoup} where {MyTestSoup:owner} = 'owner1' order by {MyTestSoup:key}")
        switch result {
        case .success(let val):
            let arr = val as! [[String]]
            XCTAssertEqual(arr, [["key1"], ["key3"]])
        case .failure: XCTFail("query should not have failed")
        }
    }

    // The global store is a file in the app's own container, where inspect and doctor look for it.
    func testTheGlobalStoreIsAFileOnTheDevice() throws {
        let path = try XCTUnwrap(store!.path)
        XCTAssertTrue(FileManager.default.fileExists(atPath: path), path)
        XCTAssertTrue(path.hasPrefix(ProcessInfo.processInfo.environment["APPGROUPSIM_DEVICE"] ?? "/nowhere"), path)
        XCTAssertTrue(SmartStore.allGlobalStoreNames.contains(testStoreName))
    }

    // Query specs as app code builds them, with paging and the SDK's page arithmetic.
    func testQuerySpecsPageAndCount() throws {
        let soup = SoupIndex(path: "Name", indexType: kSoupIndexTypeString, columnName: nil)!
        try store!.registerSoup(withName: "accounts", withIndices: [soup, SoupIndex(path: "Rank", indexType: kSoupIndexTypeInteger, columnName: nil)!])
        let entries: [[AnyHashable: Any]] = (1...7).map { ["Name": "Acme \($0)", "Rank": $0] }
        let saved = store!.upsert(entries: entries, forSoupNamed: "accounts")
        XCTAssertEqual(saved.count, 7)
        XCTAssertNotNil(saved[0][SmartStore.soupEntryId] as? NSNumber, "each saved entry has its _soupEntryId")
        // What upsert returns is what the store holds: the entry, its id and its modification date.
        let ids = saved.map { $0[SmartStore.soupEntryId] as! NSNumber }
        let stored = store!.retrieve(usingSoupEntryIds: ids, fromSoupNamed: "accounts")
        XCTAssertEqual(stored.count, 7)
        for (given, read) in zip(saved, stored) {
            XCTAssertEqual(given[SmartStore.soupEntryId] as? Int, read[SmartStore.soupEntryId] as? Int)
            XCTAssertEqual(given[SmartStore.lastModifiedDate] as? Int, read[SmartStore.lastModifiedDate] as? Int)
            XCTAssertEqual(given["Name"] as? String, read["Name"] as? String)
            XCTAssertEqual(Set(given.keys.compactMap { $0.base as? String }), Set(read.keys.compactMap { $0.base as? String }))
        }

        let all = QuerySpec.buildAllQuerySpec(soupName: "accounts", orderPath: "Rank", order: .descending, pageSize: 3)
        XCTAssertEqual(try store!.count(using: all), 7)
        let second = try store!.query(using: all, startingFromPageIndex: 1) as! [[String: Any]]
        XCTAssertEqual(second.map { $0["Rank"] as? Int }, [4, 3, 2])

        let exact = QuerySpec.buildExactQuerySpec(soupName: "accounts", path: "Name", matchKey: "Acme 5", orderPath: "Name", order: .ascending, pageSize: 10)
        XCTAssertEqual((try store!.query(using: exact, startingFromPageIndex: 0) as! [[String: Any]]).first?["Rank"] as? Int, 5)

        let like = QuerySpec.buildLikeQuerySpec(soupName: "accounts", path: "Name", likeKey: "Acme 1%", orderPath: "Name", order: .ascending, pageSize: 10)
        XCTAssertEqual(try store!.count(using: like), 1)

        let smart = try XCTUnwrap(QuerySpec.buildSmartQuerySpec(smartSql: "SELECT {accounts:Name} FROM {accounts} WHERE {accounts:Rank} > ? ORDER BY {accounts:Rank}", pageSize: 10))
        let rows = try store!.query(using: smart, startingFromPageIndex: 0, whereArgs: [5]) as! [[Any]]
        XCTAssertEqual(rows.map { $0.first as? String }, ["Acme 6", "Acme 7"])

        let id = try store!.lookupSoupEntryId(soupNamed: "accounts", fieldPath: "Name", fieldValue: "Acme 2")
        XCTAssertEqual(store!.retrieve(usingSoupEntryIds: [id], fromSoupNamed: "accounts").first?["Rank"] as? Int, 2)
        try store!.remove(entryIds: [id], forSoupNamed: "accounts")
        XCTAssertEqual(try store!.count(using: all), 6)
    }

    // Bad input gets the SDK's error values, never a crash: an unknown soup, malformed smart SQL, a query
    // on a path that is not indexed, bind arguments on a query that is not smart SQL.
    func testBadQueriesGiveTheSDKsErrors() throws {
        _ = store!.registerSoup(withName: "MyTestSoup", withIndexPaths: ["key"])
        let unknown = QuerySpec.buildAllQuerySpec(soupName: "noSuchSoup", orderPath: "key", order: .ascending, pageSize: 10)
        XCTAssertThrowsError(try store!.query(using: unknown, startingFromPageIndex: 0)) { error in
            XCTAssertEqual((error as NSError).domain, SmartStore.errorDomain)
            XCTAssertTrue("\(error)".contains("noSuchSoup"), "\(error)")
        }
        guard case .failure(.error(let malformed)) = store!.query("select {MyTestSoup:key from {MyTestSoup}") else {
            return XCTFail("malformed smart SQL must fail")
        }
        XCTAssertEqual((malformed! as NSError).domain, SmartStore.errorDomain)
        let notIndexed = QuerySpec.buildExactQuerySpec(soupName: "MyTestSoup", path: "owner", matchKey: "x", orderPath: "key", order: .ascending, pageSize: 10)
        XCTAssertThrowsError(try store!.query(using: notIndexed, startingFromPageIndex: 0))
        let exact = QuerySpec.buildExactQuerySpec(soupName: "MyTestSoup", path: "key", matchKey: "x", orderPath: "key", order: .ascending, pageSize: 10)
        XCTAssertThrowsError(try store!.query(using: exact, startingFromPageIndex: 0, whereArgs: ["y"])) { error in
            XCTAssertEqual((error as NSError).code, 5, "the SDK's kSFSmartStoreWhereArgsNotSupportedCode")
        }
        XCTAssertThrowsError(try store!.upsert(entries: [["owner": "o"]], forSoupNamed: "MyTestSoup", withExternalIdPath: "key")) { error in
            XCTAssertEqual((error as NSError).code, 3, "the SDK's kSFSmartStoreExternalIdNilCode")
        }
    }

    // An entry nested deeper than the store can read back (or than a stack holds) is refused, whole.
    func testAnEntryNestedTooDeepIsRefusedNotACrash() {
        _ = store!.registerSoup(withName: "MyTestSoup", withIndexPaths: ["key"])
        var nested: Any = "bottom"
        for _ in 0..<2_000 { nested = [nested] }
        XCTAssertThrowsError(try store!.upsert(entries: [["key": "deep", "value": nested]], forSoupNamed: "MyTestSoup", withExternalIdPath: "key")) { error in
            XCTAssertEqual((error as NSError).domain, SmartStore.errorDomain)
            XCTAssertTrue("\(error)".contains("nests deeper than 512 levels"), "refused by the conversion's bound: \(error)")
        }
        XCTAssertEqual(store!.upsert(entries: [["key": "deep", "value": nested]], forSoupNamed: "MyTestSoup").count, 0)
        var shallow: Any = "bottom"
        for _ in 0..<100 { shallow = [shallow] }
        XCTAssertEqual(store!.upsert(entries: [["key": "ok", "value": shallow]], forSoupNamed: "MyTestSoup").count, 1)
    }

    // With no current user there is no user store: nil, as the SDK.
    func testNoCurrentUserNoSharedStore() {
        XCTAssertNil(UserAccountManager.shared.currentUserAccount)
        XCTAssertNil(SmartStore.shared(withName: SmartStore.defaultStoreName))
    }

    // SFSmartSqlTests' explain-plan checks (SFSmartStoreTestCase.checkExplainQueryPlan), through the public API: a
    // query on an indexed field uses that field's index, which indices(forSoupNamed:) names by its column.
    func testExplainQueryPlanAndIndexColumns() throws {
        let store = try XCTUnwrap(store)
        try store.registerSoup(withName: "employees", withIndices: [
            try XCTUnwrap(SoupIndex(path: "lastName", indexType: kSoupIndexTypeString, columnName: nil)),
            try XCTUnwrap(SoupIndex(path: "employeeId", indexType: kSoupIndexTypeString, columnName: nil)),
        ])
        _ = try store.upsert(entries: [["lastName": "Doe", "employeeId": "00010"], ["lastName": "Roe", "employeeId": "00020"]], forSoupNamed: "employees")
        let columns = store.indices(forSoupNamed: "employees").map { $0.columnName ?? "" }
        XCTAssertEqual(columns.count, 2)
        XCTAssertTrue(columns.allSatisfy { $0.hasPrefix("TABLE_") }, "\(columns)")
        let table = String(columns[0].dropLast(2))
        XCTAssertEqual(columns, [table + "_0", table + "_1"])

        store.capturesExplainQueryPlan = true
        let spec = QuerySpec.buildSmartQuerySpec(smartSql: "select {employees:_soup} from {employees} where {employees:lastName} = 'Doe'", pageSize: 10)!
        XCTAssertEqual(try store.query(using: spec, startingFromPageIndex: 0).count, 1)
        let plan = store.lastExplainQueryPlan
        XCTAssertTrue((plan["sql"] as? String)?.hasPrefix("EXPLAIN QUERY PLAN ") ?? false)
        let detail = ((plan["rows"] as? [Any])?.first as? [String: Any])?["detail"] as? String ?? ""
        XCTAssertTrue(detail.hasPrefix("SEARCH \(table) USING INDEX \(table)_0_idx"), detail)

        store.capturesExplainQueryPlan = false
        let exact = QuerySpec.buildExactQuerySpec(soupName: "employees", path: "employeeId", matchKey: "00020", orderPath: "employeeId", order: .ascending, pageSize: 10)
        XCTAssertEqual(try store.query(using: exact, startingFromPageIndex: 0).count, 1)
        XCTAssertEqual(store.lastExplainQueryPlan["sql"] as? String, plan["sql"] as? String, "not captured once turned off")
    }

    // +dateFromLastModifiedValue:, a class method taking the stored number of milliseconds.
    func testDateFromLastModifiedValue() {
        XCTAssertEqual(SmartStore.date(lastModifiedValue: NSNumber(value: 1_700_000_000_123)).timeIntervalSince1970, 1_700_000_000.123, accuracy: 0.0001)
    }
}
