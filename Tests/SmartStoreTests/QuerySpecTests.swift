import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStoreEngine

/// The SDK's query-spec cases (SFQuerySpecTests), rewritten: the smart SQL each kind of spec stands
/// for, to the space; then the same specs run both ways, giving the same rows.
final class QuerySpecTests: XCTestCase {
    let all = QuerySpec.all(soup: "employees", orderPath: "lastName", order: .descending, pageSize: 1)
    let range = QuerySpec.range(soup: "employees", path: "lastName", begin: "Bond", end: "Smith", orderPath: "lastName", pageSize: 1)
    let exact = QuerySpec.exact(soup: "employees", path: "lastName", value: "Bond", orderPath: "lastName", pageSize: 1)
    let match = QuerySpec.match(soup: "employees", path: "lastName", matchKey: "Bond", orderPath: "firstName", pageSize: 1)
    let like = QuerySpec.like(soup: "employees", path: "lastName", pattern: "Bon%", orderPath: "lastName", pageSize: 1)
    let smart = QuerySpec.smart("select {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)

    func testAllQuerySmartSql() {
        XCTAssertEqual(all.smartSQL, "SELECT {employees:_soup} FROM {employees} ORDER BY {employees:lastName} DESC ")
    }

    func testAllQuerySmartSqlWithSelectPaths() {
        var spec = all
        spec.selectPaths = ["firstName", "lastName"]
        XCTAssertEqual(spec.smartSQL, "SELECT {employees:firstName}, {employees:lastName} FROM {employees} ORDER BY {employees:lastName} DESC ")
    }

    func testAllQueryCountSmartSql() { XCTAssertEqual(all.countSmartSQL, "SELECT count(*) FROM {employees} ") }

    func testAllQueryIdsSmartSql() { XCTAssertEqual(all.idsSmartSQL, "SELECT id FROM {employees} ORDER BY {employees:lastName} DESC ") }

    func testRangeQuerySmartSql() {
        XCTAssertEqual(range.smartSQL, "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC ")
    }

    func testRangeQuerySmartSqlWithSelectPaths() {
        var spec = range
        spec.selectPaths = ["firstName"]
        XCTAssertEqual(spec.smartSQL, "SELECT {employees:firstName} FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC ")
    }

    func testRangeQueryCountSmartSql() {
        XCTAssertEqual(range.countSmartSQL, "SELECT count(*) FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ")
    }

    func testRangeQueryIdsSmartSql() {
        XCTAssertEqual(range.idsSmartSQL, "SELECT id FROM {employees} WHERE {employees:lastName} >= ? AND {employees:lastName} <= ? ORDER BY {employees:lastName} ASC ")
    }

    func testExactQuerySmartSql() {
        XCTAssertEqual(exact.smartSQL, "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC ")
    }

    func testExactQuerySmartSqlWithSelectPaths() {
        var spec = exact
        spec.selectPaths = ["firstName", "lastName"]
        XCTAssertEqual(spec.smartSQL, "SELECT {employees:firstName}, {employees:lastName} FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC ")
    }

    func testExactQueryCountSmartSql() { XCTAssertEqual(exact.countSmartSQL, "SELECT count(*) FROM {employees} WHERE {employees:lastName} = ? ") }

    func testExactQueryIdsSmartSql() {
        XCTAssertEqual(exact.idsSmartSQL, "SELECT id FROM {employees} WHERE {employees:lastName} = ? ORDER BY {employees:lastName} ASC ")
    }

    func testMatchQuerySmartSql() {
        XCTAssertEqual(
            match.smartSQL,
            "SELECT {employees:_soup} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC ")
    }

    func testMatchQuerySmartSqlWithSelectPaths() {
        var spec = match
        spec.selectPaths = ["firstName", "lastName", "title"]
        XCTAssertEqual(
            spec.smartSQL,
            "SELECT {employees:firstName}, {employees:lastName}, {employees:title} FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC ")
    }

    func testMatchQueryCountSmartSql() {
        XCTAssertEqual(
            match.countSmartSQL,
            "SELECT count(*) FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ")
    }

    func testMatchQueryIdsSmartSql() {
        XCTAssertEqual(
            match.idsSmartSQL,
            "SELECT id FROM {employees} WHERE {employees:_soupEntryId} IN (SELECT rowid FROM {employees}_fts WHERE {employees}_fts MATCH '{employees:lastName}:Bond') ORDER BY {employees:firstName} ASC ")
    }

    func testLikeQuerySmartSql() {
        XCTAssertEqual(like.smartSQL, "SELECT {employees:_soup} FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:lastName} ASC ")
    }

    func testLikeQuerySmartSqlWithSelectPaths() {
        var spec = like
        spec.selectPaths = ["title"]
        XCTAssertEqual(spec.smartSQL, "SELECT {employees:title} FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:lastName} ASC ")
    }

    func testLikeQueryCountSmartSql() { XCTAssertEqual(like.countSmartSQL, "SELECT count(*) FROM {employees} WHERE {employees:lastName} LIKE ? ") }

    func testLikeQueryIdsSmartSql() {
        XCTAssertEqual(like.idsSmartSQL, "SELECT id FROM {employees} WHERE {employees:lastName} LIKE ? ORDER BY {employees:lastName} ASC ")
    }

    func testSmartQueryCountSmartSql() {
        XCTAssertEqual(smart.countSmartSQL, "SELECT count(*) FROM (select {employees:salary} from {employees} where {employees:lastName} = 'Haas')")
    }

    func testSmartQueryIdsSmartSql() {
        XCTAssertEqual(smart.idsSmartSQL, "SELECT id FROM (select {employees:salary} from {employees} where {employees:lastName} = 'Haas')")
    }

    func testQualifyMatchKey() {
        XCTAssertEqual(SmartSQL.qualifyMatchKey("abc", field: nil), "abc")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("abc", field: "{soup:path}"), "{soup:path}:abc")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("{soup:path2}:abc", field: "{soup:path1}"), "{soup:path2}:abc")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("abc AND def", field: "{soup:path}"), "{soup:path}:abc AND {soup:path}:def")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("abc OR def", field: "{soup:path}"), "{soup:path}:abc OR {soup:path}:def")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("abc OR {soup:path2}:def", field: "{soup:path1}"), "{soup:path1}:abc OR {soup:path2}:def")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("(abc AND def) OR ghi", field: "{soup:path}"), "({soup:path}:abc AND {soup:path}:def) OR {soup:path}:ghi")
        XCTAssertEqual(SmartSQL.qualifyMatchKey("(abc AND {soup:path2}:def) OR ghi", field: "{soup:path1}"), "({soup:path1}:abc AND {soup:path2}:def) OR {soup:path1}:ghi")
        XCTAssertEqual(
            SmartSQL.qualifyMatchKey("((abc AND {soup:path2}:def) AND NOT ghi) OR jkl", field: "{soup:path1}"),
            "(({soup:path1}:abc AND {soup:path2}:def) AND NOT {soup:path1}:ghi) OR {soup:path1}:jkl")
    }

    /// Each kind of spec, run directly and as its smart SQL, on the ten employees: the same rows, the
    /// same counts. (Match keys are per-term qualified both ways: `Haas OR Kwan` on lastName.)
    func testEverySpecGivesTheSameRowsAsItsSmartSQL() throws {
        let store = try Fixture.store(self)
        let specs: [QuerySpec] = [
            .all(soup: "employees", orderPath: "lastName", order: .descending, pageSize: 20),
            .range(soup: "employees", path: "age", begin: .int(30), end: .int(47), orderPath: "age", pageSize: 20),
            .range(soup: "employees", path: "salary", begin: .double(90_000), end: nil, orderPath: "salary", pageSize: 20),
            .exact(soup: "employees", path: "deptCode", value: "A00", orderPath: "employeeId", pageSize: 20),
            .like(soup: "employees", path: "lastName", pattern: "H%", orderPath: "firstName", pageSize: 20),
            .match(soup: "employees", path: "lastName", matchKey: "Haas OR Kwan", orderPath: "firstName", pageSize: 20),
            .match(soup: "employees", path: nil, matchKey: "{employees:firstName}:Eva", orderPath: "firstName", pageSize: 20),
        ]
        for var spec in specs {
            let direct = try store.query(spec)
            XCTAssertFalse(direct.isEmpty, "\(spec.kind): no rows, the comparison would prove nothing")
            XCTAssertEqual(try store.query(.smart(spec.smartSQL, pageSize: 20, whereArgs: spec.smartSQLArguments)), direct.map { [$0] }, "\(spec.kind)")
            XCTAssertEqual(try store.query(.smart(spec.countSmartSQL, pageSize: 1, whereArgs: spec.smartSQLArguments)), [.array([.int(Int64(direct.count))])], "\(spec.kind)")
            spec.selectPaths = ["firstName", "age"]
            XCTAssertEqual(
                try store.query(.smart(spec.smartSQL, pageSize: 20, whereArgs: spec.smartSQLArguments)), try store.query(spec), "\(spec.kind) with select paths")
        }
    }
}
