import Foundation

/// Runs compiled queries in the org's SQL backend (SQLite or PostgreSQL) and writes their pages straight to JSON bytes.
///
/// Cursors are kept as Salesforce keeps them, by the API version of the request that opened them:
/// from v56.0 on there is no limit on open cursors and one lives two days; before v56.0 a user has at
/// most 10 (opening an 11th releases that user's oldest) and one expires after 15 idle minutes. Nothing
/// else evicts a cursor. A cursor is its plan and the row ids of its result, in chunks of `cursorChunk`
/// (`cursor_chunks`), so its memory is in the database, and it is freed when its last page is served.
struct QueryEngine: Sendable {
    let database: OrgDatabase
    /// What this instance knows of the cursors it opened or served (`OpenCursors`).
    let known = OpenCursors()

    static let defaultBatchSize = 2000
    static let cursorLifetimeV56: TimeInterval = 2 * 24 * 3600
    static let cursorIdleLimitBeforeV56: TimeInterval = 15 * 60
    static let cursorsPerUserBeforeV56 = 10
    /// Row ids a chunk of a cursor holds: a page of the largest batch size (2,000) reads one or two chunks.
    static let cursorChunk = 2000

    struct Page {
        var body: Data
    }

    func run(_ db: SQLTransaction, soql: String, session: Session, version: String, includeDeleted: Bool, batchSize: Int, now: Date = Date()) throws -> Data {
        let parsed = try SOQLParser.parse(soql)
        let plan = try SOQLCompiler.compile(parsed, definition: database.definition, now: now, dialect: db.dialect)
        return try run(db, plan: plan, session: session, version: version, includeDeleted: includeDeleted, batchSize: batchSize, now: now)
    }

    func baseSQL(_ plan: QueryPlan, includeDeleted: Bool) throws -> String {
        guard let object = database.definition.object(plan.object) else { throw SalesforceError.invalidType(plan.object) }
        return "FROM \(OrgDatabase.quote(object.table)) t0 \(plan.joins) WHERE t0.org_id = ? \(includeDeleted ? "" : "AND t0.\"IsDeleted\" = 0") AND \(plan.condition)"
    }

    func run(_ db: SQLTransaction, plan: QueryPlan, session: Session, version: String, includeDeleted: Bool, batchSize: Int, now: Date = Date()) throws -> Data {
        let base = try baseSQL(plan, includeDeleted: includeDeleted)
        let args: [SQLValue] = [session.orgId.sqlValue] + plan.arguments.map(\.sqlValue)
        let rowNumber = "t0.\(db.dialect.rowNumber)"
        let window = "LIMIT \(plan.limit.map(String.init) ?? db.dialect.noLimit) OFFSET \(plan.offset ?? 0)"
        switch plan.count {
        case .rows:
            let n = try db.value(as: Int.self, "SELECT COUNT(*) FROM (SELECT \(rowNumber) \(base) ORDER BY \(plan.order) \(window)) AS counted", args) ?? 0
            return Data("{\"totalSize\":\(n),\"done\":true,\"records\":[]}".utf8)
        case .field(let alias, let expr):
            let n = try db.value(as: Int.self, "SELECT COUNT(c) FROM (SELECT \(expr) AS c \(base) ORDER BY \(plan.order) \(window)) AS counted", args) ?? 0
            var out: [UInt8] = Array("{\"totalSize\":1,\"done\":true,\"records\":[{\"attributes\":{\"type\":\"AggregateResult\"},".utf8)
            JSONBytes.string(alias, into: &out)
            out += Array(":\(n)}]}".utf8)
            return Data(out)
        case .none:
            break
        }
        // A result that fits in one page needs no cursor.
        let probeLimit = min(plan.limit ?? Int.max, batchSize + 1)
        let rows = try db.fetchAll("SELECT \(plan.columns.joined(separator: ", ")) \(base) ORDER BY \(plan.order) LIMIT \(probeLimit) OFFSET \(plan.offset ?? 0)", args)
        if rows.count <= batchSize {
            return try page(db, rows: rows, plan: plan, session: session, version: version, total: rows.count, next: nil)
        }
        // The cursor's number, then its chunks' keys from `number << 32`: a range of its own, taken without
        // waiting for any other cursor's opening (a million-row cursor opening on one instance never holds up
        // another user's query on another). Each row is numbered in the query's order (the order ends with the
        // row number, so it is total), and chunk k holds rows k·cursorChunk + 1 … (k + 1)·cursorChunk.
        let number = try database.nextCursorNumber(db)
        let firstPos = Int64(number) << 32
        let chunk = Self.cursorChunk
        let numbered = "SELECT \(rowNumber) AS r, ROW_NUMBER() OVER (ORDER BY \(plan.order)) - \(plan.offset ?? 0) AS n \(base) ORDER BY \(plan.order) \(window)"
        let lengths = try db.values(
            as: Int.self,
            "INSERT INTO cursor_chunks(pos, rids) SELECT ? + (n - 1) / \(chunk), \(db.dialect.cursorChunk(position: "n", row: "r")) FROM (\(numbered)) AS numbered GROUP BY (n - 1) / \(chunk) RETURNING \(db.dialect.cursorChunkLength)",
            [firstPos.sqlValue] + args)
        let total = lengths.reduce(0, +)
        let locator = try openCursor(db, number: number, plan: plan, session: session, version: version, batchSize: batchSize, total: total, firstPos: firstPos, now: now)
        // The first page from the cursor's rows, as every later page, not from the look above: on PostgreSQL
        // (READ COMMITTED) that look and the numbering are two snapshots, and a record changed in between would
        // be on the first page and the second, or on neither. A cursor is one snapshot, as Salesforce's is.
        let cursor = OpenCursors.Cursor(
            orgId: session.orgId, userId: session.userId, plan: plan, encodedPlan: Data(), batchSize: batchSize, total: total, firstPos: firstPos)
        let (sql, arguments) = try pageSQL(db, cursor: cursor, offset: 0)
        return try finish(db, rows: try db.fetchAll(sql, arguments), cursor: cursor, locator: locator, offset: 0, session: session, version: version, path: includeDeleted ? "queryAll" : "query")
    }

    static func versionNumber(_ version: String) -> Double { Double(version.dropFirst()) ?? 66 }

    func openCursor(_ db: SQLTransaction, number: Int, plan: QueryPlan, session: Session, version: String, batchSize: Int, total: Int, firstPos: Int64, now: Date) throws -> String {
        try expireCursors(db, now: now)
        let locator = SalesforceID.make(prefix: "01g", number: number)
        let v = Self.versionNumber(version)
        if v < 56 {
            let open = try db.values(as: String.self, "SELECT locator FROM cursors WHERE user_id = ? AND version < 56 ORDER BY created ASC, first_pos ASC", [session.userId])
            for old in open.prefix(max(0, open.count - (Self.cursorsPerUserBeforeV56 - 1))) { try release(db, locator: old) }
        }
        let encoded = try JSONEncoder().encode(plan)
        try db.execute("INSERT INTO cursors(locator, org_id, user_id, version, plan, batch_size, total, first_pos, created, last_used) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", [locator, session.orgId, session.userId, v, encoded, batchSize, total, firstPos, now.timeIntervalSince1970, now.timeIntervalSince1970])
        known.remember(locator, .init(orgId: session.orgId, userId: session.userId, plan: plan, encodedPlan: encoded, batchSize: batchSize, total: total, firstPos: firstPos))
        return locator
    }

    /// Frees every cursor past its lifetime (v56.0 on) or idle limit (before).
    func expireCursors(_ db: SQLTransaction, now: Date) throws {
        let t = now.timeIntervalSince1970
        let expired = try db.values(as: String.self, "SELECT locator FROM cursors WHERE \(Self.expiredCursor)", [t - Self.cursorLifetimeV56, t - Self.cursorIdleLimitBeforeV56])
        for locator in expired { try release(db, locator: locator) }
    }

    /// Whether a cursor has expired: from v56.0 its lifetime since it was opened, before its idle limit since it
    /// was last used (arguments: now minus the lifetime, now minus the idle limit).
    static let expiredCursor = "((version >= 56 AND created < ?) OR (version < 56 AND last_used < ?))"

    func release(_ db: SQLTransaction, locator: String) throws {
        guard let row = try db.fetchOne("SELECT first_pos, total FROM cursors WHERE locator = ?", [locator]) else { return }
        try release(db, locator: locator, firstPos: row["first_pos"], total: row["total"])
    }

    /// The cursor's row first, then its chunks: a page asked for in between (outside a transaction, on
    /// PostgreSQL) finds no cursor, rather than a cursor without rows.
    func release(_ db: SQLTransaction, locator: String, firstPos first: Int64, total: Int64) throws {
        known.forget(locator)
        try db.execute("DELETE FROM cursors WHERE locator = ?", [locator])
        try db.execute("DELETE FROM cursor_chunks WHERE pos BETWEEN ? AND ?", [first, first + (total + Int64(Self.cursorChunk) - 1) / Int64(Self.cursorChunk) - 1])
    }

    /// `query/<locator>-<offset>`: the next page of an open cursor. It needs no transaction around it (a route
    /// runs it with `SQLStore.update`): each statement checks that the cursor is still open.
    func more(_ db: SQLTransaction, locatorAndOffset: String, session: Session, version: String, path: String, now: Date = Date()) throws -> Data {
        let invalid = SalesforceError(.badRequest, "INVALID_QUERY_LOCATOR", "invalid query locator")
        let parts = locatorAndOffset.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let offset = Int(parts[1]), offset >= 0 else { throw invalid }
        let locator = String(parts[0])
        let t = now.timeIntervalSince1970
        let live: [any SQLEncodable] = [t, locator, session.orgId, session.userId, t - Self.cursorLifetimeV56, t - Self.cursorIdleLimitBeforeV56]
        let markUsed = "UPDATE cursors SET last_used = ? WHERE locator = ? AND org_id = ? AND user_id = ? AND NOT \(Self.expiredCursor)"
        // A cursor this instance knows, on PostgreSQL: marked used and its page read in one statement, which reads
        // rows only when the cursor is open, is the user's, and is the one known (its plan and rows unchanged).
        if db.dialect == .postgres, let cursor = known.cursor(locator), cursor.orgId == session.orgId, cursor.userId == session.userId,
            offset < cursor.total
        {
            let (sql, arguments) = try pageSQL(db, cursor: cursor, offset: offset, onlyIf: "EXISTS (SELECT 1 FROM live)")
            let rows = try db.fetchAll(
                "WITH live AS (\(markUsed) AND first_pos = ? AND plan = ? RETURNING 1) \(sql)", live + [cursor.firstPos, cursor.encodedPlan] + arguments)
            // A page of an open cursor is never empty (records are only marked deleted): none means it is not open.
            if !rows.isEmpty { return try finish(db, rows: rows, cursor: cursor, locator: locator, offset: offset, session: session, version: version, path: path) }
            known.forget(locator)
        }
        // The cursor, if it is the user's and has not expired, marked used now, in one statement. Expired cursors
        // are swept when one is opened, and when a page of one is asked for (here, below); a page of a live
        // cursor sweeps nothing (one statement fewer for every page of every sync).
        guard let row = try db.fetchOne("\(markUsed) RETURNING *", live) else {
            known.forget(locator)
            try expireCursors(db, now: now)
            throw invalid
        }
        let total: Int = row["total"], batchSize: Int = row["batch_size"], firstPos: Int64 = row["first_pos"]
        guard offset < total else { throw invalid }
        let encoded: Data = row["plan"]
        let plan = try JSONDecoder().decode(QueryPlan.self, from: encoded)
        let cursor = OpenCursors.Cursor(orgId: session.orgId, userId: session.userId, plan: plan, encodedPlan: encoded, batchSize: batchSize, total: total, firstPos: firstPos)
        let (sql, arguments) = try pageSQL(db, cursor: cursor, offset: offset)
        let rows = try db.fetchAll(sql, arguments)
        known.remember(locator, cursor)
        return try finish(db, rows: rows, cursor: cursor, locator: locator, offset: offset, session: session, version: version, path: path)
    }

    /// The statement of a cursor's page from `offset`: the chunks that hold rows offset … end - 1, and of their
    /// rows those, in order (and only if `onlyIf` holds).
    private func pageSQL(_ db: SQLTransaction, cursor: OpenCursors.Cursor, offset: Int, onlyIf: String? = nil) throws -> (String, [any SQLEncodable]) {
        guard let object = database.definition.object(cursor.plan.object) else { throw SalesforceError(.badRequest, "INVALID_QUERY_LOCATOR", "invalid query locator") }
        let end = min(offset + cursor.batchSize, cursor.total)
        let chunk = Int64(Self.cursorChunk), first = Int64(offset), last = Int64(end) - 1
        let index = db.dialect.cursorRowIndex
        return (
            "SELECT \(cursor.plan.columns.joined(separator: ", ")) FROM \(db.dialect.rowsOfCursor(table: OrgDatabase.quote(object.table))) \(cursor.plan.joins) "
                + "WHERE \(onlyIf.map { $0 + " AND " } ?? "")ch.pos BETWEEN ? AND ? AND (ch.pos - ?) * \(chunk) + \(index) BETWEEN ? AND ? ORDER BY ch.pos, \(index)",
            [cursor.firstPos + first / chunk, cursor.firstPos + last / chunk, cursor.firstPos, first, last]
        )
    }

    /// The page's JSON; a cursor whose last page this is, released.
    private func finish(
        _ db: SQLTransaction, rows: [SQLRow], cursor: OpenCursors.Cursor, locator: String, offset: Int, session: Session, version: String, path: String
    ) throws -> Data {
        let end = min(offset + cursor.batchSize, cursor.total)
        let next = end < cursor.total ? "/services/data/\(version)/\(path)/\(locator)-\(end)" : nil
        if next == nil { try release(db, locator: locator, firstPos: cursor.firstPos, total: Int64(cursor.total)) }
        return try page(db, rows: rows, plan: cursor.plan, session: session, version: version, total: cursor.total, next: next)
    }

    /// Open cursors (for tests and `GET /__admin/faults`).
    func openCursorCount(_ db: SQLTransaction) throws -> Int { try db.value(as: Int.self, "SELECT COUNT(*) FROM cursors") ?? 0 }

    // MARK: JSON

    func page(_ db: SQLTransaction, rows: [SQLRow], plan: QueryPlan, session: Session, version: String, total: Int, next: String?) throws -> Data {
        var out: [UInt8] = []
        out.reserveCapacity(64 + rows.count * (96 + plan.columns.count * 32))
        out += Array("{\"totalSize\":\(total),\"done\":\(next == nil)".utf8)
        if let next {
            out += Array(",\"nextRecordsUrl\":".utf8)
            JSONBytes.string(next, into: &out)
        }
        out += Array(",\"records\":".utf8)
        try records(db, rows: rows, plan: plan, session: session, version: version, into: &out)
        out.append(0x7D)
        return Data(out)
    }

    func records(_ db: SQLTransaction, rows: [SQLRow], plan: QueryPlan, session: Session, version: String, into out: inout [UInt8]) throws {
        // Child subqueries: one query per child relationship for the whole page.
        var childRecords: [[String: [SQLRow]]] = []
        for child in plan.children {
            let ids = rows.compactMap { $0[0] as String? }
            var grouped: [String: [SQLRow]] = [:]
            if !ids.isEmpty {
                let base = try baseSQL(child.plan, includeDeleted: false)
                let placeholders = Array(repeating: "?", count: ids.count).joined(separator: ", ")
                let args: [SQLValue] = (
                    [session.orgId.sqlValue] + child.plan.arguments.map(\.sqlValue) + ids.map(\.sqlValue))
                let found = try db.fetchAll("SELECT \(child.plan.columns.joined(separator: ", ")) \(base) AND t0.\(OrgDatabase.quote(child.parentField)) IN (\(placeholders)) ORDER BY \(child.plan.order)", args)
                let parentColumn = child.plan.columns.count - 1
                for row in found {
                    guard let parent = row[parentColumn] as String? else { continue }
                    grouped[parent, default: []].append(row)
                }
                for (k, v) in grouped {
                    grouped[k] = Array(v.dropFirst(child.plan.offset ?? 0).prefix(child.plan.limit ?? Int.max))
                }
            }
            childRecords.append(grouped)
        }
        out.append(0x5B)
        for (i, row) in rows.enumerated() {
            if i > 0 { out.append(0x2C) }
            let id = row[0] as String? ?? ""
            try record(db, row: row, id: id, type: plan.object, shape: plan.shape, children: plan.children, childRows: childRecords, session: session, version: version, into: &out)
        }
        out.append(0x5D)
    }

    func record(
        _ db: SQLTransaction, row: SQLRow, id: String, type: String, shape: [OutputNode], children: [QueryPlan.ChildPlan], childRows: [[String: [SQLRow]]],
        session: Session, version: String, into out: inout [UInt8]
    ) throws {
        out += Array("{\"attributes\":{\"type\":".utf8)
        JSONBytes.string(type, into: &out)
        out += Array(",\"url\":".utf8)
        JSONBytes.string("/services/data/\(version)/sobjects/\(type)/\(id)", into: &out)
        out.append(0x7D)
        for node in shape {
            out.append(0x2C)
            switch node {
            case .field(let name, let column, let fieldType):
                JSONBytes.string(name, into: &out)
                out.append(0x3A)
                JSONBytes.value(FieldCoding.fromDatabase(row[column], fieldType), into: &out)
            case .parent(let name, let types, let idColumns, let nodes):
                JSONBytes.string(name, into: &out)
                out.append(0x3A)
                if let k = idColumns.firstIndex(where: { (row[$0] as String?) != nil }), let parentId = row[idColumns[k]] as String? {
                    try record(db, row: row, id: parentId, type: types[k], shape: nodes, children: [], childRows: [], session: session, version: version, into: &out)
                } else {
                    out += Array("null".utf8)
                }
            case .child(let name, let index):
                JSONBytes.string(name, into: &out)
                out.append(0x3A)
                let child = children[index]
                if let found = childRows[index][id], !found.isEmpty {
                    out += Array("{\"totalSize\":\(found.count),\"done\":true,\"records\":".utf8)
                    let childObject = database.definition.object(child.plan.object)?.name ?? child.plan.object
                    out.append(0x5B)
                    for (j, r) in found.enumerated() {
                        if j > 0 { out.append(0x2C) }
                        try record(db, row: r, id: r[0] as String? ?? "", type: childObject, shape: child.plan.shape, children: [], childRows: [], session: session, version: version, into: &out)
                    }
                    out += Array("]}".utf8)
                } else {
                    out += Array("null".utf8)
                }
            }
        }
        out.append(0x7D)
    }
}

/// Minimal JSON writing for field values.
enum JSONBytes {
    static func value(_ value: FieldValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d): out += Array((d.isFinite ? "\(d)" : "null").utf8)
        case .string(let s): string(s, into: &out)
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}

/// The cursors an instance opened or served a page of, by locator: what a page needs of one (its plan, size and
/// rows' place), which never changes while it is open. Only a hint: a page read with it also checks, in the same
/// statement, that the cursor is open and is this one (its rows' place and plan), so a cursor released or expired
/// on another instance is never read from here. At most `limit` are kept; past that the oldest half is forgotten.
final class OpenCursors: @unchecked Sendable {
    struct Cursor {
        var orgId: String
        var userId: String
        var plan: QueryPlan
        var encodedPlan: Data
        var batchSize: Int
        var total: Int
        var firstPos: Int64
    }

    static let limit = 4096
    private let lock = NSLock()
    private var cursors: [String: (cursor: Cursor, order: Int)] = [:]
    private var counter = 0

    func cursor(_ locator: String) -> Cursor? { lock.withLock { cursors[locator]?.cursor } }

    func remember(_ locator: String, _ cursor: Cursor) {
        lock.withLock {
            if cursors.count >= Self.limit {
                let oldest = cursors.sorted { $0.value.order < $1.value.order }.prefix(Self.limit / 2).map(\.key)
                for key in oldest { cursors[key] = nil }
            }
            counter += 1
            cursors[locator] = (cursor, counter)
        }
    }

    func forget(_ locator: String) { _ = lock.withLock { cursors.removeValue(forKey: locator) } }

    var count: Int { lock.withLock { cursors.count } }
}
