import Foundation

typealias Record = [String: FieldValue]

/// Typed values: what a request body, a CSV cell or a database column holds, turned into the field's
/// type, or the error a real org gives.
enum FieldCoding {
    /// A JSON value from a request body.
    static func fromJSON(_ raw: Any, _ field: FieldDefinition, object: String) -> Result<FieldValue, SalesforceError> {
        if raw is NSNull { return .success(.null) }
        guard let value = FieldValue(json: raw) else {
            return .failure(SalesforceError(.badRequest, "JSON_PARSER_ERROR", "Cannot deserialize instance of \(field.type.rawValue) from an array or object value: \(field.name)", fields: [field.name]))
        }
        return check(value, field, object: object)
    }

    /// Brings a value into the field's type and checks it (length, picklist values, id shape).
    static func check(_ value: FieldValue, _ field: FieldDefinition, object: String) -> Result<FieldValue, SalesforceError> {
        func wrong(_ what: String) -> Result<FieldValue, SalesforceError> {
            .failure(SalesforceError(.badRequest, "JSON_PARSER_ERROR", "Cannot deserialize instance of \(field.type.rawValue) from \(what) value: \(field.name)", fields: [field.name]))
        }
        if value == .null { return .success(.null) }
        switch field.type {
        case .string, .textarea, .email, .phone, .url, .picklist:
            let text: String
            switch value {
            case .string(let s): text = s
            case .int(let i): text = String(i)
            case .double(let d): text = String(d)
            case .bool: return wrong("VALUE_TRUE/VALUE_FALSE")
            case .null: return .success(.null)
            }
            if text.isEmpty { return .success(.null) }
            // SQLite would keep a NUL and PostgreSQL refuses it: refused on both, by the field's name.
            if text.utf8.contains(0) {
                return .failure(SalesforceError(.badRequest, "JSON_PARSER_ERROR", "\(field.displayLabel): the NUL character (U+0000) is not allowed in a text value", fields: [field.name]))
            }
            if text.count > field.effectiveLength {
                return .failure(SalesforceError(
                    .badRequest, "STRING_TOO_LONG", "\(field.displayLabel): data value too large: \(text.prefix(40))... (max length=\(field.effectiveLength))",
                    fields: [field.name]))
            }
            if field.type == .picklist, let values = field.picklistValues, !values.contains(text) {
                return .failure(SalesforceError(.badRequest, "INVALID_OR_NULL_FOR_RESTRICTED_PICKLIST", "\(field.displayLabel): bad value for restricted picklist field: \(text)", fields: [field.name]))
            }
            if field.type == .email, !isEmail(text) {
                return .failure(SalesforceError(.badRequest, "INVALID_EMAIL_ADDRESS", "\(field.displayLabel): invalid email address: \(text)", fields: [field.name]))
            }
            return .success(.string(text))
        case .boolean:
            switch value {
            case .bool: return .success(value)
            case .string(let s) where ["true", "false"].contains(s.lowercased()): return .success(.bool(s.lowercased() == "true"))
            default: return wrong("a non-boolean")
            }
        case .int:
            switch value {
            case .int: return .success(value)
            case .double(let d) where d.rounded() == d && abs(d) < 1e15: return .success(.int(Int(d)))
            case .string(let s): return Int(s).map { .success(.int($0)) } ?? wrong("VALUE_STRING")
            default: return wrong("a non-integer")
            }
        case .double, .currency, .percent:
            switch value {
            case .int(let i): return .success(.double(Double(i)))
            case .double(let d) where d.isFinite: return .success(value)
            case .string(let s): return Double(s).flatMap { $0.isFinite ? FieldValue.double($0) : nil }.map { .success($0) } ?? wrong("VALUE_STRING")
            default: return wrong("a non-number")
            }
        case .date:
            guard case .string(let s) = value, let date = SalesforceDate.parse(s) else { return wrong("a non-date") }
            return .success(.string(SalesforceDate.dateString(date)))
        case .datetime:
            guard case .string(let s) = value, let date = SalesforceDate.parse(s) else { return wrong("a non-datetime") }
            return .success(.string(SalesforceDate.string(date)))
        case .id, .reference:
            guard case .string(let s) = value, SalesforceID.isValid(s) else {
                return .failure(SalesforceError(.badRequest, "MALFORMED_ID", "\(field.displayLabel): id value of incorrect type: \(value)", fields: [field.name]))
            }
            return .success(.string(OrgState.key(s)))
        }
    }

    static func isEmail(_ s: String) -> Bool {
        let parts = s.split(separator: "@", omittingEmptySubsequences: false)
        return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !s.contains(" ")
    }

    static func toDatabase(_ value: FieldValue) -> SQLValue {
        switch value {
        case .null: return .null
        case .bool(let b): return .int(b ? 1 : 0)
        case .int(let i): return .int(Int64(i))
        case .double(let d): return .double(d)
        case .string(let s): return .text(s)
        }
    }

    static func fromDatabase(_ value: SQLValue, _ type: FieldType) -> FieldValue {
        switch value {
        case .null: return .null
        case .int(let i):
            switch type {
            case .boolean: return .bool(i != 0)
            case .double, .currency, .percent: return .double(Double(i))
            default: return .int(Int(i))
            }
        case .double(let d): return type == .int ? .int(Int(d)) : .double(d)
        case .text(let s): return .string(s)
        case .blob: return .null
        }
    }
}

/// Records of any object: create, read, update, delete and upsert, with the checks a real org makes
/// (required fields, lengths, types, references to existing records, unique values). Every function
/// runs inside the caller's transaction.
struct RecordStore: Sendable {
    let database: OrgDatabase
    var definition: OrgDefinition { database.definition }

    func object(_ name: String) throws -> ObjectDefinition {
        guard let object = definition.object(name) else { throw SalesforceError.invalidType(name) }
        return object
    }

    /// The body's fields, checked for a create (`creating`) or an update.
    func fields(_ body: [String: Any], of object: ObjectDefinition, creating: Bool) -> Result<Record, SalesforceError> {
        var out: Record = [:]
        for (name, raw) in body where name != "attributes" {
            guard let field = object.field(name) else {
                return .failure(SalesforceError(.badRequest, "INVALID_FIELD", "No such column '\(name)' on sobject of type \(object.name)", fields: [name]))
            }
            guard creating ? field.isCreateable : field.isUpdateable else {
                return .failure(SalesforceError(
                    .badRequest, "INVALID_FIELD_FOR_INSERT_UPDATE",
                    "Unable to create/update fields: \(field.name). Please check the security settings of this field and verify that it is read/write for your profile or permission set.",
                    fields: [field.name]))
            }
            switch FieldCoding.fromJSON(raw, field, object: object.name) {
            case .failure(let e): return .failure(e)
            case .success(let v): out[field.name] = v
            }
        }
        return .success(out)
    }

    /// Required fields, references and unique values, against the record as it will be. `changed` names the
    /// fields an update gives a new value (nil: a create, every field is new); a reference or a unique value it
    /// keeps was checked when it was written. `checked` names unique fields the caller has already locked and
    /// looked up in this transaction (an upsert's external id).
    func validate(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, record: Record, id: String?, changed: Set<String>? = nil, checked: Set<String> = []) throws -> SalesforceError? {
        let isNew = { (name: String) in changed?.contains(name) ?? true }
        let missing = object.fields.filter { $0.isRequired && $0.isCreateable && (record[$0.name] ?? .null) == .null }.map(\.name)
        if !missing.isEmpty {
            return SalesforceError(.badRequest, "REQUIRED_FIELD_MISSING", "Required fields are missing: [\(missing.joined(separator: ", "))]", fields: missing)
        }
        for field in object.fields where field.type == .reference && field.isCreateable && isNew(field.name) {
            guard case .string(let target)? = record[field.name] else { continue }
            let targets = field.referenceTo.compactMap { definition.object($0) }
            guard let targetObject = targets.first(where: { target.hasPrefix($0.keyPrefix) }) else {
                return SalesforceError(.badRequest, "FIELD_INTEGRITY_EXCEPTION", "\(field.displayLabel): id value of incorrect type: \(target)", fields: [field.name])
            }
            let exists = try db.value(as: Int.self, "SELECT 1 FROM \(OrgDatabase.quote(targetObject.table)) WHERE \"Id\" = ? AND org_id = ? AND \"IsDeleted\" = 0", [target, orgId])
            if exists == nil {
                return SalesforceError(.badRequest, "INVALID_CROSS_REFERENCE_KEY", "\(field.displayLabel): invalid cross reference id", fields: [field.name])
            }
        }
        // Unique values are locked while they are checked and written, so two writers cannot both take one.
        let uniqueFields = object.fields.filter { $0.isUnique && isNew($0.name) && !checked.contains($0.name) }
        let unique = uniqueFields.compactMap { field in record[field.name].flatMap { $0 == .null ? nil : (field, $0) } }
        try lockValues(db, orgId: orgId, object: object, unique)
        for field in uniqueFields {
            guard let value = record[field.name], value != .null else { continue }
            if let other = try db.value(as: String.self, "SELECT \"Id\" FROM \(OrgDatabase.quote(object.table)) WHERE org_id = ? AND \(db.dialect.compare(OrgDatabase.quote(field.name), "=", text: field.type.isText)) AND \"IsDeleted\" = 0 AND \"Id\" IS DISTINCT FROM ?", [orgId, FieldCoding.toDatabase(value), id])
            {
                return SalesforceError(.badRequest, "DUPLICATE_VALUE", "duplicate value found: \(field.name) duplicates value on record with id: \(other)", fields: [field.name])
            }
        }
        return nil
    }

    /// Inserts a record as is (seed and CSV loading too): system fields filled unless given.
    @discardableResult
    func insert(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, record: Record, userId: String) throws -> String {
        let row = try completed(db, orgId: orgId, object: object, record: record, userId: userId)
        try insertRows(db, orgId: orgId, object: object, [row])
        return row["Id"]!.stringValue!
    }

    /// Most rows a multi-row INSERT carries: its arguments stay under both backends' limits (SQLite's 32,766
    /// host parameters, PostgreSQL's 65,535 bind parameters).
    static let argumentsPerInsert = 30_000

    /// Inserts complete rows (`completed`), in their order, many in one INSERT, so that seeding an org is a few
    /// statements instead of one a record (on PostgreSQL, a round trip each). A batch names every field any of
    /// its rows has, and a row without one gives it NULL: the same row, since an object's table has no column
    /// defaults (`OrgDatabase`). One row is the statement `insert` always sent.
    /// `argumentsPerInsert` 1 inserts each row by itself.
    func insertRows(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, _ rows: [Record], argumentsPerInsert: Int = argumentsPerInsert) throws {
        // A single row (every create) names its own fields: no union to build on that path.
        let union = rows.count > 1 ? Array(Set(rows.flatMap(\.keys))).sorted() : []
        let most = rows.count > 1 ? max(1, argumentsPerInsert / (union.count + 1)) : 1
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + most)
            let names = end - start == 1 ? rows[start].keys.sorted() : union
            let tuple = "(?\(String(repeating: ", ?", count: names.count)))"
            let sql = "INSERT INTO \(OrgDatabase.quote(object.table)) (org_id, \(names.map(OrgDatabase.quote).joined(separator: ", "))) VALUES "
                + Array(repeating: tuple, count: end - start).joined(separator: ", ")
            var arguments: [any SQLEncodable] = []
            arguments.reserveCapacity((end - start) * (names.count + 1))
            for row in rows[start..<end] {
                arguments.append(orgId.sqlValue)
                for name in names { arguments.append(FieldCoding.toDatabase(row[name] ?? .null)) }
            }
            // One row: the statement every single insert sends, kept prepared; a batch's text varies with its size.
            try db.execute(sql, arguments, cached: end - start == 1)
            start = end
        }
    }

    /// The row `insert` writes: its id (drawn when it has none), its dates (the write clock's when missing),
    /// owner, creator and compound name filled.
    func completed(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, record: Record, userId: String) throws -> Record {
        var record = record
        let id = try record["Id"]?.stringValue ?? database.nextId(db, orgId: orgId, object: object)
        record["Id"] = .string(id)
        let now = try (record["LastModifiedDate"] == nil || record["CreatedDate"] == nil) ? database.nextWriteTime(db) : ""
        if record["CreatedDate"] == nil { record["CreatedDate"] = .string(now) }
        if record["LastModifiedDate"] == nil { record["LastModifiedDate"] = .string(now) }
        if record["SystemModstamp"] == nil { record["SystemModstamp"] = record["LastModifiedDate"] }
        if record["IsDeleted"] == nil { record["IsDeleted"] = .bool(false) }
        if object.name != "User", (record["OwnerId"] ?? .null) == .null { record["OwnerId"] = .string(userId) }
        if (record["CreatedById"] ?? .null) == .null { record["CreatedById"] = .string(userId) }
        if (record["LastModifiedById"] ?? .null) == .null { record["LastModifiedById"] = .string(userId) }
        fillName(object, &record)
        return record
    }

    func fillName(_ object: ObjectDefinition, _ record: inout Record) {
        guard let parts = object.compoundName else { return }
        let words = parts.compactMap { record[$0]?.stringValue }.filter { !$0.isEmpty }
        record["Name"] = words.isEmpty ? .null : .string(words.joined(separator: " "))
    }

    func create(_ db: SQLTransaction, session: Session, object: ObjectDefinition, body: [String: Any], checked: Set<String> = []) throws -> String {
        guard object.createable else {
            throw SalesforceError(.badRequest, "INVALID_TYPE_FOR_OPERATION", "entity type \(object.name) does not support create")
        }
        var record = try fields(body, of: object, creating: true).get()
        record = record.filter { $0.value != .null }
        if let error = try validate(db, orgId: session.orgId, object: object, record: record, id: nil, checked: checked) { throw error }
        let id = try database.nextId(db, orgId: session.orgId, object: object)
        record["Id"] = .string(id)
        try touch(db, session: session, object: object, id: id)
        // The insert reads the clock: last, since the write holds it until it commits.
        try insert(db, orgId: session.orgId, object: object, record: record, userId: session.userId)
        return id
    }

    /// The record, or nil. `forUpdate` locks it until the transaction ends (Salesforce's record lock, taken by the
    /// same statement that reads it): a record another transaction holds longer than the org's record lock
    /// timeout is `UNABLE_TO_LOCK_ROW`.
    func read(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, id: String, includeDeleted: Bool = false, forUpdate: Bool = false) throws -> Record? {
        guard SalesforceID.isValid(id) else { return nil }
        let key = OrgState.key(id)
        let row = try Self.locking([id]) {
            let lock = forUpdate ? try db.lockForUpdate(table: object.table, ids: [key]) : ""
            return try db.fetchOne("SELECT * FROM \(OrgDatabase.quote(object.table)) WHERE \"Id\" = ? AND org_id = ?\(lock)", [key, orgId])
        }
        guard let row else { return nil }
        var record: Record = [:]
        for field in object.fields { record[field.name] = FieldCoding.fromDatabase(row.value(named: field.name), field.type) }
        if !includeDeleted, record["IsDeleted"] == .bool(true) { return nil }
        return record
    }

    /// A missing record: `ENTITY_IS_DELETED` when it was deleted, `NOT_FOUND` when it never existed.
    func gone(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, id: String) throws -> SalesforceError {
        if try read(db, orgId: orgId, object: object, id: id, includeDeleted: true) != nil {
            return SalesforceError(.notFound, "ENTITY_IS_DELETED", "entity is deleted")
        }
        return .notFound()
    }

    func update(_ db: SQLTransaction, session: Session, object: ObjectDefinition, id: String, body: [String: Any]) throws {
        let changes = try fields(body, of: object, creating: false).get()
        try apply(db, session: session, object: object, id: id, changes: changes)
    }

    func apply(_ db: SQLTransaction, session: Session, object: ObjectDefinition, id: String, changes: Record) throws {
        guard var record = try read(db, orgId: session.orgId, object: object, id: id, forUpdate: true) else {
            throw try gone(db, orgId: session.orgId, object: object, id: id)
        }
        let changed = Set(changes.keys.filter { changes[$0] != record[$0] })
        for (k, v) in changes { record[k] = v }
        if let error = try validate(db, orgId: session.orgId, object: object, record: record, id: record["Id"]?.stringValue, changed: changed) { throw error }
        var set = changes
        set["LastModifiedById"] = .string(session.userId)
        if let parts = object.compoundName, parts.contains(where: { changes[$0] != nil }) {
            fillName(object, &record)
            set["Name"] = record["Name"]
        }
        let recordId = record["Id"]?.stringValue ?? id
        // The clock last: the write holds it until it commits.
        try database.stamp(db, object: object, id: recordId, set: set.keys.sorted().map { ($0, FieldCoding.toDatabase(set[$0]!)) },
                           with: Self.touching(session: session, object: object, id: recordId))
    }

    /// Soft delete: `queryAll` and `deleted` still see it.
    func delete(_ db: SQLTransaction, session: Session, object: ObjectDefinition, id: String) throws {
        guard try read(db, orgId: session.orgId, object: object, id: id, forUpdate: true) != nil else {
            throw try gone(db, orgId: session.orgId, object: object, id: id)
        }
        try db.execute("DELETE FROM recent WHERE record_id = ?", [OrgState.key(id)])
        try database.stamp(db, object: object, id: OrgState.key(id), set: [("IsDeleted", .int(1)), ("LastModifiedById", .text(session.userId))])
    }

    /// The object of an id, by its key prefix.
    func object(ofId id: String) -> ObjectDefinition? { definition.object(prefix: String(id.prefix(3))) }

    /// Ids of live records whose `field` is `value` (text compared without case, ids in either form).
    func ids(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, field: FieldDefinition, value: String) throws -> [String] {
        let coded: FieldValue
        switch FieldCoding.check(.string(value), field, object: object.name) {
        case .success(let v): coded = v
        case .failure: return []
        }
        return try db.values(as: String.self, "SELECT \"Id\" FROM \(OrgDatabase.quote(object.table)) WHERE org_id = ? AND \(db.dialect.compare(OrgDatabase.quote(field.name), "=", text: field.type.isText)) AND \"IsDeleted\" = 0 LIMIT 10", [orgId, FieldCoding.toDatabase(coded)])
    }

    /// The upsert field: `Id`, an External ID field or an idLookup field.
    func upsertField(_ object: ObjectDefinition, _ name: String) throws -> FieldDefinition {
        guard let field = object.field(name), field.matchesForUpsert else {
            throw SalesforceError(.notFound, "NOT_FOUND", "Provided external ID field does not exist or is not accessible: \(name)")
        }
        return field
    }

    enum UpsertResult { case created(String), updated(String), ambiguous([String]) }

    /// Upsert by `field` = `value`: one match is updated, none is created with the value, several are
    /// refused (300 over REST).
    func upsert(_ db: SQLTransaction, session: Session, object: ObjectDefinition, field: FieldDefinition, value: String, body: [String: Any]) throws -> UpsertResult {
        if let done = try upsertByIndex(db, session: session, object: object, field: field, value: value, body: body) { return done }
        // The value is locked while it is looked up and written: two upserts of one new value create one record.
        if field.type != .id { try lockValues(db, orgId: session.orgId, object: object, [(field, .string(value))]) }
        let matches = try ids(db, orgId: session.orgId, object: object, field: field, value: value)
        if matches.count > 1 { return .ambiguous(matches) }
        var body = body
        if let existing = matches.first {
            body = body.filter { $0.key.lowercased() != field.name.lowercased() }
            try update(db, session: session, object: object, id: existing, body: body)
            return .updated(existing)
        }
        guard field.type != .id else { throw SalesforceError.notFound() }
        body[field.name] = value
        return .created(try create(db, session: session, object: object, body: body, checked: [field.name]))
    }

    /// An upsert by a unique external id as one statement on its unique index (`INSERT … ON CONFLICT`): the
    /// index, not a look-up, decides between creating and updating, and makes a second writer of one new value
    /// wait and then update. Nil when the upsert needs the look-up (`upsert`): the index is missing, or the
    /// body's checks differ between a create and an update (a null, a missing required field, a reference, a
    /// field only one of them may set, another unique value), so that both ways answer alike.
    func upsertByIndex(_ db: SQLTransaction, session: Session, object: ObjectDefinition, field: FieldDefinition, value: String, body: [String: Any]) throws -> UpsertResult? {
        guard OrgDatabase.upsertsByIndex(field), database.hasUpsertIndex(object, field), object.createable else { return nil }
        let given = body.filter { $0.key.lowercased() != field.name.lowercased() }
        var createBody = given
        createBody[field.name] = value
        guard case .success(let created) = fields(createBody, of: object, creating: true),
              case .success(let changes) = fields(given, of: object, creating: false),
              !changes.values.contains(.null),
              changes.keys.allSatisfy({ name in object.field(name).map { !$0.isUnique && $0.type != .reference } ?? false }),
              !object.fields.contains(where: { $0.isRequired && $0.isCreateable && (created[$0.name] ?? .null) == .null })
        else { return nil }

        var record = created
        let newId = try database.nextId(db, orgId: session.orgId, object: object)
        record["Id"] = .string(newId)
        record["IsDeleted"] = .bool(false)
        if object.name != "User" { record["OwnerId"] = .string(session.userId) }
        record["CreatedById"] = .string(session.userId)
        record["LastModifiedById"] = .string(session.userId)
        let names = record.keys.sorted()
        let updated = (changes.keys.sorted() + ["LastModifiedById"]).map { "\(OrgDatabase.quote($0)) = excluded.\(OrgDatabase.quote($0))" }
        let parts = object.compoundName ?? []
        let returning = (["Id"] + parts).map(OrgDatabase.quote).joined(separator: ", ")
        let table = OrgDatabase.quote(object.table)
        // CreatedDate stays NULL until the clock is read below: NULL in what the statement returns is a row it made.
        // (Asked with COALESCE: SQLite 3.40's RETURNING answers `"CreatedDate" IS NULL` with 0 for a NULL.)
        let row: SQLRow?
        do {
            row = try db.fetchOne(
                "INSERT INTO \(table) (org_id, \(names.map(OrgDatabase.quote).joined(separator: ", "))) VALUES (?\(String(repeating: ", ?", count: names.count))) "
                    + "ON CONFLICT \(OrgDatabase.upsertKey(field, db.dialect)) DO UPDATE SET \(updated.joined(separator: ", ")) "
                    + "RETURNING \(returning), CASE WHEN COALESCE(\"CreatedDate\", '') = '' THEN 1 ELSE 0 END AS made",
                [session.orgId.sqlValue] + names.map { FieldCoding.toDatabase(record[$0]!) })
        } catch let error as SQLStoreError where error.kind == .lockTimeout {
            // On PostgreSQL the statement waited for the record that holds the value, and the transaction is
            // aborted: the record is named once it is rolled back (OrgState.write), as Salesforce names it.
            throw SalesforceError.unableToLockRow(orgId: session.orgId, object: object.name, field: field.name, value: value)
        }
        guard let row, let id = row["Id"] as String? else { throw SQLStoreError(kind: .other, reason: "an upsert returned no row", code: "upsert") }
        let made = (row["made"] as Int?) == 1
        // The record's lock: a record a fault holds is waited for (on PostgreSQL the statement above waited).
        _ = try Self.locking([id]) { try db.lockForUpdate(table: object.table, ids: [id]) }
        var set: [(String, SQLValue)] = []
        if !parts.isEmpty, made || parts.contains(where: { changes[$0] != nil }) {
            var named: Record = [:]
            for part in parts { named[part] = made ? record[part] : (changes[part] ?? (row[part] as String?).map { FieldValue.string($0) } ?? .null) }
            fillName(object, &named)
            set.append(("Name", FieldCoding.toDatabase(named["Name"] ?? .null)))
        }
        // The clock last: the write holds it until it commits.
        try database.stamp(db, object: object, id: id, set: set, created: made, with: Self.touching(session: session, object: object, id: id))
        return made ? .created(id) : .updated(id)
    }

    // MARK: Locks

    /// `body`, with a record lock not given in time as Salesforce's `UNABLE_TO_LOCK_ROW` naming `ids`.
    static func locking<T>(_ ids: [String], _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLStoreError where error.kind == .lockTimeout {
            throw SalesforceError.unableToLockRow(ids)
        }
    }

    /// Locks the records a request will change, before it changes any: sorted by table, then id, so that two
    /// requests locking some of the same records always take them in one order and never wait for each other.
    /// One statement per object; when one of its records is not given in time, each is tried on its own (in a
    /// savepoint), and the ids that could not be locked are returned, for the request to report per record.
    func lockRecords(_ db: SQLTransaction, orgId: String, _ records: [(object: ObjectDefinition, id: String)]) throws -> Set<String> {
        var byTable: [String: (object: ObjectDefinition, keys: Set<String>)] = [:]
        for (object, id) in records where SalesforceID.isValid(id) {
            byTable[object.table, default: (object, [])].keys.insert(OrgState.key(id))
        }
        var failed: Set<String> = []
        for table in byTable.keys.sorted() {
            let (object, keySet) = byTable[table]!
            let keys = keySet.sorted()
            let select = { (keys: [String]) throws in
                let lock = try db.lockForUpdate(table: object.table, ids: keys)
                _ = try db.fetchAll(
                    "SELECT \"Id\" FROM \(OrgDatabase.quote(object.table)) WHERE org_id = ? AND \"Id\" IN (\(keys.map { _ in "?" }.joined(separator: ", "))) ORDER BY \"Id\"\(lock)",
                    [orgId] + keys)
            }
            do {
                try db.inSavepoint {
                    try select(keys)
                    return .commit
                }
            } catch let error as SQLStoreError where error.kind == .lockTimeout {
                for key in keys {
                    do {
                        try db.inSavepoint {
                            try select([key])
                            return .commit
                        }
                    } catch let error as SQLStoreError where error.kind == .lockTimeout {
                        failed.insert(key)
                    }
                }
            }
        }
        return failed
    }

    /// Locks field values of `object` (an external id being upserted, a unique value being written) until the
    /// transaction ends, in one order; text values without case, as they are compared.
    func lockValues(_ db: SQLTransaction, orgId: String, object: ObjectDefinition, _ values: [(FieldDefinition, FieldValue)]) throws {
        guard !values.isEmpty else { return }
        let keys = values.map { field, value -> String in
            let text: String
            switch FieldCoding.toDatabase(value) {
            case .text(let s): text = field.type.isText ? s.lowercased() : s
            case .int(let i): text = String(i)
            case .double(let d): text = String(d)
            case .null: text = ""
            case .blob(let b): text = b.base64EncodedString()
            }
            return "\(orgId)/\(object.name)/\(field.name)/\(text)"
        }
        try Self.locking(values.map { "\($0.0.name) \($0.1.stringValue ?? "")" }) { try db.lockValues(keys) }
    }

    // MARK: Recent items

    func touch(_ db: SQLTransaction, session: Session, object: ObjectDefinition, id: String) throws {
        let touching = Self.touching(session: session, object: object, id: id)
        try db.execute(touching.sql, touching.arguments)
    }

    /// The statement that makes a record the user's most recent item (`touch`).
    static func touching(session: Session, object: ObjectDefinition, id: String) -> (sql: String, arguments: [SQLValue]) {
        let now = Int64(Date().timeIntervalSince1970 * 1_000_000)
        return ("INSERT INTO recent(user_id, record_id, object, touched) VALUES (?, ?, ?, ?) ON CONFLICT(user_id, record_id) DO UPDATE SET touched = excluded.touched",
                [.text(session.userId), .text(id), .text(object.name), .int(now)])
    }

    func recentItems(_ db: SQLTransaction, session: Session, object: ObjectDefinition, limit: Int = 200) throws -> [Record] {
        let ids = try db.values(as: String.self, "SELECT record_id FROM recent WHERE user_id = ? AND object = ? ORDER BY touched DESC LIMIT ?", [session.userId, object.name, limit])
        return try ids.compactMap { try read(db, orgId: session.orgId, object: object, id: $0) }
    }
}
