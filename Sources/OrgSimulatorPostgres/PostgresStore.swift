#if PostgreSQL
import Foundation
import Logging
import NIOCore
import NIOPosix
import OrgSimulator
import PostgresNIO

/// How long an instance waits on PostgreSQL before it answers 503, so that a database that died, paused or
/// is held by a frozen instance never stalls a request, nor the instance (issue 34).
package struct PostgresTimeouts: Sendable {
    /// PostgreSQL's `lock_timeout`: a lock another transaction holds is waited for this long. A record's lock
    /// not given in time is Salesforce's `UNABLE_TO_LOCK_ROW`, so this is the org's record lock timeout:
    /// Salesforce's is 10 seconds.
    package var lock: TimeInterval = 10
    /// PostgreSQL's `statement_timeout`: no statement runs longer.
    package var statement: TimeInterval = 30
    /// PostgreSQL's `idle_in_transaction_session_timeout`: a transaction whose instance stopped answering
    /// (frozen, SIGSTOP) is ended by the server after this long, and its locks with it.
    package var idleInTransaction: TimeInterval = 10
    /// A statement unanswered this long makes the instance ask the server, on a new connection, whether it
    /// answers at all; it does not: 503 now. It does: the statement is waited for (up to `statement`).
    package var stall: TimeInterval = 2
    /// How long that question, and a new connection, may take.
    package var probe: TimeInterval = 1.5
    /// How long a request waits for a free connection of the pool.
    package var checkout: TimeInterval = 5

    package init() {}
}

/// The PostgreSQL backend (PostgresNIO): any number of sf-simulator instances serve one org from one database.
///
/// A transaction's body is the same synchronous code the SQLite backend runs; it runs on a worker thread of
/// its own that waits for each statement, never on Swift concurrency's pool or on an event loop. Writes lock
/// what they touch, as Salesforce locks records: the rows they change (`FOR UPDATE`, in one order within a
/// request), a unique value while it is looked up and written (a transaction-scoped advisory lock on the value;
/// an upsert by a unique external id leaves that to the value's unique index), a user's cursors, and the org's
/// write clock for the last statements of a write. Reads take no lock and no transaction. Only setting up (the schema, the seeding) takes one lock for the whole database. A
/// connection that fails is dropped and a new one is made for the next transaction, so an instance recovers by
/// itself when the database comes back.
package final class PostgresStore: SQLStore, @unchecked Sendable {
    let url: PostgresURL
    package let location: String
    package var dialect: SQLDialect { .postgres }
    private let group: MultiThreadedEventLoopGroup
    /// The group's one event loop, as the executor of prepared statements' tasks (`PreparedStatements`).
    let executor: EventLoopExecutor
    private let configuration: PostgresConnection.Configuration
    private let logger = Logger(label: "sf-simulator.postgres")
    private let slots: DispatchSemaphore
    private let lock = NSLock()
    private var idle: [PostgresConnection] = []
    private var nextID = 0
    private let workers = DispatchQueue(label: "sf-simulator.postgres", attributes: .concurrent)
    /// The key of the advisory lock setting up takes (any constant; "sfsim" in ASCII), and the seed of the keys
    /// of the value locks.
    static let writeLockKey: Int64 = 0x73_66_73_69_6D
    package var recordLockTimeout: TimeInterval { timeouts.lock }

    /// Connects once at start (one line and exit 64 when it cannot: `OrgSimulatorError.unreachable`).
    package let timeouts: PostgresTimeouts
    private var lastProbe: (at: Date, answered: Bool)?

    /// For a test's new database (`testStore`): the server whose databases keep seedings (`SeedingCopies`).
    private let seedingServer: PostgresURL?
    /// Whether an org has asked to start as a copy already.
    private var copyAsked = false

    package init(url: PostgresURL, poolSize: Int, timeouts: PostgresTimeouts = PostgresTimeouts(), seedingServer: PostgresURL? = nil) throws {
        self.url = url
        self.seedingServer = seedingServer
        self.timeouts = timeouts
        location = url.redacted
        group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        executor = EventLoopExecutor(group.next())
        var configuration = url.connectionConfiguration
        configuration.options.connectTimeout = .milliseconds(Int64(timeouts.probe * 1000))
        let ms = { (t: TimeInterval) in String(Int(t * 1000)) }
        configuration.options.additionalStartupParameters = [
            ("application_name", "sf-simulator"), ("lock_timeout", ms(timeouts.lock)), ("statement_timeout", ms(timeouts.statement)),
            ("idle_in_transaction_session_timeout", ms(timeouts.idleInTransaction)),
        ]
        self.configuration = configuration
        slots = DispatchSemaphore(value: max(1, poolSize))
        do {
            let connection = try connect()
            checkIn(connection, broken: false)
        } catch {
            try? group.syncShutdownGracefully()
            throw OrgSimulatorError.unreachable("\(url.redacted) cannot be reached: \(Self.reason(error)); start PostgreSQL there, or give --state another URL")
        }
    }

    deinit {
        for connection in lock.withLock({ idle }) {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
        try? group.syncShutdownGracefully()
    }

    /// A new connection, made within `timeouts.probe` (a paused server accepts the socket and never answers);
    /// one made after that is closed as soon as it arrives.
    private func connect() throws -> PostgresConnection {
        let id = lock.withLock { nextID += 1; return nextID }
        let future = PostgresConnection.connect(on: group.next(), configuration: configuration, id: id, logger: logger)
        guard let result = Self.wait(future, for: timeouts.probe) else {
            future.whenSuccess { connection in
                Self.close(connection)
            }
            throw SQLStoreError(kind: .unavailable, reason: "PostgreSQL did not answer a new connection within \(timeouts.probe) s", code: "PostgreSQL connection")
        }
        return try result.get()
    }

    /// Closes a connection without waiting, and keeps it until the close is done (PostgresNIO asserts that a
    /// connection is closed before it goes away).
    static func close(_ connection: PostgresConnection) {
        let closing: EventLoopFuture<Void> = connection.close()
        closing.whenComplete { _ in withExtendedLifetime(connection) {} }
    }

    /// The future's result, or nil when it has none within `seconds`.
    static func wait<T>(_ future: EventLoopFuture<T>, for seconds: TimeInterval) -> Result<T, any Error>? {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<T, any Error>?
        future.whenComplete { r in
            result = r
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result
    }

    /// Whether the server answers `SELECT 1` on a new connection within `timeouts.probe`. Asked at most once a
    /// second: every stalled request of the instance shares the answer.
    func serverAnswers() -> Bool {
        if let last = lock.withLock({ lastProbe }), Date().timeIntervalSince(last.at) < 1 { return last.answered }
        var answered = false
        if let connection = try? connect() {
            let query = connection.query(PostgresQuery(unsafeSQL: "SELECT 1"), logger: logger)
            answered = (try? Self.wait(query, for: timeouts.probe)?.get()) != nil
            Self.close(connection)
        }
        lock.withLock { lastProbe = (Date(), answered) }
        return answered
    }

    /// True for a second after the server last failed to answer: new requests then get their 503 at once
    /// instead of each waiting out a stall of its own.
    private var recentlyDown: Bool {
        guard let last = lock.withLock({ lastProbe }), !last.answered else { return false }
        return Date().timeIntervalSince(last.at) < 1
    }

    /// Waits for a statement of `connection`: while the server answers other connections, up to its own
    /// statement timeout; once it does not (dead, paused), the connection is closed and the request gets 503.
    /// A connection already closed (the server ended its transaction while this instance was frozen) answers
    /// nothing, and PostgresNIO may never complete a statement sent on it: 503 at the next look, not after the
    /// statement timeout (it took 34 s once the instance was resumed; org-postgres.sh).
    func await<T>(_ future: EventLoopFuture<T>, on connection: PostgresConnection, patient: Bool = false) throws -> T {
        var waited: TimeInterval = 0
        while true {
            if let result = Self.wait(future, for: timeouts.stall) { return try result.get() }
            waited += timeouts.stall
            if connection.isClosed || (!patient && waited > timeouts.statement + timeouts.stall) || !serverAnswers() {
                Self.close(connection)
                throw SQLStoreError(kind: .unavailable, reason: "PostgreSQL stopped answering (\(Int(waited)) s)", code: "PostgreSQL connection")
            }
        }
    }

    private func checkOut() throws -> PostgresConnection {
        guard slots.wait(timeout: .now() + timeouts.checkout) == .success else {
            throw SQLStoreError(kind: .unavailable, reason: "no connection to PostgreSQL was free within \(Int(timeouts.checkout)) s", code: "PostgreSQL pool")
        }
        if recentlyDown {
            slots.signal()
            throw SQLStoreError(kind: .unavailable, reason: "PostgreSQL did not answer a moment ago", code: "PostgreSQL connection")
        }
        if let connection = lock.withLock({ idle.popLast() }), !connection.isClosed { return connection }
        do {
            return try connect()
        } catch {
            slots.signal()
            throw SQLStoreError(kind: .unavailable, reason: Self.reason(error), code: "PostgreSQL connection")
        }
    }

    /// For each open connection (by `PostgresConnection.id`), the statements executed there by name: true when
    /// the first execution was answered (prepared), false when it failed (the name is not used there again).
    private var preparedOn: [Int: [String: Bool]] = [:]

    /// Nil: the statement has not been executed on this connection yet.
    func prepared(_ name: String, on connection: PostgresConnection) -> Bool? {
        lock.withLock { preparedOn[connection.id]?[name] }
    }

    func setPrepared(_ name: String, on connection: PostgresConnection, _ prepared: Bool) {
        lock.withLock { preparedOn[connection.id, default: [:]][name] = prepared }
    }

    private func checkIn(_ connection: PostgresConnection, broken: Bool) {
        if broken || connection.isClosed {
            _ = lock.withLock { preparedOn.removeValue(forKey: connection.id) }
            Self.close(connection)
        } else {
            lock.withLock { idle.append(connection) }
        }
        slots.signal()
    }

    /// Statements each of which is a transaction of its own (no BEGIN and COMMIT: two round trips fewer). Under
    /// READ COMMITTED, which every transaction here uses, each statement of a transaction sees what was committed
    /// when it started anyway, so reads, and writes each atomic by itself, need no transaction around them.
    private func statements<T>(_ body: (SQLTransaction) throws -> T) throws -> T {
        let connection = try checkOut()
        let tx = PostgresTransaction(connection: connection, logger: logger, store: self)
        do {
            let result = try body(tx)
            try tx.waitForDeferred()
            checkIn(connection, broken: false)
            return result
        } catch {
            let mapped = Self.storeError(error)
            checkIn(connection, broken: mapped.map { $0.kind == .unavailable } ?? false)
            throw mapped ?? error
        }
    }

    private func transaction<T>(write: Bool, lockKey: String? = nil, setUp: Bool = false, _ body: (SQLTransaction) throws -> T) throws -> T {
        guard write else { return try statements(body) }
        let connection = try checkOut()
        let tx = PostgresTransaction(connection: connection, logger: logger, store: self, patient: setUp)
        do {
            tx.begin("BEGIN ISOLATION LEVEL READ COMMITTED")
            if setUp {
                // Another instance may be making the schema or seeding: waited for as long as that takes.
                try tx.simple("SET LOCAL lock_timeout = 0")
                try tx.simple("SET LOCAL statement_timeout = 0")
                _ = try tx.run("SELECT pg_advisory_xact_lock(\(Self.writeLockKey))", [], cached: false)
            }
            if let lockKey {
                _ = try tx.run("SELECT pg_advisory_xact_lock(hashtextextended(?, \(Self.writeLockKey)))", [.text(lockKey)], cached: false)
            }
            let result = try body(tx)
            try tx.simple("COMMIT")
            checkIn(connection, broken: false)
            return result
        } catch {
            let mapped = Self.storeError(error)
            var broken = mapped.map { $0.kind == .unavailable } ?? false
            if !broken {
                do { try tx.simple("ROLLBACK") } catch { broken = true }
            }
            checkIn(connection, broken: broken)
            throw mapped ?? error
        }
    }

    package func write<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try transaction(write: true, body) }
    package func setUp<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try transaction(write: true, setUp: true, body) }
    package func read<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try transaction(write: false, body) }

    package func write<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.async { continuation.resume(with: Result { try self.transaction(write: true, body) }) }
        }
    }

    package func update<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.async { continuation.resume(with: Result { try self.statements(body) }) }
        }
    }

    package func read<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.async { continuation.resume(with: Result { try self.transaction(write: false, body) }) }
        }
    }

    package func write<T: Sendable>(locking key: String, _ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            workers.async { continuation.resume(with: Result { try self.transaction(write: true, lockKey: key, body) }) }
        }
    }

    package var isShared: Bool { true }

    /// A transaction on a connection of the pool that locks the row and keeps it for `seconds` (`pg_sleep`, with
    /// no statement timeout), then rolls back: every instance's writes to the record wait for it.
    package func holdRecordLock(table: String, id: String, seconds: TimeInterval) async throws {
        let held = DispatchSemaphore(value: 0)
        let outcome = LockedBox<(any Error)?>(nil)
        workers.async {
            do {
                let connection = try self.checkOut()
                let tx = PostgresTransaction(connection: connection, logger: self.logger, store: self, patient: true)
                var broken = false
                do {
                    try tx.simple("BEGIN")
                    try tx.simple("SET LOCAL statement_timeout = 0")
                    _ = try tx.query("SELECT 1 FROM \"\(table.replacingOccurrences(of: "\"", with: "\"\""))\" WHERE \"Id\" = ? FOR UPDATE", [.text(id)])
                    held.signal()
                    _ = try tx.query("SELECT pg_sleep(?)", [.double(seconds)])
                    try tx.simple("ROLLBACK")
                } catch {
                    broken = true
                    outcome.value = error
                    held.signal()
                }
                self.checkIn(connection, broken: broken)
            } catch {
                outcome.value = error
                held.signal()
            }
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            DispatchQueue.global().async {
                held.wait()
                continuation.resume()
            }
        }
        if let error = outcome.value { throw Self.storeError(error) ?? error }
    }

    /// PostgreSQL's SQLSTATE classes that mean a statement was too large or deep for it (54: program limit
    /// exceeded, e.g. 54001 statement too complex), and the errors that mean the server is gone.
    static func storeError(_ error: any Error) -> SQLStoreError? {
        if let error = error as? SQLStoreError { return error }
        guard let error = error as? PSQLError else { return nil }
        switch error.code {
        case .server:
            let state = error.serverInfo?[.sqlState] ?? "?????"
            let message = error.serverInfo?[.message] ?? "server error"
            if state.hasPrefix("54") || error.code == .tooManyParameters {
                return SQLStoreError(kind: .tooLarge, reason: message, code: "PostgreSQL \(state)")
            }
            // 57P01..57P03: the server is shutting down or cannot accept connections; 08: connection exceptions;
            // 57014: a statement cancelled by statement_timeout; 25P03: idle_in_transaction_session_timeout.
            if state.hasPrefix("57P") || state.hasPrefix("08") || state == "57014" || state == "25P03" {
                return SQLStoreError(kind: .unavailable, reason: message, code: "PostgreSQL \(state)")
            }
            // 55P03 (lock_not_available): another transaction held a lock past lock_timeout; 40P01: two
            // transactions waited for each other's locks, and this one was chosen to end (Salesforce's answer to
            // both is UNABLE_TO_LOCK_ROW).
            if state == "55P03" || state == "40P01" { return SQLStoreError(kind: .lockTimeout, reason: message, code: "PostgreSQL \(state)") }
            return SQLStoreError(kind: .other, reason: message, code: "PostgreSQL \(state)")
        case .tooManyParameters:
            return SQLStoreError(kind: .tooLarge, reason: "too many SQL variables", code: "PostgreSQL bind limit")
        case .connectionError, .serverClosedConnection, .clientClosedConnection, .uncleanShutdown, .poolClosed:
            return SQLStoreError(kind: .unavailable, reason: "the connection to PostgreSQL was lost", code: "PostgreSQL connection")
        default:
            return SQLStoreError(kind: .other, reason: "\(error.code)", code: "PostgreSQL client")
        }
    }

    /// One line for a connection that could not be made: the server's message, or the system's.
    static func reason(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if let message = error.serverInfo?[.message] { return message }
            if let underlying = error.underlying { return plain("\(underlying)") }
            return "\(error.code)"
        }
        return plain("\(error)")
    }

    /// NIO's description of a failed connection, as one short reason ("connection refused").
    static func plain(_ description: String) -> String {
        let lower = description.lowercased()
        for (needle, said) in [("connection refused", "connection refused"), ("timed out", "no answer within 5 s"), ("timeout", "no answer within 5 s"),
                               ("no such host", "no such host"), ("name or service not known", "no such host"), ("network is unreachable", "network unreachable"),
                               ("no such file or directory", "no socket there"), ("permission denied", "permission denied")]
        where lower.contains(needle) {
            return said
        }
        return String(description.prefix(160))
    }
}

extension PostgresURL {
    /// Where and how a connection is made: the Unix-domain socket `DIR/.s.PGSQL.PORT`, or TCP.
    var connectionConfiguration: PostgresConnection.Configuration {
        if let socketPath {
            return PostgresConnection.Configuration(unixSocketPath: socketPath, username: user, password: password, database: database)
        }
        return PostgresConnection.Configuration(host: host, port: port, username: user, password: password, database: database, tls: .disable)
    }
}

/// A value shared between threads, behind a lock.
final class LockedBox<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T
    init(_ value: T) { stored = value }
    var value: T {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    func update<R>(_ body: (inout T) -> R) -> R { lock.withLock { body(&stored) } }
}

/// A transaction of `PostgresStore`: one connection between BEGIN and COMMIT, each statement waited for.
final class PostgresTransaction: SQLTransaction {
    let connection: PostgresConnection
    let logger: Logger
    let store: PostgresStore
    /// Setting up the state: waits for as long as the server answers.
    let patient: Bool
    var dialect: SQLDialect { .postgres }

    init(connection: PostgresConnection, logger: Logger, store: PostgresStore, patient: Bool = false) {
        self.connection = connection
        self.logger = logger
        self.store = store
        self.patient = patient
    }

    /// Statements sent without waiting for their answers (BEGIN, `runDeferred`): PostgresNIO sends the next
    /// statement as soon as the one before is answered, on the connection's event loop, so the transaction's
    /// worker thread waits once for all of them (the next statement checks that these succeeded, the first
    /// error first).
    private var deferred: [EventLoopFuture<Void>] = []

    func begin(_ sql: String) {
        deferred.append(connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).map { _ in })
    }

    /// Throws the first error of the statements sent without waiting, once they have been answered.
    func waitForDeferred() throws {
        let futures = deferred
        deferred = []
        for future in futures {
            do {
                _ = try store.await(future, on: connection, patient: patient)
            } catch {
                throw PostgresStore.storeError(error) ?? error
            }
        }
    }

    /// A statement without arguments and results (BEGIN, COMMIT).
    func simple(_ sql: String) throws {
        defer { deferred = [] }
        do {
            let answer = connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try waitForDeferred()
            _ = try store.await(answer, on: connection, patient: patient)
        } catch {
            throw PostgresStore.storeError(error) ?? error
        }
    }

    func runDeferred(_ sql: String, _ arguments: [SQLValue]) throws {
        deferred.append(try send(sql, arguments).map { _ in })
    }

    /// Sends the statement: prepared when it has been sent before with arguments of the same types
    /// (`PreparedStatements`), else parsed and planned by the server this once.
    private func send(_ sql: String, _ arguments: [SQLValue]) throws -> EventLoopFuture<[PostgresRow]> {
        let query = try Self.query(sql, arguments)
        if let name = PreparedStatements.name(for: query.sql, types: Self.types(arguments)) {
            let prepared = store.prepared(name, on: connection)
            if prepared != false {
                let answer = PreparedStatements.execute(query.sql, name: name, bindings: query.binds, on: connection, executor: store.executor, logger: logger)
                if prepared == nil {
                    // Its first time on this connection: PostgresNIO prepares it and holds the execution until the
                    // server has, while statements sent after it go ahead. So it is waited for here (its error, if
                    // any, stays in `answer`, thrown where the statement's error would be). A preparation that
                    // failed (in a transaction that had already failed, say) is one PostgresNIO refuses on this
                    // connection for good: the statement is then parsed at every call here.
                    let answered = (try? store.await(answer, on: connection, patient: patient)) != nil
                    store.setPrepared(name, on: connection, answered)
                }
                return answer
            }
        }
        return connection.query(query, logger: logger).map(\.rows)
    }

    /// The arguments' types, one letter each (a prepared statement keeps the types it was prepared with).
    static func types(_ arguments: [SQLValue]) -> String {
        String(arguments.map { argument -> Character in
            switch argument {
            case .null: return "n"
            case .int: return "i"
            case .double: return "d"
            case .text: return "t"
            case .blob: return "b"
            }
        })
    }

    func run(_ sql: String, _ arguments: [SQLValue], cached: Bool) throws -> Int {
        let result = try perform(sql, arguments)
        return result.metadata.rows ?? 0
    }

    func query(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let rows: [PostgresRow]
        defer { deferred = [] }
        do {
            let answer = try send(sql, arguments)
            try waitForDeferred()
            rows = try store.await(answer, on: connection, patient: patient)
        } catch {
            throw PostgresStore.storeError(error) ?? error
        }
        guard let first = rows.first else { return [] }
        let columns = SQLColumns(first.map(\.columnName))
        return rows.map { row in SQLRow(columns: columns, values: row.map(Self.value)) }
    }

    func executeScript(_ sql: String) throws {
        // The simple query protocol runs several statements; PostgresNIO sends one statement a query, so the
        // script is split at the semicolons that end its lines (the schema has no semicolon inside a statement).
        for statement in sql.components(separatedBy: ";\n").map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }) where !statement.isEmpty {
            try simple(statement.hasSuffix(";") ? String(statement.dropLast()) : statement)
        }
    }

    /// Transaction-scoped advisory locks on the keys' hashes, taken in the keys' order (a subquery sorts them
    /// first, so the locks are taken in that order), in one statement.
    func lockValues(_ keys: [String]) throws {
        let sorted = Array(Set(keys)).sorted()
        guard !sorted.isEmpty else { return }
        let rows = sorted.map { _ in "(?)" }.joined(separator: ", ")
        _ = try query(
            "SELECT pg_advisory_xact_lock(hashtextextended(k, \(PostgresStore.writeLockKey) + 1)) FROM (SELECT k FROM (VALUES \(rows)) AS v(k) ORDER BY k OFFSET 0) AS s",
            sorted.map { .text($0) })
    }

    /// The rows stay locked until the transaction ends; each is waited for at most `lock_timeout`.
    func lockForUpdate(table: String, ids: [String]) throws -> String { " FOR UPDATE" }

    func columnNames(ofTable table: String) throws -> [String] {
        try values(
            as: String.self, "SELECT column_name::text FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position",
            [table])
    }

    /// The statement with its arguments bound and its `?` numbered.
    private static func query(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQuery {
        try checkText(arguments)
        var binds = PostgresBindings(capacity: arguments.count)
        for argument in arguments {
            switch argument {
            case .null: binds.appendNull()
            case .int(let i): binds.append(i)
            case .double(let d): binds.append(d)
            case .text(let s): binds.append(s)
            case .blob(let d): binds.append(ByteBuffer(bytes: d))
            }
        }
        return PostgresQuery(unsafeSQL: numbered(sql), binds: binds)
    }

    private func perform(_ sql: String, _ arguments: [SQLValue]) throws -> PostgresQueryResult {
        let query = try Self.query(sql, arguments)
        defer { deferred = [] }
        do {
            let answer = connection.query(query, logger: logger)
            try waitForDeferred()
            return try store.await(answer, on: connection, patient: patient)
        } catch {
            throw PostgresStore.storeError(error) ?? error
        }
    }

    /// `?` placeholders as PostgreSQL's `$1`, `$2`, …; a `?` inside a '…' string or a "…" name is left alone.
    static func numbered(_ sql: String) -> String {
        // Byte by byte: `?` and the quotes are ASCII, which no other UTF-8 sequence contains (a walk by
        // Character, which finds grapheme boundaries, was 3% of the machine's CPU under the fleet's load).
        var out = [UInt8]()
        out.reserveCapacity(sql.utf8.count + 16)
        var n = 0
        var quote: UInt8?
        for c in sql.utf8 {
            if let q = quote {
                if c == q { quote = nil }
                out.append(c)
            } else if c == UInt8(ascii: "'") || c == UInt8(ascii: "\"") {
                quote = c
                out.append(c)
            } else if c == UInt8(ascii: "?") {
                n += 1
                out.append(UInt8(ascii: "$"))
                out += String(n).utf8
            } else {
                out.append(c)
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func value(_ cell: PostgresCell) -> SQLValue {
        guard cell.bytes != nil else { return .null }
        switch cell.dataType {
        case .int2, .int4, .int8, .oid:
            return (try? cell.decode(Int64.self)).map(SQLValue.int) ?? .null
        case .float4, .float8, .numeric:
            return (try? cell.decode(Double.self)).map(SQLValue.double) ?? .null
        case .bool:
            return (try? cell.decode(Bool.self)).map { .int($0 ? 1 : 0) } ?? .null
        case .bytea:
            return (try? cell.decode(ByteBuffer.self)).map { .blob(Data($0.readableBytesView)) } ?? .null
        default:
            return (try? cell.decode(String.self)).map(SQLValue.text) ?? .null
        }
    }
}

extension PostgresStore {
    /// A new, empty database on the server `url` names (its own database is where the command runs), for a
    /// test that wants an org of its own: `CREATE DATABASE` cannot run inside a transaction, so this is one
    /// plain connection.
    package static func createDatabase(_ name: String, on url: PostgresURL) throws -> PostgresURL {
        guard name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "_") }), !name.isEmpty else {
            throw OrgSimulatorError.badURL("a database name is lower-case letters, digits and '_': \(name)")
        }
        do {
            try onServer(url) { connection, logger in
                _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger).wait()
            }
        } catch {
            throw OrgSimulatorError.unreachable("\(url.redacted): cannot create database \(name): \(reason(error))")
        }
        var made = url
        made.database = name
        return made
    }

    /// For tests: when `APPGROUPSIM_TEST_POSTGRES` names a server (postgres://USER@HOST:PORT/DB), a store on a new
    /// database of it; nil otherwise (the tests then use SQLite). scripts/integration/org-postgres.sh sets it.
    package static func testStore(poolSize: Int = 4, recordLockTimeout: TimeInterval = 10) throws -> PostgresStore? {
        guard let text = ProcessInfo.processInfo.environment["APPGROUPSIM_TEST_POSTGRES"], !text.isEmpty else { return nil }
        let server = try PostgresURL.parse(text)
        let name = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        var timeouts = PostgresTimeouts()
        timeouts.lock = recordLockTimeout
        return try PostgresStore(url: createDatabase(name, on: server), poolSize: poolSize, timeouts: timeouts, seedingServer: server)
    }

    /// `body` on one plain connection to the server `url` names (outside any transaction, as `CREATE DATABASE` needs).
    static func onServer<T>(_ url: PostgresURL, _ body: (PostgresConnection, Logger) throws -> T) throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        defer { try? group.syncShutdownGracefully() }
        let logger = Logger(label: "sf-simulator.postgres")
        let connection = try PostgresConnection.connect(on: group.next(), configuration: url.connectionConfiguration, id: 0, logger: logger).wait()
        defer {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
        return try body(connection, logger)
    }

    /// Closes the pool's idle connections (waiting for each), so that the database can be dropped or copied: nothing
    /// else may be connected to a `CREATE DATABASE`'s template. The next transaction connects anew.
    private func closeIdleConnections() {
        let connections = lock.withLock {
            let all = idle
            idle = []
            for connection in all { preparedOn.removeValue(forKey: connection.id) }
            return all
        }
        for connection in connections {
            let closing: EventLoopFuture<Void> = connection.close()
            try? closing.wait()
        }
    }
}

/// A test's new database starts as a copy of a seeding the server keeps (a database named after the seeding's key,
/// made from the first database seeded with it), as `SeededOrgs` copies in-memory orgs: seeding a thousand contacts
/// over PostgresNIO was most of each org test's time on PostgreSQL. Only `testStore`'s databases do (a store on a
/// URL someone gave keeps and copies nothing). PostgreSQL waits up to 5 s for a closed connection's backend to go
/// before it drops or copies a database.
extension PostgresStore: SeedingCopies {
    /// 32 of the digest's hex digits: a name of PostgreSQL's (at most 63 bytes) that no test database has.
    static func seedingDatabase(_ digest: String) -> String { "s_" + String(digest.filter(\.isHexDigit).lowercased().prefix(32)) }

    package var copiesSeedings: Bool { seedingServer != nil }

    package func startAsCopy(of digest: String) throws -> Bool {
        // Only a new database, once: a second org on the same store (an instance started again) keeps what it finds.
        guard let seedingServer, lock.withLock({ () -> Bool in defer { copyAsked = true }; return !copyAsked }) else { return false }
        let kept = Self.seedingDatabase(digest)
        let name = url.database
        return try Self.onServer(seedingServer) { connection, logger in
            let found = try connection.query(PostgresQuery(unsafeSQL: "SELECT 1 FROM pg_database WHERE datname = '\(kept)'"), logger: logger).wait()
            guard !found.rows.isEmpty else { return false }
            closeIdleConnections()
            _ = try connection.query(PostgresQuery(unsafeSQL: "DROP DATABASE \(name)"), logger: logger).wait()
            do {
                _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name) TEMPLATE \(kept)"), logger: logger).wait()
                return true
            } catch {
                // The kept seeding could not be copied (another copy of it was being made): an empty database, seeded.
                _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger).wait()
                return false
            }
        }
    }

    package func keepSeeding(as digest: String) throws {
        guard let seedingServer else { return }
        let kept = Self.seedingDatabase(digest)
        let name = url.database
        closeIdleConnections()
        try Self.onServer(seedingServer) { connection, logger in
            // Another process may have kept the same seeding meanwhile: then this one is not needed.
            _ = try connection.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(kept) TEMPLATE \(name)"), logger: logger).wait()
        }
    }
}
#endif
