import FastJSON
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import SmartStoreEngine

/// Smart SQL as the SDK converts it. Each test is named after the Mobile SDK for iOS case it mirrors
/// (SFSmartSqlTests); the soups are set up the same way, so the tables and columns are the SDK's:
/// employees TABLE_1 (firstName _0, lastName _1, deptCode _2, employeeId _3, managerId _4, salary _5,
/// education and isManager json1), departments TABLE_2 (deptCode _0, name _1, budget _2, building json1).
final class SmartSqlTests: XCTestCase {
    var store: SmartStore!

    override func tearDown() { store = nil; super.tearDown() }

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

    // MARK: The rest of SFSmartSqlTests: conversions

    func testConvertSmartSqlWithSelfJoinAndJsonExtractedFieldNoLeadingSpaces() throws {
        XCTAssertEqual(
            try convert("select mgr.{employees:education},e.{employees:education} from {employees} as mgr, {employees} as e "
                + "where not (mgr.{employees:education}=e.{employees:education})"),
            "select json_extract(mgr.soup, '$.education'),json_extract(e.soup, '$.education') from TABLE_1 as mgr, TABLE_1 as e "
                + "where not (json_extract(mgr.soup, '$.education')=json_extract(e.soup, '$.education'))")
    }

    func testConvertSmartSqlWithSpecialColumnsAndJoin() throws {
        XCTAssertEqual(try convert("select {employees:_soupEntryId}, {departments:_soupEntryId} from {employees}, {departments}"),
                       "select TABLE_1.id, TABLE_2.id from TABLE_1, TABLE_2")
    }

    func testConvertSmartSqlWithJSON1() throws {
        XCTAssertEqual(try convert("select {employees:lastName}, {employees:education} from {employees} where {employees:education} = 'MIT'"),
                       "select TABLE_1_1, json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') = 'MIT'")
    }

    func testConvertSmartSqlForNonIndexedColumns() throws {
        XCTAssertEqual(
            try convert("select {employees:education}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'San Francisco'"),
            "select json_extract(soup, '$.education'), json_extract(soup, '$.address.zipcode') from TABLE_1 where json_extract(soup, '$.address.city') = 'San Francisco'")
    }

    func testConvertSmartSqlWithQuotedCurlyBraces() throws {
        XCTAssertEqual(
            try convert("select {employees:education} from {employees} where {employees:education} like 'Account(where: {Name: {eq: \"Jason\"}})'"),
            "select json_extract(soup, '$.education') from TABLE_1 where json_extract(soup, '$.education') like 'Account(where: {Name: {eq: \"Jason\"}})'")
    }

    func testConvertSmartSqlWithMultipleQuotedCurlyBraces() throws {
        XCTAssertEqual(
            try convert("select {employees:education}, '{a:b}', {employees:firstName} from {employees} where {employees:address} = '{\"city\": \"San Francisco\"}' or {employees:lastName} like 'B%'"),
            "select json_extract(soup, '$.education'), '{a:b}', TABLE_1_0 from TABLE_1 where json_extract(soup, '$.address') = '{\"city\": \"San Francisco\"}' or TABLE_1_1 like 'B%'")
    }

    /// Plain SQL with no `{…}` at all (a GraphQL-style query over table names) passes through unchanged.
    func testConvertOtherComplexSmartSql() throws {
        let sql = "SELECT json_set('{}', '$.data.uiapi.query.Account.edges', ( SELECT json_group_array(json_set('{}', '$.node.Id', (json_extract('Account.JSON', '$.data.fields.Id.value')) )) FROM (SELECT 'Account'.TABLE_1_1 as 'Account.JSON' FROM TABLE_1 as 'Account' WHERE ( json_extract('Account.JSON', '$.data.apiName') = 'Account' ) ) ) ) as json"
        XCTAssertEqual(try convert(sql), sql)
    }

    // MARK: The rest of SFSmartSqlTests: results, with the SDK's loadData

    private func loadData() throws {
        let employees: [(String, String, String, String, String, Double, Bool)] = [
            ("Christine", "Haas", "A00", "00010", "", 200_000.10, true),
            ("Michael", "Thompson", "A00", "00020", "00010", 120_000.10, false),
            ("Sally", "Kwan", "A00", "00310", "00010", 100_000.10, false),
            ("John", "Geyer", "B00", "00040", "", 102_000.10, true),
            ("Irving", "Stern", "B00", "00050", "00040", 100_000.10, true),
            ("Eva", "Pulaski", "B00", "00060", "00050", 80_000.10, false),
            ("Eileen", "Henderson", "B00", "00070", "00050", 70_000.10, false),
        ]
        for (first, last, dept, id, manager, salary, isManager) in employees {
            try store.upsert([[
                "firstName": .string(first), "lastName": .string(last), "deptCode": .string(dept), "employeeId": .string(id),
                "managerId": .string(manager), "salary": .double(salary), "isManager": .bool(isManager),
            ]], into: "employees")
        }
        try store.upsert([["deptCode": "A00", "name": "Sales", "budget": 1_000_000]], into: "departments")
        try store.upsert([["deptCode": "B00", "name": "R&D", "budget": 2_000_000]], into: "departments")
    }

    private func employee(_ json: String) throws -> SoupEntry {
        let entry = try XCTUnwrap(JSON(text: json)?.objectValue)
        return try XCTUnwrap(try store.upsert([entry], into: "employees").first)
    }

    private func smart(_ sql: String, pageSize: Int = 10, page: Int = 0, args: [JSON]? = nil) throws -> [JSON] {
        try store.query(.smart(sql, pageSize: pageSize, whereArgs: args), pageIndex: page)
    }

    func testSmartQueryDoingCount() throws {
        try loadData()
        XCTAssertEqual(try smart("select count(*) from {employees}", pageSize: 1), [[7]])
    }

    func testSmartQueryDoingSum() throws {
        try loadData()
        XCTAssertEqual(try smart("select sum({departments:budget}) from {departments}", pageSize: 1), [[3_000_000]])
    }

    func testSmartQueryReturningOneRowWithOneInteger() throws {
        try loadData()
        XCTAssertEqual(try smart("select {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1), [[200_000.10]])
    }

    func testSmartQueryReturningTwoRowsWithOneIntegerEach() throws {
        try loadData()
        XCTAssertEqual(
            try smart("select {employees:salary} from {employees} where {employees:managerId} = '00010' order by {employees:firstName}", pageSize: 2),
            [[120_000.10], [100_000.10]])
    }

    func testSmartQueryReturningSoupStringAndInteger() throws {
        try loadData()
        let christine = try XCTUnwrap(try store.query(.exact(soup: "employees", path: "employeeId", value: "00010", orderPath: "employeeId", pageSize: 1)).first)
        XCTAssertEqual(christine["firstName"], "Christine")
        let rows = try smart("select {employees:_soup}, {employees:firstName}, {employees:salary} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].arrayValue?[0], .object(christine.objectValue ?? [:]))
        XCTAssertEqual(rows[0].arrayValue?[1], "Christine")
        XCTAssertEqual(rows[0].arrayValue?[2].doubleValue, 200_000.10)
    }

    func testSmartQueryWithPaging() throws {
        try loadData()
        let spec = QuerySpec.smart("select {employees:firstName} from {employees} order by {employees:firstName}", pageSize: 1)
        XCTAssertEqual(try store.count(spec), 7)
        for (page, name) in ["Christine", "Eileen", "Eva", "Irving", "John", "Michael", "Sally"].enumerated() {
            XCTAssertEqual(try store.query(spec, pageIndex: page), [[.string(name)]], "page \(page)")
        }
    }

    func testSmartQueryWithSpecialFields() throws {
        try loadData()
        let christine = try XCTUnwrap(try store.query(.exact(soup: "employees", path: "employeeId", value: "00010", orderPath: "employeeId", pageSize: 1)).first)
        let rows = try smart("select {employees:_soup}, {employees:_soupEntryId}, {employees:_soupLastModifiedDate} from {employees} where {employees:lastName} = 'Haas'", pageSize: 1)
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0].arrayValue?[0], .object(christine.objectValue ?? [:]))
        XCTAssertEqual(rows[0].arrayValue?[1], christine["_soupEntryId"])
        XCTAssertEqual(rows[0].arrayValue?[2], christine["_soupLastModifiedDate"])
    }

    func testSmartQueryWithNullField() throws {
        XCTAssertEqual(try employee(#"{"employeeId":"001","deptCode":"xyz"}"#)["deptCode"], "xyz")
        XCTAssertEqual(try employee(#"{"employeeId":"002","deptCode":null}"#)["deptCode"], .null)
        XCTAssertEqual(try employee(#"{"employeeId":"003","deptCode":""}"#)["deptCode"], "")
        XCTAssertNil(try employee(#"{"employeeId":"004"}"#)["deptCode"])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:deptCode} is not null order by {employees:employeeId}", pageSize: 4),
                       [["001"], ["003"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:deptCode} is null order by {employees:employeeId}", pageSize: 4),
                       [["002"], ["004"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:deptCode} = \"\" order by {employees:employeeId}", pageSize: 4),
                       [["003"]])
        XCTAssertEqual(
            try smart("select {employees:employeeId},{employees:deptCode},{employees:deptCode} from {employees} order by {employees:employeeId}", pageSize: 4),
            [["001", "xyz", "xyz"], ["002", .null, .null], ["003", "", ""], ["004", .null, .null]])
    }

    func testSmartQueryMachingBooleanInJSON1Field() throws {
        try loadData()
        XCTAssertEqual(try employee(#"{"employeeId":"101","isManager":true}"#)["isManager"], true)
        XCTAssertEqual(try employee(#"{"employeeId":"102","isManager":false}"#)["isManager"], false)
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:isManager} = 1 order by {employees:employeeId}"),
                       [["00010"], ["00040"], ["00050"], ["101"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:isManager} = 0 order by {employees:employeeId}"),
                       [["00020"], ["00060"], ["00070"], ["00310"], ["102"]])
    }

    func testSmartQueryMachingNonAsciiInStringField() throws {
        _ = try employee(#"{"employeeId":"101","firstName":"Göktuğ"}"#)
        _ = try employee(#"{"employeeId":"102","firstName":"보배"}"#)
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:firstName} like '%ğ%'"), [["101"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:firstName} like '%배%'"), [["102"]])
    }

    func testSmartQueryMachingNonAsciiInJSON1Field() throws {
        _ = try employee(#"{"employeeId":"101","education":"latince uzmanı"}"#)
        _ = try employee(#"{"employeeId":"102","education":"라틴어 전문가"}"#)
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:education} like '%ı%'"), [["101"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:education} like '%문%'"), [["102"]])
    }

    func testSmartQueryMachingNonAsciiInNonIndexedField() throws {
        _ = try employee(#"{"employeeId":"101","country":"Türkçe"}"#)
        _ = try employee(#"{"employeeId":"102","country":"한국"}"#)
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:country} like '%ç%'"), [["101"]])
        XCTAssertEqual(try smart("select {employees:employeeId} from {employees} where {employees:country} like '%국%'"), [["102"]])
    }

    private func addresses() throws {
        _ = try employee(#"{"employeeId":"101","address":{"city":"San Francisco", "zipcode":94105}}"#)
        _ = try employee(#"{"employeeId":"102","address":{"city":"New York City", "zipcode":10004}}"#)
        _ = try employee(#"{"employeeId":"103","address":{"city":"San Francisco", "zipcode":94106}}"#)
        _ = try employee(#"{"employeeId":"104","address":{"city":"New York City", "zipcode":10006}}"#)
    }

    func testSmartQueryFilteringByNonIndexedField() throws {
        try addresses()
        XCTAssertEqual(
            try smart("select {employees:employeeId} from {employees} where {employees:address.city} = 'San Francisco' order by {employees:employeeId}"),
            [["101"], ["103"]])
    }

    func testSmartQueryReturningNonIndexedField() throws {
        try addresses()
        XCTAssertEqual(
            try smart("select {employees:employeeId}, {employees:address.zipcode} from {employees} where {employees:address.city} = 'San Francisco' order by {employees:employeeId}"),
            [["101", .int(94105)], ["103", .int(94106)]])
    }

    func testSmartQueryUsingWhereArgs() throws {
        try addresses()
        let sql = "select {employees:employeeId}, {employees:address.zipcode} from {employees} where {employees:address.city} = ? order by {employees:employeeId}"
        XCTAssertEqual(try smart(sql, args: ["San Francisco"]), [["101", .int(94105)], ["103", .int(94106)]])
        XCTAssertEqual(try smart(sql, args: ["New York City"]), [["102", .int(10004)], ["104", .int(10006)]])
    }

    func testNonSmartQueryUsingWhereArgs() throws {
        var spec = QuerySpec.all(soup: "employees", orderPath: "employeeId", pageSize: 10)
        spec.whereArgs = ["San Francisco"]
        XCTAssertThrowsError(try store.query(spec)) { error in
            XCTAssertEqual((error as? SmartStoreError)?.code, 5)
            XCTAssertTrue("\(error)".contains("whereArgs can only be provided for smart queries"), "\(error)")
        }
    }

    /// The SDK refuses INSERT, UPDATE and DELETE only: a `WITH` query and `VALUES` run; a statement that
    /// would write anyway fails on the read-only connection and changes nothing.
    func testAnythingTheSDKAllowsThatIsNotInsertUpdateOrDelete() throws {
        try store.upsert([["lastName": "Haas", "salary": 10.0], ["lastName": "Kwan", "salary": 20.0]], into: "employees")
        XCTAssertEqual(
            try store.query(.smart("WITH rich AS (SELECT {employees:lastName} AS name FROM {employees} WHERE {employees:salary} > 15) SELECT name FROM rich", pageSize: 5)),
            [["Kwan"]])
        XCTAssertEqual(try store.query(.smart("VALUES (1), (2)", pageSize: 5)), [[1], [2]])
        XCTAssertThrowsError(try store.query(.smart("DROP TABLE {employees}", pageSize: 5)))
        XCTAssertEqual(try store.count(.all(soup: "employees")), 2, "nothing dropped")
        for sql in ["  Insert into {employees} values (1)", "UPDATE {employees} SET soup = ''"] {
            XCTAssertThrowsError(try store.query(.smart(sql, pageSize: 5)), sql)
        }
    }
}
