import Foundation

/// The SOSL subset of the REST `search` resource:
/// `FIND {term} [IN ALL|NAME|EMAIL|PHONE FIELDS] [RETURNING Object[(fields [WHERE …] [ORDER BY …] [LIMIT n])], …] [LIMIT n]`.
/// Every word of the term must be found (`*` and `?` are wildcards) in one of the searched fields;
/// a quoted phrase is one word.
struct SOSLQuery {
    enum Scope: String { case all = "ALL", name = "NAME", email = "EMAIL", phone = "PHONE" }

    var words: [String]
    var scope: Scope = .all
    var returning: [SOQLQuery] = []
    var limit: Int?

    static func parse(_ text: String) throws -> SOSLQuery {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.uppercased().hasPrefix("FIND") else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "SOSL must start with FIND") }
        var rest = trimmed.dropFirst(4).drop { $0.isWhitespace }
        guard rest.first == "{" else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "the search term must be enclosed in braces: FIND {term}") }
        rest = rest.dropFirst()
        var term = ""
        var closed = false
        while let c = rest.first {
            rest = rest.dropFirst()
            if c == "\\", let e = rest.first {
                term.append(e)
                rest = rest.dropFirst()
            } else if c == "}" {
                closed = true
                break
            } else {
                term.append(c)
            }
        }
        guard closed else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "missing '}' after the search term") }
        var query = SOSLQuery(words: try Self.words(term))
        var p = SOQLParser.Parser(tokens: try SOQLParser.tokenize(String(rest)))
        if p.isKeyword("IN") {
            p.i += 1
            guard case .word(let w)? = p.peek, let scope = Scope(rawValue: w.uppercased()) else {
                throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "expecting ALL, NAME, EMAIL or PHONE after IN")
            }
            p.i += 1
            query.scope = scope
            try p.keyword("FIELDS")
        }
        if p.isKeyword("RETURNING") {
            p.i += 1
            repeat {
                if p.peek == .symbol(",") { p.i += 1 }
                guard case .word(let object)? = p.peek else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "expecting an object name after RETURNING") }
                p.i += 1
                var sub = SOQLQuery(items: [.field(["Id"])], object: object)
                if p.peek == .symbol("(") {
                    p.i += 1
                    sub.items = [.field(try p.path())]
                    while p.peek == .symbol(",") {
                        p.i += 1
                        sub.items.append(.field(try p.path()))
                    }
                    try p.clauses(&sub)
                    try p.symbol(")")
                }
                query.returning.append(sub)
            } while p.peek == .symbol(",")
        }
        if p.isKeyword("LIMIT") {
            p.i += 1
            query.limit = try p.integer()
        }
        guard p.peek == nil else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "unexpected token: \(p.describe(p.peek))") }
        return query
    }

    static func words(_ term: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var quoted = false
        for c in term {
            if c == "\"" {
                quoted.toggle()
            } else if c.isWhitespace && !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(c)
            }
        }
        if !current.isEmpty { words.append(current) }
        words = words.filter { !["AND", "OR", "AND NOT"].contains($0.uppercased()) }
        guard !words.isEmpty, words.allSatisfy({ $0.replacingOccurrences(of: "*", with: "").count >= 2 }) else {
            throw SalesforceError(.badRequest, "INVALID_SEARCH", "search term must be longer than one character")
        }
        return words
    }

    /// A search word as a LIKE pattern (with `ESCAPE '\'`): SOSL's wildcards `*` and `?` become `%` and `_`;
    /// every `%`, `_` and `\` the user typed is a literal character, so `FIND {%%}` looks for "%%".
    static func likePattern(_ word: String) -> String {
        var pattern = "%"
        for c in word {
            switch c {
            case "%", "_", "\\": pattern += "\\" + String(c)
            case "*": pattern += "%"
            case "?": pattern += "_"
            default: pattern.append(c)
            }
        }
        return pattern + "%"
    }

    func fields(of object: ObjectDefinition) -> [FieldDefinition] {
        switch scope {
        case .all: return object.fields.filter { $0.type.isText }
        case .name:
            let names = Set(([object.nameField].compactMap { $0 } + (object.compoundName ?? [])).map { $0.lowercased() })
            return object.fields.filter { names.contains($0.name.lowercased()) }
        case .email: return object.fields.filter { $0.type == .email }
        case .phone: return object.fields.filter { $0.type == .phone }
        }
    }

    /// `{"searchRecords": [...]}`.
    func run(_ db: SQLTransaction, engine: QueryEngine, session: Session, version: String) throws -> Data {
        let definition = engine.database.definition
        let targets = returning.isEmpty
            ? definition.objects.filter { $0.name != "User" }.map { SOQLQuery(items: [.field(["Id"])], object: $0.name) }
            : returning
        var out: [UInt8] = Array("{\"searchRecords\":[".utf8)
        var remaining = min(limit ?? 2000, 2000)
        var first = true
        for target in targets where remaining > 0 {
            guard let object = definition.object(target.object) else {
                throw SalesforceError(.badRequest, "INVALID_TYPE", "sObject type '\(target.object)' is not supported.")
            }
            let searched = fields(of: object)
            guard !searched.isEmpty else { continue }
            var conditions: [String] = []
            var extra: [SQLArg] = []
            for word in words {
                conditions.append(SOQLCompiler.balanced(searched.map { db.dialect.like("t0.\(OrgDatabase.quote($0.name))", escape: "\\") }, "OR"))
                extra += Array(repeating: .text(Self.likePattern(word)), count: searched.count)
            }
            var compiler = SOQLCompiler(definition: definition, dialect: db.dialect)
            var sub = target
            sub.limit = min(sub.limit ?? remaining, remaining)
            var plan = try compiler.compile(sub, allowSubqueries: false, extraCondition: SOQLCompiler.balanced(conditions, "AND"))
            plan.arguments += extra
            let base = try engine.baseSQL(plan, includeDeleted: false)
            let rows = try db.fetchAll("SELECT \(plan.columns.joined(separator: ", ")) \(base) ORDER BY \(plan.order) LIMIT \(plan.limit ?? remaining) OFFSET \(plan.offset ?? 0)", [session.orgId.sqlValue] + plan.arguments.map(\.sqlValue))
            guard !rows.isEmpty else { continue }
            var buffer: [UInt8] = []
            try engine.records(db, rows: rows, plan: plan, session: session, version: version, into: &buffer)
            if !first { out.append(0x2C) }
            first = false
            out += buffer.dropFirst().dropLast()
            remaining -= rows.count
        }
        out += Array("]}".utf8)
        return Data(out)
    }
}
