import Foundation
import XCTest

@testable import OrgSimulator

/// Statements sent again and again (issue 39): on PostgreSQL a statement sent before with arguments of the same
/// types is prepared once per connection and then only bound and executed. It must answer as a statement parsed
/// anew does, whatever types its arguments have from one call to the next, and keep its place among the
/// statements of its transaction, sent without waiting or not. On SQLite (the default) and, when
/// scripts/integration/org-postgres.sh runs these tests, on PostgreSQL.
final class PreparedStatementTests: XCTestCase {
    var state: OrgState!

    override func tearDown() { state = nil; super.tearDown() }

    override func setUpWithError() throws {
        state = try TestStates.make(definition: try SOQLTests.definition(), tokenLifetime: 3600)
    }

    func testAStatementSentAgainKeepsItsPlaceInTheTransaction() throws {
        let key = "order-\(UUID().uuidString)"
        var expected = ""
        let order = try state.database.store.write { db -> String? in
            try db.execute("INSERT INTO meta(key, value) VALUES (?, '')", [key])
            for i in 0..<24 {
                // Sent without waiting, prepared from its second time; the plain statement between them is parsed
                // every time: the server must see them in the order they were given.
                try db.runDeferred("UPDATE meta SET value = value || ? WHERE key = ?", [.text(String(i % 10)), .text(key)])
                expected += String(i % 10)
                if i % 3 == 0 {
                    try db.execute("UPDATE meta SET value = value || '-\(i)' WHERE key = ?", [key])
                    expected += "-\(i)"
                }
            }
            return try db.value(as: String.self, "SELECT value FROM meta WHERE key = ?", [key])
        }
        XCTAssertEqual(order, expected)
        XCTAssertEqual(try state.database.store.read { db in try db.value(as: String.self, "SELECT value FROM meta WHERE key = ?", [key]) }, expected)
    }

    /// A statement first prepared on a connection inside a transaction that had already failed: PostgreSQL
    /// refuses the preparation (25P02), and PostgresNIO then refuses that statement on that connection for good.
    /// The transaction fails, as it must; the statement works again in the next one.
    /// On PostgreSQL each `?` becomes `$1`, `$2`, …, byte by byte: one inside quotes (a string with a doubled
    /// quote and non-ASCII letters, a quoted name) is text, not an argument.
    func testAQuestionMarkInsideQuotesIsNoArgument() throws {
        let row = try XCTUnwrap(try state.database.store.read { db in
            try db.fetchOne("SELECT CAST(? AS TEXT) || '?é''?' || CAST(? AS TEXT) AS \"v?\", CAST(? AS TEXT) AS \"ü\"", ["a", "ß", "7"])
        })
        XCTAssertEqual(row["v?"] as String?, "a?é'?ß")
        XCTAssertEqual(row["ü"] as String?, "7")
    }

    func testAStatementFirstPreparedInAFailedTransactionWorksInTheNext() throws {
        let key = "after-\(UUID().uuidString)"
        let select = "SELECT value FROM meta WHERE key = ? /* \(key) */"
        try state.database.store.write { db in
            try db.execute("INSERT INTO meta(key, value) VALUES (?, 'kept')", [key])
            XCTAssertEqual(try db.value(as: String.self, select, [key]), "kept")  // its first time: parsed, not prepared
        }
        XCTAssertThrowsError(try state.database.store.write { db in
            try db.runDeferred("INSERT INTO meta(key, value) VALUES (?, 'again')", [.text(key)])  // the key is taken
            _ = try db.value(as: String.self, select, [key])  // its second time: prepared, in a failed transaction
        })
        for _ in 0..<3 {
            XCTAssertEqual(try state.database.store.write { db in try db.value(as: String.self, select, [key]) }, "kept")
        }
    }

    func testAStatementSentAgainAnswersAlikeWhateverTheTypesOfItsArguments() throws {
        let key = "typed-\(UUID().uuidString)"
        try state.database.store.write { db in
            try db.execute("INSERT INTO meta(key, value) VALUES (?, '41')", [key])
            let arguments: [SQLValue] = [.text(key), .null, .text(key), .text("nothing"), .null, .text(key), .text(key)]
            for argument in arguments {
                let found = try db.value(as: String.self, "SELECT value FROM meta WHERE key = ?", [argument])
                XCTAssertEqual(found, argument == .text(key) ? "41" : nil, "\(argument)")
            }
            let numbers: [(SQLValue, Int?)] = [(.int(1), 2), (.int(2), 3), (.null, nil), (.int(41), 42), (.null, nil), (.int(-1), 0), (.int(7), 8)]
            for (argument, sum) in numbers {
                let row = try XCTUnwrap(try db.fetchOne("SELECT CAST(? AS BIGINT) + 1 AS n", [argument]))
                XCTAssertEqual(row["n"] as Int?, sum, "\(argument)")
            }
            // The same text with a double, then with an integer: each as it is.
            for (argument, expected) in [(SQLValue.double(1.5), 2.5), (.double(2.25), 3.25), (.double(-0.5), 0.5)] {
                let row = try XCTUnwrap(try db.fetchOne("SELECT CAST(? AS DOUBLE PRECISION) + 1 AS d", [argument]))
                XCTAssertEqual(row["d"] as Double?, expected)
            }
            // One text, its argument of a different type from one call to the next: each a statement of its own.
            let mixed: [(SQLValue, String)] = [(.int(5), "5"), (.text("x"), "x"), (.int(6), "6"), (.text("y"), "y"), (.double(1.5), "1.5"), (.text("z"), "z")]
            for (argument, expected) in mixed {
                XCTAssertEqual(try db.value(as: String.self, "SELECT CAST(? AS TEXT) AS v", [argument]), expected)
            }
            if db.dialect == .postgres {
                // The statements above were prepared on this transaction's connection, not parsed at every call.
                let prepared = try db.value(as: Int.self, "SELECT count(*) FROM pg_prepared_statements WHERE name LIKE 'sfsim_%'") ?? 0
                XCTAssertGreaterThanOrEqual(prepared, 4, "prepared on this connection: \(prepared)")
            }
        }
    }
}
