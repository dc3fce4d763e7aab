import Foundation
import OrgSimulatorPostgres

@testable import OrgSimulator

/// An org state for a test that drives the store directly: on a new PostgreSQL database when
/// APPGROUPSIM_TEST_POSTGRES names a server (scripts/integration/org-postgres.sh runs these tests so), else
/// SQLite in memory. The same assertions then judge both backends.
enum TestStates {
    static func make(definition: OrgDefinition, tokenLifetime: TimeInterval = 3600, csv: [CSVSource] = []) throws -> OrgState {
        if let store = try PostgresSupport.testStore() {
            return try OrgState(definition: definition, location: .store(store), tokenLifetime: tokenLifetime, csv: csv)
        }
        return try OrgState(definition: definition, location: .memory, tokenLifetime: tokenLifetime, csv: csv)
    }
}
