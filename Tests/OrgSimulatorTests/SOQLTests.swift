import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import OrgSimulator

final class SOQLTests: XCTestCase {
    let records: [[String: FieldValue]] = [
        ["Id": "003A", "FirstName": "Ada", "LastName": "Lovelace", "Department": "Math", "LastModifiedDate": "2026-01-02T00:00:00.000+0000"],
        ["Id": "003B", "FirstName": "Alan", "LastName": "Turing", "Department": "Math", "LastModifiedDate": "2026-03-01T10:00:00.000+0000"],
        ["Id": "003C", "FirstName": .null, "LastName": "Hopper", "Department": "Navy", "LastModifiedDate": "2026-02-01T00:00:00.000+0000"],
    ]

    func ids(_ soql: String) throws -> [String] {
        try SOQLParser.parse(soql).run(on: records).compactMap { $0["Id"]?.stringValue }
    }

    func testMobileSyncsRewrittenQueryParses() throws {
        let q = try SOQLParser.parse(
            "select Id,LastModifiedDate,FirstName, LastName from Contact where LastModifiedDate > 2026-01-15T00:00:00.000Z order by LastModifiedDate limit 100")
        XCTAssertEqual(q.fields, ["Id", "LastModifiedDate", "FirstName", "LastName"])
        XCTAssertEqual(q.limit, 100)
        XCTAssertEqual(q.run(on: records).compactMap { $0["Id"]?.stringValue }, ["003C", "003B"])
    }

    func testBooleanLogicWithParenthesesInAndLike() throws {
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE (Department = 'math' AND FirstName LIKE 'A_a') OR LastName IN ('Hopper') ORDER BY Id"), ["003A", "003C"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE NOT Department = 'Math'"), ["003C"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE LastName NOT IN ('Turing', 'Hopper')"), ["003A"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE FirstName = null"), ["003C"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE FirstName != null ORDER BY FirstName DESC"), ["003B", "003A"])
    }

    func testOrderNullsAndOffset() throws {
        XCTAssertEqual(try ids("SELECT Id FROM Contact ORDER BY FirstName ASC NULLS LAST"), ["003A", "003B", "003C"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact ORDER BY FirstName"), ["003C", "003A", "003B"])
        XCTAssertEqual(try ids("SELECT Id FROM Contact ORDER BY LastModifiedDate DESC LIMIT 2 OFFSET 1"), ["003C", "003A"])
    }

    func testDatetimeLiteralsInEveryFormTheAPIAccepts() throws {
        for literal in ["2026-02-01T00:00:00Z", "2026-02-01T00:00:00.000+0000", "2026-02-01T01:00:00+01:00"] {
            XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE LastModifiedDate >= \(literal) ORDER BY Id"), ["003B", "003C"], literal)
        }
    }

    func testWhatIsOutsideTheSubsetIsMalformed() {
        for soql in ["SELECT COUNT() FROM Contact", "SELECT Id FROM Contact GROUP BY Id", "SELECT Id FROM Contact WHERE", "SELECT Id, FROM Contact",
                     "SELECT Id FROM Contact WHERE LastName = 'open", "SELECT Id FROM Contact LIMIT -1"] {
            XCTAssertThrowsError(try SOQLParser.parse(soql), soql) { error in
                XCTAssertEqual((error as? SOQLError)?.errorCode, "MALFORMED_QUERY", soql)
            }
        }
    }

    /// Found by scripts/fuzz (SOQL): more than three fraction digits made an invalid range and crashed
    /// sf-simulator on any query with such a literal.
    func testADatetimeLiteralWithMoreThanThreeFractionDigitsIsCutToMillisecondsNotACrash() throws {
        XCTAssertEqual(try ids("SELECT Id FROM Contact WHERE LastModifiedDate > 2026-02-01T00:00:00.0001+0000 ORDER BY Id"), ["003B"])
        XCTAssertEqual(SalesforceDate.parse("2026-02-01T00:00:00.123456Z"), SalesforceDate.parse("2026-02-01T00:00:00.123Z"))
        XCTAssertEqual(SalesforceDate.parse("2026-02-01T00:00:00.5Z"), SalesforceDate.parse("2026-02-01T00:00:00.500Z"))
    }

    func testIdsHaveSalesforcesCaseSafeSuffix() {
        XCTAssertEqual(SalesforceID.withSuffix("001A0000006Vm9r"), "001A0000006Vm9rIAC")
        let id = SalesforceID.make(prefix: "003", number: 12345)
        XCTAssertEqual(id.count, 18)
        XCTAssertTrue(SalesforceID.isValid(id))
        XCTAssertFalse(SalesforceID.isValid(String(id.prefix(17)) + "X"))
    }
}
