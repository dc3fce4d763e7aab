import Crypto
import Foundation
import GRDB

/// Where an org's state is kept.
package enum StateLocation: Sendable {
    /// In memory, for the life of the process (the default).
    case memory
    /// A SQLite file (`--state FILE`), one sf-simulator at a time.
    case file(URL)
    /// Another backend, made by the caller: PostgreSQL (`--state postgres://…`, module OrgSimulatorPostgres),
    /// shared by any number of sf-simulators.
    case store(any SQLStore)
}

/// The org's state, split by concept over one SQL database: records (`RecordStore`), OAuth grants
/// and tokens (`Grants`), query cursors (`QueryEngine`). Seeded from the org definition (and CSV files)
/// the first time a state is opened: inside one write transaction, so that of several instances starting on
/// one database, one seeds and the others find it seeded.
final class OrgState: Sendable {
    let database: OrgDatabase
    let records: RecordStore
    let grants: Grants
    let queries: QueryEngine
    var definition: OrgDefinition { database.definition }

    convenience init(definition: OrgDefinition, stateURL: URL?, tokenLifetime: TimeInterval, csv: [CSVSource] = []) throws {
        try self.init(definition: definition, location: stateURL.map { .file($0) } ?? .memory, tokenLifetime: tokenLifetime, csv: csv)
    }

    /// - Parameter recordLockTimeout: for SQLite; another backend was made with its own.
    init(definition: OrgDefinition, location: StateLocation, tokenLifetime: TimeInterval, csv: [CSVSource] = [], recordLockTimeout: TimeInterval = 10) throws {
        let store: any SQLStore
        // An org seeded from files another org of this process (or, for a test's PostgreSQL database, of the server)
        // was seeded from starts as a copy of that seeding (the same records: seeding is a function of the definition
        // and the CSV files). Key: the files read, what the definition says now (a loaded definition changed in code is
        // another org), and the CSV files.
        // Computed only where a copy can be made (a state file or a store someone gave reads and hashes nothing more).
        let inputs = Self.seedInputs(csv)
        let seedingKey = { () -> String? in
            guard let source = definition.source, SeededOrgs.enabled else { return nil }
            let digest = SHA256.hash(data: source).map { String(format: "%02x", $0) }.joined()
            return [digest, DefinitionFingerprint(definition).text, inputs].joined(separator: "\n")
        }
        // What keeps this org's seeding for the next, when it was seeded rather than copied.
        var keep: (() throws -> Void)?
        switch location {
        case .memory:
            let memory = try SQLiteStore(path: nil, recordLockTimeout: recordLockTimeout)
            store = memory
            if let seedingKey = seedingKey() {
                do {
                    if try !SeededOrgs.shared.copy(seedingKey, into: memory.queue) {
                        keep = { try SeededOrgs.shared.keep(seedingKey, from: memory.queue) }
                    }
                } catch {
                    throw OrgSimulatorError.state(
                        "copying the seeded org this process keeps in memory failed (\(error)); set APPGROUPSIM_ORG_SEEDING=each to seed every in-memory org anew")
                }
            }
        case .file(let url): store = try SQLiteStore(path: url, recordLockTimeout: recordLockTimeout)
        case .store(let given):
            store = given
            if let copies = given as? any SeedingCopies, copies.copiesSeedings, let seedingKey = seedingKey() {
                let digest = Self.hash(seedingKey)
                do {
                    if try !copies.startAsCopy(of: digest) { keep = { try copies.keepSeeding(as: digest) } }
                } catch {
                    throw OrgSimulatorError.state(
                        "starting \(given.location) as a copy of a kept seeding failed (\(error)); set APPGROUPSIM_ORG_SEEDING=each to seed every test database anew")
                }
            }
        }
        database = try OrgDatabase(definition: definition, store: store)
        records = RecordStore(database: database)
        grants = Grants(database: database, counters: .init(tokenLifetime: tokenLifetime))
        queries = QueryEngine(database: database)
        let seeder = Seeder(database: database, records: records)
        let database = database
        var seededHere = false
        do {
            try store.setUp { db in
                if try database.isSeeded(db) {
                    // Another instance (or an earlier run) seeded it. The same CSV files are no change; others
                    // would be a different org.
                    if !csv.isEmpty, try database.meta(db, "seedInputs") != inputs {
                        throw OrgSimulatorError.state(
                            "\(store.location) already holds a seeded org; CSV files load only into a new state. Move the state file aside, or start without --csv")
                    }
                    return
                }
                try seeder.seed(db, csv: csv)
                try database.setMeta(db, "seedInputs", inputs)
                seededHere = true
            }
        } catch let error as SalesforceError {
            throw OrgSimulatorError.fixture("seeding the org failed: \(error.errorCode): \(error.message)")
        } catch let error as SQLStoreError {
            throw OrgSimulatorError.state("\(store.location) cannot be seeded: \(error.reason)")
        }
        // A copy that cannot be kept costs the next org of this definition a seeding of its own, nothing else.
        if seededHere { try? keep?() }
    }

    /// What the CSV files of a seeding were: each `[ORG:]OBJECT` and the SHA-256 of its file.
    static func seedInputs(_ csv: [CSVSource]) -> String {
        csv.map { source in
            // A file that cannot be read is named by the seeder, which reads it next.
            guard let data = FileManager.default.contents(atPath: source.path) else { return "\(source.object)=unreadable" }
            return "\(source.org.map { $0 + ":" } ?? "")\(source.object)=\(hash(String(decoding: data, as: UTF8.self)))"
        }.joined(separator: "\n")
    }

    func write<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T {
        do {
            return try await database.store.write(body)
        } catch let error as SalesforceError where error.heldValue != nil {
            throw await namingHeldRecord(error)
        }
    }

    /// `UNABLE_TO_LOCK_ROW` for an upsert by external id names the record that holds the value, read after the
    /// write was rolled back (a look-up without a lock); by the value when no live record has it any more.
    private func namingHeldRecord(_ error: SalesforceError) async -> SalesforceError {
        guard let held = error.heldValue, let object = database.definition.object(held.object), let field = object.field(held.field) else { return error }
        let records = self.records
        let ids = (try? await database.store.read { db in try records.ids(db, orgId: held.orgId, object: object, field: field, value: held.value) }) ?? []
        return ids.isEmpty ? error : SalesforceError.unableToLockRow(ids)
    }

    // MARK: Helpers

    /// 15- and 18-character forms name the same record.
    static func key(_ id: String) -> String { SalesforceID.key(id) }

    static func hash(_ token: String) -> String {
        // Lower-case hex, byte by byte (every API request hashes its token; `String(format:)` a byte was slow).
        let hex = Array("0123456789abcdef".utf8)
        var out = [UInt8]()
        out.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(token.utf8)) {
            out.append(hex[Int(byte >> 4)])
            out.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func randomToken(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}

/// A store that can start as a copy of a seeding kept under a key, and keep its own seeding for later stores: the new
/// PostgreSQL database a test makes (`PostgresSupport.testStore`), copied with `CREATE DATABASE … TEMPLATE`, as an
/// in-memory org is copied from `SeededOrgs`. `APPGROUPSIM_ORG_SEEDING=each` turns both off.
package protocol SeedingCopies: SQLStore {
    /// Whether this store copies and keeps seedings at all (a test's new database does; a store on a URL someone gave
    /// does not, and its org then computes no seeding key).
    var copiesSeedings: Bool { get }
    /// Makes this new, unused store's database a copy of the seeding kept under `digest` (the SHA-256 of the
    /// seeding's key, in lower-case hex); false when none is kept (then the org seeds it, and `keepSeeding` is asked
    /// next).
    func startAsCopy(of digest: String) throws -> Bool
    /// Keeps this store's database, just seeded, under `digest` for later stores.
    func keepSeeding(as digest: String) throws
}

/// The seeded databases of the in-memory orgs this process started, one per definition (and CSV files), that the next
/// in-memory org of the same definition copies instead of seeding again. Seeding is most of an org's start (a thousand
/// generated contacts, their dates formatted one by one): an exploration starts an in-process org a run
/// (`DeviceExploration`), and a test suite one a test. A copy is SQLite's online backup, page by page.
final class SeededOrgs: @unchecked Sendable {
    static let shared = SeededOrgs()
    /// The definitions kept at once (a test suite makes many variants; each copy is a few megabytes at most).
    static let limit = 8
    /// `APPGROUPSIM_ORG_SEEDING=each` seeds every in-memory org anew: to compare the two (SeededOrgsTests checks that a
    /// copy is what seeding makes; the processor time it saves was measured on Examples/WidgetSnapshot's tests).
    static var enabled: Bool { ProcessInfo.processInfo.environment["APPGROUPSIM_ORG_SEEDING"] != "each" }

    private let lock = NSLock()
    private var seeded: [(key: String, database: DatabaseQueue)] = []

    /// Copies the seeding kept for `key` into the empty `database`; false when none is kept.
    func copy(_ key: String, into database: DatabaseQueue) throws -> Bool {
        lock.lock()
        let kept = seeded.first { $0.key == key }?.database
        lock.unlock()
        guard let kept else { return false }
        try kept.backup(to: database)
        return true
    }

    /// Keeps a copy of `database`, just seeded for `key` (the oldest kept goes past `limit`).
    func keep(_ key: String, from database: DatabaseQueue) throws {
        let copy = try DatabaseQueue()
        try database.backup(to: copy)
        lock.lock()
        defer { lock.unlock() }
        guard !seeded.contains(where: { $0.key == key }) else { return }
        seeded.append((key, copy))
        if seeded.count > Self.limit { seeded.removeFirst() }
    }
}
