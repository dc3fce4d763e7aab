import XCTest

@testable import MobileSyncEngine

/// The SDK's SOQL mutator cases (SFSDKSoqlMutatorTests, SyncManagerTests), rewritten: how a SOQL sync
/// down target's query is read and rebuilt.
final class SoqlMutatorTests: XCTestCase {
    func testAddWherePredicateWhenWhereClauseAbsent() {
        var m = SoqlMutator("SELECT Description FROM Account")
        m.addWherePredicates("LastModifiedDate > 123")
        XCTAssertEqual(m.build(), "select Description from Account where LastModifiedDate > 123")
    }

    func testReplaceOrderByWhenAbsent() {
        var m = SoqlMutator("SELECT Description FROM Account")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(m.build(), "select Description from Account order by LastModifiedDate")
    }

    func testReplaceOrderByWhenPresent() {
        var m = SoqlMutator("SELECT Description FROM Account ORDER BY Name")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(m.build(), "select Description from Account order by LastModifiedDate")
    }

    func testReplaceOrderByWhenLimit() {
        var m = SoqlMutator("SELECT Description FROM Account LIMIT 1000")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(m.build(), "select Description from Account order by LastModifiedDate limit 1000")
    }

    func testDropOrderBy() {
        var m = SoqlMutator("SELECT Description FROM Account ORDER BY FirstName")
        m.replaceOrderBy("")
        XCTAssertEqual(m.build(), "select Description from Account")
        var limited = SoqlMutator("SELECT Description FROM Account ORDER BY FirstName LIMIT 1000")
        limited.replaceOrderBy("")
        XCTAssertEqual(limited.build(), "select Description from Account limit 1000")
    }

    func testHasOrderBy() {
        XCTAssertTrue(SoqlMutator("SELECT Description FROM Account ORDER BY FirstName LIMIT 1000").hasOrderBy)
        XCTAssertFalse(SoqlMutator("SELECT Description FROM Account WHERE Id IN (SELECT Id FROM Account ORDER BY FirstName) LIMIT 1000").hasOrderBy, "in a subquery")
        XCTAssertFalse(SoqlMutator("SELECT Description FROM Account WHERE Name = ' order by \\' order by \\''").hasOrderBy, "in a value")
        XCTAssertFalse(SoqlMutator("SELECT Description FROM Account LIMIT 1000").hasOrderBy)
    }

    func testIsOrderingBy() {
        XCTAssertTrue(SoqlMutator("SELECT LastName FROM Account ORDER BY LastModifiedDate").isOrdering(by: "LastModifiedDate"))
        XCTAssertFalse(SoqlMutator("SELECT LastName FROM Account WHERE Id IN (SELECT Id FROM Account ORDER BY LastModifiedDate)").isOrdering(by: "LastModifiedDate"))
    }

    func testIsSelectingField() {
        XCTAssertTrue(SoqlMutator("SELECT Id, Name FROM Account").isSelecting("Name"))
        XCTAssertFalse(SoqlMutator("SELECT Id, (SELECT Name FROM Contacts) FROM Account").isSelecting("Name"), "in a subquery")
        XCTAssertFalse(SoqlMutator("SELECT id FROM Account").isSelecting("Id"), "compared as written, as in the SDK")
    }

    func testModifyQueryWithInClause() {
        var m = SoqlMutator("select Name from Account where Id IN ('001P000001NQPjJIAX','001P000001NQPkdIAH') order by Name")
        m.addSelectFields("LastModifiedDate")
        m.addSelectFields("Id")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(m.build(), "select Id,LastModifiedDate,Name from Account where Id IN ('001P000001NQPjJIAX','001P000001NQPkdIAH') order by LastModifiedDate")
    }

    func testModifyQueryWithComplexExpressions() {
        var m = SoqlMutator("select Name from Account where ((Name = 'James Bond') or (Name = 'Batman')) and (Description like '%savior%') order by Name")
        m.addSelectFields("LastModifiedDate")
        m.addSelectFields("Id")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(
            m.build(), "select Id,LastModifiedDate,Name from Account where ((Name = 'James Bond') or (Name = 'Batman')) and (Description like '%savior%') order by LastModifiedDate")
    }

    func testModifyOrderByTwiceInComplexQuery() {
        let head = "select LastModifiedDate,Id, OwnerId, WhatId, Status, Subject, Priority, Description, ActivityDate, WhoId from Task where (OwnerId = '<<<UserIDHERE>>>' OR (What.Type = 'Account' AND (Account.OwnerId = '<<<UserIDHERE>>>' OR Account.Owner.ManagerId = '<<<UserIDHERE>>>'))) AND (LastModifiedDate > 2019-05-15T07:52:27.000Z )"
        var m = SoqlMutator(head + " order by Description")
        m.replaceOrderBy("LastModifiedDate")
        XCTAssertEqual(m.build(), head + " order by LastModifiedDate")
    }

    /// SyncManagerTests testAddMissingFieldstoSOQLTarget.
    func testAddMissingFieldstoSOQLTarget() {
        XCTAssertEqual(
            SoqlSyncDownTarget(query: "select FirstName, LastName from Contact limit 100").query,
            "select Id,LastModifiedDate,FirstName, LastName from Contact order by LastModifiedDate limit 100")
        let complete = "SELECT Id, LastModifiedDate, Name FROM Account ORDER BY Name"
        XCTAssertEqual(SoqlSyncDownTarget(query: complete).query, complete, "nothing to add: kept as written")
    }
}
