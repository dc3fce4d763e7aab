import FastJSON
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStoreEngine

final class QueryTests: XCTestCase {
    var store: SmartStore!
    let soup = Fixture.soup

    override func tearDown() { store = nil; super.tearDown() }

    override func setUpWithError() throws {
        store = try Fixture.store(self)
    }

    func testAllInOrderBothWays() throws {
        let ascending = try store.query(.all(soup: soup, orderPath: "age", pageSize: 100))
        XCTAssertEqual(ascending.compactMap { $0["age"]?.intValue }, [27, 29, 33, 36, 38, 41, 45, 47, 52, 61])
        let descending = try store.query(.all(soup: soup, orderPath: "salary", order: .descending, pageSize: 3))
        XCTAssertEqual(Fixture.lastNames(descending), ["Haas", "Thompson", "Kwan"])
    }

    func testExact() throws {
        let a00 = try store.query(.exact(soup: soup, path: "deptCode", value: "A00", orderPath: "lastName"))
        XCTAssertEqual(Fixture.lastNames(a00), ["Haas", "Lucchessi", "O'Connell"])
        XCTAssertEqual(try store.query(.exact(soup: soup, path: "deptCode", value: "Z99")), [])
    }

    func testRangeWithBeginOnlyEndOnlyBothAndNeither() throws {
        func ages(_ begin: JSON?, _ end: JSON?) throws -> [Int64] {
            try store.query(.range(soup: soup, path: "age", begin: begin, end: end, pageSize: 100)).compactMap { $0["age"]?.intValue }
        }
        XCTAssertEqual(try ages(50, nil), [52, 61])
        XCTAssertEqual(try ages(nil, 29), [27, 29])
        XCTAssertEqual(try ages(36, 41), [36, 38, 41])
        XCTAssertEqual(try ages(nil, nil).count, 10)
        let salaries = try store.query(.range(soup: soup, path: "salary", begin: 85_500.25, end: 90_000, order: .descending))
        XCTAssertEqual(Fixture.lastNames(salaries), ["Henderson", "Spenser", "Stern"])
    }

    func testLike() throws {
        let results = try store.query(.like(soup: soup, path: "deptCode", pattern: "E%", orderPath: "deptCode"))
        XCTAssertEqual(results.compactMap { $0["deptCode"]?.stringValue }, ["E01", "E11", "E21"])
    }

    func testMatchWithFullTextSearch() throws {
        XCTAssertEqual(try store.query(.match(soup: soup, path: nil, matchKey: "Haas")).count, 2)
        XCTAssertEqual(Fixture.firstNames(try store.query(.match(soup: soup, path: nil, matchKey: "E* NOT Eva"))), ["Eileen"])
        XCTAssertEqual(try store.query(.match(soup: soup, path: "firstName", matchKey: "Haas")), [], "Haas is a last name")
        let qualified = try store.query(.match(soup: soup, path: nil, matchKey: "{employees:firstName}:Eva OR {employees:lastName}:Kwan", orderPath: "lastName"))
        XCTAssertEqual(Fixture.lastNames(qualified), ["Kwan", "Pulaski"])
        XCTAssertEqual(Fixture.firstNames(try store.query(.match(soup: soup, path: "firstName", matchKey: "Mich*"))), ["Michael"])
        // The path qualifies every term not already qualified, as the SDK does: Haas as a last name, or Eva as a first name.
        let perTerm = try store.query(.match(soup: soup, path: "lastName", matchKey: "Haas OR {employees:firstName}:Eva", orderPath: "firstName"))
        XCTAssertEqual(Fixture.firstNames(perTerm), ["Christina", "Eva", "John"])
    }

    func testSmartSQLWithSpecialPathsAndUnindexedPaths() throws {
        let rows = try store.query(.smart(
            """
            SELECT {employees:lastName}, {employees:_soupEntryId}, {employees:address.zip}
            FROM {employees} WHERE {employees:age} > 50 ORDER BY {employees:age}
            """))
        XCTAssertEqual(rows, [.array(["Stern", 5, "75001"]), .array(["Lucchessi", 9, "75001"])])
        let whole = try store.query(.smart("SELECT {employees:_soup} FROM {employees} WHERE {employees:employeeId} = '00003'"))
        XCTAssertEqual(whole.first?.arrayValue?.first?["lastName"], "Kwan", "_soup comes back as the entry object")
    }

    func testSmartSQLWithWhereArgsAndAggregates() throws {
        let rows = try store.query(.smart(
            "SELECT {employees:deptCode}, count(*) FROM {employees} WHERE {employees:age} > ? GROUP BY {employees:deptCode} ORDER BY 2 DESC, 1",
            whereArgs: [40]))
        XCTAssertEqual(rows.first, .array(["A00", 2]))
    }

    func testSmartSQLLeavesBracesInQuotedStringsAlone() throws {
        try store.upsert([["employeeId": "{employees}", "lastName": "Braces"]], into: soup)
        let rows = try store.query(.smart("SELECT {employees:lastName} FROM {employees} WHERE {employees:employeeId} = '{employees}'"))
        XCTAssertEqual(rows, [.array(["Braces"])])
    }

    func testSmartSQLMustBeASelectOnAKnownSoup() throws {
        XCTAssertThrowsError(try store.query(.smart("DELETE FROM {employees}"))) {
            guard case .smartSQLNotSelect? = $0 as? SmartStoreError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try store.query(.smart("SELECT 1 FROM {employees}; DROP TABLE soup_attrs"))) {
            guard case .smartSQLNotSelect? = $0 as? SmartStoreError else { return XCTFail("\($0)") }
        }
        // White space and new lines around the statement are trimmed first: a write behind them is still a write,
        // and a second statement after a trailing semicolon is refused.
        XCTAssertThrowsError(try store.query(.smart(" \n\t\u{2003}Delete FROM {employees}"))) {
            guard case .smartSQLNotSelect? = $0 as? SmartStoreError else { return XCTFail("\($0)") }
        }
        XCTAssertEqual(try store.query(.smart("\n SELECT count(*) FROM {employees} \n\u{2003}")), [.array([10])])
        XCTAssertThrowsError(try store.query(.smart("SELECT count(*) FROM {employees}; ;"))) {
            guard case .smartSQLNotSelect? = $0 as? SmartStoreError else { return XCTFail("\($0)") }
        }
        XCTAssertThrowsError(try store.query(.smart("SELECT {nope:_soup} FROM {nope}"))) {
            XCTAssertEqual($0 as? SmartStoreError, .smartSQLUnknownSoup("nope"))
        }
        XCTAssertEqual(try store.count(.all(soup: soup)), 10)
    }

    func testWhereArgsOnAQueryThatIsNotSmartIsError5() throws {
        var spec = QuerySpec.exact(soup: soup, path: "deptCode", value: "A00")
        spec.whereArgs = ["x"]
        XCTAssertThrowsError(try store.query(spec)) { XCTAssertEqual(($0 as? SmartStoreError)?.code, 5) }
    }

    func testQueriesOnPathsThatAreNotIndexedAreErrors() throws {
        XCTAssertThrowsError(try store.query(.exact(soup: soup, path: "address.zip", value: "75001"))) {
            XCTAssertEqual($0 as? SmartStoreError, .pathNotIndexed(soup: soup, path: "address.zip"))
        }
    }

    func testBooleansInJSON1IndexesCompareAsOneAndZero() throws {
        XCTAssertEqual(try store.count(.exact(soup: soup, path: "isManager", value: true)), 4)
        XCTAssertEqual(try store.count(.exact(soup: soup, path: "isManager", value: 0)), 6)
        let rows = try store.query(.smart("SELECT count(*) FROM {employees} WHERE {employees:isManager} = 1"))
        XCTAssertEqual(rows, [.array([4])])
    }

    func testPagingTenEntriesBy3LeavesOneOnPage3() throws {
        let spec = QuerySpec.all(soup: soup, orderPath: "employeeId", pageSize: 3)
        XCTAssertEqual(try store.query(spec, pageIndex: 0).count, 3)
        let last = try store.query(spec, pageIndex: 3)
        XCTAssertEqual(last.count, 1)
        XCTAssertEqual(last.first?["employeeId"], "00010")
        XCTAssertEqual(try store.query(spec, pageIndex: 4), [])
        let smart = QuerySpec.smart("SELECT {employees:employeeId} FROM {employees} ORDER BY {employees:employeeId}", pageSize: 3)
        XCTAssertEqual(try store.query(smart, pageIndex: 3), [.array(["00010"])])
    }

    func testACursorKnowsItsTotalsAndMovesBetweenPages() throws {
        var cursor = try store.cursor(.all(soup: soup, orderPath: "employeeId", pageSize: 4))
        XCTAssertEqual(cursor.totalEntries, 10)
        XCTAssertEqual(cursor.totalPages, 3)
        XCTAssertEqual(cursor.entries.count, 4)
        try cursor.moveToPage(2)
        XCTAssertEqual(cursor.currentPageIndex, 2)
        XCTAssertEqual(cursor.entries.compactMap { $0["employeeId"]?.stringValue }, ["00009", "00010"])
    }

    func testSelectPathsAndCounts() throws {
        let rows = try store.query(.exact(soup: soup, path: "deptCode", value: "A00", orderPath: "age", selectPaths: ["lastName", "age", "_soupEntryId"]))
        XCTAssertEqual(rows, [.array(["O'Connell", 27, 10]), .array(["Haas", 45, 1]), .array(["Lucchessi", 61, 9])])
        XCTAssertEqual(try store.count(.like(soup: soup, path: "deptCode", pattern: "D%")), 2)
    }

    func testTheMostRecentlyWrittenEntriesComeFirstWithTiesBrokenByEntryId() throws {
        let mru = QuerySpec.smart(
            "SELECT {employees:lastName} FROM {employees} ORDER BY {employees:_soupLastModifiedDate} DESC, {employees:_soupEntryId} DESC",
            pageSize: 3)
        XCTAssertEqual(try store.query(mru), [.array(["O'Connell"]), .array(["Lucchessi"]), .array(["Spenser"])],
                       "one batch shares a time: the last written comes first")
        usleep(3_000)
        var kwan = try XCTUnwrap(try store.retrieve(ids: [3], from: soup).first)
        kwan["age"] = 42
        try store.upsert([kwan], into: soup)
        XCTAssertEqual(try store.query(mru).first, .array(["Kwan"]))
    }

    func testConvertedSmartSQLIsCachedAndFollowsSchemaChanges() throws {
        let sql = "SELECT {employees:deptCode} FROM {employees} WHERE {employees:employeeId} = '00001'"
        XCTAssertEqual(try store.query(.smart(sql)), [.array(["A00"])])
        try store.alterSoup(soup, indexSpecs: [IndexSpec(path: "employeeId", type: .string)], reIndexData: true)
        // deptCode is no longer indexed: the cached conversion is dropped and json_extract is used.
        XCTAssertEqual(try store.query(.smart(sql)), [.array(["A00"])])
    }
}
