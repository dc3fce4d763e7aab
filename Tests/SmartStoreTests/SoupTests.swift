import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import SmartStoreEngine

final class SoupTests: XCTestCase {
    func testRegisteringASoupCreatesItOnceWithItsIndexes() throws {
        let store = try Fixture.store(self, filled: false)
        XCTAssertTrue(try store.soupExists(Fixture.soup))
        XCTAssertFalse(try store.soupExists("other"))
        XCTAssertEqual(try store.indices(for: Fixture.soup), Fixture.specs)
        try store.registerSoup(Fixture.soup, indexSpecs: [IndexSpec(path: "x", type: .string)])
        XCTAssertEqual(try store.indices(for: Fixture.soup), Fixture.specs, "re-registering is a no-op")
        XCTAssertEqual(try store.allSoupNames(), [Fixture.soup])
    }

    func testAnEmptyNameOrNoIndexesIsAnError() throws {
        let store = try Fixture.store(self, filled: false)
        XCTAssertThrowsError(try store.registerSoup("", indexSpecs: Fixture.specs)) {
            XCTAssertEqual($0 as? SmartStoreError, .invalidSoupName)
        }
        XCTAssertThrowsError(try store.registerSoup("s", indexSpecs: [])) {
            XCTAssertEqual($0 as? SmartStoreError, .noIndexSpecs(soup: "s"))
        }
        XCTAssertFalse(try store.soupExists("s"))
    }

    func testTheTablesFollowTheSDKsLayout() throws {
        let store = try Fixture.store(self, filled: false)
        let tables = try store.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        }
        XCTAssertTrue(tables.contains("soup_attrs"))
        XCTAssertTrue(tables.contains("soup_index_map"))
        XCTAssertTrue(tables.contains("TABLE_1"))
        XCTAssertTrue(tables.contains("TABLE_1_fts"))
        let columns = try store.pool.read { db in try db.columns(in: "TABLE_1").map(\.name) }
        XCTAssertEqual(Array(columns.prefix(4)), ["id", "soup", "created", "lastModified"])
        XCTAssertFalse(columns.contains("TABLE_1_6"), "a json1 index has no column")
    }

    func testClearSoupEmptiesItAndRemoveSoupDropsIt() throws {
        let store = try Fixture.store(self)
        try store.clearSoup(Fixture.soup)
        XCTAssertEqual(try store.count(.all(soup: Fixture.soup)), 0)
        XCTAssertEqual(try store.query(.match(soup: Fixture.soup, path: nil, matchKey: "Haas")), [])
        XCTAssertTrue(try store.soupExists(Fixture.soup))
        try store.removeSoup(Fixture.soup)
        XCTAssertFalse(try store.soupExists(Fixture.soup))
        XCTAssertThrowsError(try store.count(.all(soup: Fixture.soup))) {
            XCTAssertEqual($0 as? SmartStoreError, .soupNotFound(Fixture.soup))
        }
    }

    func testAlterSoupKeepsIdsAndDataAndReindexes() throws {
        let store = try Fixture.store(self)
        let before = try store.query(.all(soup: Fixture.soup, pageSize: 100))
        var specs = Fixture.specs
        specs.append(IndexSpec(path: "address.zip", type: .string))
        try store.alterSoup(Fixture.soup, indexSpecs: specs, reIndexData: false)
        XCTAssertEqual(try store.query(.all(soup: Fixture.soup, pageSize: 100)), before, "ids and entries unchanged")
        XCTAssertEqual(try store.count(.exact(soup: Fixture.soup, path: "address.zip", value: "75001")), 0, "not reindexed yet")
        XCTAssertEqual(try store.count(.exact(soup: Fixture.soup, path: "deptCode", value: "A00")), 3, "kept columns keep values")
        XCTAssertEqual(try store.query(.match(soup: Fixture.soup, path: nil, matchKey: "Haas")).count, 2, "full text rebuilt")
        try store.reIndexSoup(Fixture.soup, paths: ["address.zip"])
        XCTAssertEqual(try store.count(.exact(soup: Fixture.soup, path: "address.zip", value: "75001")), 10)

        try store.alterSoup(Fixture.soup, indexSpecs: [IndexSpec(path: "age", type: .string), IndexSpec(path: "lastName", type: .string)], reIndexData: true)
        XCTAssertEqual(try store.query(.all(soup: Fixture.soup, pageSize: 100)), before)
        XCTAssertEqual(try store.indices(for: Fixture.soup).map(\.path), ["age", "lastName"])
        XCTAssertEqual(Fixture.lastNames(try store.query(.exact(soup: Fixture.soup, path: "lastName", value: "Kwan"))), ["Kwan"])
        let next = try store.upsert([["lastName": "New", "age": 1]], into: Fixture.soup)
        XCTAssertEqual(next[0][SoupField.entryId], .int(11), "ids continue after the alter")
    }

    func testReIndexingAPathThatIsNotIndexedIsAnError() throws {
        let store = try Fixture.store(self)
        XCTAssertThrowsError(try store.reIndexSoup(Fixture.soup, paths: ["nope"])) {
            XCTAssertEqual($0 as? SmartStoreError, .pathNotIndexed(soup: Fixture.soup, path: "nope"))
        }
    }

    func testSoupsDeclaredInTheBundlesUserstoreJSONAreRegistered() throws {
        let config = try XCTUnwrap(try StoreConfig.load(TestSupport.fixtureApp.appendingPathComponent("userstore.json")))
        let store = try SmartStore(url: try TestSupport.temporaryDirectory(self).appendingPathComponent("s.sqlite"), name: "s")
        try config.register(in: store)
        XCTAssertEqual(
            try store.indices(for: "contacts").map(\.path),
            ["Id", "FirstName", "LastName", "__local__", "__locally_created__", "__locally_updated__", "__locally_deleted__"])
    }

    func testACorruptDatabaseIsAClearErrorAndTheFileIsKept() throws {
        let url = try TestSupport.temporaryDirectory(self).appendingPathComponent("store.sqlite")
        let garbage = Data(repeating: 0x42, count: 8192)
        try garbage.write(to: url)
        XCTAssertThrowsError(try SmartStore(url: url, name: "s")) { error in
            guard case .database(let path, let message)? = error as? SmartStoreError else { return XCTFail("\(error)") }
            XCTAssertEqual(path, url.path)
            XCTAssertTrue(message.contains("not a SmartStore database"), message)
        }
        XCTAssertEqual(FileManager.default.contents(atPath: url.path), garbage, "nothing deleted or recreated")
    }
}
