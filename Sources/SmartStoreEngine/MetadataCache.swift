import Foundation
import GRDB

/// Soup metadata and converted smart SQL, kept per store until the database schema changes
/// (in this process or another: SQLite's `schema_version` moves with every CREATE, ALTER and DROP).
final class MetadataCache: @unchecked Sendable {
    private let lock = NSLock()
    private var version: Int = -1
    private var soups: [String: SoupInfo] = [:]
    private var smart: [String: String] = [:]

    func invalidate() {
        lock.withLock {
            version = -1
            soups = [:]
            smart = [:]
        }
    }

    func soupInfo(_ db: Database, _ name: String) throws -> SoupInfo? {
        try refresh(db)
        if let cached = lock.withLock({ soups[name] }) { return cached }
        guard let id = try Int64.fetchOne(db, sql: "SELECT id FROM soup_attrs WHERE soupName = ? ORDER BY id LIMIT 1", arguments: [name]) else {
            return nil
        }
        // Row order is index order, in the SDK's layout and in the older one (whose rows were also
        // inserted by position); a json1 index's columnName is an expression (or NULL before), no column.
        let rows = try Row.fetchAll(
            db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = ? ORDER BY rowid", arguments: [name])
        let indexes = rows.map { row -> SoupInfo.Index in
            let type = IndexSpec.IndexType(rawValue: row[2] as String? ?? "") ?? .string
            let column: String? = row[1]
            return SoupInfo.Index(spec: IndexSpec(path: row[0], type: type), column: type == .json1 || StoreSchema.isExpression(column) ? nil : column)
        }
        let info = SoupInfo(name: name, table: "TABLE_\(id)", indexes: indexes)
        lock.withLock { soups[name] = info }
        return info
    }

    func smartSQL(_ sql: String, _ db: Database, lookup: (String) throws -> SoupInfo?) throws -> String {
        try refresh(db)
        if let cached = lock.withLock({ smart[sql] }) { return cached }
        let converted = try SmartSQL.convert(sql, soup: lookup)
        lock.withLock { smart[sql] = converted }
        return converted
    }

    private func refresh(_ db: Database) throws {
        let current = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA schema_version")) ?? 0
        lock.withLock {
            if current != version {
                version = current
                soups = [:]
                smart = [:]
            }
        }
    }
}
