import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import SmartStoreEngine

final class EntryTests: XCTestCase {
    func testUpsertAddsEntryIdAndLastModifiedAndKeepsTheRest() throws {
        let store = try Fixture.store(self, filled: false)
        let saved = try store.upsert([Fixture.entry(0), Fixture.entry(1)], into: Fixture.soup)
        XCTAssertEqual(saved.map { $0[SoupField.entryId] }, [.int(1), .int(2)])
        XCTAssertNotNil(saved[0][SoupField.lastModifiedDate]?.intValue)
        var expected = Fixture.entry(0)
        expected[SoupField.entryId] = saved[0][SoupField.entryId]
        expected[SoupField.lastModifiedDate] = saved[0][SoupField.lastModifiedDate]
        XCTAssertEqual(try store.retrieve(ids: [1], from: Fixture.soup), [expected], "stored whole")
    }

    func testAnUpdateRewritesLastModifiedAndKeepsTheCreatedTime() throws {
        let store = try Fixture.store(self, filled: false)
        let first = try store.upsert([Fixture.entry(0)], into: Fixture.soup)[0]
        usleep(5_000)
        var changed = first
        changed["age"] = 46
        let second = try store.upsert([changed], into: Fixture.soup)[0]
        XCTAssertEqual(second[SoupField.entryId], first[SoupField.entryId])
        let t1 = try XCTUnwrap(first[SoupField.lastModifiedDate]?.intValue)
        let t2 = try XCTUnwrap(second[SoupField.lastModifiedDate]?.intValue)
        XCTAssertGreaterThan(t2, t1)
        let row = try store.query(.smart(
            "SELECT {employees:_soupCreatedDate}, {employees:_soupLastModifiedDate}, {employees:age} FROM {employees}"))
        XCTAssertEqual(row, [.array([.int(t1), .int(t2), .int(46)])])
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 1)
    }

    func testUpsertingAnIdThatDoesNotExistIsAnErrorAndWritesNothing() throws {
        let store = try Fixture.store(self, filled: false)
        var ghost = Fixture.entry(0)
        ghost[SoupField.entryId] = 99
        XCTAssertThrowsError(try store.upsert([Fixture.entry(1), ghost], into: Fixture.soup)) {
            XCTAssertEqual($0 as? SmartStoreError, .entryNotFound(soup: Fixture.soup, id: 99))
        }
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 0, "the batch is one transaction")
    }

    func testIndexValuesAreProjectedFromDottedPathsThroughArrays() throws {
        let store = try Fixture.store(self)
        XCTAssertEqual(try store.count(.exact(soup: Fixture.soup, path: "address.city", value: "Paris")), 5)
        // phones.type goes through an array: the column holds the JSON text of the values.
        let types = try store.query(.smart("SELECT {employees:phones.type} FROM {employees} WHERE {employees:employeeId} = '00001'"))
        XCTAssertEqual(types, [.array([.string(#"["work","mobile"]"#)])])
        try store.upsert([["employeeId": "x"]], into: Fixture.soup)
        let missing = try store.query(.smart("SELECT count(*) FROM {employees} WHERE {employees:lastName} IS NULL"))
        XCTAssertEqual(missing, [.array([.int(1)])], "a missing value is NULL")
    }

    func testUpsertByExternalIdUpdatesTheMatchingEntryOrInserts() throws {
        let store = try Fixture.store(self)
        var kwan = Fixture.entry(2)
        kwan["age"] = 42
        let updated = try store.upsert([kwan], into: Fixture.soup, externalIdPath: "employeeId")
        XCTAssertEqual(updated[0][SoupField.entryId], .int(3))
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 10)
        XCTAssertEqual(try store.retrieve(ids: [3], from: Fixture.soup).first?["age"], .int(42))
        let inserted = try store.upsert([["employeeId": "00099", "lastName": "New"]], into: Fixture.soup, externalIdPath: "employeeId")
        XCTAssertEqual(inserted[0][SoupField.entryId], .int(11))
    }

    func testUpsertByExternalIdErrorsHaveTheSDKsCodesAndLeaveTheSoupUnchanged() throws {
        let store = try Fixture.store(self)
        let before = try store.query(.all(soup: Fixture.soup, pageSize: 100))
        var newcomer = Fixture.entry(0)
        newcomer["employeeId"] = "00100"

        XCTAssertThrowsError(try store.upsert([newcomer, Fixture.entry(0)], into: Fixture.soup, externalIdPath: "deptCode")) {
            XCTAssertEqual(($0 as? SmartStoreError)?.code, 1, "\($0)")
        }
        XCTAssertThrowsError(try store.upsert([newcomer], into: Fixture.soup, externalIdPath: "notIndexed")) {
            XCTAssertEqual(($0 as? SmartStoreError)?.code, 2, "\($0)")
        }
        var noValue = newcomer
        noValue["employeeId"] = nil
        XCTAssertThrowsError(try store.upsert([newcomer, noValue], into: Fixture.soup, externalIdPath: "employeeId")) {
            XCTAssertEqual(($0 as? SmartStoreError)?.code, 3, "\($0)")
        }
        XCTAssertEqual(try store.query(.all(soup: Fixture.soup, pageSize: 100)), before, "nothing written on error")
    }

    func testRemoveByIdsAndByQueryHonouringPageSize() throws {
        let store = try Fixture.store(self)
        try store.remove(ids: [1, 2], from: Fixture.soup)
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 8)
        XCTAssertEqual(try store.query(.match(soup: Fixture.soup, path: nil, matchKey: "Haas")).count, 1, "full text follows")
        try store.remove(matching: .range(soup: Fixture.soup, path: "age", begin: nil, end: nil, pageSize: 3))
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 5, "only one page of three removed")
        XCTAssertEqual(try store.count(.range(soup: Fixture.soup, path: "age", begin: nil, end: 33)), 0, "the youngest three went first")
    }

    func testAnotherProcessReadingTheMRUQuerySeesOnlyWholeBatchesAndNoErrors() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let url = dir.appendingPathComponent("store.sqlite")
        let store = try SmartStore(url: url, name: "shared")
        try store.registerSoup("contacts", indexSpecs: [IndexSpec(path: "Id", type: .string), IndexSpec(path: "LastName", type: .string)])
        let batch = 500
        let reader = Process()
        reader.executableURL = try TestSupport.executable("appgroupsim-probe")
        reader.arguments = ["store-read-mru", "--db", url.path, "--times", "1000", "--batch", "\(batch)"]
        let out = Pipe()
        reader.standardOutput = out
        reader.standardError = FileHandle.standardError
        try reader.run()
        _ = out.fileHandleForReading.availableData  // "ready": the reader has opened the store
        var written = 0
        while written < 10_000 {
            let entries: [SoupEntry] = (written..<written + batch).map {
                ["Id": .string(String(format: "003%015d", $0)), "LastName": .string("Name\($0)")]
            }
            try store.upsert(entries, into: "contacts")
            written += batch
            // Spread the batches out so the reader's 1,000 reads overlap them.
            usleep(20_000)
        }
        let report = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        reader.waitUntilExit()
        XCTAssertEqual(reader.terminationStatus, 0, report)
        let fields = Dictionary(uniqueKeysWithValues: report.split(separator: "\n").last!.split(separator: " ").compactMap { pair -> (String, Int)? in
            let kv = pair.split(separator: "=")
            return kv.count == 2 ? (String(kv[0]), Int(kv[1]) ?? -1) : nil
        })
        XCTAssertEqual(fields["reads"], 1000, report)
        XCTAssertEqual(fields["errors"], 0, report)
        XCTAssertEqual(fields["partial"], 0, "a reader saw a batch half written: \(report)")
        XCTAssertGreaterThanOrEqual(fields["distinctCounts"] ?? 0, 3, "the reader did not overlap the writer, so it proved nothing: \(report)")
        XCTAssertEqual(try store.count(.all(soup: "contacts")), 10_000)
    }
}
