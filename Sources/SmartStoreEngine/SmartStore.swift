import SchedulePoints
import AppGroup
import FastJSON
import Foundation
import GRDB

/// A SmartStore: JSON "soups" in one SQLite file, shaped like the Mobile SDK's.
///
/// The file is opened as a GRDB `DatabasePool` in WAL mode with a busy timeout, so another process
/// (the widget) can read while this one (the app) writes: every batch is one transaction, a reader
/// sees all of it or none of it, and a normal write never makes a reader fail with "database is locked".
///
/// Tables follow the SDK's layout (`StoreSchema`): `soup_attrs`, `soup_index_map` and
/// `long_operations_status`, one `TABLE_<n>` per soup with `id`, `soup` (the entry's JSON), `created`,
/// `lastModified` and a column per index, and `TABLE_<n>_fts` (FTS5) for `full_text` indexes.
///
/// ```swift
/// let store = try SmartStore(path: url, name: "defaultStore")
/// try store.registerSoup("contacts", indexSpecs: [IndexSpec(path: "LastName", type: .string)])
/// let saved = try store.upsert([["FirstName": "Ada", "LastName": "Lovelace"]], into: "contacts")
/// let page = try store.query(.exact(soup: "contacts", path: "LastName", value: "Lovelace"))
/// ```
package final class SmartStore: Sendable {
    package let name: String
    package let url: URL
    /// A WAL `DatabasePool` for the app; for a read-only store (an extension), one read-only connection
    /// (`DatabaseQueue`): a pool would open a writer connection and then a reader, parsing the schema twice
    /// on the widget's launch (about 2 ms of its 3.7 ms to open the store here).
    let pool: any DatabaseWriter
    private let cache = MetadataCache()
    /// `captureExplainQueryPlan` and `lastExplainQueryPlan`: when on, each query is first explained
    /// (`EXPLAIN QUERY PLAN` of the statement it runs, with its arguments), and that plan kept.
    package let explain = ExplainCapture()

    /// True when opened with `readOnly`: the store is never created, altered or written.
    package let isReadOnly: Bool

    /// What this open changed to bring a store written by an older AppGroupSim build to the SDK's
    /// schema (empty when the store already had it, or was opened read-only).
    package let migrated: [String]

    /// Opens (creating if needed) the store at `url`. Directories are created 0700, the file 0600.
    ///
    /// With `readOnly` (what an extension does), an existing store is opened for reading only: no
    /// schema statement, no write transaction, no fsync, so a reader never holds the writer's lock
    /// and never makes the app's write fail. A missing file is an error then, not a new store.
    package init(url: URL, name: String, readOnly: Bool = false) throws {
        self.name = name
        self.url = url
        isReadOnly = readOnly
        if readOnly {
            migrated = []
            do {
                guard FileManager.default.fileExists(atPath: url.path) else {
                    throw SmartStoreError.database(path: url.path, message: "no store file; the app has not created it yet")
                }
                try Self.checkProtection(url)
                var config = Configuration()
                config.readonly = true
                config.busyMode = .timeout(10)
                config.acceptsDoubleQuotedStringLiterals = true
                pool = try DatabaseQueue(path: url.path, configuration: config)
                // Fail now, with the file's name, if this is not a SmartStore (garbage, or another tool's file);
                // an empty database is one the app is still creating.
                let created = try pool.read { db in try db.tableExists("soup_attrs") }
                guard created else { throw SmartStoreError.storeNotCreatedYet(path: url.path) }
            } catch let error as DatabaseError {
                throw SmartStoreError.database(path: url.path, message: Self.message(error))
            }
            OpenStores.shared.add(self)
            return
        }
        do {
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let existed = FileManager.default.fileExists(atPath: url.path)
            // The SDK's `protectStoreDirIfNeeded`: an existing store is given completeUntilFirstUserAuthentication
            // before it is opened; a store whose class is not available now cannot be changed, nor opened.
            if existed { try Self.protectStore(url) }
            var config = Configuration()
            config.busyMode = .timeout(10)
            // SQLite's default, and the SDK's: "" is a string literal where no column has that name.
            config.acceptsDoubleQuotedStringLiterals = true
            config.prepareDatabase { db in
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            pool = try DatabasePool(path: url.path, configuration: config)
            migrated = try pool.write { db in try StoreSchema.prepare(db, path: url.path) }
            for file in [url.path, url.path + "-wal", url.path + "-shm"] where FileManager.default.fileExists(atPath: file) {
                try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
            }
            if !existed { try Self.protectStore(url) }
        } catch let error as DatabaseError {
            throw SmartStoreError.database(path: url.path, message: Self.message(error))
        }
        OpenStores.shared.add(self)
    }

    /// Copies the `-wal` file's committed pages into the database file and truncates it
    /// (`PRAGMA wal_checkpoint(TRUNCATE)`). A clean exit of the app does this for every open store, so
    /// that the data is not left in a file that a crash or stray write could spoil.
    package func checkpoint() throws {
        guard !isReadOnly else { return }
        do {
            try pool.writeWithoutTransaction { db in _ = try Row.fetchAll(db, sql: "PRAGMA wal_checkpoint(TRUNCATE)") }
        } catch let error as DatabaseError {
            throw SmartStoreError.database(path: url.path, message: Self.message(error))
        }
    }

    /// `checkpoint()` on every writable store this process has open; failures are left for the next open.
    package static func checkpointOpenStores() {
        for store in OpenStores.shared.all() { try? store.checkpoint() }
    }

    // MARK: Soups

    /// Creates the soup with its indexes; registering an existing soup again does nothing.
    package func registerSoup(_ soup: String, indexSpecs: [IndexSpec]) throws {
        guard !soup.isEmpty else { throw SmartStoreError.invalidSoupName }
        guard !indexSpecs.isEmpty else { throw SmartStoreError.noIndexSpecs(soup: soup) }
        try write { db in
            if try self.soupInfo(db, soup) != nil { return }
            try db.execute(sql: "INSERT INTO soup_attrs (soupName) VALUES (?)", arguments: [soup])
            let table = "TABLE_\(db.lastInsertedRowID)"
            try self.createSoupTable(db, soup: soup, table: table, specs: indexSpecs)
        }
    }

    package func soupExists(_ soup: String) throws -> Bool {
        try read { db in try self.soupInfo(db, soup) != nil }
    }

    package func allSoupNames() throws -> [String] {
        try read { db in try String.fetchAll(db, sql: "SELECT soupName FROM soup_attrs ORDER BY soupName") }
    }

    package func indices(for soup: String) throws -> [IndexSpec] {
        try read { db in try self.requireSoup(db, soup).indexes.map(\.spec) }
    }

    /// Each index with its `soup_index_map` row's `columnName` as the store keeps it (`TABLE_1_0`, or the
    /// json_extract expression of a json1 index), as the SDK's `indicesForSoup:` gives them.
    package func indexColumns(for soup: String) throws -> [(spec: IndexSpec, columnName: String?)] {
        try read { db in
            _ = try self.requireSoup(db, soup)
            return try Row.fetchAll(db, sql: "SELECT path, columnName, columnType FROM soup_index_map WHERE soupName = ? ORDER BY rowid", arguments: [soup])
                .map { row in (IndexSpec(path: row[0], type: IndexSpec.IndexType(rawValue: row[2] as String? ?? "") ?? .string), row[1] as String?) }
        }
    }

    /// Deletes every entry; the soup and its indexes stay.
    package func clearSoup(_ soup: String) throws {
        try write { db in
            let info = try self.requireSoup(db, soup)
            try db.execute(sql: "DELETE FROM \(info.table)")
            if !info.fullTextColumns.isEmpty { try db.execute(sql: "DELETE FROM \(info.ftsTable)") }
        }
    }

    package func removeSoup(_ soup: String) throws {
        try write { db in
            guard let info = try self.soupInfo(db, soup) else { return }
            try db.execute(sql: "DROP TABLE IF EXISTS \(info.table)")
            try db.execute(sql: "DROP TABLE IF EXISTS \(info.ftsTable)")
            try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [soup])
            try db.execute(sql: "DELETE FROM soup_attrs WHERE soupName = ?", arguments: [soup])
        }
    }

    /// Changes the soup's indexes. Entry ids, data and dates are kept. With `reIndexData`, new and changed
    /// index columns are filled from the entries; without it they stay empty until `reIndexSoup`.
    package func alterSoup(_ soup: String, indexSpecs: [IndexSpec], reIndexData: Bool) throws {
        guard !indexSpecs.isEmpty else { throw SmartStoreError.noIndexSpecs(soup: soup) }
        try write { db in
            let old = try self.requireSoup(db, soup)
            try db.execute(sql: "DELETE FROM soup_index_map WHERE soupName = ?", arguments: [soup])
            try db.execute(sql: "DROP TABLE IF EXISTS \(old.ftsTable)")
            try db.execute(sql: "ALTER TABLE \(old.table) RENAME TO \(old.table)_old")
            // A renamed table keeps its indexes' names; free them for the new table.
            for index in try String.fetchAll(
                db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
                arguments: ["\(old.table)_old"])
            {
                try db.execute(sql: "DROP INDEX \(index)")
            }
            try self.createSoupTable(db, soup: soup, table: old.table, specs: indexSpecs)
            guard let new = try self.soupInfo(db, soup) else { throw SmartStoreError.soupNotFound(soup) }
            // Carry over the columns of indexes that kept their path and type.
            var targets = ["id", "soup", "created", "lastModified"]
            var sources = targets
            for index in new.indexes {
                if let column = index.column, let previous = old.index(for: index.spec.path), previous.spec == index.spec,
                    let oldColumn = previous.column
                {
                    targets.append(column)
                    sources.append(oldColumn)
                }
            }
            try db.execute(
                sql: "INSERT INTO \(new.table) (\(targets.joined(separator: ","))) SELECT \(sources.joined(separator: ",")) FROM \(old.table)_old")
            try db.execute(sql: "DROP TABLE \(old.table)_old")
            if reIndexData {
                try self.reIndex(db, new, paths: new.indexes.map(\.spec.path))
            } else if !new.fullTextColumns.isEmpty {
                try self.reIndex(db, new, paths: new.indexes.filter { $0.spec.type == .fullText }.map(\.spec.path))
            }
        }
    }

    /// Recomputes the index columns of `paths` from the stored entries.
    package func reIndexSoup(_ soup: String, paths: [String]) throws {
        try write { db in
            let info = try self.requireSoup(db, soup)
            for path in paths where info.index(for: path) == nil {
                throw SmartStoreError.pathNotIndexed(soup: soup, path: path)
            }
            try self.reIndex(db, info, paths: paths)
        }
    }

    // MARK: Entries

    /// Inserts or updates entries in one transaction and returns them as stored (with `_soupEntryId` and
    /// `_soupLastModifiedDate`). An entry with `_soupEntryId` updates that entry; otherwise, with an
    /// `externalIdPath` other than `_soupEntryId`, the entry whose value at that indexed path matches is
    /// updated, or a new one inserted. On any error nothing is written.
    @discardableResult
    package func upsert(_ entries: [SoupEntry], into soup: String, externalIdPath: String = SoupField.entryId) throws
        -> [SoupEntry]
    {
        var saved: [SoupEntry] = []
        saved.reserveCapacity(entries.count)
        try upsert(entries, into: soup, externalIdPath: externalIdPath) { saved.append($0) }
        return saved
    }

    /// `upsert` for bulk loads that do not read the entries back (a sync down): the same transaction and
    /// rules, returning only the entry ids. Building 100,000 result entries costs a tenth of the upsert.
    @discardableResult
    package func upsertReturningIds(_ entries: [SoupEntry], into soup: String, externalIdPath: String = SoupField.entryId)
        throws -> [Int64]
    {
        var ids: [Int64] = []
        ids.reserveCapacity(entries.count)
        try upsert(entries, into: soup, externalIdPath: externalIdPath) { ids.append($0[SoupField.entryId]?.intValue ?? 0) }
        return ids
    }

    /// `upsertReturningIds` with the `_soupLastModifiedDate` every entry got (one per call): a caller that
    /// keeps its own copies of the entries (the SDK's API, with Foundation dictionaries) adds the two fields
    /// itself instead of converting the stored entries back.
    package func upsertReturningIdsAndModified(_ entries: [SoupEntry], into soup: String, externalIdPath: String = SoupField.entryId)
        throws -> (ids: [Int64], modified: Int64)
    {
        var ids: [Int64] = []
        ids.reserveCapacity(entries.count)
        let modified = try upsert(entries, into: soup, externalIdPath: externalIdPath) { ids.append($0[SoupField.entryId]?.intValue ?? 0) }
        return (ids, modified)
    }

    @discardableResult
    private func upsert(
        _ entries: [SoupEntry], into soup: String, externalIdPath: String, each: (SoupEntry) -> Void
    ) throws -> Int64 {
        try write { db in
            let info = try self.requireSoup(db, soup)
            var writer = try EntryWriter(db: db, info: info)
            let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
            for entry in entries {
                each(try writer.upsert(entry, externalIdPath: externalIdPath, now: now))
            }
            return now
        }
    }

    /// The entries with these ids, in the order given; missing ids are skipped.
    package func retrieve(ids: [Int64], from soup: String) throws -> [SoupEntry] {
        try read { db in
            let info = try self.requireSoup(db, soup)
            let statement = try db.cachedStatement(sql: "SELECT soup FROM \(info.table) WHERE id = ?")
            return try ids.compactMap { id in
                try String.fetchOne(statement, arguments: [id]).flatMap { JSON(text: $0)?.objectValue }
            }
        }
    }

    package func remove(ids: [Int64], from soup: String) throws {
        try write { db in
            let info = try self.requireSoup(db, soup)
            let delete = try db.cachedStatement(sql: "DELETE FROM \(info.table) WHERE id = ?")
            let deleteFTS = info.fullTextColumns.isEmpty ? nil : try db.cachedStatement(sql: "DELETE FROM \(info.ftsTable) WHERE rowid = ?")
            for id in ids {
                try delete.execute(arguments: [id])
                try deleteFTS?.execute(arguments: [id])
            }
        }
    }

    /// Removes the entries of the query's first page (so `pageSize` bounds how many go), as the SDK does.
    package func remove(matching spec: QuerySpec) throws {
        let soup = try spec.soupName ?? { throw SmartStoreError.invalidQuery("remove by query needs a soup") }()
        try write { db in
            let info = try self.requireSoup(db, soup)
            var idSpec = spec
            idSpec.selectPaths = [SoupField.entryId]
            let (sql, arguments) = try self.sql(for: idSpec, db)
            let ids = try Int64.fetchAll(db, sql: "SELECT * FROM (\(sql)) LIMIT ?", arguments: arguments + [spec.pageSize])
            let delete = try db.cachedStatement(sql: "DELETE FROM \(info.table) WHERE id = ?")
            let deleteFTS = info.fullTextColumns.isEmpty ? nil : try db.cachedStatement(sql: "DELETE FROM \(info.ftsTable) WHERE rowid = ?")
            for id in ids {
                try delete.execute(arguments: [id])
                try deleteFTS?.execute(arguments: [id])
            }
        }
    }

    // MARK: Queries

    /// One page of results: whole entries as `.object`, or with `selectPaths` / smart SQL one `.array` per row.
    package func query(_ spec: QuerySpec, pageIndex: Int = 0) throws -> [JSON] {
        guard spec.pageSize > 0, pageIndex >= 0 else {
            throw SmartStoreError.invalidQuery("page size must be positive and page index not negative")
        }
        return try read { db in
            let (sql, arguments) = try self.sql(for: spec, db)
            let paged = "SELECT * FROM (\(sql)) LIMIT ?, ?"
            let pageArguments = arguments + [spec.pageSize * pageIndex, spec.pageSize]
            if self.explain.isOn { try self.explain.capture(db, sql: paged, arguments: pageArguments) }
            let statement = try db.cachedStatement(sql: paged)
            let rows = try Row.fetchAll(statement, arguments: pageArguments)
            let wholeEntries: Bool
            if case .smart = spec.kind { wholeEntries = false } else { wholeEntries = spec.selectPaths == nil }
            return rows.map { row in
                if wholeEntries, let text = row[0] as String? { return JSON(text: text) ?? .null }
                return .array(Self.values(of: row))
            }
        }
    }

    /// How many results the query has in all pages.
    package func count(_ spec: QuerySpec) throws -> Int {
        try read { db in
            let (sql, arguments) = try self.sql(for: spec, db)
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM (\(sql))", arguments: arguments) ?? 0
        }
    }

    /// A cursor over the query's pages, starting on the first.
    package func cursor(_ spec: QuerySpec) throws -> QueryCursor {
        let total = try count(spec)
        return QueryCursor(store: self, spec: spec, totalEntries: total, currentPageIndex: 0, entries: try query(spec))
    }

    // MARK: Internals

    /// The class the SDK gives every store, its folder and the folders above it up to the stores' root.
    static let storeProtection = FileProtectionClass.completeUntilFirstUserAuthentication

    /// Gives the store's file and folder the SDK's class, as `SFSmartStoreDatabaseManager.protectStoreDirIfNeeded`
    /// does at each open (a store a developer made `complete` is made completeUntilFirstUserAuthentication again,
    /// when the device lets its class be changed).
    static func protectStore(_ url: URL) throws {
        do {
            try FileProtection.set(storeProtection, on: url)
            try FileProtection.set(storeProtection, on: url.deletingLastPathComponent())
            try FileProtection.check(url, writing: true)
        } catch let error as FileProtectionError {
            throw SmartStoreError.protected(path: error.path, detail: error.description)
        }
    }

    /// Refuses the store when the device's lock state does not open its class.
    static func checkProtection(_ url: URL, writing: Bool = false) throws {
        do { try FileProtection.check(url, writing: writing) } catch { throw SmartStoreError.protected(path: error.path, detail: error.description) }
    }

    /// Each transaction checks the device's data protection first, so a lock in the middle of a sync matters.
    func read<T>(_ body: (Database) throws -> T) throws -> T {
        SchedulePoint.reach(.storeRead, url.path)
        try Self.checkProtection(url)
        do { return try pool.read(body) } catch let error as DatabaseError {
            throw SmartStoreError.database(path: url.path, message: Self.message(error))
        }
    }

    func write<T>(_ body: (Database) throws -> T) throws -> T {
        SchedulePoint.reach(.storeWrite, url.path)
        try Self.checkProtection(url, writing: true)
        do { return try pool.write(body) } catch let error as DatabaseError {
            throw SmartStoreError.database(path: url.path, message: Self.message(error))
        }
    }

    static func message(_ error: DatabaseError) -> String {
        let text = error.message ?? "\(error.resultCode)"
        if error.resultCode == .SQLITE_NOTADB || error.resultCode == .SQLITE_CORRUPT {
            return "not a SmartStore database (\(text)); the file was left as it is: move it aside to start a new store"
        }
        return text
    }

    func soupInfo(_ db: Database, _ soup: String) throws -> SoupInfo? {
        try cache.soupInfo(db, soup)
    }

    func requireSoup(_ db: Database, _ soup: String) throws -> SoupInfo {
        guard let info = try soupInfo(db, soup) else { throw SmartStoreError.soupNotFound(soup) }
        return info
    }

    private func createSoupTable(_ db: Database, soup: String, table: String, specs: [IndexSpec]) throws {
        var columns = ["id INTEGER PRIMARY KEY AUTOINCREMENT", "soup TEXT", "created INTEGER", "lastModified INTEGER"]
        var seen = Set<String>()
        for (position, spec) in specs.enumerated() {
            guard seen.insert(spec.path).inserted else {
                throw SmartStoreError.invalidQuery("index path \(spec.path) is listed twice for soup \(soup)")
            }
            let column = spec.hasColumn ? "\(table)_\(position)" : StoreSchema.json1Column(path: spec.path)
            if spec.hasColumn { columns.append("\(column) \(spec.columnType)") }
            try db.execute(
                sql: "INSERT INTO soup_index_map (soupName, path, columnName, columnType) VALUES (?, ?, ?, ?)",
                arguments: [soup, spec.path, column, spec.type.rawValue])
        }
        try db.execute(sql: "CREATE TABLE \(table) (\(columns.joined(separator: ", ")))")
        // The SDK's indexes; the one on lastModified also orders by id (the rowid ends every index).
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_created_idx ON \(table) ( created )")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_lastModified_idx ON \(table) ( lastModified )")
        for (position, spec) in specs.enumerated() {
            let expression = spec.hasColumn ? "\(table)_\(position)" : StoreSchema.json1Column(path: spec.path)
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(table)_\(position)_idx ON \(table) ( \(expression) )")
        }
        let fullText = specs.enumerated().filter { $0.element.type == .fullText }.map { "\(table)_\($0.offset)" }
        if !fullText.isEmpty {
            try db.execute(sql: "CREATE VIRTUAL TABLE \(table)_fts USING fts5(\(fullText.joined(separator: ", ")))")
        }
        cache.invalidate()
    }

    private func reIndex(_ db: Database, _ info: SoupInfo, paths: [String]) throws {
        let indexes = info.indexes.filter { paths.contains($0.spec.path) && $0.column != nil }
        let ftsColumns = info.fullTextColumns
        if !indexes.isEmpty {
            let sets = indexes.map { "\($0.column!) = ?" }.joined(separator: ", ")
            let update = try db.cachedStatement(sql: "UPDATE \(info.table) SET \(sets) WHERE id = ?")
            let rows = try Row.fetchAll(db, sql: "SELECT id, soup FROM \(info.table)")
            for row in rows {
                let id: Int64 = row[0]
                let entry = JSON(text: row[1] as String? ?? "") ?? .null
                var arguments = indexes.map { EntryWriter.databaseValue(entry.project($0.spec.path), for: $0.spec) }
                arguments.append(id.databaseValue)
                update.setUncheckedArguments(StatementArguments(arguments))
                try update.execute()
            }
        }
        if !ftsColumns.isEmpty {
            try db.execute(sql: "DELETE FROM \(info.ftsTable)")
            try db.execute(
                sql: "INSERT INTO \(info.ftsTable) (rowid, \(ftsColumns.joined(separator: ", "))) SELECT id, \(ftsColumns.joined(separator: ", ")) FROM \(info.table)")
        }
    }

    /// The SQL (without paging) and arguments of a query spec.
    func sql(for spec: QuerySpec, _ db: Database) throws -> (String, StatementArguments) {
        if case .smart(let smartSQL) = spec.kind {
            let converted = try cache.smartSQL(smartSQL, db) { name in try self.soupInfo(db, name) }
            return (converted, StatementArguments((spec.whereArgs ?? []).map(EntryWriter.databaseValue)))
        }
        if spec.whereArgs != nil { throw SmartStoreError.whereArgsOnNonSmartQuery }
        guard let soup = spec.soupName else { throw SmartStoreError.invalidQuery("the query names no soup") }
        let info = try requireSoup(db, soup)
        func column(_ path: String) throws -> String {
            guard let expression = info.expression(for: path, allowUnindexed: false) else {
                throw SmartStoreError.pathNotIndexed(soup: soup, path: path)
            }
            return expression
        }
        let select = try spec.selectPaths.map { try $0.map(column).joined(separator: ", ") } ?? "\(info.table).soup"
        var whereClause = ""
        var arguments: [DatabaseValue] = []
        switch spec.kind {
        case .all, .smart:
            break
        case .exact(let value):
            whereClause = "WHERE \(try column(try requirePath(spec))) = ?"
            arguments = [EntryWriter.databaseValue(value)]
        case .range(let begin, let end):
            let col = try column(try requirePath(spec))
            var conditions: [String] = []
            if let begin {
                conditions.append("\(col) >= ?")
                arguments.append(EntryWriter.databaseValue(begin))
            }
            if let end {
                conditions.append("\(col) <= ?")
                arguments.append(EntryWriter.databaseValue(end))
            }
            if !conditions.isEmpty { whereClause = "WHERE " + conditions.joined(separator: " AND ") }
        case .like(let pattern):
            whereClause = "WHERE \(try column(try requirePath(spec))) LIKE ?"
            arguments = [pattern.databaseValue]
        case .match(let matchKey):
            guard !info.fullTextColumns.isEmpty else {
                throw SmartStoreError.invalidQuery("soup \(soup) has no full_text index to match")
            }
            if let path = spec.path {
                guard let index = info.index(for: path), index.spec.type == .fullText, index.column != nil else {
                    throw SmartStoreError.invalidQuery("\(path) is not a full_text index of soup \(soup)")
                }
            }
            // As the SDK does: the path qualifies every term of the key that is not already qualified
            // (`Haas OR {soup:firstName}:Kwan` on lastName is lastName:Haas OR firstName:Kwan).
            let key = try SmartSQL.convertMatchKey(SmartSQL.qualifyMatchKey(matchKey, field: spec.path.map { "{\(soup):\($0)}" }), info: info)
            whereClause = "WHERE \(info.table).id IN (SELECT rowid FROM \(info.ftsTable) WHERE \(info.ftsTable) MATCH ?)"
            arguments = [key.databaseValue]
        }
        let orderPath = spec.orderPath ?? spec.path ?? SoupField.entryId
        let direction = spec.order == .ascending ? "ASC" : "DESC"
        // The entry id breaks ties, so equal values come in a stable, write order.
        let order = "ORDER BY \(try column(orderPath)) \(direction), \(info.table).id \(direction)"
        return ("SELECT \(select) FROM \(info.table) \(whereClause) \(order)", StatementArguments(arguments))
    }

    private func requirePath(_ spec: QuerySpec) throws -> String {
        guard let path = spec.path else { throw SmartStoreError.invalidQuery("this query needs a path") }
        return path
    }

    static func values(of row: Row) -> [JSON] {
        var out: [JSON] = []
        for (column, value) in row {
            switch value.storage {
            case .null: out.append(.null)
            case .int64(let i): out.append(.int(i))
            case .double(let d): out.append(.double(d))
            case .string(let s):
                // The soup column holds the entry's JSON: return it as an object, as the SDK does. A second
                // soup column in the same row (two soups joined) is named `soup:1` by SQLite.
                if column == "soup" || column.hasPrefix("soup:"), let json = JSON(text: s) { out.append(json) } else { out.append(.string(s)) }
            case .blob(let data): out.append(.string(data.base64EncodedString()))
            }
        }
        return out
    }
}

extension SmartSQL {
    /// `{soup:path}` inside a match key names a full_text column.
    static func convertMatchKey(_ key: String, info: SoupInfo) throws -> String {
        var out = key
        for index in info.indexes where index.spec.type == .fullText {
            if let column = index.column {
                out = out.replacingOccurrences(of: "{\(info.name):\(index.spec.path)}", with: column)
            }
        }
        if out.contains("{") { throw SmartStoreError.invalidQuery("match key names a path that is not a full_text index: \(key)") }
        return out
    }
}

/// The stores this process has open, weakly held: what a clean exit checkpoints.
final class OpenStores: @unchecked Sendable {
    static let shared = OpenStores()
    private struct Weak { weak var store: SmartStore? }
    private let lock = NSLock()
    private var stores: [Weak] = []

    func add(_ store: SmartStore) {
        lock.withLock {
            stores.removeAll { $0.store == nil }
            stores.append(Weak(store: store))
        }
    }

    func all() -> [SmartStore] { lock.withLock { stores.compactMap(\.store) } }
}

/// The last query's plan, kept while capturing is on: `sql` (the `EXPLAIN QUERY PLAN` statement), `args` (its
/// arguments, as text, when it has any: the SDK keeps the array), `rows` (each row of the plan, column name to text), the SDK's keys.
package final class ExplainCapture: @unchecked Sendable {
    private let lock = NSLock()
    private var on = false
    private var last: [String: JSON] = [:]

    package var isOn: Bool {
        get { lock.withLock { on } }
        set { lock.withLock { on = newValue } }
    }

    package var lastPlan: [String: JSON] { lock.withLock { last } }

    func capture(_ db: Database, sql: String, arguments: StatementArguments) throws {
        let explainSQL = "EXPLAIN QUERY PLAN \(sql)"
        var plan: [String: JSON] = ["sql": .string(explainSQL)]
        if !arguments.isEmpty { plan["args"] = .string(arguments.description) }
        let rows = try Row.fetchAll(db, sql: explainSQL, arguments: arguments)
        plan["rows"] = .array(rows.map { row in
            var out: [String: JSON] = [:]
            for (column, value) in row {
                switch value.storage {
                case .null: out[column] = .null
                case .int64(let i): out[column] = .string(String(i))
                case .double(let d): out[column] = .string(String(d))
                case .string(let text): out[column] = .string(text)
                case .blob(let data): out[column] = .string(data.base64EncodedString())
                }
            }
            return .object(out)
        })
        lock.withLock { last = plan }
    }
}
