import Foundation

/// The subset of SOQL that Mobile Sync sends: a field list, `FROM Contact`, `WHERE` with
/// `AND`/`OR`/`NOT`/parentheses, `= != <> < > <= >= LIKE IN NOT IN`, unquoted datetime literals,
/// `ORDER BY` with `ASC|DESC` and `NULLS FIRST|LAST`, `LIMIT` and `OFFSET`. Anything else is
/// `MALFORMED_QUERY`; an unknown field is `INVALID_FIELD`, as on a real org.
struct SOQLQuery: Sendable {
    enum Value: Sendable, Equatable {
        case null, bool(Bool), number(Double), string(String), dateTime(Date)
    }

    indirect enum Condition: Sendable {
        case and(Condition, Condition)
        case or(Condition, Condition)
        case not(Condition)
        case compare(field: String, op: String, value: Value)
        case inList(field: String, values: [Value], negated: Bool)
        case like(field: String, pattern: String, negated: Bool)
    }

    struct Order: Sendable {
        var field: String
        var ascending: Bool
        var nullsFirst: Bool
    }

    var fields: [String]
    var object: String
    var condition: Condition?
    var orderBy: [Order]
    var limit: Int?
    var offset: Int?
}

struct SOQLError: Error, Sendable {
    var errorCode: String
    var message: String
}

/// The fields of Contact this org knows, by lower-cased name.
enum ContactSchema {
    static let fields = [
        "Id", "FirstName", "LastName", "Name", "Title", "Email", "MobilePhone", "HomePhone", "Department", "CreatedDate",
        "LastModifiedDate", "SystemModstamp", "IsDeleted", "DeviceRecordId__c",
    ]
    static let byLowercase = Dictionary(uniqueKeysWithValues: fields.map { ($0.lowercased(), $0) })
    static let dateTimeFields: Set<String> = ["CreatedDate", "LastModifiedDate", "SystemModstamp"]
    /// Fields a client may write, with their length limits.
    static let writable: [String: Int] = [
        "FirstName": 40, "LastName": 80, "Title": 128, "Email": 80, "MobilePhone": 40, "HomePhone": 40, "Department": 80,
        "DeviceRecordId__c": 64,
    ]
    /// `DeviceRecordId__c`: a custom text field marked External ID and unique, which a sync up can upsert
    /// by (its target's `externalIdFieldName`), so a record sent twice is still one record.
    static let externalIdFields: Set<String> = ["Id", "Email", "DeviceRecordId__c"]

    static func canonical(_ name: String) -> String? { byLowercase[name.lowercased()] }

    static func value(_ record: [String: FieldValue], _ field: String) -> FieldValue {
        if field == "Name" {
            let parts = [record["FirstName"]?.stringValue, record["LastName"]?.stringValue].compactMap { $0 }
            return parts.isEmpty ? .null : .string(parts.joined(separator: " "))
        }
        return record[field] ?? .null
    }
}

enum SOQLParser {
    enum Token: Equatable {
        case word(String)
        case string(String)
        case literal(String)  // numbers and unquoted date/datetime literals
        case symbol(String)
    }

    static func parse(_ text: String) throws -> SOQLQuery {
        var p = Parser(tokens: try tokenize(text), source: text)
        return try p.query()
    }

    static func tokenize(_ text: String) throws -> [Token] {
        var tokens: [Token] = []
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace {
                i += 1
            } else if c == "'" {
                var s = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        s.append(e == "n" ? "\n" : e == "t" ? "\t" : e)
                        i += 2
                    } else if chars[i] == "'" {
                        closed = true
                        i += 1
                        break
                    } else {
                        s.append(chars[i])
                        i += 1
                    }
                }
                guard closed else { throw malformed("unterminated string literal") }
                tokens.append(.string(s))
            } else if c.isNumber || (c == "-" && i + 1 < chars.count && chars[i + 1].isNumber) {
                var s = String(c)
                i += 1
                while i < chars.count, chars[i].isNumber || ".:-+TZ".contains(chars[i]) {
                    s.append(chars[i])
                    i += 1
                }
                tokens.append(.literal(s))
            } else if c.isLetter || c == "_" {
                var s = ""
                while i < chars.count, chars[i].isLetter || chars[i].isNumber || chars[i] == "_" || chars[i] == "." {
                    s.append(chars[i])
                    i += 1
                }
                tokens.append(.word(s))
            } else if "<>!".contains(c), i + 1 < chars.count, chars[i + 1] == "=" || (c == "<" && chars[i + 1] == ">") {
                tokens.append(.symbol(String([c, chars[i + 1]])))
                i += 2
            } else if ",()=<>".contains(c) {
                tokens.append(.symbol(String(c)))
                i += 1
            } else {
                throw malformed("unexpected character '\(c)'")
            }
        }
        return tokens
    }

    static func malformed(_ detail: String) -> SOQLError {
        SOQLError(errorCode: "MALFORMED_QUERY", message: detail)
    }

    struct Parser {
        let tokens: [Token]
        let source: String
        var i = 0

        init(tokens: [Token], source: String) {
            self.tokens = tokens
            self.source = source
        }

        var peek: Token? { i < tokens.count ? tokens[i] : nil }

        func isKeyword(_ word: String) -> Bool {
            if case .word(let w)? = peek { return w.uppercased() == word }
            return false
        }

        mutating func keyword(_ word: String) throws {
            guard isKeyword(word) else { throw SOQLParser.malformed("expecting \(word) near \(describe(peek))") }
            i += 1
        }

        mutating func symbol(_ s: String) throws {
            guard peek == .symbol(s) else { throw SOQLParser.malformed("expecting '\(s)' near \(describe(peek))") }
            i += 1
        }

        func describe(_ token: Token?) -> String {
            switch token {
            case nil: return "end of query"
            case .word(let w)?: return "'\(w)'"
            case .string(let s)?: return "'\(s)'"
            case .literal(let l)?: return "'\(l)'"
            case .symbol(let s)?: return "'\(s)'"
            }
        }

        static let reserved: Set<String> = [
            "SELECT", "FROM", "WHERE", "ORDER", "BY", "LIMIT", "OFFSET", "AND", "OR", "NOT", "IN", "LIKE", "GROUP", "HAVING", "ASC", "DESC",
        ]

        mutating func field() throws -> String { try Self.canonical(try rawField()) }

        /// A field name as written; checked against the object once the FROM clause has named it.
        mutating func rawField() throws -> String {
            guard case .word(let w)? = peek, !Self.reserved.contains(w.uppercased()) else {
                throw SOQLParser.malformed("unexpected token: \(describe(peek))")
            }
            i += 1
            if peek == .symbol("(") {
                throw SOQLParser.malformed("\(w)(): aggregate and other functions are outside the SOQL subset this org supports")
            }
            return w
        }

        static func canonical(_ w: String) throws -> String {
            guard let canonical = ContactSchema.canonical(w) else {
                throw SOQLError(
                    errorCode: "INVALID_FIELD",
                    message: "No such column '\(w)' on entity 'Contact'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name.")
            }
            return canonical
        }

        mutating func query() throws -> SOQLQuery {
            try keyword("SELECT")
            var written = [try rawField()]
            while peek == .symbol(",") {
                i += 1
                written.append(try rawField())
            }
            try keyword("FROM")
            guard case .word(let object)? = peek else { throw SOQLParser.malformed("expecting an object name") }
            i += 1
            guard object.lowercased() == "contact" else {
                throw SOQLError(errorCode: "INVALID_TYPE", message: "sObject type '\(object)' is not supported.")
            }
            let fields = try written.map(Self.canonical)
            var query = SOQLQuery(fields: fields, object: "Contact", condition: nil, orderBy: [], limit: nil, offset: nil)
            if isKeyword("WHERE") {
                i += 1
                query.condition = try orExpression()
            }
            if isKeyword("ORDER") {
                i += 1
                try keyword("BY")
                repeat {
                    if peek == .symbol(",") { i += 1 }
                    let f = try field()
                    var ascending = true
                    if isKeyword("ASC") { i += 1 } else if isKeyword("DESC") { i += 1; ascending = false }
                    var nullsFirst = ascending
                    if isKeyword("NULLS") {
                        i += 1
                        if isKeyword("FIRST") { nullsFirst = true } else if isKeyword("LAST") { nullsFirst = false } else {
                            throw SOQLParser.malformed("expecting FIRST or LAST after NULLS")
                        }
                        i += 1
                    }
                    query.orderBy.append(.init(field: f, ascending: ascending, nullsFirst: nullsFirst))
                } while peek == .symbol(",")
            }
            if isKeyword("LIMIT") {
                i += 1
                query.limit = try integer()
            }
            if isKeyword("OFFSET") {
                i += 1
                query.offset = try integer()
            }
            guard peek == nil else { throw SOQLParser.malformed("unexpected token: \(describe(peek))") }
            return query
        }

        mutating func integer() throws -> Int {
            guard case .literal(let l)? = peek, let n = Int(l), n >= 0 else {
                throw SOQLParser.malformed("expecting a non-negative integer near \(describe(peek))")
            }
            i += 1
            return n
        }

        mutating func orExpression() throws -> SOQLQuery.Condition {
            var left = try andExpression()
            while isKeyword("OR") {
                i += 1
                left = .or(left, try andExpression())
            }
            return left
        }

        mutating func andExpression() throws -> SOQLQuery.Condition {
            var left = try unary()
            while isKeyword("AND") {
                i += 1
                left = .and(left, try unary())
            }
            return left
        }

        mutating func unary() throws -> SOQLQuery.Condition {
            if isKeyword("NOT") {
                i += 1
                return .not(try unary())
            }
            if peek == .symbol("(") {
                i += 1
                let inner = try orExpression()
                try symbol(")")
                return inner
            }
            let f = try field()
            var negated = false
            if isKeyword("NOT") {
                i += 1
                negated = true
            }
            if isKeyword("IN") {
                i += 1
                try symbol("(")
                var values = [try value(for: f)]
                while peek == .symbol(",") {
                    i += 1
                    values.append(try value(for: f))
                }
                try symbol(")")
                return .inList(field: f, values: values, negated: negated)
            }
            if isKeyword("LIKE") {
                i += 1
                guard case .string(let pattern)? = peek else { throw SOQLParser.malformed("LIKE needs a quoted pattern") }
                i += 1
                return .like(field: f, pattern: pattern, negated: negated)
            }
            guard !negated else { throw SOQLParser.malformed("expecting IN or LIKE after NOT") }
            guard case .symbol(let op)? = peek, ["=", "!=", "<>", "<", ">", "<=", ">="].contains(op) else {
                throw SOQLParser.malformed("expecting a comparison operator near \(describe(peek))")
            }
            i += 1
            return .compare(field: f, op: op == "<>" ? "!=" : op, value: try value(for: f))
        }

        mutating func value(for field: String) throws -> SOQLQuery.Value {
            let isDateTime = ContactSchema.dateTimeFields.contains(field)
            switch peek {
            case .string(let s)?:
                i += 1
                if isDateTime {
                    throw SOQLParser.malformed(
                        "value of filter criterion for field '\(field)' must be of type dateTime and should not be enclosed in quotes")
                }
                return .string(s)
            case .literal(let l)?:
                i += 1
                if isDateTime {
                    guard let date = SalesforceDate.parse(l) else { throw SOQLParser.malformed("invalid date/time: \(l)") }
                    return .dateTime(date)
                }
                guard let n = Double(l) else { throw SOQLParser.malformed("invalid number: \(l)") }
                return .number(n)
            case .word(let w)? where ["TRUE", "FALSE", "NULL"].contains(w.uppercased()):
                i += 1
                switch w.uppercased() {
                case "TRUE": return .bool(true)
                case "FALSE": return .bool(false)
                default: return .null
                }
            default:
                throw SOQLParser.malformed("expecting a value near \(describe(peek))")
            }
        }
    }
}

extension SOQLQuery {
    /// The matching records, ordered, with OFFSET and LIMIT applied.
    func run(on records: [[String: FieldValue]]) -> [[String: FieldValue]] {
        var rows = records.filter { record in condition.map { Self.evaluate($0, record) } ?? true }
        if !orderBy.isEmpty {
            // Sort keys are computed once per row: parsing datetimes inside the comparator made a
            // 1,000-row ORDER BY cost ~10 ms.
            let keyed = rows.map { row in (row, orderBy.map { SortKey(ContactSchema.value(row, $0.field), field: $0.field) }) }
            rows = keyed.sorted { a, b in
                for (k, order) in orderBy.enumerated() {
                    let c = SortKey.compare(a.1[k], b.1[k], nullsFirst: order.nullsFirst)
                    if c != 0 { return order.ascending ? c < 0 : c > 0 }
                }
                return false
            }.map(\.0)
        }
        if let offset { rows = Array(rows.dropFirst(offset)) }
        if let limit { rows = Array(rows.prefix(limit)) }
        return rows
    }

    static func evaluate(_ condition: Condition, _ record: [String: FieldValue]) -> Bool {
        switch condition {
        case .and(let a, let b): return evaluate(a, record) && evaluate(b, record)
        case .or(let a, let b): return evaluate(a, record) || evaluate(b, record)
        case .not(let c): return !evaluate(c, record)
        case .compare(let field, let op, let value):
            let actual = ContactSchema.value(record, field)
            if value == .null {
                return op == "=" ? actual == .null : op == "!=" ? actual != .null : false
            }
            if actual == .null { return op == "!=" }
            guard let c = compare(actual, value, field: field) else { return false }
            switch op {
            case "=": return c == 0
            case "!=": return c != 0
            case "<": return c < 0
            case ">": return c > 0
            case "<=": return c <= 0
            default: return c >= 0
            }
        case .inList(let field, let values, let negated):
            let actual = ContactSchema.value(record, field)
            let found = values.contains { v in v == .null ? actual == .null : compare(actual, v, field: field) == 0 }
            return negated ? !found : found
        case .like(let field, let pattern, let negated):
            guard case .string(let s) = ContactSchema.value(record, field) else { return negated }
            let matched = like(s.lowercased(), pattern.lowercased())
            return negated ? !matched : matched
        }
    }

    /// Field value against a literal; text compares case-insensitively, as SOQL does.
    static func compare(_ actual: FieldValue, _ value: Value, field: String) -> Int? {
        switch (actual, value) {
        case (.string(let s), .dateTime(let d)):
            guard let a = SalesforceDate.parse(s) else { return nil }
            return a < d ? -1 : a > d ? 1 : 0
        case (.string(let s), .string(let t)):
            let a = s.lowercased(), b = t.lowercased()
            return a < b ? -1 : a > b ? 1 : 0
        case (.bool(let a), .bool(let b)):
            return a == b ? 0 : (a ? 1 : -1)
        case (.int(let a), .number(let b)):
            return Double(a) < b ? -1 : Double(a) > b ? 1 : 0
        case (.double(let a), .number(let b)):
            return a < b ? -1 : a > b ? 1 : 0
        default:
            return nil
        }
    }

    /// A field value ready to compare: datetimes as instants, text lower-cased (SOQL sorts case-insensitively).
    enum SortKey {
        case null, number(Double), text(String), bool(Bool)

        init(_ value: FieldValue, field: String) {
            switch value {
            case .null: self = .null
            case .bool(let b): self = .bool(b)
            case .int(let i): self = .number(Double(i))
            case .double(let d): self = .number(d)
            case .string(let s):
                if ContactSchema.dateTimeFields.contains(field), let date = SalesforceDate.parse(s) {
                    self = .number(date.timeIntervalSince1970)
                } else {
                    self = .text(s.lowercased())
                }
            }
        }

        static func compare(_ a: SortKey, _ b: SortKey, nullsFirst: Bool) -> Int {
            switch (a, b) {
            case (.null, .null): return 0
            case (.null, _): return nullsFirst ? -1 : 1
            case (_, .null): return nullsFirst ? 1 : -1
            case (.number(let x), .number(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.text(let x), .text(let y)): return x < y ? -1 : x > y ? 1 : 0
            case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
            default: return 0
            }
        }
    }

    static func compare(_ a: FieldValue, _ b: FieldValue, field: String, nullsFirst: Bool) -> Int {
        switch (a, b) {
        case (.null, .null): return 0
        case (.null, _): return nullsFirst ? -1 : 1
        case (_, .null): return nullsFirst ? 1 : -1
        case (.string(let x), .string(let y)):
            if ContactSchema.dateTimeFields.contains(field), let dx = SalesforceDate.parse(x), let dy = SalesforceDate.parse(y) {
                return dx < dy ? -1 : dx > dy ? 1 : 0
            }
            let lx = x.lowercased(), ly = y.lowercased()
            return lx < ly ? -1 : lx > ly ? 1 : 0
        case (.bool(let x), .bool(let y)): return x == y ? 0 : (x ? 1 : -1)
        default: return 0
        }
    }

    /// SOQL LIKE: `%` any run, `_` one character.
    static func like(_ s: String, _ pattern: String) -> Bool {
        let text = Array(s), pat = Array(pattern)
        var memo = [Int: Bool]()
        func match(_ i: Int, _ j: Int) -> Bool {
            let key = i * (pat.count + 1) + j
            if let m = memo[key] { return m }
            let result: Bool
            if j == pat.count {
                result = i == text.count
            } else if pat[j] == "%" {
                result = match(i, j + 1) || (i < text.count && match(i + 1, j))
            } else if i < text.count && (pat[j] == "_" || pat[j] == text[i]) {
                result = match(i + 1, j + 1)
            } else {
                result = false
            }
            memo[key] = result
            return result
        }
        return match(0, 0)
    }
}
