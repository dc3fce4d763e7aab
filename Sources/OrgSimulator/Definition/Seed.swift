import Foundation

/// A CSV file to load into an object of one org (`sf-simulator --csv [ORG:]OBJECT=FILE`).
package struct CSVSource: Sendable, Equatable {
    package var org: String?
    package var object: String
    package var path: String

    package init(org: String? = nil, object: String, path: String) {
        self.org = org
        self.object = object
        self.path = path
    }

    /// `[ORG:]OBJECT=FILE`.
    package init?(argument: String) {
        guard let eq = argument.firstIndex(of: "=") else { return nil }
        let target = argument[..<eq]
        path = String(argument[argument.index(after: eq)...])
        if let colon = target.firstIndex(of: ":") {
            org = String(target[..<colon])
            object = String(target[target.index(after: colon)...])
        } else {
            org = nil
            object = String(target)
        }
        guard !object.isEmpty, !path.isEmpty else { return nil }
    }
}

/// Fills a new org: its users, the seeded records of each object in the order of `objects.json`
/// (today's Acme and Globex contacts exactly as before), then the CSV files, whose references are
/// checked once everything is loaded.
struct Seeder {
    let database: OrgDatabase
    let records: RecordStore
    /// How many arguments one INSERT of seeded rows carries at most (`RecordStore.insertRows`).
    var argumentsPerInsert = RecordStore.argumentsPerInsert
    var definition: OrgDefinition { database.definition }

    func seed(_ db: SQLTransaction, csv: [CSVSource]) throws {
        var loaded: [(org: OrgFixture.Org, object: ObjectDefinition, source: CSVSource)] = []
        for source in csv {
            guard let object = definition.object(source.object) else {
                throw OrgSimulatorError.fixture("--csv \(source.object)=\(source.path): '\(source.object)' is not an object of this org (objects.json)")
            }
            let org: OrgFixture.Org?
            if let name = source.org {
                org = definition.orgs.first { $0.name.lowercased() == name.lowercased() || $0.id == name }
            } else {
                org = definition.orgs.first
            }
            guard let org else { throw OrgSimulatorError.fixture("--csv \(source.org ?? ""):\(source.object): no org named '\(source.org ?? "")' in orgs.json") }
            loaded.append((org, object, source))
        }
        for (orgIndex, org) in definition.orgs.enumerated() {
            var ids: [String: [String]] = [:]
            var users: [String] = []
            if let userObject = definition.object("User") {
                var rows: [Record] = []
                for user in org.users {
                    let names = user.displayName.split(separator: " ", maxSplits: 1).map(String.init)
                    var record: Record = ["Id": .string(user.id), "Username": .string(user.username), "Email": .string(user.email)]
                    if userObject.field("FirstName") != nil { record["FirstName"] = names.count > 1 ? .string(names[0]) : .null }
                    if userObject.field("LastName") != nil { record["LastName"] = .string(names.last ?? user.username) }
                    if userObject.field("IsActive") != nil { record["IsActive"] = .bool(true) }
                    let created = SalesforceDate.string(definition.referenceDate.addingTimeInterval(-400 * 86400))
                    record["CreatedDate"] = .string(created)
                    record["LastModifiedDate"] = .string(created)
                    rows.append(try records.completed(db, orgId: org.id, object: userObject, record: record.filter { userObject.field($0.key) != nil }, userId: user.id))
                    users.append(user.id)
                }
                try records.insertRows(db, orgId: org.id, object: userObject, rows, argumentsPerInsert: argumentsPerInsert)
            }
            ids["user"] = users
            for object in definition.objects where object.name != "User" {
                if loaded.contains(where: { $0.org.id == org.id && $0.object.name == object.name }) { continue }
                var generator = FixtureGenerator(seed: definition.seed ^ Self.hash(object.name + org.id))
                var made: [String] = []
                var rows: [Record] = []
                // Fills the fields a row does not have yet; the object's rows are inserted together below.
                func finish(_ row: Record, index: Int) throws {
                    var row = row
                    for field in object.fields where row[field.name] == nil && field.isCreateable && !(field.noSeed ?? false) {
                        if (field.isExternalId || field.isUnique) && !field.isRequired { continue }
                        if let value = try generator.value(for: field, object: object, org: org, index: index, ids: ids, reference: definition.referenceDate) {
                            row[field.name] = value
                        }
                    }
                    if row["OwnerId"] == nil, !users.isEmpty { row["OwnerId"] = .string(users[Int(generator.next() % UInt64(users.count))]) }
                    let completed = try records.completed(db, orgId: org.id, object: object, record: row, userId: users.first ?? "")
                    rows.append(completed)
                    made.append(completed["Id"]!.stringValue!)
                }
                if object.name == "Contact" {
                    // Today's contacts, from the same stream as before: same names, ids and dates.
                    var legacy = FixtureGenerator(seed: definition.seed)
                    for previous in definition.orgs.prefix(orgIndex) {
                        legacy.contacts(org: previous, orgIndex: 0, reference: definition.referenceDate) { _ in }
                    }
                    var index = 0
                    try legacy.contacts(org: org, orgIndex: orgIndex, reference: definition.referenceDate) { row in
                        index += 1
                        try finish(row.filter { object.field($0.key) != nil }, index: index)
                    }
                } else {
                    let count = object.seedCounts[org.name] ?? object.seedCounts["*"] ?? 0
                    for (i, dates) in generator.dated(count: count, reference: definition.referenceDate).enumerated() {
                        try finish([
                            "Id": .string(SalesforceID.make(prefix: object.keyPrefix, number: orgIndex * 1_000_000 + i + 1)),
                            "CreatedDate": .string(SalesforceDate.string(dates.created)),
                            "LastModifiedDate": .string(SalesforceDate.string(dates.modified)),
                        ], index: i + 1)
                    }
                }
                try records.insertRows(db, orgId: org.id, object: object, rows, argumentsPerInsert: argumentsPerInsert)
                let count = made.count
                ids[object.name.lowercased()] = made
                if count > 0 {
                    try database.advanceIds(db, orgIndex: orgIndex, object: object, to: orgIndex * 1_000_000 + count + 1)
                }
            }
        }
        var references: [CSVLoader.PendingReference] = []
        for item in loaded {
            references += try CSVLoader(records: records).load(db, source: item.source, org: item.org, object: item.object)
        }
        for ref in references {
            let targets = ref.field.referenceTo.compactMap { definition.object($0) }.filter { ref.value.hasPrefix($0.keyPrefix) }
            var found = false
            for target in targets where try db.value(as: Int.self, "SELECT 1 FROM \(OrgDatabase.quote(target.table)) WHERE \"Id\" = ? AND org_id = ?", [ref.value, ref.orgId]) != nil
            {
                found = true
            }
            if !found {
                throw OrgSimulatorError.fixture(
                    "\(ref.file):\(ref.line):\(ref.column): \(ref.field.name) = \(CSVLoader.quote(ref.value)) refers to no \(ref.field.referenceTo.joined(separator: " or ")) record of this org; load that object's CSV too, or leave the column out")
            }
        }
        try database.setMeta(db, "seeded", SalesforceDate.string(Date()))
        // PostgreSQL plans from statistics that autovacuum gathers a minute or more later. A table that has none
        // yet looks empty, and a query then walks the wrong index (the widget's three most recent contacts took
        // 12 ms, sorting the whole org, where it takes 0.1 ms). SQLite plans without them.
        if db.dialect == .postgres {
            for object in definition.objects { try db.execute("ANALYZE \(OrgDatabase.quote(object.table))") }
        }
    }

    static func hash(_ s: String) -> UInt64 {
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in s.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01B3
        }
        return h
    }
}

extension FixtureGenerator {
    /// Creation and modification dates spread over the year before `reference`, oldest first, so that
    /// insertion order is LastModifiedDate order as in the contacts.
    mutating func dated(count: Int, reference: Date) -> [(created: Date, modified: Date)] {
        let yearMs: UInt64 = 365 * 24 * 3600 * 1000
        var ages: [UInt64] = (0..<count).map { _ in next() % yearMs }
        ages.sort(by: >)
        return ages.map { age in
            let modified = reference.addingTimeInterval(-Double(age) / 1000)
            return (modified.addingTimeInterval(-Double(next() % (30 * 24 * 3600))), modified)
        }
    }

    mutating func value(
        for field: FieldDefinition, object: ObjectDefinition, org: OrgFixture.Org, index: Int, ids: [String: [String]], reference: Date
    ) throws -> FieldValue? {
        if !field.isRequired, next() % 100 < 15 { return nil }
        if let samples = field.samples, !samples.isEmpty { return .string(String(pick(samples).prefix(field.effectiveLength))) }
        let slug = org.name.lowercased()
        switch field.type {
        case .id: return nil
        case .string:
            let base = field.name == object.nameField ? object.label : field.displayLabel
            return .string(String("\(base) \(index)".prefix(field.effectiveLength)))
        case .textarea: return .string("Notes on \(object.label.lowercased()) \(index) of \(org.name).")
        case .email: return .string("\(object.name.lowercased().replacingOccurrences(of: "__c", with: ""))\(index)@\(slug).example")
        case .phone: return .string(String(format: "+1 415 555 %04d", Int(next() % 10_000)))
        case .url: return .string("https://www.\(slug).example/\(object.name.lowercased())/\(index)")
        case .picklist: return .string(pick(field.picklistValues ?? [""]))
        case .boolean: return .bool(next() % 2 == 0)
        case .int:
            let lo = Int(field.min ?? 1), hi = Int(field.max ?? 1000)
            return .int(lo + Int(next() % UInt64(max(1, hi - lo + 1))))
        case .double, .currency, .percent:
            let lo = field.min ?? (field.type == .currency ? 1000 : 0), hi = field.max ?? (field.type == .currency ? 500_000 : 100)
            let unit = Double(next() % 1_000_001) / 1_000_000
            return .double(((lo + (hi - lo) * unit) * 100).rounded() / 100)
        case .date:
            let lo = Int(field.min ?? -180), hi = Int(field.max ?? 180)
            let days = lo + Int(next() % UInt64(max(1, hi - lo + 1)))
            return .string(SalesforceDate.dateString(reference.addingTimeInterval(Double(days) * 86400)))
        case .datetime:
            let lo = field.min ?? -365, hi = field.max ?? 0
            let seconds = (lo + (hi - lo) * Double(next() % 1_000_001) / 1_000_000) * 86400
            return .string(SalesforceDate.string(reference.addingTimeInterval(seconds.rounded())))
        case .reference:
            for target in field.referenceTo {
                if let pool = ids[target.lowercased()], !pool.isEmpty { return .string(pick(pool)) }
            }
            if field.isRequired {
                throw OrgSimulatorError.fixture(
                    "objects.json: \(object.name).\(field.name) is required and refers to \(field.referenceTo.joined(separator: "/")), which has no records in org \(org.name) yet; seed that object first (earlier in the file)")
            }
            return nil
        }
    }
}

/// RFC 4180 CSV, as the Salesforce CLI writes a query with `--result-format csv`: a header of field
/// API names, quoted cells with `""` escapes, CRLF or LF. An empty cell is null.
struct CSVLoader {
    let records: RecordStore

    struct PendingReference {
        var file: String
        var line: Int
        var column: Int
        var orgId: String
        var field: FieldDefinition
        var value: String
    }

    /// How much of a cell an error quotes: a CSV cell may be megabytes, an error is one line.
    static let quotedCellLimit = 200

    /// A cell's text for an error message: at most `quotedCellLimit` characters, then how long it really is.
    static func quote(_ cell: String) -> String {
        cell.count <= quotedCellLimit ? cell : String(cell.prefix(quotedCellLimit)) + "… (\(cell.count) characters)"
    }

    /// Rows of cells, each with the line it starts on.
    static func parse(_ text: String, file: String) throws -> [(line: Int, cells: [String])] {
        var rows: [(Int, [String])] = []
        var cells: [String] = []
        var cell = ""
        var quoted = false
        var line = 1
        var rowLine = 1
        var chars = Array(text.unicodeScalars)
        if chars.first == "\u{FEFF}" { chars.removeFirst() }
        var i = 0
        var cellStarted = false
        while i < chars.count {
            let c = chars[i]
            if quoted {
                if c == "\"" {
                    if i + 1 < chars.count, chars[i + 1] == "\"" {
                        cell.unicodeScalars.append("\"")
                        i += 1
                    } else {
                        quoted = false
                    }
                } else {
                    if c == "\n" { line += 1 }
                    cell.unicodeScalars.append(c)
                }
            } else if c == "\"" {
                guard !cellStarted || cell.isEmpty else {
                    throw OrgSimulatorError.fixture("\(file):\(line):\(cells.count + 1): a quote inside an unquoted cell; quote the whole cell and double the quote")
                }
                quoted = true
                cellStarted = true
            } else if c == "," {
                cells.append(cell)
                cell = ""
                cellStarted = false
            } else if c == "\n" || c == "\r" {
                if c == "\r", i + 1 < chars.count, chars[i + 1] == "\n" { i += 1 }
                cells.append(cell)
                if !(cells.count == 1 && cells[0].isEmpty) { rows.append((rowLine, cells)) }
                cells = []
                cell = ""
                cellStarted = false
                line += 1
                rowLine = line
            } else {
                cell.unicodeScalars.append(c)
                cellStarted = true
            }
            i += 1
        }
        guard !quoted else { throw OrgSimulatorError.fixture("\(file):\(rowLine): a quoted cell is not closed") }
        if cellStarted || !cells.isEmpty {
            cells.append(cell)
            rows.append((rowLine, cells))
        }
        return rows
    }

    func load(_ db: SQLTransaction, source: CSVSource, org: OrgFixture.Org, object: ObjectDefinition) throws -> [PendingReference] {
        let file = source.path
        guard let data = FileManager.default.contents(atPath: file) else { throw OrgSimulatorError.fixture("\(file): cannot read the CSV file") }
        guard let text = String(data: data, encoding: .utf8) else { throw OrgSimulatorError.fixture("\(file): not UTF-8 text") }
        let rows = try Self.parse(text, file: file)
        guard let header = rows.first else { throw OrgSimulatorError.fixture("\(file): empty; the first line names the fields") }
        var fields: [FieldDefinition] = []
        for (c, name) in header.cells.enumerated() {
            let trimmed = name.trimmingCharacters(in: .whitespaces)
            if trimmed.contains(".") {
                throw OrgSimulatorError.fixture(
                    "\(file):\(header.line):\(c + 1): '\(Self.quote(trimmed))' is a relationship column; load the parent object from its own CSV and keep the id field (e.g. AccountId)")
            }
            guard let field = object.field(trimmed) else {
                throw OrgSimulatorError.fixture("\(file):\(header.line):\(c + 1): '\(Self.quote(trimmed))' is not a field of \(object.name) (objects.json)")
            }
            guard !fields.contains(where: { $0.name == field.name }) else {
                throw OrgSimulatorError.fixture("\(file):\(header.line):\(c + 1): column \(field.name) appears twice")
            }
            fields.append(field)
        }
        let firstUser = org.users.first?.id ?? ""
        var pending: [PendingReference] = []
        var seen = Set<String>()
        for row in rows.dropFirst() {
            guard row.cells.count == fields.count else {
                throw OrgSimulatorError.fixture("\(file):\(row.line): \(row.cells.count) cells where the header has \(fields.count)")
            }
            var record: Record = [:]
            for (c, field) in fields.enumerated() {
                let cell = row.cells[c]
                if cell.isEmpty { continue }
                switch FieldCoding.check(.string(cell), field, object: object.name) {
                case .failure(let e):
                    throw OrgSimulatorError.fixture("\(file):\(row.line):\(c + 1): \(field.name): '\(Self.quote(cell))' is not a valid \(field.type.rawValue) (\(Self.quote(e.message)))")
                case .success(let value):
                    record[field.name] = value
                    if field.type == .reference, case .string(let id) = value {
                        pending.append(PendingReference(file: file, line: row.line, column: c + 1, orgId: org.id, field: field, value: id))
                    }
                }
            }
            if case .string(let id)? = record["Id"] {
                guard id.hasPrefix(object.keyPrefix) else {
                    throw OrgSimulatorError.fixture("\(file):\(row.line): Id \(Self.quote(id)) is not an id of \(object.name) (its key prefix is \(object.keyPrefix))")
                }
                guard seen.insert(id).inserted, try db.value(as: Int.self, "SELECT 1 FROM \(OrgDatabase.quote(object.table)) WHERE \"Id\" = ?", [id]) == nil else {
                    throw OrgSimulatorError.fixture("\(file):\(row.line): Id \(Self.quote(id)) appears twice")
                }
            }
            let missing = object.fields.filter { $0.isRequired && $0.isCreateable && record[$0.name] == nil }.map(\.name)
            if !missing.isEmpty {
                throw OrgSimulatorError.fixture("\(file):\(row.line): required field(s) missing: \(missing.joined(separator: ", "))")
            }
            try records.insert(db, orgId: org.id, object: object, record: record, userId: firstUser)
        }
        return pending
    }
}
