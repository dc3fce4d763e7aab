import AppGroupSimTestSupport
import Foundation
import OrgSimulatorPostgres
import XCTest

@testable import OrgSimulator

/// A state shared by several instances (issue 34, item 5) holds one org: an instance started with another
/// definition is refused, names what differs (never a value), and changes nothing. A state of one instance
/// follows its definition (a field added becomes a column).
final class SharedStateTests: XCTestCase {
    /// SQLite standing in for a shared backend: the rule depends only on `isShared`, which PostgreSQL sets
    /// (org-postgres.sh checks it there with two real instances).
    final class Shared: SQLStore, @unchecked Sendable {
        let inner: SQLiteStore
        let shared: Bool
        init(shared: Bool) throws {
            inner = try SQLiteStore(path: nil)
            self.shared = shared
        }
        var dialect: SQLDialect { inner.dialect }
        var location: String { "the test database" }
        var isShared: Bool { shared }
        func write<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try inner.write(body) }
        func read<T>(_ body: (SQLTransaction) throws -> T) throws -> T { try inner.read(body) }
        func write<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T { try await inner.write(body) }
        func read<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T { try await inner.read(body) }
        func update<T: Sendable>(_ body: @escaping @Sendable (SQLTransaction) throws -> T) async throws -> T { try await inner.update(body) }
        var recordLockTimeout: TimeInterval { inner.recordLockTimeout }
        func holdRecordLock(table: String, id: String, seconds: TimeInterval) async throws {
            try await inner.holdRecordLock(table: table, id: id, seconds: seconds)
        }
    }

    func definition(extraUser: Bool = false, extraField: Bool = false, password: String = "p") throws -> OrgDefinition {
        var d = try SOQLTests.definition()
        d.orgs[0].users[0].password = password
        if extraUser {
            d.orgs[0].users.append(OrgFixture.User(id: "0055g00000MalloAAA", username: "mallory@test.test", password: "m", displayName: "Mallory", email: "m@test.test"))
        }
        if extraField {
            var json = try JSONSerialization.jsonObject(with: Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Fixtures/org/objects.json"))) as! [String: Any]
            var list = json["objects"] as! [[String: Any]]
            let i = list.firstIndex { $0["name"] as? String == "Contact" }!
            var fields = list[i]["fields"] as! [[String: Any]]
            fields.append(["name": "Nickname__c", "type": "string", "length": 40])
            list[i]["fields"] = fields
            json["objects"] = list
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("objects-\(UUID().uuidString).json")
            try JSONSerialization.data(withJSONObject: json).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            d = OrgDefinition(seed: d.seed, referenceDate: d.referenceDate, orgs: d.orgs, connectedApps: d.connectedApps, objects: try ObjectsFile.load(file))
        }
        return d
    }

    func columns(_ store: Shared) throws -> [String] {
        try store.read { db in try db.columnNames(ofTable: "obj_Contact") }
    }

    func testASharedStateRefusesAnotherDefinitionNamingTheDifferenceAndChangesNothing() throws {
        let store = try Shared(shared: true)
        _ = try OrgState(definition: try definition(), location: .store(store), tokenLifetime: 3600)
        let before = try columns(store)
        XCTAssertNoThrow(try OrgState(definition: try definition(), location: .store(store), tokenLifetime: 3600), "the same definition again")
        for (other, names) in [
            (try definition(extraUser: true), "only this one has user 00D5g00000TestoEAA 0055g00000MalloAAA (mallory@test.test)"),
            (try definition(extraField: true), "object Contact differ"),
            (try definition(password: "changed"), "user 00D5g00000TestoEAA 0055g00000TesttAAA (t@test.test) differ"),
        ] {
            XCTAssertThrowsError(try OrgState(definition: other, location: .store(store), tokenLifetime: 3600)) { error in
                guard case OrgSimulatorError.definitionDiffers(let message) = error else { return XCTFail("\(error)") }
                XCTAssertTrue(message.contains(names), message)
                XCTAssertTrue(message.contains("nothing was changed"), message)
                XCTAssertFalse(message.contains("changed\""), "never a value: \(message)")
            }
            XCTAssertEqual(try columns(store), before, "the refused instance altered the shared table")
        }
    }

    func testAStateOfOneInstanceFollowsItsDefinition() throws {
        let store = try Shared(shared: false)
        _ = try OrgState(definition: try definition(), location: .store(store), tokenLifetime: 3600)
        XCTAssertNoThrow(try OrgState(definition: try definition(extraField: true), location: .store(store), tokenLifetime: 3600))
        XCTAssertTrue(try columns(store).contains("Nickname__c"))
    }
}

/// `--state postgres://…` never carries a control character to PostgreSQL's startup packet (issue 34).
final class PostgresURLTests: XCTestCase {
    func testControlCharactersAreRefusedAndShownEscapedWithoutThePassword() {
        for bad in ["postgres://u@h:5432/org%00", "postgres://u@h:5432/org\u{0}x", "postgres://u%0A@h/org", "postgres://u:s3cret%00@h/org", "postgres://u@h/o\nrg"] {
            XCTAssertThrowsError(try PostgresURL.parse(bad, environment: [:]), bad) { error in
                let message = "\(error)"
                XCTAssertTrue(message.contains("holds a control character"), message)
                XCTAssertFalse(message.contains("s3cret"), "the password was shown: \(message)")
                XCTAssertFalse(message.unicodeScalars.contains { $0.value < 0x20 }, "shown escaped: \(message)")
                XCTAssertEqual(message.split(separator: "\n").count, 1)
            }
        }
        XCTAssertNoThrow(try PostgresURL.parse("postgres://u:p%40ss@127.0.0.1:5432/org", environment: [:]))
    }

    /// libpq's form for a Unix-domain socket: the socket's directory, percent-encoded, as the host.
    func testAPercentEncodedPathAsTheHostNamesTheSocketsDirectory() throws {
        let url = try PostgresURL.parse("postgres://u:pw@%2Fvar%2Frun%2Fpostgresql:5433/org", environment: [:])
        XCTAssertEqual(url.socketDirectory, "/var/run/postgresql")
        XCTAssertEqual(url.socketPath, "/var/run/postgresql/.s.PGSQL.5433")
        XCTAssertEqual(url.redacted, "postgres://u@%2Fvar%2Frun%2Fpostgresql:5433/org")
        XCTAssertEqual(try PostgresURL.parse(url.redacted, environment: ["PGPASSWORD": "pw"]), url)
        // The default port, and a trailing slash in the directory.
        XCTAssertEqual(try PostgresURL.parse("postgres://u@%2Ftmp%2F/org", environment: [:]).socketPath, "/tmp/.s.PGSQL.5432")
        // A host name is TCP, as before.
        let tcp = try PostgresURL.parse("postgres://u@db.example:5433/org", environment: [:])
        XCTAssertNil(tcp.socketPath)
        XCTAssertEqual(tcp.redacted, "postgres://u@db.example:5433/org")
        // sockaddr_un holds 107 bytes: a directory too long for DIR/.s.PGSQL.PORT is refused by name.
        let long = "/" + String(repeating: "d", count: 100)
        XCTAssertThrowsError(try PostgresURL.parse("postgres://u:s3cret@\(long.replacingOccurrences(of: "/", with: "%2F")):5432/org", environment: [:])) { error in
            XCTAssertTrue("\(error)".contains("too long for a Unix-domain socket"), "\(error)")
            XCTAssertFalse("\(error)".contains("s3cret"))
        }
    }
}

/// In-memory orgs of one process seeded from the same files share one seeding (`SeededOrgs`): each starts as a
/// copy of the first one's seeded database, with the same records, and is its own org after that; a definition
/// that differs, in its files or changed in code, is seeded anew.
final class SeededOrgsTests: XCTestCase {
    func contacts(_ state: OrgState) throws -> [String] {
        try state.database.store.read { db in try db.values(as: String.self, "SELECT \"Id\" || ' ' || coalesce(\"LastName\", '') || ' ' || \"LastModifiedDate\" FROM \"obj_Contact\" ORDER BY \"Id\"") }
    }

    func testAnInMemoryOrgOfTheSameDefinitionStartsAsACopyOfTheFirstSeeding() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seeded-orgs-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"), to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        let first = try OrgState(definition: try OrgDefinition.load(directory: directory), stateURL: nil, tokenLifetime: 3600)
        let firstContacts = try contacts(first)
        XCTAssertGreaterThan(firstContacts.count, 100)
        // A write in the first org after its seeding is not in the copy the second starts from.
        _ = try first.database.store.write { db in try db.execute("DELETE FROM obj_Contact", []) }
        XCTAssertEqual(try contacts(first), [])
        let second = try OrgState(definition: try OrgDefinition.load(directory: directory), stateURL: nil, tokenLifetime: 3600)
        XCTAssertEqual(try contacts(second), firstContacts, "the same records as a seeding")
        // A copy, not a seeding: the time of the seeding is the first one's.
        func seeded(_ state: OrgState) throws -> String? { try state.database.store.read { db in try state.database.meta(db, "seeded") } }
        XCTAssertEqual(try seeded(second), try seeded(first))
        usleep(5_000)
        let seededAnew = try withEnvironment("APPGROUPSIM_ORG_SEEDING", "each") {
            try OrgState(definition: try OrgDefinition.load(directory: directory), stateURL: nil, tokenLifetime: 3600)
        }
        XCTAssertEqual(try contacts(seededAnew), firstContacts, "a copy is what seeding makes")
        XCTAssertNotEqual(try seeded(seededAnew), try seeded(first), "seeded anew")
        // Changed in code: another org.
        var changed = try OrgDefinition.load(directory: directory)
        changed.orgs[0].contactCount = 7
        // (The fixture's second org keeps its contacts: the first org's 1,000 become 7.)
        let firstOrgs = try XCTUnwrap(OrgDefinition.load(directory: directory).orgs.first?.contactCount)
        XCTAssertEqual(try contacts(try OrgState(definition: changed, stateURL: nil, tokenLifetime: 3600)).count, firstContacts.count - firstOrgs + 7)
        // Changed in its file: another org.
        let orgs = directory.appendingPathComponent("orgs.json")
        var json = try JSONSerialization.jsonObject(with: Data(contentsOf: orgs)) as! [String: Any]
        var list = json["orgs"] as! [[String: Any]]
        list[0]["contactCount"] = 5
        json["orgs"] = list
        try JSONSerialization.data(withJSONObject: json).write(to: orgs)
        XCTAssertEqual(try contacts(try OrgState(definition: try OrgDefinition.load(directory: directory), stateURL: nil, tokenLifetime: 3600)).count, firstContacts.count - firstOrgs + 5)
    }

    /// The same on the tests' backend (`TestStates`): in memory as above; on PostgreSQL (org-postgres-tests.sh), a
    /// test's new database is made from the database the first one of its definition was seeded in (`SeedingCopies`).
    func testAnOrgOnTheTestsBackendStartsAsACopyOfItsDefinitionsFirstSeeding() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("seeded-orgs-\(UUID().uuidString)")
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"), to: directory)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A definition of this test alone (the same org; its file differs by a trailing space), so that the first seeds.
        let orgs = directory.appendingPathComponent("orgs.json")
        try (Data(contentsOf: orgs) + Data(" ".utf8)).write(to: orgs)
        func seeded(_ state: OrgState) throws -> String? { try state.database.store.read { db in try state.database.meta(db, "seeded") } }
        let first = try TestStates.make(definition: try OrgDefinition.load(directory: directory))
        let firstContacts = try contacts(first)
        XCTAssertGreaterThan(firstContacts.count, 100)
        _ = try first.database.store.write { db in try db.execute("DELETE FROM \"obj_Contact\"", []) }
        usleep(5_000)
        let second = try TestStates.make(definition: try OrgDefinition.load(directory: directory))
        XCTAssertEqual(try contacts(second), firstContacts, "the seeding's records, not the first org's since")
        XCTAssertEqual(try seeded(second), try seeded(first), "a copy of the first seeding")
        let seededAnew = try withEnvironment("APPGROUPSIM_ORG_SEEDING", "each") { try TestStates.make(definition: try OrgDefinition.load(directory: directory)) }
        XCTAssertEqual(try contacts(seededAnew), firstContacts, "a copy is what seeding makes")
        XCTAssertNotEqual(try seeded(seededAnew), try seeded(first), "seeded anew")
    }

    /// An org started again on a state that holds one (an instance restarted) keeps what it finds: it is never
    /// replaced by a kept seeding, on PostgreSQL (a test's database) as in a SQLite file.
    func testAnOrgStartedAgainOnItsStateKeepsWhatItFinds() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("seeded-again-\(UUID().uuidString).sqlite")
        defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: file.path + suffix) } }
        let location: StateLocation = try PostgresSupport.testStore().map { .store($0) } ?? .file(file)
        let definition = try OrgDefinition.load(directory: OrgHarness.fixtureDirectory)
        let first = try OrgState(definition: definition, location: location, tokenLifetime: 3600)
        XCTAssertGreaterThan(try contacts(first).count, 100)
        _ = try first.database.store.write { db in try db.execute("DELETE FROM \"obj_Contact\"", []) }
        let again = try OrgState(definition: definition, location: location, tokenLifetime: 3600)
        XCTAssertEqual(try contacts(again).count, 0, "the state as the first org left it (its contacts deleted)")
    }

    func withEnvironment<T>(_ name: String, _ value: String, _ body: () throws -> T) rethrows -> T {
        setenv(name, value, 1)
        defer { unsetenv(name) }
        return try body()
    }
}
