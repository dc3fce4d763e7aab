#if PostgreSQL
import Foundation
import Logging
import NIOCore
import OrgSimulator
import PostgresNIO

/// Statements PostgreSQL parses and plans once per connection, not at every request (issue 39: parsing,
/// analysing and planning were 14% of the fleet's CPU). A statement text is prepared once it has been sent
/// `PreparedStatements.after` times with one set of argument types, so that one-off texts (a developer's SOQL
/// with its values) are not kept on the server; at most `PreparedStatements.limit` texts are ever named, which
/// bounds what each connection keeps.
///
/// PostgresNIO prepares a statement on a connection the first time it is executed there (by its name) and binds
/// it afterwards; it offers that only as an `async` call. The call runs in a task whose executor is the
/// connection's event loop: it never waits for Swift concurrency's pool (which request handlers may hold), and
/// it is queued on the event loop before anything the transaction sends after it, so statements keep the order
/// they were given in.
enum PreparedStatements {
    static let after = 2
    static let limit = 1024

    private static let names = LockedBox(Registry())

    struct Registry {
        var named: [String: String] = [:]
        var seen: [String: Int] = [:]
    }

    /// The name to execute `sql` under with arguments of `types`, or nil: not (yet) prepared.
    static func name(for sql: String, types: String) -> String? {
        let key = types + "\u{1F}" + sql
        return names.update { (registry: inout Registry) -> String? in
            if let name = registry.named[key] { return name }
            guard registry.named.count < limit else { return nil }
            let count = registry.seen[key, default: 0] + 1
            guard count >= after else {
                if registry.seen.count >= 8 * limit { registry.seen.removeAll() }
                registry.seen[key] = count
                return nil
            }
            registry.seen[key] = nil
            let name = "sfsim_\(registry.named.count)"
            registry.named[key] = name
            return name
        }
    }

    /// The statement, as PostgresNIO's `PostgresPreparedStatement` wants it: its name and text are the
    /// type's (static), so they come from the task that executes it.
    struct Statement: PostgresPreparedStatement {
        struct Text: Sendable {
            var name = ""
            var sql = ""
        }
        @TaskLocal static var text = Text()
        static var name: String { text.name }
        static var sql: String { text.sql }
        typealias Row = PostgresRow
        let bindings: PostgresBindings
        func makeBindings() throws -> PostgresBindings { bindings }
        func decodeRow(_ row: PostgresRow) throws -> PostgresRow { row }
    }

    /// Executes the prepared statement `name` (`sql`) on `connection`; its rows, when all have come.
    static func execute(
        _ sql: String, name: String, bindings: PostgresBindings, on connection: PostgresConnection, executor: EventLoopExecutor, logger: Logger
    ) -> EventLoopFuture<[PostgresRow]> {
        let promise = connection.eventLoop.makePromise(of: [PostgresRow].self)
        Task(executorPreference: executor) {
            do {
                let rows = try await Statement.$text.withValue(Statement.Text(name: name, sql: sql)) {
                    var rows: [PostgresRow] = []
                    for try await row in try await connection.execute(Statement(bindings: bindings), logger: logger) { rows.append(row) }
                    return rows
                }
                promise.succeed(rows)
            } catch {
                promise.fail(error)
            }
        }
        return promise.futureResult
    }
}

/// A task executor that runs its jobs on one NIO event loop, in the order they are given.
final class EventLoopExecutor: TaskExecutor, @unchecked Sendable {
    let loop: any EventLoop

    init(_ loop: any EventLoop) { self.loop = loop }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        loop.execute { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
#endif
