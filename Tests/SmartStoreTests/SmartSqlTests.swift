import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStore

/// Smart SQL as the SDK converts it. Each test is named after the Mobile SDK for iOS case it mirrors
/// (SFSmartSqlTests); the soups are set up the same way, so the tables and columns are the SDK's:
/// employees TABLE_1 (firstName _0, lastName _1, deptCode _2, employeeId _3, managerId _4, salary _5,
/// education and isManager json1), departments TABLE_2 (deptCode _0, name _1, budget _2, building json1).
final class SmartSqlTests: XCTestCase {
    var store: SmartStore!

    override func setUpWithError() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        store = try SmartStore(url: dir.appendingPathComponent("store.sqlite"), name: "smartsql")
        try store.registerSoup("employees", indexSpecs: [
            IndexSpec(path: "firstName", type: .string), IndexSpec(path: "lastName", type: .string),
            IndexSpec(path: "deptCode", type: .string), IndexSpec(path: "employeeId", type: .string),
            IndexSpec(path: "managerId", type: .string), IndexSpec(path: "salary", type: .floating),
            IndexSpec(path: "education", type: .json1), IndexSpec(path: "isManager", type: .json1),
        ])
        try store.registerSoup("departments", indexSpecs: [
            IndexSpec(path: "deptCode", type: .string), IndexSpec(path: "name", type: .string),
            IndexSpec(path: "budget", type: .integer), IndexSpec(path: "building", type: .json1),
        ])
    }

    func convert(_ smartSQL: String) throws -> String {
        try store.read { db in try store.sql(for: .smart(smartSQL, pageSize: 10), db).0 }
    }

    func testConvertSmartSqlWithInsertUpdateDelete() throws {
        for sql in ["insert into {employees}", "update {employees}", "delete from {employees}"] {
            XCTAssertThrowsError(try convert(sql), sql)
        }
        XCTAssertNoThrow(try convert("select * from {employees}"))
    }

    func testSimpleConvertSmartSql() throws {
        XCTAssertEqual(try convert("select {employees:firstName}, {employees:lastName} from {employees} order by {employees:lastName}"),
                       "select TABLE_1_0, TABLE_1_1 from TABLE_1 order by TABLE_1_1")
        XCTAssertEqual(try convert("select {departments:name} from {departments} order by {departments:deptCode}"),
                       "select TABLE_2_1 from TABLE_2 order by TABLE_2_0")
    }

    func testConvertSmartSqlWithJoin() throws {
        XCTAssertEqual(
            try convert("select {departments:name}, {employees:firstName} || ' ' || {employees:lastName} from {employees}, {departments} "
                + "where {departments:deptCode} = {employees:deptCode} order by {departments:name}, {employees:lastName}"),
            "select TABLE_2_1, TABLE_1_0 || ' ' || TABLE_1_1 from TABLE_1, TABLE_2 where TABLE_2_0 = TABLE_1_2 order by TABLE_2_1, TABLE_1_1")
    }

    func testConvertSmartSqlWithSelfJoin() throws {
        XCTAssertEqual(
            try convert("select mgr.{employees:lastName}, e.{employees:lastName} from {employees} as mgr, {employees} as e "
                + "where mgr.{employees:employeeId} = e.{employees:managerId}"),
            "select mgr.TABLE_1_1, e.TABLE_1_1 from TABLE_1 as mgr, TABLE_1 as e where mgr.TABLE_1_3 = e.TABLE_1_4")
    }

    func testConvertSmartSqlWithSelfJoinAndJsonExtractedField() throws {
        XCTAssertEqual(
            try convert("select mgr.{employees:education},e.{employees:education} from {employees} as mgr, {employees} as e "
                + "where not (mgr.{employees:education}=e.{employees:education})"),
            "select json_extract(mgr.soup, '$.education'),json_extract(e.soup, '$.education') from TABLE_1 as mgr, TABLE_1 as e "
                + "where not (json_extract(mgr.soup, '$.education')=json_extract(e.soup, '$.education'))")
    }

    func testConvertSmartSqlWithSpecialColumns() throws {
        XCTAssertEqual(
            try convert("select {employees:_soupEntryId}, {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:_soup} from {employees}"),
            "select TABLE_1.id, TABLE_1.created, TABLE_1.lastModified, TABLE_1.soup from TABLE_1")
    }

    func testConvertSmartSqlWithSpecialColumnsAndSelfJoin() throws {
        XCTAssertEqual(try convert("select mgr.{employees:_soupEntryId}, e.{employees:_soupEntryId} from {employees} as mgr, {employees} as e"),
                       "select mgr.id, e.id from TABLE_1 as mgr, TABLE_1 as e")
    }

    func testConvertSmartSqlWithJSON1AndTableQualifiedColumn() throws {
        XCTAssertEqual(
            try convert("select {employees}.{employees:education} from {employees} order by {employees}.{employees:education}"),
            "select json_extract(TABLE_1.soup, '$.education') from TABLE_1 order by json_extract(TABLE_1.soup, '$.education')")
    }

    func testConvertSmartSqlWithJSON1AndTableAliases() throws {
        XCTAssertEqual(try convert("select e.{employees:education}, {departments:building} from {employees} as e, {departments}"),
                       "select json_extract(e.soup, '$.education'), json_extract(soup, '$.building') from TABLE_1 as e, TABLE_2")
    }

    func testConvertSmartSqlWithQuotedUnbalancedCurlyBrace() throws {
        XCTAssertEqual(try convert("select {employees:education} from {employees} where {employees:education} like ' { { { } } '"),
                       "select json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') like ' { { { } } '")
    }

    /// The SDK's self-join query returns the manager's salary beside the employee's.
    func testSmartQueryReturningOneRowWithTwoIntegers() throws {
        try store.upsert([
            ["employeeId": "00010", "lastName": "Haas", "salary": 200_000.10],
            ["employeeId": "00020", "managerId": "00010", "lastName": "Thompson", "salary": 120_000.10],
        ], into: "employees")
        let rows = try store.query(.smart(
            "select mgr.{employees:salary}, e.{employees:salary} from {employees} as mgr, {employees} as e "
                + "where mgr.{employees:employeeId} = e.{employees:managerId} and e.{employees:lastName} = 'Thompson'", pageSize: 1))
        XCTAssertEqual(rows, [[200_000.10, 120_000.10]])
    }

    /// A `""` string literal, as SQLite and the SDK accept it where no column has that name.
    func testSmartQueryWithEmptyDoubleQuotedLiteral() throws {
        try store.upsert([["lastName": "Haas", "firstName": ""]], into: "employees")
        let rows = try store.query(.smart("select count(*) from {employees} where {employees:firstName} = \"\"", pageSize: 1))
        XCTAssertEqual(rows, [[1]])
    }

    func testAliasedSoupColumnAndSpecialFieldsRun() throws {
        try store.upsert([["lastName": "Kwan", "education": "MIT"]], into: "employees")
        let rows = try store.query(.smart(
            "select e.{employees:_soup}, e.{employees:_soupEntryId} from {employees} as e where e.{employees:education} = 'MIT'", pageSize: 5))
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows.first?.arrayValue?.first?["lastName"], "Kwan")
    }
}
