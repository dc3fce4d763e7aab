import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import SmartStoreEngine

/// The store's tables as the SDK creates them, and stores written before that layout.
final class SchemaTests: XCTestCase {
    /// `Fixtures/store-before-sdk-schema.sql` is `sqlite3 .dump` of a store that the build before the
    /// SDK's schema wrote: the ten employees (every index type), two departments with a json1 index, and
    /// two removed soups (so soup ids 1 and 4 are used up).
    private func oldStore() throws -> URL {
        let dump = try String(
            contentsOf: TestSupport.packageRoot.appendingPathComponent("Tests/SmartStoreTests/Fixtures/store-before-sdk-schema.sql"),
            encoding: .utf8)
        let url = try TestSupport.temporaryDirectory(self).appendingPathComponent("store.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.writeWithoutTransaction { db in try db.execute(sql: dump) }
        try queue.close()
        return url
    }

    private func schema(_ store: SmartStore) throws -> [String: String] {
        try store.pool.read { db in
            Dictionary(
                uniqueKeysWithValues: try Row.fetchAll(db, sql: "SELECT name, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'TABLE_%_fts%'")
                    // A renamed table's statement quotes its new name; the same table.
                    .map { ($0["name"] as String, ($0["sql"] as String).replacingOccurrences(of: "\"", with: "")) })
        }
    }

    func testANewStoreHasTheSDKsMetaTables() throws {
        let store = try Fixture.store(self, filled: false)
        let sql = try schema(store)
        XCTAssertEqual(sql["soup_index_map"], "CREATE TABLE soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT )")
        XCTAssertEqual(sql["soup_attrs"], "CREATE TABLE soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT )")
        XCTAssertEqual(sql["soup_attrs_0"], "CREATE INDEX soup_attrs_0 on soup_attrs ( soupName )")
        XCTAssertEqual(
            sql["long_operations_status"],
            "CREATE TABLE long_operations_status (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT, details TEXT, status TEXT, created INTEGER, lastModified INTEGER )")
        XCTAssertEqual(sql["TABLE_1_lastModified_idx"], "CREATE INDEX TABLE_1_lastModified_idx ON TABLE_1 ( lastModified )")
        XCTAssertEqual(sql["TABLE_1_6_idx"], "CREATE INDEX TABLE_1_6_idx ON TABLE_1 ( json_extract(soup, '$.isManager') )")
        XCTAssertEqual(store.migrated, [])
    }

    func testTheIndexMapHoldsColumnsAndJson1ExpressionsInIndexOrder() throws {
        let store = try Fixture.store(self, filled: false)
        let rows = try store.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = 'employees' ORDER BY rowid")
        }
        XCTAssertEqual(rows.map { $0["path"] as String }, Fixture.specs.map(\.path))
        XCTAssertEqual(rows.map { $0["columnType"] as String }, Fixture.specs.map(\.type.rawValue))
        XCTAssertEqual(rows[0]["columnName"] as String, "TABLE_1_0")
        XCTAssertEqual(rows[6]["columnName"] as String, "json_extract(soup, '$.isManager')")
        XCTAssertEqual(try store.indices(for: Fixture.soup), Fixture.specs)
    }

    func testAStoreWrittenBeforeTheSDKsSchemaIsMigratedOnceWithEveryEntry() throws {
        let url = try oldStore()
        // The widget's read-only open reads the old layout as it is, and changes nothing.
        let reader = try SmartStore(url: url, name: "old", readOnly: true)
        XCTAssertEqual(try reader.count(.all(soup: Fixture.soup)), 10)
        XCTAssertEqual(Fixture.lastNames(try reader.query(.exact(soup: Fixture.soup, path: "isManager", value: .bool(true), pageSize: 10))).sorted(),
                       ["Haas", "Henderson", "Stern", "Thompson"])
        XCTAssertEqual(reader.migrated, [])
        let before = try schema(reader)
        XCTAssertTrue(before["soup_index_map"]?.contains("position") == true)

        let store = try SmartStore(url: url, name: "old")
        XCTAssertEqual(store.migrated.count, 6, "\(store.migrated)")
        let sql = try schema(store)
        XCTAssertEqual(sql["soup_index_map"], "CREATE TABLE soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT )")
        XCTAssertEqual(sql["soup_attrs"], "CREATE TABLE soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT )")
        XCTAssertNotNil(sql["soup_attrs_0"])
        XCTAssertNotNil(sql["long_operations_status"])
        XCTAssertEqual(sql["TABLE_2_lastModified_idx"], "CREATE INDEX TABLE_2_lastModified_idx ON TABLE_2 ( lastModified )")

        // Every entry, every index, in the same order, through every kind of query.
        XCTAssertEqual(try store.indices(for: Fixture.soup), Fixture.specs)
        XCTAssertEqual(try store.indices(for: "departments"), [IndexSpec(path: "code", type: .string), IndexSpec(path: "budget", type: .json1)])
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 10)
        let all = try store.query(.all(soup: Fixture.soup, orderPath: "employeeId", pageSize: 10))
        XCTAssertEqual(all, (0..<10).map { i in try! reader.query(.exact(soup: Fixture.soup, path: "employeeId", value: .string(String(format: "%05d", i + 1))))[0] })
        XCTAssertEqual(Fixture.lastNames(try store.query(.match(soup: Fixture.soup, path: "lastName", matchKey: "Haas", pageSize: 10))), ["Haas", "Haas"])
        XCTAssertEqual(try store.query(.range(soup: "departments", path: "budget", begin: .int(200), end: nil)).first?["code"], "B01")
        XCTAssertEqual(
            try store.query(.smart("SELECT {employees:lastName} FROM {employees} WHERE {employees:isManager} = 1 AND {employees:age} > 45 ORDER BY {employees:lastName}")),
            [["Henderson"], ["Stern"]])

        // The removed soups' numbers stay used: a new soup gets TABLE_5, not a reused table.
        try store.registerSoup("accounts", indexSpecs: [IndexSpec(path: "Name", type: .string)])
        XCTAssertEqual(try store.pool.read { db in try Int64.fetchOne(db, sql: "SELECT id FROM soup_attrs WHERE soupName = 'accounts'") }, 5)
        // Writes after the migration land in the same soup.
        try store.upsert([["employeeId": "00011", "firstName": "Ada", "lastName": "Haas", "isManager": true]], into: Fixture.soup)
        XCTAssertEqual(try store.count(.exact(soup: Fixture.soup, path: "isManager", value: .bool(true))), 5)

        // Once: opening again changes nothing.
        try store.pool.close()
        let again = try SmartStore(url: url, name: "old")
        XCTAssertEqual(again.migrated, [])
        XCTAssertEqual(try again.count(.all(soup: Fixture.soup)), 11)
    }
}

extension SchemaTests {
    /// A database another tool wrote is refused by name, and nothing is added to it.
    func testADatabaseOfAnotherKindIsRefusedAndLeftAsItIs() throws {
        let url = try TestSupport.temporaryDirectory(self).appendingPathComponent("other.sqlite")
        let queue = try DatabaseQueue(path: url.path)
        try queue.write { db in try db.execute(sql: "CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT); INSERT INTO notes (body) VALUES ('keep me')") }
        try queue.close()
        for readOnly in [false, true] {
            XCTAssertThrowsError(try SmartStore(url: url, name: "other", readOnly: readOnly)) { error in
                XCTAssertTrue("\(error)".contains(url.path), "\(error)")
            }
        }
        let after = try DatabaseQueue(path: url.path)
        XCTAssertEqual(try after.read { db in try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name") }, ["notes"])
        XCTAssertEqual(try after.read { db in try String.fetchOne(db, sql: "SELECT body FROM notes") }, "keep me")
    }
}
