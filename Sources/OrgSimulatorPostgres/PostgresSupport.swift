import Foundation
import OrgSimulator

/// Whether this build has the org's PostgreSQL backend: the package trait `PostgreSQL`, off by default, so that
/// a first build compiles neither PostgresNIO nor swift-nio-ssl (`swift build --traits PostgreSQL` turns it on;
/// scripts/fleet and scripts/test do).
package enum PostgresSupport {
    #if PostgreSQL
    package static let built = true
    #else
    package static let built = false
    #endif

    /// What a `--state postgres://…` or `APPGROUPSIM_TEST_POSTGRES` gets from a build without the trait.
    package static let notBuilt =
        "this build has no PostgreSQL backend (the package trait PostgreSQL is off by default); build with `swift build --traits PostgreSQL`, or run scripts/fleet, which does"

    /// The SQL store `--state URL` names, on PostgreSQL: the URL is checked in every build, and a build without
    /// the trait then says so (`OrgSimulatorError.badURL`, exit 64 in sf-simulator) instead of starting on SQLite.
    package static func store(url text: String, poolSize: Int, recordLockTimeout: TimeInterval = 10) throws -> any SQLStore {
        let url = try PostgresURL.parse(text)
        #if PostgreSQL
        var timeouts = PostgresTimeouts()
        timeouts.lock = recordLockTimeout
        return try PostgresStore(url: url, poolSize: poolSize, timeouts: timeouts)
        #else
        _ = url
        throw OrgSimulatorError.badURL("--state \(PostgresURL.withoutPassword(text)): \(notBuilt)")
        #endif
    }

    /// For tests: when `APPGROUPSIM_TEST_POSTGRES` names a server, a store on a new database of it; nil when it
    /// names none (the tests then use SQLite). A build without the trait refuses the variable rather than test
    /// SQLite under PostgreSQL's name.
    package static func testStore(poolSize: Int = 4, recordLockTimeout: TimeInterval = 10) throws -> (any SQLStore)? {
        guard let text = ProcessInfo.processInfo.environment["APPGROUPSIM_TEST_POSTGRES"], !text.isEmpty else { return nil }
        #if PostgreSQL
        return try PostgresStore.testStore(poolSize: poolSize, recordLockTimeout: recordLockTimeout)
        #else
        throw OrgSimulatorError.badURL("APPGROUPSIM_TEST_POSTGRES is set, but \(notBuilt)")
        #endif
    }
}
