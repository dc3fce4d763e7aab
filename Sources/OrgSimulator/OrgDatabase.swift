import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The org's state in SQLite: one table per sObject (a column per field, text compared without case
/// as SOQL does), grants and tokens by their SHA-256, authorization codes, query cursors, recent items
/// and counters. With `--state FILE` it is a WAL database on disk, so a `kill -9` loses no committed
/// write; without, it is in memory. One connection: requests are serialised, so a collection write is
/// never seen half done.
final class OrgDatabase: Sendable {
    let queue: DatabaseQueue
    let definition: OrgDefinition
    let path: String?

    init(definition: OrgDefinition, path: URL?) throws {
        self.definition = definition
        self.path = path?.path
        var config = Configuration()
        config.label = "sf-simulator"
        // The simulator's own SQL quotes identifiers with "…" and strings with '…'.
        config.acceptsDoubleQuotedStringLiterals = false
        if let path {
            try StateFileLock.acquire(for: path)
            if let head = FileManager.default.contents(atPath: path.path)?.prefix(16), !head.isEmpty {
                if head.first == UInt8(ascii: "{") {
                    throw OrgSimulatorError.state(
                        "\(path.path) is a state file of an older sf-simulator (JSON); this one keeps its state in SQLite. Move the file aside to start from the org definition")
                }
                guard head.starts(with: Array("SQLite format 3".utf8)) else {
                    throw OrgSimulatorError.state("\(path.path) is not an sf-simulator state file (not SQLite); move it aside to start from the org definition")
                }
            }
            config.prepareDatabase { db in
                // WAL with NORMAL: a commit is in the WAL file before the call returns, so killing the
                // process loses nothing committed (only a power cut could).
                try db.execute(sql: "PRAGMA synchronous = NORMAL")
            }
            do {
                queue = try DatabaseQueue(path: path.path, configuration: config)
                try queue.writeWithoutTransaction { db in _ = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL") }
            } catch let error as DatabaseError {
                throw OrgSimulatorError.state("\(path.path) cannot be opened as the org's state (\(error.message ?? "\(error)")); move it aside to start from the org definition")
            }
            chmod(path.path, 0o600)
        } else {
            queue = try DatabaseQueue(configuration: config)
        }
        do {
            try queue.write { db in try self.createSchema(db) }
        } catch let error as DatabaseError {
            throw OrgSimulatorError.state("\(path?.path ?? "the in-memory org") cannot be set up: \(error.message ?? "\(error)")")
        }
    }

    func createSchema(_ db: Database) throws {
        try db.execute(sql: """
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
            CREATE TABLE IF NOT EXISTS cursor_rows (pos INTEGER PRIMARY KEY, rid INTEGER NOT NULL);
            CREATE TABLE IF NOT EXISTS recent (user_id TEXT NOT NULL, record_id TEXT NOT NULL, object TEXT NOT NULL,
                touched INTEGER NOT NULL, PRIMARY KEY (user_id, record_id));
            """)
        for object in definition.objects {
            let existing = try Row.fetchAll(db, sql: "PRAGMA table_info(\(Self.quote(object.table)))").map { ($0["name"] as String).lowercased() }
            if existing.isEmpty {
                let columns = object.fields.map { field in
                    field.name == "Id" ? "\"Id\" TEXT PRIMARY KEY" : "\(Self.quote(field.name)) \(field.type.columnType)"
                }
                try db.execute(sql: "CREATE TABLE \(Self.quote(object.table)) (org_id TEXT NOT NULL, \(columns.joined(separator: ", ")))")
            } else {
                // A field added to the definition since the state was made: a new, empty column.
                for field in object.fields where !existing.contains(field.name.lowercased()) {
                    try db.execute(sql: "ALTER TABLE \(Self.quote(object.table)) ADD COLUMN \(Self.quote(field.name)) \(field.type.columnType)")
                }
            }
            let table = object.table
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(Self.quote(table + "_lmd")) ON \(Self.quote(table)) (org_id, \"LastModifiedDate\")")
            try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(Self.quote(table + "_sms")) ON \(Self.quote(table)) (org_id, \"SystemModstamp\")")
            // Lookups by external id, unique checks, joins and child subqueries; not the audit fields.
            let audit: Set<String> = ["CreatedById", "LastModifiedById"]
            for field in object.fields where field.name != "Id" && !audit.contains(field.name)
                && (field.isExternalId || field.isUnique || field.idLookup == true || field.type == .reference) {
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(Self.quote(table + "_" + field.name)) ON \(Self.quote(table)) (org_id, \(Self.quote(field.name)))")
            }
        }
    }

    static func quote(_ identifier: String) -> String { SQL.quote(identifier) }

    // MARK: Counters and the clock

    func meta(_ db: Database, _ key: String) throws -> String? {
        try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key])
    }

    func setMeta(_ db: Database, _ key: String, _ value: String) throws {
        try db.execute(sql: "INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", arguments: [key, value])
    }

    /// A server clock for writes that never repeats or goes back, so incremental syncs see every change.
    func nextWriteTime(_ db: Database) throws -> String {
        let last = Int64(try meta(db, "lastWriteMs") ?? "0") ?? 0
        let now = max(Int64(Date().timeIntervalSince1970 * 1000), last + 1)
        try setMeta(db, "lastWriteMs", String(now))
        return SalesforceDate.string(Date(timeIntervalSince1970: Double(now) / 1000))
    }

    /// A new record id of `object` in `orgId`: the org's index in the definition and a counter, so ids
    /// never repeat across orgs or restarts.
    func nextId(_ db: Database, orgId: String, object: ObjectDefinition) throws -> String {
        let key = "next:\(orgId):\(object.keyPrefix)"
        let orgIndex = definition.orgs.firstIndex { $0.id == orgId } ?? 0
        var number = Int(try meta(db, key) ?? "") ?? (orgIndex * 1_000_000 + 1)
        while true {
            let id = SalesforceID.make(prefix: object.keyPrefix, number: number)
            number += 1
            if try Int.fetchOne(db, sql: "SELECT 1 FROM \(Self.quote(object.table)) WHERE \"Id\" = ?", arguments: [id]) == nil {
                try setMeta(db, key, String(number))
                return id
            }
        }
    }

    func isSeeded(_ db: Database) throws -> Bool { try meta(db, "seeded") != nil }
}

/// Who a request acts as.
struct Session: Sendable, Equatable {
    var orgId: String
    var userId: String
    var clientId: String
    var refreshHash: String?
}

/// One sf-simulator per state file: a POSIX lock on `<state>.lock`, held for the life of the process. A second
/// process on the same file is refused at start, naming the file and the process that serves it, instead of
/// starting and answering "database is locked" 500s. POSIX locks belong to the process, so one test process
/// may stop and start an org on one file again.
enum StateFileLock {
    private final class Held: @unchecked Sendable {
        let lock = NSLock()
        var fds: [String: Int32] = [:]
        func withLock<T>(_ body: (inout [String: Int32]) -> T) -> T { lock.withLock { body(&fds) } }
    }
    private static let held = Held()

    static func acquire(for state: URL) throws {
        let path = state.path + ".lock"
        if held.withLock({ $0[path] != nil }) { return }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw OrgSimulatorError.state("\(path) cannot be opened to lock the state file (\(String(cString: strerror(errno))))")
        }
        var lock = Glibc.flock()
        lock.l_type = Int16(F_WRLCK)
        lock.l_whence = Int16(SEEK_SET)
        if fcntl(fd, F_SETLK, &lock) != 0 {
            var probe = Glibc.flock()
            probe.l_type = Int16(F_WRLCK)
            probe.l_whence = Int16(SEEK_SET)
            let holder = fcntl(fd, F_GETLK, &probe) == 0 && probe.l_type != Int16(F_UNLCK) ? "pid \(probe.l_pid)" : "another process"
            close(fd)
            throw OrgSimulatorError.state("\(state.path) is served by another sf-simulator (\(holder)); stop that one, or give this one another --state")
        }
        // Kept open for the life of the process: closing it would release the lock.
        held.withLock { $0[path] = fd }
    }
}
