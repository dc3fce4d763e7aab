import Foundation
import XCTest

@testable import OrgSimulator

/// The org's write clock and what a write sends without waiting (issue 39). On PostgreSQL a write's clock, its
/// timestamps and its recent item are one statement, sent without waiting, with COMMIT right behind it; record ids
/// are drawn from their sequence a block at a time. On SQLite (the default) and, when
/// scripts/integration/org-postgres.sh runs these tests, on PostgreSQL: both must answer alike.
final class WriteClockTests: XCTestCase {
    var state: OrgState!
    let session = Session(orgId: "00D5g00000TestoEAA", userId: "0055g00000TesttAAA", clientId: "t")

    override func tearDown() { state = nil; super.tearDown() }

    override func setUpWithError() throws {
        state = try TestStates.make(definition: try SOQLTests.definition(), tokenLifetime: 3600)
    }

    var contact: ObjectDefinition { state.definition.object("Contact")! }

    struct Stamps: Equatable {
        var created: String, modified: String, modstamp: String, deleted: Int, name: String?
    }

    func stamps(_ id: String) throws -> Stamps {
        let row = try XCTUnwrap(try state.database.store.read { db in
            try db.fetchOne("SELECT \"CreatedDate\", \"LastModifiedDate\", \"SystemModstamp\", \"IsDeleted\", \"Name\" FROM \(OrgDatabase.quote(self.contact.table)) WHERE \"Id\" = ?", [id])
        })
        return Stamps(created: row["CreatedDate"], modified: row["LastModifiedDate"], modstamp: row["SystemModstamp"], deleted: row["IsDeleted"], name: row["Name"])
    }

    func recent() throws -> [String] {
        try state.database.store.read { db in
            try db.values(as: String.self, "SELECT record_id FROM recent WHERE user_id = ? ORDER BY touched", [self.session.userId])
        }
    }

    /// The REST API's datetime, date and the request sequence's day, written digit by digit: the same text as
    /// `String(format:)` over `gmtime_r` wrote before, for dates across the calendar (leap days, the epoch's
    /// last millisecond before and after, four-digit years at both ends).
    func testStampsAreTheTextStringFormatWrote() {
        func reference(_ date: Date) -> String {
            let ms = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
            let (s, m) = ms.quotientAndRemainder(dividingBy: 1000)
            var t = time_t(m < 0 ? s - 1 : s)
            var parts = tm()
            gmtime_r(&t, &parts)
            return String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.%03d+0000", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
                parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(m < 0 ? m + 1000 : m))
        }
        var dates: [Date] = [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.001), Date(timeIntervalSince1970: 0.999),
            Date(timeIntervalSince1970: 951_782_400.5),  // 2000-02-29
            Date(timeIntervalSince1970: 253_402_300_799.999),  // 9999-12-31T23:59:59.999
            Date(timeIntervalSince1970: -62_135_596_800),  // 0001-01-01
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2_000 { dates.append(Date(timeIntervalSince1970: Double.random(in: -2e10...2e10, using: &generator))) }
        for date in dates {
            let text = reference(date)
            XCTAssertEqual(SalesforceDate.string(date), text)
            XCTAssertEqual(SalesforceDate.dateString(date), String(text.prefix(10)))
            XCTAssertEqual(SalesforceDate.compactDateString(date), String(text.prefix(10)).replacingOccurrences(of: "-", with: ""))
        }
        XCTAssertEqual(OrgDatabase.apiRequestSequence(Date(timeIntervalSince1970: 1_795_000_000)), "api_requests_20261118")
    }

    /// A token is kept as the lower-case hex of its SHA-256 (FIPS 180-2's "abc" example).
    func testATokenIsKeptAsItsSHA256InLowerCaseHex() {
        XCTAssertEqual(OrgState.hash("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        XCTAssertEqual(OrgState.hash(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    /// A stamp in the REST API's format, from this machine's clock (within a minute).
    func assertIsAStampOfNow(_ text: String, file: StaticString = #filePath, line: UInt = #line) {
        guard let date = SalesforceDate.parse(text) else { return XCTFail("not a date: \(text)", file: file, line: line) }
        XCTAssertEqual(SalesforceDate.string(date), text, "not in the REST API's format", file: file, line: line)
        XCTAssertLessThan(abs(date.timeIntervalSinceNow), 60, text, file: file, line: line)
    }

    func testEveryWriteStampsItsRecordFromTheClockInTheOrderOfTheWrites() throws {
        let records = state.records, session = session, contact = contact
        let field = try records.upsertField(contact, "DeviceRecordId__c")

        let made = try state.database.store.write { db in try records.create(db, session: session, object: contact, body: ["LastName": "Clock"]) }
        let first = try stamps(made)
        assertIsAStampOfNow(first.modified)
        XCTAssertEqual(first.created, first.modified)
        XCTAssertEqual(first.modstamp, first.modified)
        XCTAssertEqual(first.name, "Clock")

        // Created by an upsert on the unique index: a later clock reading than the write before it.
        let upserted = try state.database.store.write { db in
            try records.upsert(db, session: session, object: contact, field: field, value: "dev-1", body: ["LastName": "Tick"])
        }
        guard case .created(let id) = upserted else { return XCTFail("\(upserted)") }
        let second = try stamps(id)
        assertIsAStampOfNow(second.modified)
        XCTAssertEqual(second.created, second.modified)
        XCTAssertEqual(second.modstamp, second.modified)
        XCTAssertGreaterThan(second.modified, first.modified, "the clock never repeats nor goes back")
        XCTAssertEqual(second.name, "Tick")

        // Updated by the same upsert: CreatedDate kept, the name made from the new part and the kept one.
        let again = try state.database.store.write { db in
            try records.upsert(db, session: session, object: contact, field: field, value: "DEV-1", body: ["FirstName": "Tock"])
        }
        guard case .updated(id) = again else { return XCTFail("\(again)") }
        let third = try stamps(id)
        XCTAssertEqual(third.created, second.created)
        XCTAssertGreaterThan(third.modified, second.modified)
        XCTAssertEqual(third.modstamp, third.modified)
        XCTAssertEqual(third.name, "Tock Tick")

        try state.database.store.write { db in try records.update(db, session: session, object: contact, id: made, body: ["Title": "Keeper"]) }
        let fourth = try stamps(made)
        XCTAssertEqual(fourth.created, first.created)
        XCTAssertGreaterThan(fourth.modified, third.modified)
        XCTAssertEqual(fourth.modstamp, fourth.modified)
        XCTAssertEqual(try recent(), [id, made], "each write is its user's most recent item, the latest last")

        try state.database.store.write { db in try records.delete(db, session: session, object: contact, id: id) }
        let fifth = try stamps(id)
        XCTAssertEqual(fifth.deleted, 1)
        XCTAssertGreaterThan(fifth.modified, fourth.modified)
        XCTAssertEqual(fifth.modstamp, fifth.modified)
        XCTAssertEqual(try recent(), [made], "a deleted record is no recent item")
    }

    func testAStatementSentWithoutWaitingThatFailsFailsItsTransactionAndKeepsNothing() throws {
        let database = state.database
        let bad = "INSERT INTO no_such_table(x) VALUES (?)"
        // Its error at COMMIT, and at the next statement.
        XCTAssertThrowsError(try database.store.write { db in
            try database.setMeta(db, "clock-test", "1")
            try db.runDeferred(bad, [.int(1)])
        })
        XCTAssertThrowsError(try database.store.write { db in
            try database.setMeta(db, "clock-test", "1")
            try db.runDeferred(bad, [.int(1)])
            _ = try db.fetchAll("SELECT 1")
        })
        XCTAssertNil(try database.store.read { db in try database.meta(db, "clock-test") }, "a write whose statement failed kept a change")
        // The connection is fine afterwards, and a statement that succeeds is kept.
        try database.store.write { db in
            try database.setMeta(db, "clock-test", "2")
            try db.runDeferred("INSERT INTO meta(key, value) VALUES (?, ?)", [.text("clock-test-2"), .text("3")])
        }
        XCTAssertEqual(try database.store.read { db in try database.meta(db, "clock-test") }, "2")
        XCTAssertEqual(try database.store.read { db in try database.meta(db, "clock-test-2") }, "3")
    }

    func testNewIdsAreEachGivenOnceAndSkipIdsAlreadyTaken() throws {
        let records = state.records, session = session, contact = contact
        // Two records with ids of their own among the first numbers the org would give.
        let taken = [SalesforceID.make(prefix: contact.keyPrefix, number: 2), SalesforceID.make(prefix: contact.keyPrefix, number: 5)]
        try state.database.store.write { db in
            for id in taken {
                try records.insert(db, orgId: session.orgId, object: contact, record: ["Id": .string(id), "LastName": "Given"], userId: session.userId)
            }
        }
        // More records than one block of drawn ids.
        var made: [String] = []
        for n in 0..<(OrgDatabase.idBlock + 8) {
            made.append(try state.database.store.write { db in try records.create(db, session: session, object: contact, body: ["LastName": "New \(n)"]) })
        }
        XCTAssertEqual(Set(made).count, made.count, "an id was given twice")
        XCTAssertTrue(Set(made).isDisjoint(with: taken), "an id already taken was given")
        XCTAssertEqual(made, made.sorted(), "one instance gives ids in the order of its sequence")
        XCTAssertTrue(made.allSatisfy { SalesforceID.isValid($0) && $0.hasPrefix(contact.keyPrefix) })
    }

    /// The day's API request count (issue 39): on PostgreSQL a sequence a day instead of a counter row that every
    /// request updated. Requests at once are each counted once, a request with a dead token is not counted, the
    /// count goes on from one kept before the sequence existed, and each day counts from nothing.
    func testEveryAPIRequestIsCountedOnceAtOnceAndEachDayCountsFromNothing() async throws {
        let database = state.database, grants = state.grants, session = session
        let now = Date()
        // A count kept before (a state of an older sf-simulator, in the counter row).
        try await database.store.write { db in try database.setMeta(db, OrgDatabase.apiRequestsKey(now), "7") }
        XCTAssertEqual(try grants.apiRequestCount(), 7)
        let token = try grants.issueAccessToken(orgId: session.orgId, userId: session.userId, clientId: "t", refreshToken: nil)
        // On PostgreSQL, another transaction holds that row's lock while the requests come: counting them takes
        // no row lock (with a counter row, each request would wait for it, then fail at the lock timeout).
        let holder = database.dialect == .postgres ? try holdRow(database, key: OrgDatabase.apiRequestsKey(now)) : nil
        let counts = try await withThrowingTaskGroup(of: Int?.self) { group in
            for n in 0..<45 {
                group.addTask { try await grants.authenticate(accessToken: n < 40 ? token : "00Dnot-a-token-\(n)")?.1 }
            }
            var counts: [Int?] = []
            for try await count in group { counts.append(count) }
            return counts
        }
        holder?.release()
        XCTAssertEqual(counts.filter { $0 == nil }.count, 5, "a request with a dead token was answered as a live one")
        XCTAssertEqual(counts.compactMap { $0 }.sorted(), Array(8...47), "requests at once were not each given their own count")
        XCTAssertEqual(try grants.apiRequestCount(), 47)
        XCTAssertEqual(try requestsCounted(now), 47)

        // Tomorrow counts from nothing, and today's count is still today's.
        let tomorrow = now.addingTimeInterval(86_400)
        try database.prepareAPIRequestCount(tomorrow)
        XCTAssertEqual(try requestsCounted(tomorrow), 0)
        let counted = try await database.store.write { db in try database.countAPIRequest(db, tomorrow) }
        XCTAssertEqual(counted, 1)
        XCTAssertEqual(try requestsCounted(now), 47)
        if database.dialect == .postgres {
            // Two days on, the sequences of days before yesterday are dropped: today's, not tomorrow's.
            let later = now.addingTimeInterval(2 * 86_400)
            try database.prepareAPIRequestCount(later)
            let left = try await database.store.read { db in
                try db.values(as: String.self, "SELECT CAST(relname AS TEXT) FROM pg_class WHERE relkind = 'S' AND relname LIKE 'api%' ORDER BY 1")
            }
            XCTAssertEqual(left, [tomorrow, later].map(OrgDatabase.apiRequestSequence))
        }
    }

    func requestsCounted(_ day: Date) throws -> Int {
        let database = state.database
        return try database.store.read { db in try database.apiRequests(db, day) }
    }

    /// A transaction that has updated `meta`'s row `key` and keeps it (and its lock) until `release`.
    final class RowHolder: @unchecked Sendable {
        let held = DispatchSemaphore(value: 0), released = DispatchSemaphore(value: 0), ended = DispatchSemaphore(value: 0)
        func release() {
            released.signal()
            ended.wait()
        }
    }

    func holdRow(_ database: OrgDatabase, key: String) throws -> RowHolder {
        let holder = RowHolder()
        Thread.detachNewThread {
            _ = try? database.store.write { db in
                try db.execute("UPDATE meta SET value = value WHERE key = ?", [key])
                holder.held.signal()
                holder.released.wait()
            }
            holder.ended.signal()
        }
        XCTAssertEqual(holder.held.wait(timeout: .now() + 60), .success, "the row was not locked")
        return holder
    }
}
