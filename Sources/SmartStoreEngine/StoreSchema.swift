import Foundation
import GRDB

/// The store's own tables, as the Mobile SDK creates them (`SFSmartStore createMetaTablesWithDb:`), and
/// the one-time migration of stores that an older AppGroupSim build wrote.
///
/// The SDK's layout:
/// - `soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT)` with the index `soup_attrs_0`
///   on `soupName`; soup `n`'s entries are in `TABLE_n`.
/// - `soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT)`, one row per index
///   in the order the indexes were given (row order: there is no position column). `columnType` is the
///   index type (`string`, `integer`, `floating`, `full_text`, `json1`); `columnName` is the column
///   (`TABLE_n_i`) or, for json1, the indexed expression `json_extract(soup, '$.path')`.
/// - `long_operations_status (id, type, details, status, created, lastModified)`.
/// - Per soup, the indexes `TABLE_n_created_idx`, `TABLE_n_lastModified_idx` and `TABLE_n_i_idx`.
///
/// Before this layout, AppGroupSim wrote `soup_index_map` with a `position` column and a primary key,
/// a NULL `columnName` for json1 indexes, `soup_attrs.soupName` UNIQUE, an index on
/// `(lastModified, id)` and no `long_operations_status`. A writable open migrates such a store once,
/// in one transaction, keeping every soup's id, table, entries and index order. A read-only open (the
/// widget) reads both layouts and changes nothing.
enum StoreSchema {
    static let create = """
        CREATE TABLE IF NOT EXISTS soup_index_map (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT );
        CREATE TABLE IF NOT EXISTS soup_attrs (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT );
        CREATE TABLE IF NOT EXISTS long_operations_status (id INTEGER PRIMARY KEY AUTOINCREMENT, type TEXT, details TEXT, status TEXT, created INTEGER, lastModified INTEGER );
        CREATE INDEX IF NOT EXISTS soup_attrs_0 on soup_attrs ( soupName );
        """

    /// The json1 index's `columnName`, as the SDK writes it (and the expression of its SQLite index).
    static func json1Column(path: String) -> String {
        "json_extract(soup, '$.\(path.replacingOccurrences(of: "'", with: "''"))')"
    }

    /// True when `columnName` names no column of the soup table (a json1 index's expression, or the
    /// NULL an older build wrote).
    static func isExpression(_ columnName: String?) -> Bool {
        guard let columnName else { return true }
        return columnName.hasPrefix("json_extract(")
    }

    /// Creates the tables of a new store, or migrates an older AppGroupSim store; in a write transaction.
    /// Returns what was migrated (empty when nothing was).
    @discardableResult
    static func prepare(_ db: Database, path: String) throws -> [String] {
        var migrated: [String] = []
        // Another tool's database: never add our tables to it.
        if try !db.tableExists("soup_attrs"), try !db.tableExists("soup_index_map") {
            let tables = try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            if !tables.isEmpty {
                throw SmartStoreError.database(
                    path: path,
                    message: "not a SmartStore: a database of another kind (tables \(tables.prefix(5).joined(separator: ", "))\(tables.count > 5 ? ", …" : "")); it was left as it is: move it aside to start a new store")
            }
        }
        if try db.tableExists("soup_index_map"), try db.columns(in: "soup_index_map").contains(where: { $0.name == "position" }) {
            try db.execute(
                sql: """
                    CREATE TABLE soup_index_map_sdk (soupName TEXT, path TEXT, columnName TEXT, columnType TEXT );
                    INSERT INTO soup_index_map_sdk (soupName, path, columnName, columnType)
                        SELECT soupName, path, columnName, columnType FROM soup_index_map ORDER BY soupName, position;
                    DROP TABLE soup_index_map;
                    ALTER TABLE soup_index_map_sdk RENAME TO soup_index_map;
                    """)
            migrated.append("soup_index_map: four TEXT columns, rows in index order")
        }
        if try db.tableExists("soup_index_map") {
            let json1 = try Row.fetchAll(
                db, sql: "SELECT rowid, path, columnName FROM soup_index_map WHERE columnType = 'json1'")
            var updated = 0
            for row in json1 where (row[2] as String?) == nil {
                let path: String = row[1]
                try db.execute(
                    sql: "UPDATE soup_index_map SET columnName = ? WHERE rowid = ?", arguments: [json1Column(path: path), row[0] as Int64])
                updated += 1
            }
            if updated > 0 { migrated.append("soup_index_map: json1 columnName is the json_extract expression (\(updated))") }
        }
        if let sql = try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE type = 'table' AND name = 'soup_attrs'"),
            sql.uppercased().contains("UNIQUE")
        {
            // Keep every soup's id (its table is TABLE_<id>) and AUTOINCREMENT's counter, so that a
            // removed soup's number is not given to a new one.
            let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = 'soup_attrs'")
            try db.execute(
                sql: """
                    CREATE TABLE soup_attrs_sdk (id INTEGER PRIMARY KEY AUTOINCREMENT, soupName TEXT );
                    INSERT INTO soup_attrs_sdk (id, soupName) SELECT id, soupName FROM soup_attrs ORDER BY id;
                    DROP TABLE soup_attrs;
                    ALTER TABLE soup_attrs_sdk RENAME TO soup_attrs;
                    """)
            if let sequence {
                try db.execute(sql: "UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = 'soup_attrs'", arguments: [sequence])
                if db.changesCount == 0 {
                    try db.execute(sql: "INSERT INTO sqlite_sequence (name, seq) VALUES ('soup_attrs', ?)", arguments: [sequence])
                }
            }
            migrated.append("soup_attrs: soupName indexed (soup_attrs_0), ids kept")
        }
        if try db.tableExists("soup_attrs") {
            for id in try Int64.fetchAll(db, sql: "SELECT id FROM soup_attrs") {
                let table = "TABLE_\(id)"
                let index = "\(table)_lastModified_idx"
                let columns = try Row.fetchAll(db, sql: "PRAGMA index_info(\(index))").map { $0["name"] as String? }
                if columns.count > 1 {
                    try db.execute(sql: "DROP INDEX \(index)")
                    try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(index) ON \(table) ( lastModified )")
                    migrated.append("\(index) on lastModified")
                }
            }
        }
        if try !db.tableExists("long_operations_status"), try db.tableExists("soup_attrs") {
            migrated.append("long_operations_status created")
        }
        try db.execute(sql: create)
        return migrated
    }
}
