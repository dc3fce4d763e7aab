import Foundation

/// The org's state in SQL: one table per sObject (a column per field, text compared without case
/// as SOQL does), grants and tokens by their SHA-256, authorization codes, query cursors, recent items
/// and counters. The backend is a `SQLStore`: SQLite in memory (the default), or a WAL file on disk
/// (`--state FILE`), so a `kill -9` loses no committed write.
final class OrgDatabase: Sendable {
    let store: any SQLStore
    let definition: OrgDefinition
    var dialect: SQLDialect { store.dialect }
    /// "table/field" of the unique external ids whose unique index this instance found or made.
    private let upsertIndexes = LockedSet()
    /// On PostgreSQL, record ids this instance has drawn from a sequence and not yet given, by sequence: drawn
    /// `idBlock` at a time, in two statements, instead of two for each new record (issue 39).
    private let drawnIds = IdBlocks()
    static let idBlock = 32
    /// On PostgreSQL, the day whose API request sequence this instance knows exists.
    private let requestDay = LockedString()

    /// The version of the schema below. A state made by another version is migrated when this sf-simulator
    /// knows how (none yet: a state without a version is version 1), and refused by name otherwise.
    static let schemaVersion = 1

    convenience init(definition: OrgDefinition, path: URL?) throws {
        try self.init(definition: definition, store: SQLiteStore(path: path))
    }

    init(definition: OrgDefinition, store: any SQLStore) throws {
        self.definition = definition
        self.store = store
        do {
            try store.setUp { tx in
                // The version and the definition are checked before anything is created or altered.
                try tx.executeScript(tx.dialect.schema("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"))
                try self.checkSchemaVersion(tx)
                try self.checkDefinition(tx)
                try self.createSchema(tx)
            }
        } catch let error as SQLStoreError {
            throw OrgSimulatorError.state("\(store.location) cannot be set up: \(error.reason)")
        }
    }

    func checkSchemaVersion(_ tx: SQLTransaction) throws {
        guard let stored = try meta(tx, "schemaVersion") else {
            try setMeta(tx, "schemaVersion", String(Self.schemaVersion))
            return
        }
        guard Int(stored) == Self.schemaVersion else {
            throw OrgSimulatorError.state(
                "\(store.location) holds an org of schema version \(stored); this sf-simulator uses version \(Self.schemaVersion) and cannot migrate it. Use the sf-simulator that made it, or start from the org definition with another --state")
        }
    }

    /// A shared state (PostgreSQL) serves the org it was made from: an instance with another definition is
    /// refused, naming what differs. A state of one instance (SQLite) follows its definition as it changes (a
    /// field added becomes a new column).
    func checkDefinition(_ tx: SQLTransaction) throws {
        let mine = DefinitionFingerprint(definition)
        if store.isShared, let stored = try meta(tx, "definition"), stored != mine.text {
            let theirs = DefinitionFingerprint(text: stored)
            throw OrgSimulatorError.definitionDiffers(
                "\(store.location) holds an org made from another definition than this sf-simulator's --data (\(mine.differences(from: theirs))): "
                    + "instances that share a database serve one org. Start this one with the --data the others use, or give it another database (nothing was changed)")
        }
        try setMeta(tx, "definition", mine.text)
    }

    func createSchema(_ tx: SQLTransaction) throws {
        try tx.executeScript(tx.dialect.schema("""
            CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
            CREATE TABLE IF NOT EXISTS grants (hash TEXT PRIMARY KEY, org_id TEXT NOT NULL, user_id TEXT NOT NULL,
                client_id TEXT NOT NULL, scopes TEXT NOT NULL, revoked INTEGER NOT NULL DEFAULT 0, created REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS access_tokens (hash TEXT PRIMARY KEY, refresh_hash TEXT, org_id TEXT NOT NULL,
                user_id TEXT NOT NULL, client_id TEXT NOT NULL, expires REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS access_tokens_refresh ON access_tokens(refresh_hash);
            CREATE TABLE IF NOT EXISTS auth_codes (hash TEXT PRIMARY KEY, org_id TEXT NOT NULL, user_id TEXT NOT NULL,
                client_id TEXT NOT NULL, redirect_uri TEXT NOT NULL, challenge TEXT, scopes TEXT NOT NULL, expires REAL NOT NULL);
            CREATE TABLE IF NOT EXISTS cursors (locator TEXT PRIMARY KEY, org_id TEXT NOT NULL, user_id TEXT NOT NULL,
                version REAL NOT NULL, plan BLOB NOT NULL, batch_size INTEGER NOT NULL, total INTEGER NOT NULL,
                first_pos INTEGER NOT NULL, created REAL NOT NULL, last_used REAL NOT NULL);
            CREATE INDEX IF NOT EXISTS cursors_user ON cursors(user_id, created);
            CREATE TABLE IF NOT EXISTS recent (user_id TEXT NOT NULL, record_id TEXT NOT NULL, object TEXT NOT NULL,
                touched INTEGER NOT NULL, PRIMARY KEY (user_id, record_id));
            """))
        try tx.execute("CREATE TABLE IF NOT EXISTS cursor_chunks (pos\(tx.dialect.schema(" INTEGER")) PRIMARY KEY, rids \(tx.dialect.cursorChunkType) NOT NULL)")
        // A state from before chunks kept a row a table row (`cursor_rows`): its open cursors cannot be read any more,
        // so they are released, as Salesforce releases an expired one (the next page is INVALID_QUERY_LOCATOR).
        if try !tx.columnNames(ofTable: "cursor_rows").isEmpty {
            try tx.execute("DELETE FROM cursors")
            try tx.execute("DELETE FROM cursor_chunks")
            try tx.execute("DROP TABLE cursor_rows")
        }
        if tx.dialect == .postgres {
            let cursors = (Int(try meta(tx, "nextCursor") ?? "") ?? 0) + 1
            try tx.execute("CREATE SEQUENCE IF NOT EXISTS cursor_numbers START WITH \(cursors)")
            // Record ids from a sequence per org and object: taking one never waits for another transaction (a
            // counter row would be locked by every insert until it commits). It starts where a counter left off.
            for (index, org) in definition.orgs.enumerated() {
                for object in definition.objects {
                    let start = Int(try meta(tx, Self.idCounterKey(orgId: org.id, object: object)) ?? "") ?? (index * 1_000_000 + 1)
                    try tx.execute("CREATE SEQUENCE IF NOT EXISTS \(Self.quote(Self.idSequence(orgIndex: index, object: object))) START WITH \(start)")
                }
            }
        }
        for object in definition.objects {
            let existing = try tx.columnNames(ofTable: object.table).map { $0.lowercased() }
            if existing.isEmpty {
                var columns = object.fields.map { field in
                    field.name == "Id" ? "\"Id\" \(tx.dialect.schema(" TEXT")) PRIMARY KEY" : "\(Self.quote(field.name)) \(tx.dialect.columnType(field.type))"
                }
                // SQLite numbers rows itself (rowid); PostgreSQL gets a column for it.
                if tx.dialect == .postgres { columns.insert("rid BIGSERIAL UNIQUE", at: 0) }
                try tx.execute("CREATE TABLE \(Self.quote(object.table)) (org_id\(tx.dialect.schema(" TEXT")) NOT NULL, \(columns.joined(separator: ", ")))")
            } else {
                // A field added to the definition since the state was made: a new, empty column.
                for field in object.fields where !existing.contains(field.name.lowercased()) {
                    try tx.execute("ALTER TABLE \(Self.quote(object.table)) ADD COLUMN \(Self.quote(field.name)) \(tx.dialect.columnType(field.type))")
                }
            }
            let table = object.table
            for (suffix, field) in [("_lmd", "LastModifiedDate"), ("_sms", "SystemModstamp")] {
                // PostgreSQL's index in SOQL's orders has a name of its own: a state made before it keeps an index
                // by the plain name, which is dropped (its org is the same; only the index's order differs).
                let name = tx.dialect == .postgres ? table + suffix + "_order" : table + suffix
                try tx.execute("CREATE INDEX IF NOT EXISTS \(Self.quote(name)) ON \(Self.quote(table)) (org_id, \(tx.dialect.orderedIndexColumn(Self.quote(field))))")
                if tx.dialect == .postgres { try tx.execute("DROP INDEX IF EXISTS \(Self.quote(table + suffix))") }
            }
            // Lookups by external id, unique checks, joins and child subqueries; not the audit fields.
            let audit: Set<String> = ["CreatedById", "LastModifiedById"]
            for field in object.fields where field.name != "Id" && !audit.contains(field.name)
                && (field.isExternalId || field.isUnique || field.idLookup == true || field.type == .reference) {
                try tx.execute("CREATE INDEX IF NOT EXISTS \(Self.quote(table + "_" + field.name)) ON \(Self.quote(table)) (org_id, \(Self.quote(field.name)))")
            }
            // A unique external id: a unique index on its live values, compared as the org compares them, so that
            // an upsert by it is one statement (INSERT … ON CONFLICT) and two writers of one new value make one
            // record. A state whose rows already repeat a value (written before this index, or by hand) keeps
            // its look-up upserts: the index is not made, and nothing is changed.
            for field in object.fields where Self.upsertsByIndex(field) {
                do {
                    try tx.inSavepoint {
                        try tx.execute("CREATE UNIQUE INDEX IF NOT EXISTS \(Self.quote(Self.upsertIndex(table: table, field: field))) ON \(Self.quote(table)) \(Self.upsertKey(field, tx.dialect))")
                        return .commit
                    }
                    upsertIndexes.insert(table + "/" + field.name)
                } catch let error as SQLStoreError where error.kind == .other {
                    continue
                }
            }
        }
    }

    /// Whether upserts by `field` may use the unique index of `createSchema` (`upsertIndexes` says whether it was made).
    static func upsertsByIndex(_ field: FieldDefinition) -> Bool { field.isExternalId && field.isUnique && field.type != .id }

    static func upsertIndex(table: String, field: FieldDefinition) -> String { table + "_" + field.name + "_upsert" }

    /// The unique index's columns and predicate, which `INSERT … ON CONFLICT` names as its target: the org, the
    /// value as `SQLDialect.compare` compares it, live records only.
    static func upsertKey(_ field: FieldDefinition, _ dialect: SQLDialect) -> String {
        let column = quote(field.name)
        return "(org_id, \(field.type.isText ? dialect.caseless(column) : column)) WHERE \"IsDeleted\" = 0"
    }

    /// Whether this instance found or made the unique index of `field` of `object`.
    func hasUpsertIndex(_ object: ObjectDefinition, _ field: FieldDefinition) -> Bool { upsertIndexes.contains(object.table + "/" + field.name) }

    static func quote(_ identifier: String) -> String { SQL.quote(identifier) }

    // MARK: Counters and the clock

    func meta(_ db: SQLTransaction, _ key: String) throws -> String? {
        try db.value("SELECT value FROM meta WHERE key = ?", [key])
    }

    func setMeta(_ db: SQLTransaction, _ key: String, _ value: String) throws {
        try db.execute("INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", [key, value], cached: true)
    }

    /// The meta key of a day's API request count (UTC): the count starts again each day, as a real org's
    /// daily limit does. On SQLite it is the count; on PostgreSQL, where the count comes from the day's
    /// sequence, a count kept before that sequence existed, where the sequence then starts.
    static func apiRequestsKey(_ now: Date) -> String { "apiRequests:" + SalesforceDate.dateString(now) }

    /// PostgreSQL's sequence of a day's API requests (`api_requests_20261129`). Every API request updated one
    /// counter row before (issue 39): each update left a dead row version for the next to step over, and the
    /// row's lock made the requests of every instance take turns. `nextval` takes no row lock, leaves no row
    /// version, and never gives a number twice, so the count stays exact over every instance.
    static func apiRequestSequence(_ now: Date) -> String {
        "api_requests_" + SalesforceDate.compactDateString(now)
    }

    /// Makes the day's request sequence, once a day an instance (the first request of a day on PostgreSQL;
    /// nothing on SQLite): under the setting-up lock, so that instances starting the day at once make it
    /// once, from the count kept so far, and drop the sequences of days before yesterday.
    func prepareAPIRequestCount(_ now: Date) throws {
        guard dialect == .postgres else { return }
        let name = Self.apiRequestSequence(now)
        guard requestDay.value != name else { return }
        try store.setUp { tx in
            let counted = Int(try meta(tx, Self.apiRequestsKey(now)) ?? "") ?? 0
            try tx.execute("CREATE SEQUENCE IF NOT EXISTS \(name) START WITH \(counted + 1)")
            let yesterday = Self.apiRequestSequence(now.addingTimeInterval(-86_400))
            for old in try tx.values(as: String.self, "SELECT CAST(relname AS TEXT) FROM pg_class WHERE relkind = 'S' AND relname LIKE 'api\\_requests\\_%'", [])
            where old < yesterday {
                try tx.execute("DROP SEQUENCE IF EXISTS \(Self.quote(old))")
            }
        }
        requestDay.value = name
    }

    /// Counts one API request and returns the day's count, over every instance (`prepareAPIRequestCount` first).
    func countAPIRequest(_ db: SQLTransaction, _ now: Date) throws -> Int {
        switch db.dialect {
        case .sqlite: return try increment(db, Self.apiRequestsKey(now))
        case .postgres: return try db.value(as: Int.self, "SELECT nextval(CAST(? AS regclass))", [Self.apiRequestSequence(now)]) ?? 0
        }
    }

    /// The day's API requests so far, over every instance.
    func apiRequests(_ db: SQLTransaction, _ now: Date) throws -> Int {
        switch db.dialect {
        case .sqlite:
            return Int(try meta(db, Self.apiRequestsKey(now)) ?? "0") ?? 0
        case .postgres:
            // A sequence not used yet has no last value: the count is then the one kept before it (or none).
            let last = try db.value(as: Int.self, "SELECT pg_sequence_last_value(to_regclass(?))", [Self.apiRequestSequence(now)])
            return try last ?? Int(meta(db, Self.apiRequestsKey(now)) ?? "0") ?? 0
        }
    }

    /// Adds one to a counter in `meta` and returns its new value.
    func increment(_ db: SQLTransaction, _ key: String) throws -> Int {
        let value = try db.value(
            as: String.self,
            "INSERT INTO meta(key, value) VALUES (?, '1') ON CONFLICT(key) DO UPDATE SET value = CAST(CAST(meta.value AS INTEGER) + 1 AS TEXT) RETURNING value",
            [key])
        return Int(value ?? "0") ?? 0
    }

    /// A server clock for writes that never repeats or goes back, so incremental syncs see every change: one
    /// statement, which locks the clock's row until the transaction ends (so writes commit in their clock's
    /// order); writes take it last, after the records they change.
    /// The clock's statement: the wall clock in milliseconds (its one argument), or one more than the last value
    /// when that is not later; returns the new value.
    static func clockSQL(_ dialect: SQLDialect) -> String {
        "INSERT INTO meta(key, value) VALUES ('lastWriteMs', ?) ON CONFLICT(key) DO UPDATE SET value = CAST(\(dialect.greatest("CAST(meta.value AS BIGINT) + 1", "CAST(excluded.value AS BIGINT)")) AS TEXT) RETURNING value"
    }

    func nextWriteTime(_ db: SQLTransaction) throws -> String {
        let wall = Int64(Date().timeIntervalSince1970 * 1000)
        let value = try db.value(as: String.self, Self.clockSQL(db.dialect), [String(wall)])
        let now = value.flatMap { Int64($0) } ?? wall
        return SalesforceDate.string(Date(timeIntervalSince1970: Double(now) / 1000))
    }

    /// Reads the write clock and writes a record's timestamps (`LastModifiedDate`, `SystemModstamp`, and
    /// `CreatedDate` when `created`) with the other columns of `set`, as a write's last statement: the clock's row
    /// stays locked until the transaction ends, so the write takes it after everything else it does. On
    /// PostgreSQL the clock and the update are one statement, sent without waiting for its answer (COMMIT follows
    /// it at once), so that the clock, which every write of the org takes, is held for one round trip (issue 39).
    /// `with` is an `INSERT` the write also makes (its recent item): on PostgreSQL part of the same statement.
    func stamp(_ db: SQLTransaction, object: ObjectDefinition, id: String, set: [(String, SQLValue)], created: Bool = false,
               with insert: (sql: String, arguments: [SQLValue])? = nil) throws {
        let stamped = ["LastModifiedDate", "SystemModstamp"] + (created ? ["CreatedDate"] : [])
        let table = Self.quote(object.table)
        switch db.dialect {
        case .sqlite:
            if let insert { try db.execute(insert.sql, insert.arguments, cached: true) }
            let now = try nextWriteTime(db)
            let columns = stamped.map { ($0, SQLValue.text(now)) } + set
            try db.execute("UPDATE \(table) SET \(columns.map { "\(Self.quote($0.0)) = ?" }.joined(separator: ", ")) WHERE \"Id\" = ?", columns.map(\.1) + [SQLValue.text(id)])
        case .postgres:
            let wall = Int64(Date().timeIntervalSince1970 * 1000)
            // SalesforceDate.string, in SQL: the clock's milliseconds since 1970 as 2026-11-01T09:30:00.000+0000 (UTC).
            let now = "to_char(TIMESTAMP '1970-01-01 00:00:00' + CAST(clock.value AS BIGINT) * INTERVAL '1 millisecond', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"+0000\"')"
            let assignments = stamped.map { "\(Self.quote($0)) = \(now)" } + set.map { "\(Self.quote($0.0)) = ?" }
            let also = insert.map { ", also AS (\($0.sql))" } ?? ""
            try db.runDeferred(
                "WITH clock AS (\(Self.clockSQL(db.dialect)))\(also) UPDATE \(table) SET \(assignments.joined(separator: ", ")) FROM clock WHERE \(table).\"Id\" = ?",
                [.text(String(wall))] + (insert?.arguments ?? []) + set.map(\.1) + [.text(id)])
        }
    }

    /// A new record id of `object` in `orgId`: the org's index in the definition and a counter, so ids
    /// never repeat across orgs or restarts.
    func nextId(_ db: SQLTransaction, orgId: String, object: ObjectDefinition) throws -> String {
        let key = Self.idCounterKey(orgId: orgId, object: object)
        let orgIndex = definition.orgs.firstIndex { $0.id == orgId } ?? 0
        if db.dialect == .postgres {
            let sequence = Self.quote(Self.idSequence(orgIndex: orgIndex, object: object))
            while true {
                if let id = drawnIds.take(sequence) { return id }
                // A block of numbers, and which of their ids a CSV file or a seed gave (those are skipped). Records
                // with ids of their own are made only while the org is set up, before any instance serves, so an
                // id free when drawn is still free when given.
                let numbers = try db.fetchAll("SELECT nextval(?::regclass) FROM generate_series(1, \(Self.idBlock))", [sequence])
                    .compactMap { Int(sqlValue: $0[0]) }.sorted()
                guard !numbers.isEmpty else {
                    throw SQLStoreError(kind: .other, reason: "no record id from the sequence of \(object.name)", code: "sequence")
                }
                let ids = numbers.map { SalesforceID.make(prefix: object.keyPrefix, number: $0) }
                let taken = Set(try db.values(
                    as: String.self, "SELECT \"Id\" FROM \(Self.quote(object.table)) WHERE \"Id\" IN (\(ids.map { _ in "?" }.joined(separator: ", ")))", ids))
                drawnIds.add(sequence, ids.filter { !taken.contains($0) })
            }
        }
        var number = Int(try meta(db, key) ?? "") ?? (orgIndex * 1_000_000 + 1)
        while true {
            let id = SalesforceID.make(prefix: object.keyPrefix, number: number)
            number += 1
            if try db.value(as: Int.self, "SELECT 1 FROM \(Self.quote(object.table)) WHERE \"Id\" = ?", [id]) == nil {
                try setMeta(db, key, String(number))
                return id
            }
        }
    }

    /// A new query cursor's number, never taken twice: on PostgreSQL from a sequence (taking one waits for no
    /// other transaction; a counter row would be locked by a cursor's opening until it commits, which for a
    /// million rows takes seconds), on SQLite the counter in `meta`.
    func nextCursorNumber(_ db: SQLTransaction) throws -> Int {
        guard db.dialect == .postgres else { return try increment(db, "nextCursor") }
        guard let number = try db.value(as: Int.self, "SELECT nextval('cursor_numbers')") else {
            throw SQLStoreError(kind: .other, reason: "no cursor number from its sequence", code: "sequence")
        }
        return number
    }

    static func idCounterKey(orgId: String, object: ObjectDefinition) -> String { "next:\(orgId):\(object.keyPrefix)" }

    /// The next record id of `object` in the org of index `orgIndex` is at least `number` (after seeding, whose
    /// records take the first numbers): the counter, and on PostgreSQL the sequence, so that a new record's id is
    /// not first tried against every seeded one.
    func advanceIds(_ db: SQLTransaction, orgIndex: Int, object: ObjectDefinition, to number: Int) throws {
        try setMeta(db, Self.idCounterKey(orgId: definition.orgs[orgIndex].id, object: object), String(number))
        if db.dialect == .postgres {
            let sequence = Self.quote(Self.idSequence(orgIndex: orgIndex, object: object))
            _ = try db.value(as: Int.self, "SELECT setval(?::regclass, GREATEST(?, (SELECT last_value + 1 FROM \(sequence))), false)", [sequence, number])
        }
    }

    static func idSequence(orgIndex: Int, object: ObjectDefinition) -> String { "ids_\(orgIndex)_\(object.keyPrefix)" }

    func isSeeded(_ db: SQLTransaction) throws -> Bool { try meta(db, "seeded") != nil }
}

/// Who a request acts as.
struct Session: Sendable, Equatable {
    var orgId: String
    var userId: String
    var clientId: String
    var refreshHash: String?
}

/// A set of strings shared between threads.
/// Ids drawn ahead, by sequence, each given once, in the order drawn.
final class IdBlocks: @unchecked Sendable {
    private let lock = NSLock()
    private var blocks: [String: ArraySlice<String>] = [:]
    func take(_ sequence: String) -> String? { lock.withLock { blocks[sequence]?.popFirst() } }
    func add(_ sequence: String, _ ids: [String]) { lock.withLock { blocks[sequence, default: []].append(contentsOf: ids) } }
}

/// A string shared between threads.
final class LockedString: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: String?
    var value: String? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}

final class LockedSet: @unchecked Sendable {
    private let lock = NSLock()
    private var items: Set<String> = []
    func insert(_ item: String) { _ = lock.withLock { items.insert(item) } }
    func contains(_ item: String) -> Bool { lock.withLock { items.contains(item) } }
}
