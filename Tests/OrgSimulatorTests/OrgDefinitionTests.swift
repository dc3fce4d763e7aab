import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import OrgSimulator

/// The org definition and CSV loading: good files give the org they describe, bad ones are refused at
/// start with the file, line and column.
final class OrgDefinitionTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("orgdef-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: TestSupport.packageRoot.appendingPathComponent("Fixtures/org/orgs.json"), to: dir.appendingPathComponent("orgs.json"))
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: dir) }

    func write(_ name: String, _ text: String) throws -> String {
        let url = dir.appendingPathComponent(name)
        try text.write(to: url, atomically: true, encoding: .utf8)
        return url.path
    }

    func refusal(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    static let objects = """
        {"objects": [
          {"name": "User", "keyPrefix": "005", "compoundName": ["FirstName", "LastName"], "createable": false, "fields": [
            {"name": "Username", "type": "string"}, {"name": "FirstName", "type": "string"}, {"name": "LastName", "type": "string"},
            {"name": "Email", "type": "email"}]},
          {"name": "Contact", "keyPrefix": "003", "compoundName": ["FirstName", "LastName"], "fields": [
            {"name": "FirstName", "type": "string", "length": 40}, {"name": "LastName", "type": "string", "length": 80, "required": true},
            {"name": "Title", "type": "string"}, {"name": "Email", "type": "email"}, {"name": "MobilePhone", "type": "phone"},
            {"name": "HomePhone", "type": "phone"}, {"name": "Department", "type": "string"},
            {"name": "Site__c", "type": "reference", "referenceTo": "Site__c", "relationshipName": "Site__r", "childRelationshipName": "Contacts__r"}]},
          {"name": "Site__c", "keyPrefix": "a05", "fields": [
            {"name": "Name", "type": "string", "required": true}, {"name": "Capacity__c", "type": "int"},
            {"name": "Open__c", "type": "boolean"}, {"name": "Opened__c", "type": "date"}]}
        ]}
        """

    func testACustomObjectDefinitionGivesThatOrg() throws {
        _ = try write("objects.json", Self.objects)
        let definition = try OrgDefinition.load(directory: dir)
        XCTAssertEqual(definition.objects.map(\.name), ["User", "Contact", "Site__c"])
        let site = try XCTUnwrap(definition.object("site__c"))
        XCTAssertEqual(site.fields.map(\.name).prefix(2), ["Id", "Name"])
        XCTAssertNotNil(site.field("OwnerId"))
        XCTAssertEqual(definition.childRelationships(of: "Site__c").map { $0.field.childRelationshipName }, ["Contacts__r"])
        // The fixture's contacts are still generated, identically.
        let state = try TestStates.make(definition: definition, tokenLifetime: 60)
        let count = try state.database.store.read { try $0.value(as: Int.self, "SELECT COUNT(*) FROM \"obj_Contact\"") }
        XCTAssertEqual(count, 1050)
    }

    func testMistakesInObjectsJsonNameTheFileLineAndColumn() throws {
        let cases: [(String, String, String)] = [
            // (broken text, expected position, words of the message)
            (Self.objects.replacingOccurrences(of: "\"type\": \"int\"", with: "\"type\": \"integer\""), "objects.json:11:", "integer"),
            (Self.objects.replacingOccurrences(of: "\"referenceTo\": \"Site__c\"", with: "\"referenceTo\": \"Nowhere__c\""), "objects.json", "Nowhere__c"),
            (Self.objects.replacingOccurrences(of: "\"Site__r\"", with: "\"Site\""), "objects.json:9:", "__r"),
            (Self.objects.replacingOccurrences(of: "\"keyPrefix\": \"a05\"", with: "\"keyPrefix\": \"003\""), "objects.json:10:", "003"),
            (Self.objects.replacingOccurrences(of: "{\"name\": \"Title\", \"type\": \"string\"}", with: "{\"name\": \"Title\"}"), "objects.json:7:", "type"),
            (Self.objects.replacingOccurrences(of: "{\"name\": \"Capacity__c\"", with: "{\"name\": \"CreatedDate\""), "objects.json:11:", "system field"),
            (String(Self.objects.dropLast(3)), "objects.json", "not valid JSON"),
        ]
        for (text, position, words) in cases {
            _ = try write("objects.json", text)
            let message = refusal { _ = try OrgDefinition.load(directory: dir) }
            XCTAssertTrue(message.contains(position), "\(position) not in: \(message)")
            XCTAssertTrue(message.contains(words), "\(words) not in: \(message)")
        }
    }

    func testACSVExportLoadsWithItsIdsAndReferences() throws {
        _ = try write("objects.json", Self.objects)
        let sites = try write("sites.csv", "Id,Name,Capacity__c,Open__c,Opened__c,CreatedDate\r\n\(SalesforceID.make(prefix: "a05", number: 7)),\"Dock, North\",120,true,2024-03-01,2024-03-01T08:00:00.000+0000\r\n")
        let contacts = try write("contacts.csv", "LastName,FirstName,Site__c,Title\nQuay,Ada,\(SalesforceID.make(prefix: "a05", number: 7)),\"Says \"\"hi\"\"\"\n")
        let definition = try OrgDefinition.load(directory: dir)
        let state = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [
            CSVSource(argument: "Contact=\(contacts)")!, CSVSource(argument: "Acme:Site__c=\(sites)")!,
        ])
        let session = Session(orgId: definition.orgs[0].id, userId: definition.orgs[0].users[0].id, clientId: "t")
        let data = try state.database.store.write { db in
            try state.queries.run(db, soql: "SELECT LastName, Title, Site__r.Name, Site__r.Capacity__c, Site__r.Open__c FROM Contact", session: session,
                                  version: "v66.0", includeDeleted: false, batchSize: 2000)
        }
        let rows = try XCTUnwrap((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["records"] as? [[String: Any]])
        // A CSV for Contact replaces the generated contacts of that org.
        XCTAssertEqual(rows.count, 1)
        XCTAssertEqual(rows[0]["Title"] as? String, "Says \"hi\"")
        let site = try XCTUnwrap(rows[0]["Site__r"] as? [String: Any])
        XCTAssertEqual(site["Name"] as? String, "Dock, North")
        XCTAssertEqual(site["Capacity__c"] as? Int, 120)
        XCTAssertEqual(site["Open__c"] as? Bool, true)
    }

    /// The most recent records (`ORDER BY LastModifiedDate DESC LIMIT 3`, the widget's query) walk an index in
    /// SOQL's orders instead of sorting the org: on PostgreSQL its date indexes are `DESC NULLS LAST` (a plain
    /// one is `ASC NULLS LAST`, neither of SOQL's orders), and each object table has statistics once seeded, so
    /// that the planner does not take it for empty and walk the wrong index. On SQLite the plain index serves.
    func testTheDateIndexesServeSOQLsOrdersAndASeededTableHasStatistics() throws {
        let state = try TestStates.make(definition: try OrgDefinition.load(directory: OrgHarness.fixtureDirectory), tokenLifetime: 60)
        let contact = try XCTUnwrap(state.definition.object("Contact"))
        try state.database.store.read { db in
            switch db.dialect {
            case .postgres:
                for (index, field) in [("_lmd_order", "LastModifiedDate"), ("_sms_order", "SystemModstamp")] {
                    let definition = try db.value(as: String.self, "SELECT indexdef FROM pg_indexes WHERE indexname = ?", [contact.table + index])
                    XCTAssertEqual(definition?.hasSuffix("(org_id, \"\(field)\" DESC NULLS LAST)"), true, definition ?? "no index \(contact.table + index)")
                }
                XCTAssertNil(try db.value(as: String.self, "SELECT indexname FROM pg_indexes WHERE indexname = ?", [contact.table + "_lmd"]))
                // The planner's statistics (`pg_class.reltuples`, -1 until a table is first analyzed, and `pg_statistic`)
                // are the database's own, so a test database copied from a kept seeding (`SeedingCopies`) has them too;
                // the server's record of the ANALYZE (`pg_stat_user_tables.last_analyze`) is not copied.
                for object in state.definition.objects {
                    XCTAssertEqual(try db.value(as: Int.self, "SELECT CAST(count(*) AS INTEGER) FROM pg_class WHERE relname = ? AND reltuples >= 0", [object.table]), 1, object.table)
                }
                let contactStatistics = try db.value(as: Int.self, "SELECT CAST(count(*) AS INTEGER) FROM pg_stats WHERE tablename = ?", [contact.table])
                XCTAssertGreaterThan(contactStatistics ?? 0, 0, "no column statistics for \(contact.table)")
            case .sqlite:
                let plan = try db.fetchAll(
                    "EXPLAIN QUERY PLAN SELECT \"Id\" FROM \(OrgDatabase.quote(contact.table)) WHERE org_id = ? ORDER BY \(db.dialect.order("\"LastModifiedDate\"", ascending: false)) LIMIT 3",
                    ["00D5g00000AcmeeEAA"]
                ).map { $0["detail"] as String? ?? "" }
                XCTAssertTrue(plan.contains { $0.contains("INDEX \(contact.table)_lmd") }, "\(plan)")
                XCTAssertFalse(plan.contains { $0.contains("TEMP B-TREE") }, "sorts: \(plan)")
            }
        }
    }

    /// Seeding inserts an object's rows many to a statement (a round trip each on PostgreSQL). The org is the
    /// one that inserting them one at a time made: every row of every table the same, in the same order,
    /// whatever the batches' size, including batches cut in the middle of an object.
    func testSeedingManyRowsAStatementMakesTheOrgOneRowAStatementMade() throws {
        let definition = try OrgDefinition.load(directory: OrgHarness.fixtureDirectory)
        func seeded(argumentsPerInsert: Int) throws -> [String: [String]] {
            let store = try SQLiteStore(path: nil)
            let database = try OrgDatabase(definition: definition, store: store)
            let seeder = Seeder(database: database, records: RecordStore(database: database), argumentsPerInsert: argumentsPerInsert)
            try store.setUp { db in try seeder.seed(db, csv: []) }
            return try store.read { db in
                var tables: [String: [String]] = [:]
                for object in definition.objects {
                    tables[object.table] = try db.fetchAll("SELECT * FROM \(OrgDatabase.quote(object.table)) ORDER BY rowid").map { "\($0.values)" }
                    // A row without a field gets NULL in a batch: the same row only while no column has a default.
                    let defaults = try db.fetchAll("SELECT name FROM pragma_table_info('\(object.table)') WHERE dflt_value IS NOT NULL")
                    XCTAssertTrue(defaults.isEmpty, "\(object.table) has column defaults: \(defaults.map { "\($0.values)" })")
                }
                return tables
            }
        }
        let oneAtATime = try seeded(argumentsPerInsert: 1)
        XCTAssertEqual(oneAtATime["obj_Contact"]?.count, 1050)
        XCTAssertGreaterThan(oneAtATime.values.map(\.count).reduce(0, +), 2000)
        for size in [RecordStore.argumentsPerInsert, 77] {
            let batched = try seeded(argumentsPerInsert: size)
            XCTAssertEqual(batched.keys.sorted(), oneAtATime.keys.sorted())
            for (table, rows) in oneAtATime { XCTAssertEqual(batched[table], rows, "\(table) with \(size) arguments an INSERT") }
        }
    }

    func testBadCSVFilesAreRefusedWithLineAndColumn() throws {
        _ = try write("objects.json", Self.objects)
        let definition = try OrgDefinition.load(directory: dir)
        let cases: [(String, String, String)] = [
            ("Name,Nope__c\nA,1\n", ":1:2:", "Nope__c"),
            ("Name,Capacity__c\nA,1\nB,lots\n", ":3:2:", "int"),
            ("Name,Opened__c\nA,someday\n", ":2:2:", "date"),
            ("Name,Owner.Name\nA,x\n", ":1:2:", "relationship column"),
            ("Name,Capacity__c\nA\n", ":2:", "cells"),
            ("Capacity__c\n3\n", ":2:", "Name"),
            ("Name,Open__c\n\"A,1\n", ":2:", "not closed"),
        ]
        for (text, position, words) in cases {
            let path = try write("bad.csv", text)
            let message = refusal { _ = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [CSVSource(object: "Site__c", path: path)]) }
            XCTAssertTrue(message.contains("bad.csv\(position)"), "\(position) not in: \(message)")
            XCTAssertTrue(message.contains(words), "\(words) not in: \(message)")
        }
        let dangling = try write("contacts.csv", "LastName,Site__c\nLost,\(SalesforceID.make(prefix: "a05", number: 99))\n")
        let message = refusal { _ = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [CSVSource(object: "Contact", path: dangling)]) }
        XCTAssertTrue(message.contains("contacts.csv:2:2:") && message.contains("refers to no Site__c"), message)
        XCTAssertTrue(refusal { _ = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [CSVSource(object: "Lead", path: dangling)]) }
            .contains("'Lead' is not an object"))
    }

    /// A CSV error quotes at most 200 characters of a cell, and says how long it really is.
    func testACSVErrorQuotesAtMost200CharactersOfACell() throws {
        _ = try write("objects.json", Self.objects)
        let definition = try OrgDefinition.load(directory: dir)
        let long = String(repeating: "9", count: 5_000) + "x"
        for (text, at) in [("Name,Capacity__c\nA,\(long)\n", ":2:2:"), ("Name,\(long)\nA,1\n", ":1:2:")] {
            let path = try write("bad.csv", text)
            let message = refusal { _ = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [CSVSource(object: "Site__c", path: path)]) }
            XCTAssertTrue(message.contains("bad.csv\(at)"), message)
            XCTAssertTrue(message.contains(String(repeating: "9", count: 200) + "… (5001 characters)"), message)
            XCTAssertFalse(message.contains(String(repeating: "9", count: 201)), "more than 200 characters of the cell")
            XCTAssertLessThan(message.count, 1_000)
        }
        let exactly = String(repeating: "8", count: 200)
        let path = try write("bad.csv", "Name,\(exactly)\nA,1\n")
        XCTAssertTrue(refusal { _ = try TestStates.make(definition: definition, tokenLifetime: 60, csv: [CSVSource(object: "Site__c", path: path)]) }
            .contains("'\(exactly)' is not a field"), "a cell of 200 characters is quoted whole")
    }

    /// The state file's kind is told from its first 16 bytes. It was read whole at each start: a state of 300 MB
    /// raised sf-simulator's peak memory by 279 MB. Here a sparse file of 512 MB that is not SQLite is refused, and
    /// the refusal reads no more than its head (seen failing when the file was read whole: +525,064 KB).
    func testAStateFileIsToldByItsHeadNotReadWhole() throws {
        let definition = try OrgDefinition.load(directory: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        let big = dir.appendingPathComponent("big-state.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: big.path, contents: Data("not SQLite at all".utf8)))
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 512 << 20)
        try handle.close()
        // The peak since now (writing 5 to clear_refs resets VmHWM): a whole read is freed again at once.
        try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
        let before = try Self.kilobytes("VmRSS")
        let message = refusal { _ = try OrgState(definition: definition, stateURL: big, tokenLifetime: 60) }
        let grown = try Self.kilobytes("VmHWM") - before
        XCTAssertTrue(message.contains("is not an sf-simulator state file (not SQLite)"), message)
        XCTAssertLessThan(grown, 100_000, "refusing a 512 MB state file raised the process's peak by \(grown) KB")
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: big.path)[.size] as? Int, 512 << 20, "the file is left as it was")
    }

    /// A FIFO given as --state blocked sf-simulator for ever in open(2), waiting for a writer. Here the test holds the
    /// FIFO open itself with 16 zero bytes in it, so that a store which reads it anyway does not hang but says "not
    /// SQLite": the refusal must name what the path is, before anything opens it.
    func testAStateThatIsNotARegularFileIsRefusedByItsKind() throws {
        let definition = try OrgDefinition.load(directory: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        let fifo = dir.appendingPathComponent("state.fifo")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let writer = open(fifo.path, O_RDWR | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(writer, 0)
        defer { close(writer) }
        XCTAssertEqual(Glibc.write(writer, [UInt8](repeating: 0, count: 16), 16), 16)
        let message = refusal { _ = try OrgState(definition: definition, stateURL: fifo, tokenLifetime: 60) }
        XCTAssertTrue(message.contains("\(fifo.path) is a FIFO, not a file"), message)
        XCTAssertTrue(message.contains("give --state a file"), message)
        let directory = dir.appendingPathComponent("state-dir")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        let dirMessage = refusal { _ = try OrgState(definition: definition, stateURL: directory, tokenLifetime: 60) }
        XCTAssertTrue(dirMessage.contains("\(directory.path) is a directory, not a file"), dirMessage)
        var info = stat()
        XCTAssertEqual(lstat(fifo.path, &info), 0, "the FIFO is left where it was")
        XCTAssertEqual(info.st_mode & S_IFMT, S_IFIFO)
    }

    /// A memory figure of this process (`VmRSS`, `VmHWM`), in KB.
    static func kilobytes(_ name: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix(name + ":") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }

    func testStateSurvivesAndAnOlderJSONStateIsRefusedNotOverwritten() throws {
        let definition = try OrgDefinition.load(directory: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        let stateURL = dir.appendingPathComponent("state.sqlite")
        let session = Session(orgId: definition.orgs[0].id, userId: definition.orgs[0].users[0].id, clientId: "t")
        do {
            let state = try OrgState(definition: definition, stateURL: stateURL, tokenLifetime: 60)
            _ = try state.database.store.write { db in
                try state.records.create(db, session: session, object: definition.object("Account")!, body: ["Name": "Persisted"])
            }
        }
        let again = try OrgState(definition: definition, stateURL: stateURL, tokenLifetime: 60)
        let names = try again.database.store.read { try $0.values(as: String.self, "SELECT \"Name\" FROM \"obj_Account\" WHERE \"Name\" = 'Persisted'") }
        XCTAssertEqual(names, ["Persisted"])
        XCTAssertTrue(refusal { _ = try OrgState(definition: definition, stateURL: stateURL, tokenLifetime: 60, csv: [CSVSource(object: "Account", path: "/x.csv")]) }
            .contains("already holds a seeded org"))
        let old = dir.appendingPathComponent("old-state.json")
        try Data("{\"contacts\": {}}".utf8).write(to: old)
        XCTAssertTrue(refusal { _ = try OrgState(definition: definition, stateURL: old, tokenLifetime: 60) }.contains("older sf-simulator (JSON)"))
        XCTAssertEqual(try String(contentsOf: old, encoding: .utf8), "{\"contacts\": {}}")
        // Secrets are kept by hash only.
        let token = try again.grants.issueRefreshToken(.init(orgId: session.orgId, userId: session.userId, clientId: "t", scopes: ["api"]))
        let file = try Data(contentsOf: stateURL) + ((try? Data(contentsOf: URL(fileURLWithPath: stateURL.path + "-wal"))) ?? Data())
        XCTAssertNil(file.range(of: Data(token.utf8)))
    }
}
