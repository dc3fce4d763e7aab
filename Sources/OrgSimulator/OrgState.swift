import Crypto
import Foundation
import GRDB

/// The org's state, split by concept over one SQLite database: records (`RecordStore`), OAuth grants
/// and tokens (`Grants`), query cursors (`QueryEngine`). Seeded from the org definition (and CSV files)
/// the first time a state is opened.
final class OrgState: Sendable {
    let database: OrgDatabase
    let records: RecordStore
    let grants: Grants
    let queries: QueryEngine
    var definition: OrgDefinition { database.definition }

    init(definition: OrgDefinition, stateURL: URL?, tokenLifetime: TimeInterval, csv: [CSVSource] = []) throws {
        database = try OrgDatabase(definition: definition, path: stateURL)
        records = RecordStore(database: database)
        grants = Grants(database: database, counters: .init(tokenLifetime: tokenLifetime))
        queries = QueryEngine(database: database)
        let seeded = try database.queue.read { db in try database.isSeeded(db) }
        if seeded {
            if !csv.isEmpty {
                throw OrgSimulatorError.state(
                    "\(stateURL?.path ?? "the state") already holds a seeded org; CSV files load only into a new state. Move the state file aside, or start without --csv")
            }
            return
        }
        let seeder = Seeder(database: database, records: records)
        do {
            try database.queue.write { db in try seeder.seed(db, csv: csv) }
        } catch let error as SalesforceError {
            throw OrgSimulatorError.fixture("seeding the org failed: \(error.errorCode): \(error.message)")
        }
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await database.queue.write(body)
    }

    // MARK: Helpers

    /// 15- and 18-character forms name the same record.
    static func key(_ id: String) -> String { SalesforceID.key(id) }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func randomToken(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
