import FastJSON
import AppGroup
import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import SmartStoreEngine

/// The SDK's store cases (SFSmartStoreTests), rewritten; each runs on a user store and on a global
/// store, as the SDK's do. Not rewritten: the SQLCipher and compile-option cases (no SQLCipher here;
/// docs/differences.md) and the input-stream buffer case (no streams in our reader).
final class StoreTests: XCTestCase {
    let testSoup = "testSoup"
    var stores: [SmartStore] = []

    override func tearDown() { stores = []; super.tearDown() }

    override func setUpWithError() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let user = StoreUser(orgId: "00D000000000001AAA", userId: "005000000000001AAA")
        let manager = StoreManager(sdkRoot: DeviceLayout.SDKRoot(dir), isLoggedIn: { _ in true })
        stores = [try manager.store(for: user), try manager.globalStore()]
    }

    private func elements(_ store: SmartStore, _ values: [SoupEntry]) throws -> [JSON] {
        try store.upsert(values, into: testSoup).map { JSON.object($0) }
    }

    private func table(_ store: SmartStore, _ soup: String) throws -> String {
        try store.read { db in try store.requireSoup(db, soup).table }
    }

    /// The first line of SQLite's plan for the query the spec runs.
    private func plan(_ store: SmartStore, _ spec: QuerySpec) throws -> String {
        try store.read { db in
            let (sql, arguments) = try store.sql(for: spec, db)
            return try Row.fetchAll(db, sql: "EXPLAIN QUERY PLAN " + sql, arguments: arguments).first?["detail"] ?? ""
        }
    }

    /// The SDK's `runQueryCheckResultsAndExplainPlan`: the rows, and the soup's first index in the plan.
    private func check(_ store: SmartStore, _ spec: QuerySpec, page: Int = 0, _ expected: [JSON], covering: Bool = false, operation: String?,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        XCTAssertEqual(try store.query(spec, pageIndex: page), expected, file: file, line: line)
        guard let operation else { return }
        let t = try table(store, testSoup)
        let detail = try plan(store, spec)
        XCTAssertTrue(detail.hasPrefix("\(operation) \(t) USING \(covering ? "COVERING " : "")INDEX \(t)_0_idx"), "plan: \(detail)", file: file, line: line)
    }

    // MARK: Projection

    private let projected = JSON(text: #"{"a":"va", "b":2, "c":[0,1,2], "d": {"d1":"vd1", "d2":"vd2", "d3":[1,2], "d4":{"e":5}}}"#)!

    func testProjectTopLevel() {
        XCTAssertEqual(projected.project(""), projected)
        XCTAssertEqual(projected.project("a"), "va")
        XCTAssertEqual(projected.project("b"), 2)
        XCTAssertEqual(projected.project("c"), [0, 1, 2])
        XCTAssertEqual(projected.project("d"), JSON(text: #"{"d1":"vd1", "d2":"vd2", "d3":[1,2], "d4":{"e":5}}"#))
    }

    func testProjectNested() {
        XCTAssertEqual(projected.project("d.d1"), "vd1")
        XCTAssertEqual(projected.project("d.d2"), "vd2")
        XCTAssertEqual(projected.project("d.d3"), [1, 2])
        XCTAssertEqual(projected.project("d.d4"), ["e": 5])
        XCTAssertEqual(projected.project("d.d4.e"), 5)
    }

    func testProjectThroughArrays() {
        let json = JSON(text: #"{"a":"a1", "b":2, "c":[{"cc":"cc1"}, {"cc":2}, {"cc":[1,2,3]}, {}, {"cc":{"cc5":5}}], "d":[{"dd":[{"ddd":"ddd11"},{"ddd":"ddd12"}]}, {"dd":[{"ddd":"ddd21"}]}, {"dd":[{"ddd":"ddd31"},{"ddd3":"ddd32"}]}]}"#)!
        XCTAssertEqual(json.project("c"), JSON(text: #"[{"cc":"cc1"}, {"cc":2}, {"cc":[1,2,3]}, {}, {"cc":{"cc5":5}}]"#))
        XCTAssertEqual(json.project("c.cc"), JSON(text: #"["cc1",2, [1,2,3], {"cc5":5}]"#))
        XCTAssertEqual(json.project("c.cc.cc5"), [5])
        XCTAssertEqual(json.project("d.dd"), JSON(text: #"[[{"ddd":"ddd11"},{"ddd":"ddd12"}], [{"ddd":"ddd21"}], [{"ddd":"ddd31"},{"ddd3":"ddd32"}]]"#))
        XCTAssertEqual(json.project("d.dd.ddd"), JSON(text: #"[["ddd11","ddd12"],["ddd21"],["ddd31"]]"#))
        XCTAssertEqual(json.project("d.dd.ddd3"), JSON(text: #"[["ddd32"]]"#))
    }

    // MARK: Soups

    func testMetaDataTablesCreated() throws {
        for store in stores {
            let tables = try store.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table'") }
            XCTAssertTrue(tables.contains("soup_index_map"))
            XCTAssertTrue(tables.contains("soup_attrs"))
        }
    }

    func testRegisterRemoveSoupWithStringIndexes() throws { try registerRemove(.string) }

    func testRegisterRemoveSoupWithJSON1Indexes() throws { try registerRemove(.json1) }

    private func registerRemove(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            for iteration in 1...10 {
                XCTAssertFalse(try store.soupExists(testSoup), "iteration \(iteration)")
                try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type), IndexSpec(path: "value", type: .string)])
                XCTAssertTrue(try store.soupExists(testSoup))
                let t = try table(store, testSoup)
                let column0 = type == .json1 ? "json_extract(soup, '$.key')" : "\(t)_0"
                let column1 = "\(t)_1"
                let map = try store.read { db in
                    try Row.fetchAll(db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = ? ORDER BY rowid", arguments: [self.testSoup])
                        .map { [$0["path"] as String, $0["columnName"] as String, $0["columnType"] as String] }
                }
                XCTAssertEqual(map, [["key", column0, type.rawValue], ["value", column1, "string"]])
                let columns = try store.read { db in try Row.fetchAll(db, sql: "PRAGMA table_info(\(t))").map { $0["name"] as String } }
                XCTAssertEqual(columns, ["id", "soup", "created", "lastModified"] + (type == .json1 ? [column1] : [column0, column1]))
                let indexes = try store.read { db in
                    Set(try String.fetchAll(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL", arguments: [t]))
                }
                XCTAssertEqual(indexes, [
                    "CREATE INDEX \(t)_0_idx ON \(t) ( \(column0) )", "CREATE INDEX \(t)_1_idx ON \(t) ( \(column1) )",
                    "CREATE INDEX \(t)_created_idx ON \(t) ( created )", "CREATE INDEX \(t)_lastModified_idx ON \(t) ( lastModified )",
                ])
                try store.removeSoup(testSoup)
                XCTAssertFalse(try store.soupExists(testSoup))
            }
        }
    }

    func testMultipleRegisterSameSoup() throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "name", type: .string)])
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "name", type: .string)])
            XCTAssertEqual(try store.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM soup_attrs WHERE soupName = ?", arguments: [self.testSoup]) }, 1)
            try store.removeSoup(testSoup)
            XCTAssertFalse(try store.soupExists(testSoup))
        }
    }

    // MARK: Queries, with the index each one uses

    private let keys: [SoupEntry] = [
        ["key": "ka1", "value": "va1", "otherValue": "ova1"], ["key": "ka2", "value": "va2", "otherValue": "ova2"],
        ["key": "ka3", "value": "va3", "otherValue": "ova3"],
    ]
    private let likes: [SoupEntry] = [
        ["key": "abcd", "value": "va1", "otherValue": "ova1"], ["key": "bbcd", "value": "va2", "otherValue": "ova2"],
        ["key": "abcc", "value": "va3", "otherValue": "ova3"], ["key": "defg", "value": "va1", "otherValue": "ova1"],
    ]

    func testAllQueryWithStringIndex() throws { try allQuery(.string) }
    func testAllQueryWithJSON1Index() throws { try allQuery(.json1) }

    private func allQuery(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type)])
            let e = try elements(store, keys)
            try check(store, .all(soup: testSoup, orderPath: "key", pageSize: 2), [e[0], e[1]], operation: "SCAN")
            try check(store, .all(soup: testSoup, orderPath: "key", pageSize: 2), page: 1, [e[2]], operation: "SCAN")
            try check(store, .all(soup: testSoup, orderPath: "key", pageSize: 10), e, operation: "SCAN")
            try check(store, .all(soup: testSoup, orderPath: "key", pageSize: 10, selectPaths: ["key"]), [["ka1"], ["ka2"], ["ka3"]],
                      covering: type == .string, operation: type == .string ? "SCAN" : nil)
        }
    }

    func testRangeQueryWithStringIndex() throws { try rangeQuery(.string) }
    func testRangeQueryWithJSON1Index() throws { try rangeQuery(.json1) }

    private func rangeQuery(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type)])
            let e = try elements(store, keys)
            try check(store, .range(soup: testSoup, path: "key", begin: "ka2", end: "ka3", orderPath: "key", pageSize: 10), [e[1], e[2]], operation: "SEARCH")
            try check(store, .range(soup: testSoup, path: "key", begin: "ka2", end: "ka3", orderPath: "key", order: .descending, pageSize: 10), [e[2], e[1]],
                      operation: "SEARCH")
            try check(store, .range(soup: testSoup, path: "key", begin: "ka2", end: "ka3", orderPath: "key", order: .descending, pageSize: 10, selectPaths: ["key"]),
                      [["ka3"], ["ka2"]], covering: type == .string, operation: type == .string ? "SEARCH" : nil)
        }
    }

    func testLikeQueryWithStringIndex() throws { try likeQuery(.string) }
    func testLikeQueryWithJSON1Index() throws { try likeQuery(.json1) }

    private func likeQuery(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type)])
            let e = try elements(store, likes)
            try check(store, .like(soup: testSoup, path: "key", pattern: "abc%", orderPath: "key"), [e[2], e[0]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "%bcd", orderPath: "key"), [e[0], e[1]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "abc%", orderPath: "key", order: .descending), [e[0], e[2]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "%bcd", orderPath: "key", order: .descending), [e[1], e[0]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "%bc%", orderPath: "key"), [e[2], e[0], e[1]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "%bc%", orderPath: "key", order: .descending), [e[1], e[0], e[2]], operation: "SCAN")
            try check(store, .like(soup: testSoup, path: "key", pattern: "%bc%", orderPath: "key", order: .descending, selectPaths: ["key"]),
                      [["bbcd"], ["abcd"], ["abcc"]], covering: type == .string, operation: type == .string ? "SCAN" : nil)
        }
    }

    func testSmartQueryWithStringIndex() throws { try smartQuery(.string) }
    func testSmartQueryWithJSON1Index() throws { try smartQuery(.json1) }

    private func smartQuery(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type)])
            _ = try elements(store, likes)
            try check(store, .smart("SELECT {testSoup:key} FROM {testSoup} WHERE {testSoup:key} LIKE 'abc%' ORDER BY {testSoup:key}", pageSize: 10),
                      [["abcc"], ["abcd"]], covering: type == .string, operation: "SCAN")
            try check(store, .smart("SELECT {testSoup:key} FROM {testSoup} ORDER BY {testSoup:key}", pageSize: 2), [["abcc"], ["abcd"]],
                      covering: type == .string, operation: "SCAN")
        }
    }

    func testQueryDataWithSpecialCharactersWithStringIndex() throws { try specialCharacters(.string) }
    func testQueryDataWithSpecialCharactersWithJSON1Index() throws { try specialCharacters(.json1) }

    private func specialCharacters(_ type: IndexSpec.IndexType) throws {
        // Every UTF-16 code unit from 1 to 999, as the SDK's case builds it (none is a surrogate).
        let value = String((1..<1000).map { Character(Unicode.Scalar(UInt16($0))!) })
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: type), IndexSpec(path: "value", type: type)])
            _ = try elements(store, [["key": "abcd", "value": .string("abcd" + value)], ["key": "defg", "value": .string("defg" + value)]])
            try check(store, .smart("SELECT {testSoup:value} FROM {testSoup} ORDER BY {testSoup:key}", pageSize: 10),
                      [[.string("abcd" + value)], [.string("defg" + value)]], operation: nil)
        }
    }

    func testRemoveEntriesByIds() throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: .string)])
            let e = try elements(store, likes)
            let ids = e.compactMap { $0[SoupField.entryId]?.intValue }
            try store.remove(ids: [ids[1], ids[3]], from: testSoup)
            try check(store, .all(soup: testSoup, orderPath: "key"), [e[2], e[0]], operation: "SCAN")
            try store.remove(ids: [ids[0]], from: testSoup)
            try check(store, .all(soup: testSoup, orderPath: "key"), [e[2]], operation: "SCAN")
        }
    }

    func testRemoveEntriesByQuery() throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: .string)])
            let e = try elements(store, likes)
            try store.remove(matching: .like(soup: testSoup, path: "key", pattern: "abc%", orderPath: "key"))
            try check(store, .all(soup: testSoup, orderPath: "key"), [e[1], e[3]], operation: "SCAN")
            // As the SDK does, one page of the query: the first entry by key.
            try store.remove(matching: .all(soup: testSoup, orderPath: "key", pageSize: 1))
            try check(store, .all(soup: testSoup, orderPath: "key"), [e[3]], operation: "SCAN")
        }
    }

    func testAggregateQueryOnFloatingIndexedField() throws { try aggregate(.floating) }
    func testAggregateQueryOnJSON1IndexedField() throws { try aggregate(.json1) }

    private func aggregate(_ type: IndexSpec.IndexType) throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "amount", type: type)])
            _ = try elements(store, [["amount": 10.2], ["amount": 9.9]])
            let rows = try store.query(.smart("select sum({testSoup:amount}) from {testSoup}", pageSize: 10))
            XCTAssertEqual(rows.first?.arrayValue?.first?.doubleValue ?? 0, 20.1, accuracy: 1e-9)
        }
    }

    func testSelectUnderscoreSoup() throws {
        let store = stores[0]
        try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: .string)])
        let e = try elements(store, [["key": "ka1", "value": "va1"], ["key": "ka2", "value": "va2"], ["key": "ka3", "value": "va3"], ["key": "ka4", "value": "va4"]])
        try check(store, .smart("SELECT {testSoup:_soup} FROM {testSoup} ORDER BY {testSoup:key}", pageSize: 10), e.map { [$0] }, operation: "SCAN")
    }

    func testSelectUnderscoreSoupFromMultipleSoups() throws {
        let store = stores[0]
        try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: .string)])
        try store.registerSoup("otherTestSoup", indexSpecs: [IndexSpec(path: "key", type: .string)])
        let first = try XCTUnwrap(try store.upsert([["key": "ka1", "value": "va1"]], into: testSoup).first)
        let second = try XCTUnwrap(try store.upsert([["key": "ka1", "value": "va1", "otherValue": "ova1"]], into: "otherTestSoup").first)
        XCTAssertEqual(try store.query(.smart("SELECT {testSoup:_soup}, {otherTestSoup:_soup} FROM {testSoup}, {otherTestSoup}", pageSize: 10)),
                       [[.object(first), .object(second)]])
    }

    // MARK: Cursors

    func testValidQueryWithStoreCursor() throws {
        for store in stores {
            try store.registerSoup(testSoup, indexSpecs: [IndexSpec(path: "key", type: .string)])
            _ = try elements(store, keys)
            let cursor = try store.cursor(.all(soup: testSoup, orderPath: "key", pageSize: 2))
            XCTAssertEqual(cursor.pageSize, 2)
            XCTAssertEqual(cursor.currentPageIndex, 0)
            XCTAssertEqual(cursor.totalPages, 2)
            XCTAssertEqual(cursor.totalEntries, 3)
            XCTAssertEqual(cursor.entries.map { $0["key"] }, ["ka1", "ka2"])
        }
    }

    func testInvalidQueryWithStoreCursor() throws {
        for store in stores {
            XCTAssertFalse(try store.soupExists(testSoup))
            XCTAssertThrowsError(try store.cursor(.all(soup: testSoup, orderPath: "key", pageSize: 2)))
        }
    }
}
