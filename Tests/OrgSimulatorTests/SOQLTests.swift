import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import OrgSimulator

/// SOQL through the parser, the compiler and SQLite, on a small org of the fixture's objects.
final class SOQLTests: XCTestCase {
    var state: OrgState!
    let session = Session(orgId: "00D5g00000TestoEAA", userId: "0055g00000TesttAAA", clientId: "test")
    let otherUser = "0055g00000OtherAAA"
    var accounts: [String: String] = [:]

    /// A test org with the fixture's objects and no seeded records: three contacts, two accounts.
    static func definition() throws -> OrgDefinition {
        let objects = try ObjectsFile.load(TestSupport.packageRoot.appendingPathComponent("Fixtures/org/objects.json"))
        let org = try JSONDecoder().decode(OrgFixture.Org.self, from: Data("""
            {"id": "00D5g00000TestoEAA", "name": "Test", "contactCount": 0, "mobilePolicy": null, "users": [
              {"id": "0055g00000TesttAAA", "username": "t@test.test", "password": "p", "displayName": "Tess Tester", "email": "t@test.test"},
              {"id": "0055g00000OtherAAA", "username": "o@test.test", "password": "p", "displayName": "Otto Other", "email": "o@test.test"}]}
            """.utf8))
        return OrgDefinition(seed: 1, referenceDate: Date(timeIntervalSince1970: 1_790_000_000), orgs: [org], connectedApps: [], objects: objects)
    }

    override func tearDown() { state = nil; super.tearDown() }

    override func setUpWithError() throws {
        state = try TestStates.make(definition: try Self.definition(), tokenLifetime: 3600)
        try state.database.store.write { [self] db in
            let account = state.definition.object("Account")!, contact = state.definition.object("Contact")!
            let a1 = try state.records.insert(db, orgId: session.orgId, object: account, record: ["Name": "Babbage Engines", "Industry": "Engineering"], userId: session.userId)
            let a2 = try state.records.insert(db, orgId: session.orgId, object: account, record: ["Name": "Navy Yard"], userId: otherUser)
            accounts = ["babbage": a1, "navy": a2]
            let rows: [[String: FieldValue]] = [
                ["Id": .string(SalesforceID.make(prefix: "003", number: 1)), "FirstName": "Ada", "LastName": "Lovelace", "Department": "Math", "AccountId": .string(a1),
                 "LastModifiedDate": "2026-01-02T00:00:00.000+0000", "CreatedDate": "2026-01-01T00:00:00.000+0000"],
                ["Id": .string(SalesforceID.make(prefix: "003", number: 2)), "FirstName": "Alan", "LastName": "Turing", "Department": "Math", "AccountId": .string(a1),
                 "LastModifiedDate": "2026-03-01T10:00:00.000+0000", "CreatedDate": "2026-01-01T00:00:00.000+0000"],
                ["Id": .string(SalesforceID.make(prefix: "003", number: 3)), "FirstName": .null, "LastName": "Hopper", "Department": "Navy", "AccountId": .string(a2),
                 "LastModifiedDate": "2026-02-01T00:00:00.000+0000", "CreatedDate": "2026-01-01T00:00:00.000+0000"],
            ]
            for row in rows { try state.records.insert(db, orgId: session.orgId, object: contact, record: row, userId: session.userId) }
        }
    }

    func answer(_ soql: String, version: String = "v66.0", batchSize: Int = 2000, all: Bool = false, as s: Session? = nil) throws -> [String: Any] {
        let data = try state.database.store.write { [self] db in
            try state.queries.run(db, soql: soql, session: s ?? session, version: version, includeDeleted: all, batchSize: batchSize)
        }
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func rows(_ soql: String) throws -> [[String: Any]] { try answer(soql)["records"] as? [[String: Any]] ?? [] }

    func soqlError(_ soql: String) -> SalesforceError? {
        do {
            _ = try answer(soql)
            return nil
        } catch { return error as? SalesforceError }
    }

    func testMobileSyncsRewrittenQueryRuns() throws {
        let soql = "select Id,LastModifiedDate,FirstName, LastName from Contact where LastModifiedDate > 2026-01-15T00:00:00.000Z order by LastModifiedDate limit 100"
        let r = try rows(soql)
        XCTAssertEqual(r.map { $0["LastName"] as? String }, ["Hopper", "Turing"])
        XCTAssertEqual(Array(r[0].keys).sorted(), ["FirstName", "Id", "LastModifiedDate", "LastName", "attributes"])
    }

    func lastNames(_ soql: String) throws -> [String] { try rows(soql).compactMap { $0["LastName"] as? String } }

    func testBooleanLogicWithParenthesesInAndLike() throws {
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE (Department = 'math' AND FirstName LIKE 'A_a') OR LastName IN ('Hopper') ORDER BY LastName"), ["Hopper", "Lovelace"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE NOT Department = 'Math'"), ["Hopper"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName NOT IN ('Turing', 'Hopper')"), ["Lovelace"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE FirstName = null"), ["Hopper"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE FirstName != null ORDER BY FirstName DESC"), ["Turing", "Lovelace"])
        // != and NOT LIKE keep records whose field is null, as SOQL does.
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE FirstName != 'Ada' ORDER BY LastName"), ["Hopper", "Turing"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE NOT FirstName LIKE 'A%'"), ["Hopper"])
    }

    func testOrderBySeveralFieldsNullsAndOffset() throws {
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY FirstName ASC NULLS LAST"), ["Lovelace", "Turing", "Hopper"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY FirstName"), ["Hopper", "Lovelace", "Turing"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY FirstName DESC NULLS FIRST"), ["Hopper", "Turing", "Lovelace"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY Department DESC, LastName ASC"), ["Hopper", "Lovelace", "Turing"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY LastModifiedDate DESC LIMIT 2 OFFSET 1"), ["Hopper", "Lovelace"])
    }

    func testDatetimeLiteralsInEveryFormTheAPIAccepts() throws {
        for literal in ["2026-02-01T00:00:00Z", "2026-02-01T00:00:00.000+0000", "2026-02-01T01:00:00+01:00"] {
            XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastModifiedDate >= \(literal) ORDER BY LastName"), ["Hopper", "Turing"], literal)
        }
    }

    func testDateLiteralsAreRangesOfTheCurrentDay() throws {
        // The org's write clock stamps the accounts now: they are modified TODAY, this week, in the last 3 days.
        for literal in ["TODAY", "THIS_WEEK", "LAST_N_DAYS:3", "THIS_MONTH", "THIS_YEAR"] {
            XCTAssertEqual(try rows("SELECT Name FROM Account WHERE LastModifiedDate = \(literal)").count, 2, literal)
        }
        XCTAssertEqual(try rows("SELECT Name FROM Account WHERE LastModifiedDate < TODAY").count, 0)
        XCTAssertEqual(try rows("SELECT Name FROM Account WHERE LastModifiedDate > YESTERDAY").count, 2)
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastModifiedDate < LAST_N_DAYS:30 ORDER BY LastName"), ["Hopper", "Lovelace", "Turing"])
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE LastModifiedDate = 'TODAY'")?.errorCode, "MALFORMED_QUERY")
    }

    func testParentFieldsAreNestedRecordsAndFilterAndSort() throws {
        let r = try rows("SELECT LastName, Account.Name, Account.Owner.Name, Owner.Username FROM Contact WHERE Account.Industry = 'Engineering' ORDER BY Account.Name, LastName")
        XCTAssertEqual(r.map { $0["LastName"] as? String }, ["Lovelace", "Turing"])
        let account = try XCTUnwrap(r[0]["Account"] as? [String: Any])
        XCTAssertEqual(account["Name"] as? String, "Babbage Engines")
        XCTAssertEqual((account["attributes"] as? [String: Any])?["type"] as? String, "Account")
        XCTAssertEqual((account["Owner"] as? [String: Any])?["Name"] as? String, "Tess Tester")
        XCTAssertEqual((r[0]["Owner"] as? [String: Any])?["Username"] as? String, "t@test.test")
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY Account.Name DESC, LastName"), ["Hopper", "Lovelace", "Turing"])
    }

    func testAMissingParentIsNull() throws {
        _ = try state.database.store.write { [self] db in
            try state.records.insert(db, orgId: session.orgId, object: state.definition.object("Contact")!, record: ["LastName": "Orphan"], userId: session.userId)
        }
        let r = try rows("SELECT LastName, Account.Name FROM Contact WHERE LastName = 'Orphan'")
        XCTAssertTrue(r[0]["Account"] is NSNull)
    }

    func testChildSubqueryGivesEachParentItsRecords() throws {
        let r = try rows("SELECT Name, (SELECT LastName FROM Contacts ORDER BY LastName DESC LIMIT 5) FROM Account ORDER BY Name")
        XCTAssertEqual(r.map { $0["Name"] as? String }, ["Babbage Engines", "Navy Yard"])
        let first = try XCTUnwrap(r[0]["Contacts"] as? [String: Any])
        XCTAssertEqual(first["totalSize"] as? Int, 2)
        XCTAssertEqual((first["records"] as? [[String: Any]])?.map { $0["LastName"] as? String }, ["Turing", "Lovelace"])
        XCTAssertEqual(((r[1]["Contacts"] as? [String: Any])?["records"] as? [[String: Any]])?.count, 1)
        let none = try rows("SELECT Name, (SELECT Id FROM Opportunities) FROM Account LIMIT 1")
        XCTAssertTrue(none[0]["Opportunities"] is NSNull)
        XCTAssertEqual(soqlError("SELECT Name, (SELECT Id FROM Nothing__r) FROM Account")?.errorCode, "INVALID_TYPE")
    }

    func testCountAndCountField() throws {
        let all = try answer("SELECT COUNT() FROM Contact WHERE Department = 'Math'")
        XCTAssertEqual(all["totalSize"] as? Int, 2)
        XCTAssertEqual((all["records"] as? [Any])?.count, 0)
        let field = try answer("SELECT COUNT(FirstName) FROM Contact")
        XCTAssertEqual(((field["records"] as? [[String: Any]])?.first)?["expr0"] as? Int, 2)
        let aliased = try answer("SELECT COUNT(Id) n FROM Contact")
        XCTAssertEqual(((aliased["records"] as? [[String: Any]])?.first)?["n"] as? Int, 3)
    }

    func testAnyObjectAndCustomRelationships() throws {
        try state.database.store.write { [self] db in
            let wo = try state.records.insert(
                db, orgId: session.orgId, object: state.definition.object("WorkOrder__c")!,
                record: ["Name": "WO-1", "Status__c": "New", "Account__c": .string(accounts["babbage"]!), "EstimatedHours__c": .double(2.5)], userId: session.userId)
            try state.records.insert(db, orgId: session.orgId, object: state.definition.object("WorkOrderLine__c")!,
                                     record: ["Name": "L-1", "WorkOrder__c": .string(wo), "Quantity__c": .int(3)], userId: session.userId)
        }
        let lines = try rows("SELECT Name, Quantity__c, WorkOrder__r.Name, WorkOrder__r.Account__r.Name FROM WorkOrderLine__c WHERE Quantity__c >= 2")
        XCTAssertEqual(lines.count, 1)
        XCTAssertEqual(lines[0]["Quantity__c"] as? Int, 3)
        let parent = try XCTUnwrap(lines[0]["WorkOrder__r"] as? [String: Any])
        XCTAssertEqual(parent["Name"] as? String, "WO-1")
        XCTAssertEqual((parent["Account__r"] as? [String: Any])?["Name"] as? String, "Babbage Engines")
        XCTAssertEqual(try rows("SELECT Name FROM WorkOrder__c WHERE EstimatedHours__c > 2 AND Status__c IN ('New', 'Scheduled')").count, 1)
        let withLines = try rows("SELECT Name, (SELECT Name FROM Lines__r) FROM WorkOrder__c")
        XCTAssertEqual(((withLines[0]["Lines__r"] as? [String: Any])?["totalSize"]) as? Int, 1)
    }

    func testPolymorphicWhatGivesTheRecordsOwnType() throws {
        _ = try state.database.store.write { [self] db in
            try state.records.insert(db, orgId: session.orgId, object: state.definition.object("Task")!,
                                     record: ["Subject": "Call", "Status": "Not Started", "Priority": "High", "WhatId": .string(accounts["navy"]!)], userId: session.userId)
        }
        let r = try rows("SELECT Subject, What.Name FROM Task")
        let what = try XCTUnwrap(r[0]["What"] as? [String: Any])
        XCTAssertEqual(what["Name"] as? String, "Navy Yard")
        XCTAssertEqual((what["attributes"] as? [String: Any])?["type"] as? String, "Account")
    }

    func testErrorsAreSalesforces() {
        for soql in ["SELECT Id FROM Contact GROUP BY Id", "SELECT Id FROM Contact WHERE", "SELECT Id, FROM Contact",
                     "SELECT Id FROM Contact WHERE LastName = 'open", "SELECT Id FROM Contact LIMIT -1", "SELECT COUNT(), Id FROM Contact",
                     "SELECT Id FROM Contact WHERE Id IN (SELECT Id FROM Contact)", "SELECT Id FROM Account WHERE AnnualRevenue > '5'",
                     "SELECT Id FROM Contact WHERE CreatedDate > 2026-01-01", "SELECT MAX(Id) FROM Contact"] {
            XCTAssertEqual(soqlError(soql)?.errorCode, "MALFORMED_QUERY", soql)
        }
        XCTAssertEqual(soqlError("SELECT Nope FROM Contact")?.errorCode, "INVALID_FIELD")
        XCTAssertEqual(soqlError("SELECT Account.Nope FROM Contact")?.errorCode, "INVALID_FIELD")
        XCTAssertEqual(soqlError("SELECT Nope.Name FROM Contact")?.errorCode, "INVALID_FIELD")
        XCTAssertEqual(soqlError("SELECT Id FROM Nope__c")?.errorCode, "INVALID_TYPE")
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE Department > true")?.errorCode, "MALFORMED_QUERY")
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE AccountId = 'x'")?.errorCode, "INVALID_QUERY_FILTER_OPERATOR")
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE IsDeleted LIKE 'x'")?.errorCode, "INVALID_QUERY_FILTER_OPERATOR")
        XCTAssertEqual(soqlError("SELECT Id FROM Contact OFFSET 2001")?.errorCode, "NUMBER_OUTSIDE_VALID_RANGE")
    }

    /// Found by scripts/fuzz (SOQL): more than three fraction digits made an invalid range and crashed
    /// sf-simulator on any query with such a literal.
    func testADatetimeLiteralWithMoreThanThreeFractionDigitsIsCutToMillisecondsNotACrash() throws {
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastModifiedDate > 2026-02-01T00:00:00.0001+0000"), ["Turing"])
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

    // MARK: Cursors

    func insertContacts(_ n: Int) throws {
        try state.database.store.write { [self] db in
            let contact = state.definition.object("Contact")!
            for i in 0..<n { try state.records.insert(db, orgId: session.orgId, object: contact, record: ["LastName": .string("Bulk \(i)")], userId: session.userId) }
        }
    }

    func page(_ next: String, as s: Session? = nil, now: Date = Date()) throws -> [String: Any] {
        let parts = next.split(separator: "/")
        // As the route does: an invalid locator is an answer, and the expiry it ran is kept.
        let result: Result<Data, SalesforceError> = try state.database.store.write { [self] db in
            do {
                return .success(try state.queries.more(db, locatorAndOffset: String(parts.last!), session: s ?? session, version: String(parts[2]), path: String(parts[3]), now: now))
            } catch let error as SalesforceError { return .failure(error) }
        }
        let data = try result.get()
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    func testPagingReadsEveryRowOnceAndFreesTheFinishedCursor() throws {
        try insertContacts(997)
        var first = try answer("SELECT Id FROM Contact ORDER BY LastName", batchSize: 200)
        var seen = Set((first["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String })
        XCTAssertEqual(first["totalSize"] as? Int, 1000)
        while let next = first["nextRecordsUrl"] as? String {
            first = try page(next)
            seen.formUnion((first["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String })
        }
        XCTAssertEqual(seen.count, 1000)
        XCTAssertEqual(try state.database.store.read { try self.state.queries.openCursorCount($0) }, 0)
        XCTAssertEqual(try state.database.store.read { try $0.value(as: Int.self, "SELECT COUNT(*) FROM cursor_chunks") }, 0)
    }

    /// A cursor's rows are kept in chunks of 2,000: pages that cross a chunk's end, and a locator's offset
    /// anywhere (a client may ask for any), read the rows in the query's order, each once.
    func testPagesAcrossTheCursorsChunksKeepTheQuerysOrder() throws {
        try insertContacts(4497)
        let first = try answer("SELECT Id, LastName FROM Contact ORDER BY LastName DESC", batchSize: 2000)
        XCTAssertEqual(first["totalSize"] as? Int, 4500)
        let next = try XCTUnwrap(first["nextRecordsUrl"] as? String)
        XCTAssertTrue(next.hasSuffix("-2000"), next)
        let second = try page(next)
        let last = try XCTUnwrap(second["nextRecordsUrl"] as? String)
        let straddling = try page(String(next.dropLast(4)) + "1999")
        let end = try page(last)
        XCTAssertNil(end["nextRecordsUrl"])
        func names(_ answer: [String: Any]) -> [String] { (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["LastName"] as? String } }
        let all = names(first) + names(second) + names(end)
        XCTAssertEqual(all.count, 4500)
        XCTAssertEqual(Set(all).count, 4500, "each row once")
        let bulk = all.filter { $0.hasPrefix("Bulk ") }
        XCTAssertEqual(bulk.count, 4497)
        XCTAssertTrue(bulk == bulk.sorted(by: >), "the query's order, across chunks")
        XCTAssertTrue(names(straddling) == Array(all[1999..<3999]), "a page from offset 1,999 crosses the first chunk's end")
        XCTAssertEqual(try state.database.store.read { try self.state.queries.openCursorCount($0) }, 0)
        XCTAssertEqual(try state.database.store.read { try $0.value(as: Int.self, "SELECT COUNT(*) FROM cursor_chunks") }, 0)
    }

    /// A transaction that runs `before` once, just before the statement that numbers a cursor's rows.
    final class BeforeNumbering: SQLTransaction {
        let inner: any SQLTransaction
        var before: (() throws -> Void)?
        init(_ inner: any SQLTransaction, before: @escaping () throws -> Void) { self.inner = inner; self.before = before }
        var dialect: SQLDialect { inner.dialect }
        func run(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> Int { try inner.run(sql, arguments, cached: cached) }
        func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
            if sql.hasPrefix("INSERT INTO cursor_chunks"), let hook = before {
                before = nil
                try hook()
            }
            return try inner.query(sql, arguments)
        }
        func executeScript(_ sql: String) throws { try inner.executeScript(sql) }
        func columnNames(ofTable table: String) throws -> [String] { try inner.columnNames(ofTable: table) }
        func lockForUpdate(table: String, ids: [String]) throws -> String { try inner.lockForUpdate(table: table, ids: ids) }
        func lockValues(_ keys: [String]) throws { try inner.lockValues(keys) }
        func runDeferred(_ sql: String, _ arguments: [SQLValue]) throws { try inner.runDeferred(sql, arguments) }
    }

    /// A cursor is one snapshot, its first page included: a record of the first page deleted by another
    /// transaction while the query runs, after its first look and before its rows are numbered (on PostgreSQL,
    /// two snapshots of READ COMMITTED), leaves no record on two pages and none on neither. On SQLite the query's
    /// transaction is one snapshot and no other can write meanwhile, so there the deletion comes before it.
    func testACursorsFirstPageIsOfTheSameSnapshotAsTheRest() throws {
        try insertContacts(397)
        let query = "SELECT Id FROM Contact WHERE LastName LIKE 'Bulk%' ORDER BY LastName"
        let ids = try rowsIds(query, batchSize: 2000)
        XCTAssertEqual(ids.count, 397)
        let gone = ids[5]
        let delete = { [self] in
            _ = try state.database.store.write { db in
                try db.execute("UPDATE \(OrgDatabase.quote(state.definition.object("Contact")!.table)) SET \"IsDeleted\" = 1 WHERE \"Id\" = ?", [gone])
            }
        }
        if state.database.store.dialect == .sqlite { try delete() }
        let data = try state.database.store.write { [self] db in
            try state.queries.run(
                state.database.store.dialect == .sqlite ? db : BeforeNumbering(db, before: delete), soql: query, session: session, version: "v66.0",
                includeDeleted: false, batchSize: 200)
        }
        var answer = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var seen = (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String }
        while let next = answer["nextRecordsUrl"] as? String {
            answer = try page(next)
            seen += (answer["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String }
        }
        XCTAssertEqual(seen, ids.filter { $0 != gone }, "every record of the snapshot once, in order")
        XCTAssertEqual(answer["totalSize"] as? Int, 396)
    }

    func rowsIds(_ soql: String, batchSize: Int) throws -> [String] {
        (try answer(soql, batchSize: batchSize)["records"] as? [[String: Any]] ?? []).compactMap { $0["Id"] as? String }
    }

    /// An instance reads a page of a cursor it knows (one it opened or served) in one statement, which also
    /// checks that the database still holds that cursor: open, and the same plan in the same place. So a cursor
    /// that another instance of a fleet released is INVALID_QUERY_LOCATOR here too, one that another opened is
    /// served from the database's row, and a locator whose cursor the database holds with another plan (a state
    /// set up again under a running instance) is read with the database's plan, never the one known.
    func testAPageIsReadOnlyFromTheCursorTheDatabaseHolds() throws {
        try insertContacts(597)
        func locator(_ next: String) -> String { String(next.split(separator: "/").last!.split(separator: "-")[0]) }
        let released = try XCTUnwrap(answer("SELECT Id FROM Contact ORDER BY LastName", batchSize: 200)["nextRecordsUrl"] as? String)
        XCTAssertNotNil(state.queries.known.cursor(locator(released)), "known to the instance that opened it")
        _ = try state.database.store.write { db in try db.execute("DELETE FROM cursors WHERE locator = ?", [locator(released)]) }
        XCTAssertThrowsError(try page(released)) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR") }
        XCTAssertNil(state.queries.known.cursor(locator(released)), "forgotten once the database has no such cursor")

        let elsewhere = QueryEngine(database: state.database)
        let data = try state.database.store.write { [self] db in
            try elsewhere.run(db, soql: "SELECT Id FROM Contact ORDER BY LastName", session: session, version: "v66.0", includeDeleted: false, batchSize: 200)
        }
        let opened = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["nextRecordsUrl"] as? String)
        XCTAssertNil(state.queries.known.cursor(locator(opened)))
        let second = try page(opened)
        XCTAssertEqual((second["records"] as? [[String: Any]])?.count, 200)
        XCTAssertNotNil(state.queries.known.cursor(locator(opened)), "known once served")

        let other = try SOQLCompiler.compile(
            SOQLParser.parse("SELECT Id, LastName FROM Contact ORDER BY LastName"), definition: state.definition, now: Date(), dialect: state.database.store.dialect)
        _ = try state.database.store.write { db in
            try db.execute("UPDATE cursors SET plan = ? WHERE locator = ?", [try JSONEncoder().encode(other), locator(opened)])
        }
        let third = try page(try XCTUnwrap(second["nextRecordsUrl"] as? String))
        let records = try XCTUnwrap(third["records"] as? [[String: Any]])
        XCTAssertEqual(records.count, 200)
        XCTAssertTrue(records.allSatisfy { $0["LastName"] is String }, "the database's plan, which selects LastName")
        XCTAssertNil(third["nextRecordsUrl"])
        XCTAssertEqual(try state.database.store.read { try self.state.queries.openCursorCount($0) }, 0)
        XCTAssertEqual(state.queries.known.count, 0)
    }

    /// A locator is `<cursor>-<offset>` and nothing else: a doubled dash (`…--5`, a negative offset as a client
    /// might write it), a missing part or a third one is INVALID_QUERY_LOCATOR, and the cursor is kept.
    func testALocatorWithAnEmptyOrExtraPartIsRefusedAndTheCursorKept() throws {
        try insertContacts(400)
        let next = try XCTUnwrap(answer("SELECT Id FROM Contact", batchSize: 200)["nextRecordsUrl"] as? String)
        XCTAssertTrue(next.hasSuffix("-200"), next)
        let cursor = String(next.dropLast(4))
        for bad in [cursor + "--5", cursor, cursor + "-", cursor + "-200-1", next.replacingOccurrences(of: "/query/", with: "/query/-")] {
            XCTAssertThrowsError(try page(bad), bad) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR") }
        }
        XCTAssertEqual((try page(next)["records"] as? [[String: Any]])?.count, 200)
    }

    /// A state from before the chunks kept a cursor's rows in `cursor_rows`; its cursors are released when the
    /// schema is brought up to date (their next page is INVALID_QUERY_LOCATOR), and the old table goes.
    func testAStateWithRowsOfTheOldShapeReleasesItsCursors() throws {
        try insertContacts(400)
        let next = try XCTUnwrap(answer("SELECT Id FROM Contact", batchSize: 200)["nextRecordsUrl"] as? String)
        try state.database.store.write { [self] db in
            try db.execute("CREATE TABLE cursor_rows (pos \(db.dialect.schema(" INTEGER")) PRIMARY KEY, rid \(db.dialect.schema(" INTEGER")) NOT NULL)")
            try state.database.createSchema(db)
        }
        XCTAssertThrowsError(try page(next)) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR") }
        XCTAssertEqual(try state.database.store.read { try $0.columnNames(ofTable: "cursor_rows") }, [])
        XCTAssertEqual(try state.database.store.read { try $0.value(as: Int.self, "SELECT COUNT(*) FROM cursor_chunks") }, 0)
        XCTAssertNotNil(try answer("SELECT Id FROM Contact", batchSize: 200)["nextRecordsUrl"], "new cursors open")
    }

    func testAnEleventhCursorBeforeV56ReleasesThatUsersOldest() throws {
        try insertContacts(400)
        var nexts: [String] = []
        for _ in 0..<11 { nexts.append(try XCTUnwrap(answer("SELECT Id FROM Contact", version: "v55.0", batchSize: 200)["nextRecordsUrl"] as? String)) }
        XCTAssertThrowsError(try page(nexts[0])) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR") }
        for next in nexts.dropFirst() { XCTAssertNotNil(try page(next)["records"]) }
        // Another user's cursors do not count against this one's ten, and a locator is its owner's only.
        let other = Session(orgId: session.orgId, userId: otherUser, clientId: "test")
        let theirs = try XCTUnwrap(answer("SELECT Id FROM Contact", version: "v55.0", batchSize: 200, as: other)["nextRecordsUrl"] as? String)
        XCTAssertThrowsError(try page(theirs)) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR") }
        XCTAssertNotNil(try page(theirs, as: other)["records"])
    }

    func testFromV56ThereIsNoLimitButCursorsExpire() throws {
        try insertContacts(400)
        var nexts: [String] = []
        for _ in 0..<30 { nexts.append(try XCTUnwrap(answer("SELECT Id FROM Contact", version: "v66.0", batchSize: 200)["nextRecordsUrl"] as? String)) }
        XCTAssertNotNil(try page(nexts[0])["records"])
        // Two days and a minute later every v66 cursor is gone.
        XCTAssertThrowsError(try page(nexts[1], now: Date().addingTimeInterval(2 * 86400 + 60))) {
            XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR")
        }
        XCTAssertEqual(try state.database.store.read { try self.state.queries.openCursorCount($0) }, 0)
        // Before v56, fifteen idle minutes expire one.
        let old = try XCTUnwrap(answer("SELECT Id FROM Contact", version: "v50.0", batchSize: 200)["nextRecordsUrl"] as? String)
        XCTAssertThrowsError(try page(old, now: Date().addingTimeInterval(16 * 60))) {
            XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "INVALID_QUERY_LOCATOR")
        }
        // Idle minutes count from the last page asked for: a page at 10 minutes keeps it for 15 more.
        let used = try XCTUnwrap(answer("SELECT Id FROM Contact", version: "v50.0", batchSize: 200)["nextRecordsUrl"] as? String)
        let second = try page(used, now: Date().addingTimeInterval(10 * 60))
        let third = try XCTUnwrap(second["nextRecordsUrl"] as? String)
        XCTAssertNotNil(try page(third, now: Date().addingTimeInterval(20 * 60))["records"])
    }

    func testQueryAllSeesDeletedRecords() throws {
        try state.database.store.write { [self] db in
            try state.records.delete(db, session: session, object: state.definition.object("Contact")!, id: SalesforceID.make(prefix: "003", number: 3))
        }
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY LastName"), ["Lovelace", "Turing"])
        let all = try answer("SELECT LastName, IsDeleted FROM Contact ORDER BY LastName", all: true)
        XCTAssertEqual((all["records"] as? [[String: Any]])?.map { $0["IsDeleted"] as? Bool }, [true, false, false])
    }

    func testSOSLFindsWordsInTheSearchedFields() throws {
        func search(_ q: String) throws -> [[String: Any]] {
            let data = try state.database.store.write { [self] db in try SOSLQuery.parse(q).run(db, engine: state.queries, session: session, version: "v66.0") }
            return try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["searchRecords"] as? [[String: Any]])
        }
        XCTAssertEqual(try search("FIND {Lovelace} IN NAME FIELDS RETURNING Contact(FirstName, LastName)").map { $0["FirstName"] as? String }, ["Ada"])
        XCTAssertEqual(try search("FIND {math} IN ALL FIELDS RETURNING Contact(LastName WHERE FirstName != null ORDER BY LastName DESC LIMIT 1)").map { $0["LastName"] as? String }, ["Turing"])
        XCTAssertEqual(try search("FIND {math} IN NAME FIELDS RETURNING Contact").count, 0)
        XCTAssertEqual(try search("FIND {Nav*} RETURNING Account(Name), Contact(LastName)").count, 2)
        XCTAssertEqual(try search("FIND {Navy}").compactMap { ($0["attributes"] as? [String: Any])?["type"] as? String }.sorted(), ["Account", "Contact"])
        for bad in ["FIND Navy", "FIND {Navy", "FIND {a}", "SEARCH {x}", "FIND {Navy} RETURNING Nope__c", "FIND {Navy} IN SOME FIELDS"] {
            XCTAssertThrowsError(try search(bad), bad)
        }
    }

    // MARK: Bounds (issue 25: no crash from any input)

    /// 1,500 OR terms killed sf-simulator (a recursion per term, and SQLite's 1,000-deep expression limit):
    /// a chain of any length is one flat node, compiled to a balanced tree, and runs.
    func testLongAndOrChainsRunAndGiveTheRightRows() throws {
        let names = (0..<1_500).map { "'Nobody\($0)'" } + ["'Hopper'"]
        let or = "SELECT LastName FROM Contact WHERE " + names.map { "LastName = \($0)" }.joined(separator: " OR ")
        XCTAssertEqual(try lastNames(or), ["Hopper"])
        let and = "SELECT LastName FROM Contact WHERE " + (0..<1_500).map { "LastName != 'Nobody\($0)'" }.joined(separator: " AND ")
        XCTAssertEqual(Set(try lastNames(and)), ["Lovelace", "Turing", "Hopper"])
        let parsed = try SOQLParser.parse(or)
        guard case .or(let terms)? = parsed.condition else { return XCTFail("not one OR node") }
        XCTAssertEqual(terms.count, 1_501)
    }

    /// Parentheses and NOT nest up to `SOQLParser.maxNesting` levels, and run through SQLite; one more is one
    /// MALFORMED_QUERY.
    func testNestingIsBoundedAtTheLimitAndRefusedPastIt() throws {
        func nested(_ levels: Int) -> String {
            var condition = "LastName = 'Hopper'"
            for level in 0..<levels { condition = level % 2 == 0 ? "(\(condition) OR LastName = 'x\(level)')" : "NOT (NOT \(condition))" }
            return "SELECT LastName FROM Contact WHERE " + condition
        }
        // Each odd level adds three (NOT, NOT and the parenthesis); find the deepest query within the bound.
        var levels = 0
        while (try? SOQLParser.parse(nested(levels + 1))) != nil { levels += 1 }
        XCTAssertGreaterThan(levels, 10)
        XCTAssertEqual(try lastNames(nested(levels)), ["Hopper"], "the deepest query allowed runs in SQLite")
        XCTAssertEqual(soqlError(nested(levels + 1))?.errorCode, "MALFORMED_QUERY")
        let parens = { (n: Int) in "SELECT LastName FROM Contact WHERE " + String(repeating: "(", count: n) + "LastName = 'Hopper'" + String(repeating: ")", count: n) }
        XCTAssertEqual(try lastNames(parens(SOQLParser.maxNesting)), ["Hopper"])
        XCTAssertEqual(soqlError(parens(SOQLParser.maxNesting + 1))?.errorCode, "MALFORMED_QUERY")
        XCTAssertTrue(soqlError(parens(SOQLParser.maxNesting + 1))?.message.contains("deeper than \(SOQLParser.maxNesting)") ?? false)
        let nots = { (n: Int) in "SELECT LastName FROM Contact WHERE " + String(repeating: "NOT ", count: n) + "LastName = 'Hopper'" }
        XCTAssertEqual(try lastNames(nots(SOQLParser.maxNesting)), ["Hopper"])
        XCTAssertEqual(soqlError(nots(SOQLParser.maxNesting + 1))?.errorCode, "MALFORMED_QUERY")
        // 100,000 '(' in a row: one error, not a stack overflow.
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE " + String(repeating: "(", count: 99_000))?.errorCode, "MALFORMED_QUERY")
        XCTAssertEqual(soqlError("SELECT Id FROM Contact WHERE " + String(repeating: "NOT ", count: 24_000) + "Id = null")?.errorCode, "MALFORMED_QUERY")
    }

    func testAStatementLongerThanSalesforcesLimitIsMalformed() throws {
        let base = "SELECT LastName FROM Contact WHERE LastName = '"
        let atLimit = base + String(repeating: "x", count: SOQLParser.maxLength - base.utf8.count - 1) + "'"
        XCTAssertEqual(atLimit.utf8.count, SOQLParser.maxLength)
        XCTAssertEqual(try lastNames(atLimit), [])
        XCTAssertEqual(soqlError(atLimit + " ")?.errorCode, "MALFORMED_QUERY")
    }

    /// What SQLite refuses for size is the client's MALFORMED_QUERY (400); any other database error is a 500
    /// that names a result code. Neither carries the generated SQL or its arguments.
    func testSQLiteRefusalsAreMalformedQueryAndNoErrorCarriesSQL() throws {
        let store = try SQLiteStore(path: nil)
        let deep = "SELECT 1 WHERE " + (0..<1_200).map { "1 = \($0)" }.joined(separator: " OR ") + " OR 'secret-argument' = ?"
        let refused: SQLStoreError
        do {
            try store.read { db in _ = try db.fetchAll(deep, ["x"]) }
            return XCTFail("SQLite ran a 1,200-deep expression")
        } catch let error as SQLStoreError { refused = error }
        XCTAssertEqual(refused.kind, .tooLarge)
        // GRDB's own description carries the SQL; the backend's error keeps only SQLite's reason and code.
        XCTAssertFalse("\(refused)".contains("secret-argument") || "\(refused)".contains("SELECT"), "\(refused)")
        let mapped = SalesforceError.unknown(refused)
        XCTAssertEqual(mapped.status, .badRequest)
        XCTAssertEqual(mapped.errorCode, "MALFORMED_QUERY")
        XCTAssertFalse(mapped.message.contains("SELECT") || mapped.message.contains("secret-argument"), mapped.message)
        for message in ["too many SQL variables", "parser stack overflow"] {
            let error = SQLiteStore.storeError(DatabaseError(resultCode: .SQLITE_ERROR, message: message, sql: "SELECT secret FROM t0", arguments: ["secret-argument"]))
            XCTAssertEqual(SalesforceError.unknown(error).errorCode, "MALFORMED_QUERY", message)
            XCTAssertFalse(SalesforceError.unknown(error).message.contains("secret"))
        }
        let other = SalesforceError.unknown(SQLiteStore.storeError(DatabaseError(resultCode: .SQLITE_CORRUPT, message: "database disk image is malformed", sql: "SELECT secret FROM t0")))
        XCTAssertEqual(other.status, .internalServerError)
        XCTAssertEqual(other.errorCode, "UNKNOWN_EXCEPTION")
        XCTAssertFalse(other.message.contains("secret"), other.message)
    }

    /// A SOSL RETURNING clause's WHERE nests as SOQL's does: at the bound it runs, one past is one error.
    func testSOSLNestingIsBoundedAtTheLimitAndRefusedPastIt() throws {
        func search(_ levels: Int) throws -> Data {
            let condition = String(repeating: "(", count: levels) + "LastName = 'Hopper'" + String(repeating: ")", count: levels)
            let q = "FIND {Navy} RETURNING Contact(LastName WHERE \(condition))"
            return try state.database.store.write { [self] db in try SOSLQuery.parse(q).run(db, engine: state.queries, session: session, version: "v66.0") }
        }
        XCTAssertNoThrow(try search(SOQLParser.maxNesting))
        XCTAssertThrowsError(try search(SOQLParser.maxNesting + 1)) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "MALFORMED_QUERY") }
        XCTAssertThrowsError(try search(50_000)) { XCTAssertEqual(($0 as? SalesforceError)?.errorCode, "MALFORMED_QUERY") }
    }

    /// `%`, `_` and `\` in a SOSL term are the characters themselves: `FIND {%%}` matched every contact.
    /// Salesforce documents `\%` and `\_` as a literal percent sign and underscore in a LIKE pattern (SOQL's
    /// "Quoted String Escape Sequences"); both backends read them so, and a backslash as a backslash.
    func testLikeEscapesAreLiteralOnEveryBackend() throws {
        try state.database.store.write { [self] db in
            let contact = state.definition.object("Contact")!
            for name in ["100%_Sure", "100xySure", "Back\\Slash"] {
                try state.records.insert(db, orgId: session.orgId, object: contact, record: ["LastName": .string(name)], userId: session.userId)
            }
        }
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName LIKE '100__Sure' ORDER BY LastName"), ["100%_Sure", "100xySure"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName LIKE '100\\%\\_Sure'"), ["100%_Sure"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName LIKE '%\\%%'"), ["100%_Sure"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName LIKE '%\\_%'"), ["100%_Sure"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName LIKE 'Back\\\\%'"), ["Back\\Slash"])
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact WHERE LastName = '100%_Sure'"), ["100%_Sure"], "= has no wildcards")
    }

    /// A NUL is refused the same way on both backends: SQLite kept it (and `LIKE '%<NUL>%'` matched every
    /// record), PostgreSQL answered 500.
    func testANulCharacterIsRefusedAlikeOnEveryBackend() throws {
        XCTAssertEqual(soqlError("SELECT LastName FROM Contact WHERE LastName LIKE '%\u{0}%'")?.errorCode, "MALFORMED_QUERY")
        XCTAssertEqual(soqlError("SELECT LastName FROM Contact WHERE LastName = 'a\u{0}'")?.errorCode, "MALFORMED_QUERY")
        let contact = state.definition.object("Contact")!
        XCTAssertThrowsError(try state.database.store.write { [self] db in
            try state.records.insert(db, orgId: session.orgId, object: contact, record: ["LastName": .string("Nul\u{0}l")], userId: session.userId)
        }) { error in
            let shaped = SalesforceError.unknown(error)
            XCTAssertEqual(shaped.errorCode, "JSON_PARSER_ERROR", "\(error)")
            XCTAssertEqual(shaped.status, .badRequest)
        }
        XCTAssertThrowsError(try state.database.store.write { db in try db.run("SELECT ?", [SQLValue.text("a\u{0}")], cached: false) }) { error in
            XCTAssertEqual((error as? SQLStoreError)?.kind, .invalidText, "the store refuses it too: \(error)")
        }
        XCTAssertEqual(try lastNames("SELECT LastName FROM Contact ORDER BY LastName"), ["Hopper", "Lovelace", "Turing"], "nothing was written")
    }

    func testSOSLTreatsPercentUnderscoreAndBackslashAsLiterals() throws {
        func search(_ q: String) throws -> [String] {
            let data = try state.database.store.write { [self] db in try SOSLQuery.parse(q).run(db, engine: state.queries, session: session, version: "v66.0") }
            let records = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["searchRecords"] as? [[String: Any]])
            return records.compactMap { $0["LastName"] as? String }
        }
        try state.database.store.write { [self] db in
            let contact = state.definition.object("Contact")!
            for name in ["100%_Sure", "Back\\Slash"] {
                try state.records.insert(db, orgId: session.orgId, object: contact, record: ["LastName": .string(name)], userId: session.userId)
            }
        }
        XCTAssertEqual(try search("FIND {%%} RETURNING Contact(LastName)"), [])
        XCTAssertEqual(try search("FIND {__} RETURNING Contact(LastName)"), [])
        XCTAssertEqual(try search("FIND {0%_S} RETURNING Contact(LastName)"), ["100%_Sure"])
        XCTAssertEqual(try search("FIND {k\\\\S} RETURNING Contact(LastName)"), ["Back\\Slash"])
        XCTAssertEqual(try search("FIND {Lov*} RETURNING Contact(LastName)"), ["Lovelace"], "* is still SOSL's wildcard")
        XCTAssertEqual(try search("FIND {Tur?ng} RETURNING Contact(LastName)"), ["Turing"], "? is still SOSL's wildcard")
        // Many words: one balanced condition, not a chain deeper than SQLite allows.
        XCTAssertEqual(try search("FIND {" + Array(repeating: "Hopper", count: 1_200).joined(separator: " ") + "} RETURNING Contact(LastName)"), ["Hopper"])
    }
}
