import Foundation
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The SQLite backend (GRDB): in memory, or a WAL file on disk that one sf-simulator serves at a time. One
/// connection: requests are serialised, so a collection write is never seen half done.
/// `rid_chunk(n, r)`: a chunk of a cursor's row numbers `r`, as a JSON array in the order of their positions `n`
/// (`SQLDialect.cursorChunk`). SQLite gives an aggregate its rows in no promised order, so this one sorts them.
struct CursorChunk: DatabaseAggregate {
    static let function = DatabaseFunction("rid_chunk", argumentCount: 2, pure: true, aggregate: CursorChunk.self)
    var rows: [(position: Int64, row: Int64)] = []

    init() {}

    mutating func step(_ dbValues: [DatabaseValue]) throws {
        guard let position = Int64.fromDatabaseValue(dbValues[0]), let row = Int64.fromDatabaseValue(dbValues[1]) else {
            throw DatabaseError(message: "rid_chunk takes two integers")
        }
        rows.append((position, row))
    }

    func finalize() throws -> (any DatabaseValueConvertible)? {
        "[" + rows.sorted { $0.position < $1.position }.map { String($0.row) }.joined(separator: ",") + "]"
    }
}

final class SQLiteStore: SQLStore {
    let queue: DatabaseQueue
    let location: String
    /// The state file, nil for an org in memory.
    let file: URL?
    var dialect: SQLDialect { .sqlite }
    let held: HeldRecords
    var recordLockTimeout: TimeInterval { held.timeout }

    init(path: URL?, recordLockTimeout: TimeInterval = 10) throws {
        held = HeldRecords(timeout: recordLockTimeout)
        var config = Configuration()
        config.label = "sf-simulator"
        // The simulator's own SQL quotes identifiers with "…" and strings with '…'.
        config.acceptsDoubleQuotedStringLiterals = false
        config.prepareDatabase { db in db.add(function: CursorChunk.function) }
        file = path
        guard let path else {
            location = "the in-memory org"
            queue = try DatabaseQueue(configuration: config)
            return
        }
        location = path.path
        try Self.refuseWhatIsNotAFile(path)
        try StateFileLock.acquire(for: path)
        // The file's first 16 bytes only (it was read whole: a million-record org's state at each start).
        if let head = Self.head(of: path, count: 16), !head.isEmpty {
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
    }

    /// Checkpoints and closes the file (SQLite does both when its last connection closes) and releases the
    /// state's lock: without it, the file closed whenever the last reference went, at a moment nobody chose,
    /// while the state's lock stayed held for the life of the process.
    func close() {
        try? queue.close()
        if let file { StateFileLock.release(for: file) }
    }

    func write<T>(_ body: (SQLTransaction) throws -> T) throws -> T {
        try Self.mapped { try queue.write { db in try body(SQLiteTransaction(db, held: held)) } }
    }

    func read<T>(_ body: (SQLTransaction) throws -> T) throws -> T {
        try Self.mapped { try queue.read { db in try body(SQLiteTransaction(db, held: held)) } }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        do {
            return try await queue.write { db in try body(SQLiteTransaction(db, held: held)) }
        } catch let error as DatabaseError {
            throw Self.storeError(error)
        }
    }

    func update<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await write(body)
    }

    func holdRecordLock(table: String, id: String, seconds: TimeInterval) async throws {
        held.hold(table + "/" + id, seconds: seconds)
    }

    func read<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        do {
            return try await queue.read { db in try body(SQLiteTransaction(db, held: held)) }
        } catch let error as DatabaseError {
            throw Self.storeError(error)
        }
    }

    /// What SQLite says when a statement is too big or too deep for it, whatever the SOQL parser let through.
    static let queryLimits = [
        "too many SQL variables", "parser stack overflow", "Expression tree is too large", "too many terms in compound SELECT",
        "LIKE or GLOB pattern too complex", "too many columns", "at most 64 tables in a join", "string or blob too big",
    ]

    static func storeError(_ error: DatabaseError) -> SQLStoreError {
        let message = error.message ?? ""
        if let limit = queryLimits.first(where: { message.localizedCaseInsensitiveContains($0) }) {
            return SQLStoreError(kind: .tooLarge, reason: limit.lowercased(), code: "SQLite \(error.extendedResultCode.rawValue)")
        }
        // GRDB's description carries the SQL; only SQLite's own message and code are kept.
        return SQLStoreError(kind: .other, reason: message.isEmpty ? "SQLite error" : message, code: "SQLite \(error.extendedResultCode.rawValue)")
    }

    /// A state path that exists must be a file (a symbolic link to one is followed). A FIFO blocked open(2) for
    /// ever, waiting for a writer; a device or a directory is no org's state either. Checked before the lock file
    /// is made beside it, so a refused path leaves nothing behind.
    static func refuseWhatIsNotAFile(_ url: URL) throws {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return }  // absent: a new state file; unreadable: told when opened
        let kind: String
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR: kind = "a character device"
        case S_IFBLK: kind = "a block device"
        default: kind = "of an unknown kind"
        }
        throw OrgSimulatorError.state("\(url.path) is \(kind), not a file; give --state a file (a new path starts the org from its definition)")
    }

    /// The first `count` bytes of the file at `url` (fewer when it is shorter; none when it cannot be read), or nil
    /// when it cannot be opened. Either way the caller checks nothing, as when the file was read whole.
    static func head(of url: URL, count: Int) -> Data? {
        // O_NONBLOCK: should the path have become a FIFO since it was checked, opening it does not wait for a writer.
        let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        defer { Glibc.close(fd) }
        return (try? handle.read(upToCount: count)) ?? Data()
    }

    private static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as DatabaseError {
            throw storeError(error)
        }
    }
}

/// A transaction of `SQLiteStore`: GRDB's `Database` inside `write` or `read`.
final class SQLiteTransaction: SQLTransaction {
    let db: Database
    let held: HeldRecords
    var dialect: SQLDialect { .sqlite }

    init(_ db: Database, held: HeldRecords) {
        self.db = db
        self.held = held
    }

    func lockValues(_ keys: [String]) throws {}

    /// One connection serialises every write, so no lock is needed; a record a fault holds is waited for.
    func lockForUpdate(table: String, ids: [String]) throws -> String {
        try held.wait(for: ids.map { table + "/" + $0 })
        return ""
    }

    func run(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> Int {
        try checkText(arguments)
        do {
            let statement = cached ? try db.cachedStatement(sql: sql) : try db.makeStatement(sql: sql)
            try statement.execute(arguments: StatementArguments(arguments.map(\.databaseValue)))
            return db.changesCount
        } catch let error as DatabaseError {
            throw SQLiteStore.storeError(error)
        }
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try checkText(arguments)
        do {
            let statement = try db.makeStatement(sql: sql)
            let columns = SQLColumns(statement.columnNames)
            let cursor = try Row.fetchCursor(statement, arguments: StatementArguments(arguments.map(\.databaseValue)))
            var rows: [SQLRow] = []
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init)))
            }
            return rows
        } catch let error as DatabaseError {
            throw SQLiteStore.storeError(error)
        }
    }

    func executeScript(_ sql: String) throws {
        do { try db.execute(sql: sql) } catch let error as DatabaseError { throw SQLiteStore.storeError(error) }
    }

    func columnNames(ofTable table: String) throws -> [String] {
        try query("PRAGMA table_info(\(SQL.quote(table)))", []).compactMap { $0.value(named: "name") }.compactMap { String(sqlValue: $0) }
    }
}

extension SQLValue {
    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let i): self = .int(i)
        case .double(let d): self = .double(d)
        case .string(let s): self = .text(s)
        case .blob(let d): self = .blob(d)
        }
    }

    var databaseValue: DatabaseValue {
        switch self {
        case .null: return .null
        case .int(let i): return i.databaseValue
        case .double(let d): return d.databaseValue
        case .text(let s): return s.databaseValue
        case .blob(let d): return d.databaseValue
        }
    }
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
        // Kept open for the life of the process (or until `release`): closing it releases the lock.
        held.withLock { $0[path] = fd }
    }

    /// Lets go of the lock `acquire` took (an org stopped in a process that goes on).
    static func release(for state: URL) {
        let path = state.path + ".lock"
        if let fd = held.withLock({ $0.removeValue(forKey: path) }) { close(fd) }
    }
}
