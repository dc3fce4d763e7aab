import FastJSON
import Foundation
import GRDB
import GRDBSQLite

/// Writes entries into one soup inside one write transaction, with prepared statements reused
/// for every entry of a batch. Values are bound through SQLite's C API on GRDB's cached statements:
/// a batch of 100,000 entries is SmartStore's hot path, and per-row argument arrays cost a third of it.
struct EntryWriter {
    let db: Database
    let info: SoupInfo
    private let columns: [SoupInfo.Index]
    private let insert: Statement
    private let update: Statement
    private let selectCreated: Statement
    private let ftsInsert: Statement?
    private let ftsDelete: Statement?
    private var nextId: Int64

    init(db: Database, info: SoupInfo) throws {
        self.db = db
        self.info = info
        columns = info.indexes.filter { $0.column != nil }
        let names = columns.compactMap(\.column)
        let insertColumns = (["id", "soup", "created", "lastModified"] + names).joined(separator: ", ")
        let placeholders = Array(repeating: "?", count: 4 + names.count).joined(separator: ", ")
        insert = try db.cachedStatement(sql: "INSERT INTO \(info.table) (\(insertColumns)) VALUES (\(placeholders))")
        let sets = (["soup = ?", "lastModified = ?"] + names.map { "\($0) = ?" }).joined(separator: ", ")
        update = try db.cachedStatement(sql: "UPDATE \(info.table) SET \(sets) WHERE id = ?")
        selectCreated = try db.cachedStatement(sql: "SELECT created FROM \(info.table) WHERE id = ?")
        let fts = info.fullTextColumns
        if fts.isEmpty {
            ftsInsert = nil
            ftsDelete = nil
        } else {
            let marks = Array(repeating: "?", count: fts.count + 1).joined(separator: ", ")
            ftsInsert = try db.cachedStatement(sql: "INSERT INTO \(info.ftsTable) (rowid, \(fts.joined(separator: ", "))) VALUES (\(marks))")
            ftsDelete = try db.cachedStatement(sql: "DELETE FROM \(info.ftsTable) WHERE rowid = ?")
        }
        // Ids are never reused, as with AUTOINCREMENT: start after both the highest id and the sequence.
        let maxId = try Int64.fetchOne(db, sql: "SELECT max(id) FROM \(info.table)") ?? 0
        let sequence = try Int64.fetchOne(db, sql: "SELECT seq FROM sqlite_sequence WHERE name = ?", arguments: [info.table]) ?? 0
        nextId = max(maxId, sequence) + 1
    }

    mutating func upsert(_ entry: SoupEntry, externalIdPath: String, now: Int64) throws -> SoupEntry {
        var existingId: Int64?
        if let id = entry[SoupField.entryId], id != .null {
            guard let value = id.intValue else { throw SmartStoreError.invalidEntry("\(SoupField.entryId) must be an integer") }
            existingId = value
        } else if externalIdPath != SoupField.entryId {
            existingId = try lookUp(externalIdPath, in: entry)
        }
        var stored = entry
        stored[SoupField.lastModifiedDate] = .int(now)
        if let id = existingId {
            guard try Int64.fetchOne(selectCreated, arguments: [id]) != nil else {
                throw SmartStoreError.entryNotFound(soup: info.name, id: id)
            }
            stored[SoupField.entryId] = .int(id)
            let json = JSON.object(stored)
            let statement = update.sqliteStatement
            var position: Int32 = 1
            Self.bind(text: json.utf8Text, statement, &position)
            Self.bind(now.databaseValue, statement, &position)
            for column in columns {
                Self.bind(Self.databaseValue(json.project(components: column.components), for: column.spec), statement, &position)
            }
            Self.bind(id.databaseValue, statement, &position)
            try step(statement)
            try indexFullText(id: id, json, replacing: true)
        } else {
            let id = nextId
            nextId += 1
            stored[SoupField.entryId] = .int(id)
            let json = JSON.object(stored)
            let statement = insert.sqliteStatement
            var position: Int32 = 1
            Self.bind(id.databaseValue, statement, &position)
            Self.bind(text: json.utf8Text, statement, &position)
            Self.bind(now.databaseValue, statement, &position)
            Self.bind(now.databaseValue, statement, &position)
            for column in columns {
                Self.bind(Self.databaseValue(json.project(components: column.components), for: column.spec), statement, &position)
            }
            try step(statement)
            try indexFullText(id: id, json, replacing: false)
        }
        return stored
    }

    /// The id of the entry whose `path` value equals this entry's, nil when there is none.
    private func lookUp(_ path: String, in entry: SoupEntry) throws -> Int64? {
        guard info.index(for: path) != nil, let expression = info.expression(for: path, allowUnindexed: false) else {
            throw SmartStoreError.externalIdPathNotIndexed(soup: info.name, path: path)
        }
        guard let value = JSON.object(entry).project(path), value != .null, value != .string("") else {
            throw SmartStoreError.externalIdValueMissing(soup: info.name, path: path)
        }
        let ids = try Int64.fetchAll(
            db.cachedStatement(sql: "SELECT id FROM \(info.table) WHERE \(expression) = ? LIMIT 2"), arguments: [Self.databaseValue(value)])
        if ids.count > 1 {
            throw SmartStoreError.externalIdNotUnique(soup: info.name, path: path, value: value.stringValue ?? value.text)
        }
        return ids.first
    }

    private func indexFullText(id: Int64, _ json: JSON, replacing: Bool) throws {
        guard let ftsInsert else { return }
        if replacing { try ftsDelete?.execute(arguments: [id]) }
        var arguments: [DatabaseValue] = [id.databaseValue]
        for index in info.indexes where index.spec.type == .fullText {
            arguments.append(Self.databaseValue(json.project(components: index.components), for: index.spec))
        }
        ftsInsert.setUncheckedArguments(StatementArguments(arguments))
        try ftsInsert.execute()
    }

    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    private static func bind(_ value: DatabaseValue, _ statement: SQLiteStatement, _ position: inout Int32) {
        switch value.storage {
        case .null: sqlite3_bind_null(statement, position)
        case .int64(let i): sqlite3_bind_int64(statement, position, i)
        case .double(let d): sqlite3_bind_double(statement, position, d)
        case .string(let s): sqlite3_bind_text(statement, position, s, -1, transient)
        case .blob(let data): _ = data.withUnsafeBytes { sqlite3_bind_blob(statement, position, $0.baseAddress, Int32($0.count), transient) }
        }
        position += 1
    }

    private static func bind(text bytes: [UInt8], _ statement: SQLiteStatement, _ position: inout Int32) {
        bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                _ = sqlite3_bind_text(statement, position, $0, Int32(buffer.count), transient)
            }
        }
        position += 1
    }

    private func step(_ statement: SQLiteStatement) throws {
        let code = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard code == SQLITE_DONE else {
            throw DatabaseError(resultCode: ResultCode(rawValue: code), message: String(cString: sqlite3_errmsg(db.sqliteConnection)))
        }
    }

    /// How a JSON value is stored in an index column (and bound as a query argument): booleans as 1/0,
    /// as SQLite's json1 gives them; arrays and objects as JSON text; missing and null as NULL.
    static func databaseValue(_ value: JSON?, for spec: IndexSpec? = nil) -> DatabaseValue {
        guard let value else { return .null }
        switch value {
        case .null: return .null
        case .bool(let b): return (b ? 1 : 0).databaseValue
        case .int(let i): return spec?.type == .floating ? Double(i).databaseValue : i.databaseValue
        case .double(let d): return d.databaseValue
        case .string(let s): return s.databaseValue
        case .array, .object: return value.text.databaseValue
        }
    }

    static func databaseValue(_ value: JSON) -> DatabaseValue { databaseValue(Optional(value), for: nil) }
}
