import Foundation

/// The org's state is kept in SQL, by one of several backends (SQLite in memory or in a file today). Everything
/// above this file speaks to a backend only through `SQLStore` and `SQLTransaction`, with `?` placeholders and
/// `SQLValue`s, and asks `SQLDialect` for the few phrases that differ between backends.

/// A value as the org's SQL stores it, the same on every backend. Booleans are integers 0 and 1.
package enum SQLValue: Sendable, Equatable {
    case null
    case int(Int64)
    case double(Double)
    case text(String)
    case blob(Data)
}

/// The SQL dialect of a backend: the phrases the org's SQL and the SOQL compiler emit differently. Both give the
/// same rows for the same query: text compares and sorts as SQLite's NOCASE does (ASCII letters folded, then
/// byte order), NULL sorts first ascending and last descending, and LIKE folds ASCII letters only.
package enum SQLDialect: String, Sendable, Codable {
    case sqlite
    case postgres

    /// The column that numbers an object table's rows in insertion order (the tie-breaker of every ORDER BY,
    /// and what a cursor keeps of each row).
    package var rowNumber: String {
        switch self {
        case .sqlite: return "rowid"
        case .postgres: return "rid"
        }
    }

    /// `LIMIT` of a query without one.
    package var noLimit: String {
        switch self {
        case .sqlite: return "-1"
        case .postgres: return "ALL"
        }
    }

    /// A text expression compared without case (SQLite's NOCASE: ASCII letters folded).
    package func caseless(_ expr: String) -> String {
        switch self {
        case .sqlite: return "\(expr) COLLATE NOCASE"
        case .postgres: return "lower(\(expr) COLLATE \"C\")"
        }
    }

    /// A cursor's row numbers are kept in chunks of `QueryEngine.cursorChunk`, one table row a chunk (SQLite: a JSON
    /// array, PostgreSQL: a `BIGINT[]`): opening a cursor of a sync's thousand rows writes one row, not a thousand,
    /// and releasing it leaves one dead row for PostgreSQL's vacuum, not a thousand.
    package var cursorChunkType: String {
        switch self {
        case .sqlite: return "TEXT"
        case .postgres: return "BIGINT[]"
        }
    }

    /// The aggregate that makes a chunk of the row numbers `r`, in the order of their positions `n`. SQLite's own
    /// aggregates take their rows in no promised order, so its chunk is made by `rid_chunk` (`SQLiteStore`), which
    /// sorts them itself.
    package func cursorChunk(position n: String, row r: String) -> String {
        switch self {
        case .sqlite: return "rid_chunk(\(n), \(r))"
        case .postgres: return "array_agg(\(r) ORDER BY \(n))"
        }
    }

    /// How many row numbers a chunk (`rids`) holds.
    package var cursorChunkLength: String {
        switch self {
        case .sqlite: return "json_array_length(rids)"
        case .postgres: return "cardinality(rids)"
        }
    }

    /// The rows of a cursor's chunks (`cursor_chunks ch`), each row number with its index in its chunk from 0
    /// (`cursorRowIndex`), and each looked up in the object's table as `t0`. PostgreSQL's planner, which expects
    /// more rows in a page than its 200, would otherwise hash the whole table for each page (a table that grows
    /// with every write, a million rows in the fleet's load test); a lateral subquery it cannot flatten
    /// (`OFFSET 0`) keeps the look-ups. SQLite looks each row up anyway.
    package func rowsOfCursor(table: String) -> String {
        switch self {
        case .sqlite: return "cursor_chunks ch, json_each(ch.rids) c JOIN \(table) t0 ON t0.\(rowNumber) = c.value"
        case .postgres:
            return "cursor_chunks ch CROSS JOIN LATERAL unnest(ch.rids) WITH ORDINALITY AS c(rid, k) "
                + "CROSS JOIN LATERAL (SELECT * FROM \(table) r WHERE r.\(rowNumber) = c.rid OFFSET 0) t0"
        }
    }

    /// A row's index in its chunk, from 0, in `rowsOfCursor`.
    package var cursorRowIndex: String {
        switch self {
        case .sqlite: return "c.key"
        case .postgres: return "(c.k - 1)"
        }
    }

    /// The greater of two numbers.
    package func greatest(_ a: String, _ b: String) -> String {
        switch self {
        case .sqlite: return "max(\(a), \(b))"
        case .postgres: return "GREATEST(\(a), \(b))"
        }
    }

    /// A placeholder compared with `caseless(_:)`.
    package var caselessPlaceholder: String {
        switch self {
        case .sqlite: return "?"
        case .postgres: return "lower(? COLLATE \"C\")"
        }
    }

    /// `expr op ?` on a text field (case-insensitive) or on any other (exact).
    package func compare(_ expr: String, _ op: String, text: Bool) -> String {
        text ? "\(caseless(expr)) \(op) \(caselessPlaceholder)" : "\(expr) \(op) ?"
    }

    /// `expr LIKE pattern`, ASCII letters folded as SQLite's LIKE does; `escape` is the escape character, if any.
    package func like(_ expr: String, escape: Character?) -> String {
        switch self {
        case .sqlite:
            return "\(expr) LIKE ?" + (escape.map { " ESCAPE '\($0)'" } ?? "")
        case .postgres:
            return "lower(\(expr) COLLATE \"C\") LIKE lower(? COLLATE \"C\") ESCAPE '\(escape.map(String.init) ?? "")'"
        }
    }

    /// An ORDER BY term; NULL first ascending and last descending, as SQLite sorts it.
    package func order(_ expr: String, ascending: Bool) -> String {
        switch self {
        case .sqlite: return "\(expr) \(ascending ? "ASC" : "DESC")"
        case .postgres: return "\(expr) \(ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST")"
        }
    }

    /// An index column that `order` can read in either direction, so that `ORDER BY … LIMIT` (the widget's
    /// most recent contacts) walks the index instead of sorting every row of the org. SQLite's plain index
    /// already does; PostgreSQL's plain one puts NULL last ascending, which neither of `order`'s terms is, so
    /// there it is `DESC NULLS LAST` (read backwards: `ASC NULLS FIRST`).
    package func orderedIndexColumn(_ column: String) -> String {
        switch self {
        case .sqlite: return column
        case .postgres: return "\(column) DESC NULLS LAST"
        }
    }

    /// The column type of a field's values.
    func columnType(_ type: FieldType) -> String {
        switch (self, type) {
        case (.sqlite, _): return type.columnType
        case (.postgres, .boolean), (.postgres, .int): return "BIGINT"
        case (.postgres, .double), (.postgres, .currency), (.postgres, .percent): return "DOUBLE PRECISION"
        case (.postgres, _): return "TEXT COLLATE \"C\""
        }
    }

    /// The schema's own types: `INTEGER`, `REAL`, `BLOB` and `TEXT` as this backend writes them.
    package func schema(_ sqliteDDL: String) -> String {
        switch self {
        case .sqlite: return sqliteDDL
        case .postgres:
            return sqliteDDL
                .replacingOccurrences(of: " INTEGER", with: " BIGINT")
                .replacingOccurrences(of: " REAL", with: " DOUBLE PRECISION")
                .replacingOccurrences(of: " BLOB", with: " BYTEA")
                .replacingOccurrences(of: " TEXT", with: " TEXT COLLATE \"C\"")
        }
    }
}

/// A transaction of a backend. Every call of one request runs in one of these, so a request's writes are all
/// kept or none. Errors are `SQLStoreError`s. Callers use the extension's `execute`, `fetchAll`, `fetchOne`,
/// `value` and `values`, with `?` placeholders; a backend implements `run` and `query`.
package protocol SQLTransaction: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one statement; returns the rows it changed. `cached` keeps the prepared statement for the next call
    /// (for statements repeated many times, such as seeding's inserts; not for SQL built from a client's query).
    func run(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> Int
    /// Runs one query and returns all its rows.
    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
    /// Several statements without arguments (the schema).
    func executeScript(_ sql: String) throws
    /// The columns of a table, empty when there is no such table.
    func columnNames(ofTable table: String) throws -> [String]
    /// Salesforce's record locks, taken by the read that precedes a change: what to append to the `SELECT` of the
    /// records `ids` of `table` so that it locks them until the transaction ends (PostgreSQL: `FOR UPDATE`, each
    /// row waited for at most the store's record lock timeout). A backend whose one connection already serialises
    /// every write appends nothing; it waits here for a record a fault holds (`SQLStore.holdRecordLock`). A lock
    /// not given in time is `SQLStoreError.Kind.lockTimeout`.
    func lockForUpdate(table: String, ids: [String]) throws -> String
    /// Locks these keys (a value being looked up and written) until the transaction ends, in one order, each
    /// waited for at most the record lock timeout. A backend whose one connection serialises every write does
    /// nothing.
    func lockValues(_ keys: [String]) throws
    /// Sends a statement whose answer is not needed yet (its changed-row count is not returned): the store waits
    /// for it with the next statement, or with COMMIT. On PostgreSQL COMMIT is then sent as soon as this
    /// statement is answered, without a trip through the transaction's thread, so a lock it takes (the write
    /// clock) is held for one round trip. Its error is thrown by the next statement, or by COMMIT. A backend
    /// that answers at once runs it at once.
    func runDeferred(_ sql: String, _ arguments: [SQLValue]) throws
}

extension SQLTransaction {
    package func runDeferred(_ sql: String, _ arguments: [SQLValue]) throws {
        _ = try run(sql, arguments, cached: false)
    }

    @discardableResult
    package func execute(_ sql: String, _ arguments: [any SQLEncodable] = [], cached: Bool = false) throws -> Int {
        try run(sql, arguments.map(\.sqlValue), cached: cached)
    }

    package func fetchAll(_ sql: String, _ arguments: [any SQLEncodable] = []) throws -> [SQLRow] {
        try query(sql, arguments.map(\.sqlValue))
    }

    package func fetchOne(_ sql: String, _ arguments: [any SQLEncodable] = []) throws -> SQLRow? {
        try fetchAll(sql, arguments).first
    }

    /// The first column of the first row, when there is one and it is not NULL.
    package func value<T: SQLDecodable>(as: T.Type = T.self, _ sql: String, _ arguments: [any SQLEncodable] = []) throws -> T? {
        guard let row = try fetchOne(sql, arguments) else { return nil }
        return T(sqlValue: row[0])
    }

    /// Runs `body` inside a savepoint: what it wrote is kept with `.commit`, undone with `.rollback` or when it
    /// throws (savepoints nest).
    package func inSavepoint(_ body: () throws -> SavepointCompletion) throws {
        try execute("SAVEPOINT sfsim")
        let completion: SavepointCompletion
        do {
            completion = try body()
        } catch {
            _ = try? execute("ROLLBACK TO SAVEPOINT sfsim")
            _ = try? execute("RELEASE SAVEPOINT sfsim")
            throw error
        }
        if completion == .rollback { try execute("ROLLBACK TO SAVEPOINT sfsim") }
        try execute("RELEASE SAVEPOINT sfsim")
    }

    /// The first column of every row that is not NULL.
    package func values<T: SQLDecodable>(as: T.Type = T.self, _ sql: String, _ arguments: [any SQLEncodable] = []) throws -> [T] {
        try fetchAll(sql, arguments).compactMap { T(sqlValue: $0[0]) }
    }
}

/// What a savepoint's body asks for.
package enum SavepointCompletion: Sendable { case commit, rollback }

/// A backend: one org's state, reached through transactions.
package protocol SQLStore: Sendable {
    var dialect: SQLDialect { get }
    /// Where the state is, for messages ("the in-memory org", a file's path).
    var location: String { get }
    /// A write transaction, waiting for it on the calling thread.
    func write<T>(_ body: (SQLTransaction) throws -> T) throws -> T
    /// A read-only look, waiting for it on the calling thread.
    func read<T>(_ body: (SQLTransaction) throws -> T) throws -> T
    /// A write transaction from Swift concurrency: the caller's task waits without holding a thread of the pool.
    func write<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T
    func read<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T
    /// Writes that need no transaction around them, because each statement is atomic by itself and nothing
    /// needs them kept together (a look-up, then an upsert that adds one to a counter). SQLite runs them in a
    /// write transaction anyway; PostgreSQL runs each statement as a transaction of its own.
    func update<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T
    /// A write transaction serialised only with the others of the same `key` (a user's query cursors), not with
    /// every write. SQLite serialises it anyway.
    func write<T: Sendable>(locking key: String, _ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T
    /// Whether several sf-simulator instances may share this state (PostgreSQL): then the org definition the
    /// state was made from must be this instance's.
    var isShared: Bool { get }
    /// A write transaction that sets up the state (the schema, the seeding): it may wait for as long as another
    /// instance's setting up takes, where every other transaction's waiting is bounded.
    func setUp<T>(_ body: (SQLTransaction) throws -> T) throws -> T
    /// How long a write waits for a record another transaction has locked before it fails with Salesforce's
    /// `UNABLE_TO_LOCK_ROW` (the org's setting; Salesforce's is 10 s).
    var recordLockTimeout: TimeInterval { get }
    /// A fault: the record `id` of `table` is locked for `seconds`, as a long transaction elsewhere would hold it
    /// (PostgreSQL: a real row lock, seen by every instance). Returns once the lock is held.
    func holdRecordLock(table: String, id: String, seconds: TimeInterval) async throws
    /// Lets go of the state while this process goes on (an `EmbeddedOrg` stopped): for SQLite, the file is
    /// checkpointed and closed and its lock released, so that the file is whole and free once `stop` returns.
    /// Nothing may use the store after.
    func close()
}

extension SQLStore {
    package var isShared: Bool { false }

    /// A store this process does not own the lifetime of (one a test gave) is left as it is.
    package func close() {}

    package func setUp<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try write(body) }

    package func write<T: Sendable>(locking key: String, _ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await write(body)
    }
}

/// The record locks a fault holds, for a backend whose one connection serialises every write (SQLite): a write
/// to a held record waits for it, at most `timeout`, as it would for another transaction's lock.
package final class HeldRecords: @unchecked Sendable {
    private let lock = NSLock()
    private var until: [String: Date] = [:]
    package let timeout: TimeInterval

    package init(timeout: TimeInterval) { self.timeout = timeout }

    package func hold(_ key: String, seconds: TimeInterval) {
        lock.withLock { until[key] = Date().addingTimeInterval(seconds) }
    }

    /// Returns when none of `keys` is held; throws `lockTimeout` when one still is after `timeout`.
    package func wait(for keys: [String]) throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let now = Date()
            let latest = lock.withLock { () -> Date? in
                until = until.filter { $0.value > now }
                return keys.compactMap { until[$0] }.max()
            }
            guard let latest else { return }
            guard now < deadline else {
                throw SQLStoreError(kind: .lockTimeout, reason: "a record was locked past the record lock timeout (\(timeout) s)", code: "record lock")
            }
            Thread.sleep(forTimeInterval: max(0.001, min(0.01, latest.timeIntervalSince(now), deadline.timeIntervalSince(now))))
        }
    }
}

/// A text argument a backend would store differently (SQLite keeps a NUL, PostgreSQL refuses it): refused
/// on every backend before it is sent, so that both answer the same.
package func checkText(_ arguments: [SQLValue]) throws {
    for case .text(let s) in arguments where s.utf8.contains(0) {
        throw SQLStoreError(kind: .invalidText, reason: "a text value holds a NUL character", code: "text")
    }
}

/// What a backend says went wrong, without its SQL, arguments or paths (they must never reach a client).
package struct SQLStoreError: Error, Sendable, CustomStringConvertible {
    package enum Kind: Sendable, Equatable {
        /// The statement is too large or too deeply nested for the backend (a client's query).
        case tooLarge
        /// The backend cannot be reached or refused the connection.
        case unavailable
        /// A lock another transaction held was not given within the backend's lock timeout.
        case lockTimeout
        /// A text value the backend cannot hold (a NUL character): refused on every backend alike.
        case invalidText
        /// Anything else.
        case other
    }
    package var kind: Kind
    /// The backend's own short reason ("too many SQL variables"); no SQL, no arguments.
    package var reason: String
    /// The backend's result code, for a 500's message.
    package var code: String

    package var description: String { "\(reason) (\(code))" }

    package init(kind: Kind, reason: String, code: String) {
        self.kind = kind
        self.reason = reason
        self.code = code
    }
}

/// The column names of one result, shared by its rows.
package final class SQLColumns: Sendable {
    package let names: [String]
    package let index: [String: Int]

    package init(_ names: [String]) {
        self.names = names
        var index: [String: Int] = [:]
        for (i, name) in names.enumerated() where index[name.lowercased()] == nil { index[name.lowercased()] = i }
        self.index = index
    }
}

/// One row of a result.
package struct SQLRow: Sendable {
    package let columns: SQLColumns
    package let values: [SQLValue]

    package init(columns: SQLColumns, values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    package subscript(_ index: Int) -> SQLValue { values[index] }

    /// The value of a column by name (names compare without case, as SQL's do); NULL when there is no such column.
    package func value(named name: String) -> SQLValue {
        guard let i = columns.index[name.lowercased()] else { return .null }
        return values[i]
    }

    /// A typed value by name; a NULL or a value of another type in a non-optional is a programming error, as
    /// it is in GRDB.
    package subscript<T: SQLDecodable>(_ name: String) -> T {
        let value = value(named: name)
        guard let typed = T(sqlValue: value) else {
            preconditionFailure("column \(name) holds \(value), not \(T.self)")
        }
        return typed
    }

    package subscript<T: SQLDecodable>(_ index: Int) -> T {
        guard let typed = T(sqlValue: values[index]) else {
            preconditionFailure("column \(index) holds \(values[index]), not \(T.self)")
        }
        return typed
    }
}

/// A Swift type read from a SQL value. `init?` fails on NULL and on a value of another type (Optional succeeds
/// with nil on NULL).
package protocol SQLDecodable {
    init?(sqlValue: SQLValue)
}

extension String: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard case .text(let s) = sqlValue else { return nil }
        self = s
    }
}

extension Int64: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .int(let i): self = i
        case .double(let d) where d.rounded() == d && abs(d) < 9e18: self = Int64(d)
        default: return nil
        }
    }
}

extension Int: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard let i = Int64(sqlValue: sqlValue) else { return nil }
        self = Int(i)
    }
}

extension Double: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .double(let d): self = d
        case .int(let i): self = Double(i)
        default: return nil
        }
    }
}

extension Bool: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        guard let i = Int64(sqlValue: sqlValue) else { return nil }
        self = i != 0
    }
}

extension Data: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .blob(let d): self = d
        case .text(let s): self = Data(s.utf8)
        default: return nil
        }
    }
}

extension Optional: SQLDecodable where Wrapped: SQLDecodable {
    package init?(sqlValue: SQLValue) {
        if case .null = sqlValue {
            self = .none
        } else if let wrapped = Wrapped(sqlValue: sqlValue) {
            self = .some(wrapped)
        } else {
            return nil
        }
    }
}

/// Swift values as SQL arguments.
package protocol SQLEncodable {
    var sqlValue: SQLValue { get }
}

extension String: SQLEncodable { package var sqlValue: SQLValue { .text(self) } }
extension Int: SQLEncodable { package var sqlValue: SQLValue { .int(Int64(self)) } }
extension Int64: SQLEncodable { package var sqlValue: SQLValue { .int(self) } }
extension Double: SQLEncodable { package var sqlValue: SQLValue { .double(self) } }
extension Bool: SQLEncodable { package var sqlValue: SQLValue { .int(self ? 1 : 0) } }
extension Data: SQLEncodable { package var sqlValue: SQLValue { .blob(self) } }
extension SQLValue: SQLEncodable { package var sqlValue: SQLValue { self } }
extension Optional: SQLEncodable where Wrapped: SQLEncodable {
    package var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension SQLArg {
    package var sqlValue: SQLValue {
        switch self {
        case .null: return .null
        case .int(let i): return .int(i)
        case .double(let d): return .double(d)
        case .text(let s): return .text(s)
        }
    }
}
