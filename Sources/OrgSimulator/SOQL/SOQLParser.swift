import Foundation

/// A SOQL query as written: the select list (fields and parent paths such as `Account.Owner.Name`,
/// `COUNT()` / `COUNT(field)`, one level of child subquery), `FROM`, `WHERE` with `AND`/`OR`/`NOT`,
/// comparisons, `IN`, `LIKE`, `NULL` and date literals, `ORDER BY` several fields with
/// `NULLS FIRST|LAST`, `LIMIT` and `OFFSET`. Names are checked against the org by `SOQLCompiler`.
struct SOQLQuery: Sendable {
    enum Item: Sendable {
        case field([String])
        case count(field: [String]?, alias: String?)
        case subquery(SOQLQuery)
    }

    enum Value: Sendable, Equatable {
        case null, bool(Bool)
        /// Numbers, dates and datetimes, unquoted, as written.
        case literal(String)
        case string(String)
        /// `TODAY`, `LAST_N_DAYS:7`, …
        case dateLiteral(String, Int?)
    }

    /// `and` and `or` hold a whole chain (`a AND b AND c` is one node of three), so a chain of any length is
    /// flat: only parentheses and `NOT` nest, and the parser bounds that nesting.
    indirect enum Condition: Sendable {
        case and([Condition])
        case or([Condition])
        case not(Condition)
        case compare(path: [String], op: String, value: Value)
        case inList(path: [String], values: [Value], negated: Bool)
        case like(path: [String], pattern: String, negated: Bool)
    }

    struct Order: Sendable {
        var path: [String]
        var ascending: Bool
        var nullsFirst: Bool
    }

    var items: [Item]
    var object: String
    var condition: Condition?
    var orderBy: [Order] = []
    var limit: Int?
    var offset: Int?
}

enum SOQLParser {
    enum Token: Equatable {
        case word(String)
        case string(String)
        case literal(String)  // numbers and unquoted date/datetime literals
        case symbol(String)
    }

    /// Salesforce's limit on a SOQL statement's length.
    static let maxLength = 100_000
    /// How deep parentheses, `NOT` and subqueries may nest. Past it, one `MALFORMED_QUERY`: the parser
    /// recurses once per level, and so does the SQL it compiles to, whose depth SQLite also bounds.
    static let maxNesting = 32

    static func parse(_ text: String) throws -> SOQLQuery {
        guard text.utf8.count <= maxLength else { throw malformed("SOQL statements cannot be longer than \(maxLength) characters") }
        let (tokens, patterns) = try tokenizeWithPatterns(text)
        var p = Parser(tokens: tokens, patterns: patterns)
        let query = try p.query()
        guard p.peek == nil else { throw malformed("unexpected token: \(p.describe(p.peek))") }
        return query
    }

    static func tokenize(_ text: String) throws -> [Token] { try tokenizeWithPatterns(text).tokens }

    /// The tokens, and for each quoted string (by its token's index) its form as a LIKE pattern with `\` as the
    /// escape: SOQL's `\%` and `\_` are a literal `%` and `_` there (Salesforce's documented escapes), and a
    /// backslash is `\\`; everywhere else a string is its decoded value.
    static func tokenizeWithPatterns(_ text: String) throws -> (tokens: [Token], patterns: [Int: String]) {
        // A NUL would be stored and compared differently by each backend: no SOQL holds one.
        guard !text.utf8.contains(0) else { throw malformed("the query holds a NUL character (U+0000)") }
        var tokens: [Token] = []
        var patterns: [Int: String] = [:]
        let chars = Array(text)
        var i = 0
        while i < chars.count {
            let c = chars[i]
            if c.isWhitespace {
                i += 1
            } else if c == "'" {
                var s = ""
                var pattern = ""
                i += 1
                var closed = false
                while i < chars.count {
                    if chars[i] == "\\", i + 1 < chars.count {
                        let e = chars[i + 1]
                        let decoded: Character = e == "n" ? "\n" : e == "t" ? "\t" : e
                        s.append(decoded)
                        switch e {
                        case "%", "_", "\\": pattern += "\\" + String(e)
                        default: pattern.append(decoded)
                        }
                        i += 2
                    } else if chars[i] == "'" {
                        closed = true
                        i += 1
                        break
                    } else {
                        s.append(chars[i])
                        pattern.append(chars[i])
                        i += 1
                    }
                }
                guard closed else { throw malformed("unterminated string literal") }
                patterns[tokens.count] = pattern
                tokens.append(.string(s))
            } else if c.isASCII && c.isNumber || (c == "-" && i + 1 < chars.count && chars[i + 1].isASCII && chars[i + 1].isNumber) {
                var s = String(c)
                i += 1
                while i < chars.count, chars[i].isASCII && chars[i].isNumber || ".:-+TZ".contains(chars[i]) {
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
                // Date literals with a number: LAST_N_DAYS:30.
                if i + 1 < chars.count, chars[i] == ":", chars[i + 1].isASCII, chars[i + 1].isNumber {
                    s.append(":")
                    i += 1
                    while i < chars.count, chars[i].isASCII, chars[i].isNumber {
                        s.append(chars[i])
                        i += 1
                    }
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
        return (tokens, patterns)
    }

    static func malformed(_ detail: String) -> SalesforceError { .malformedQuery(detail) }

    static let dateLiterals: Set<String> = [
        "YESTERDAY", "TODAY", "TOMORROW", "LAST_WEEK", "THIS_WEEK", "NEXT_WEEK", "LAST_MONTH", "THIS_MONTH", "NEXT_MONTH",
        "LAST_90_DAYS", "NEXT_90_DAYS", "THIS_YEAR", "LAST_YEAR", "NEXT_YEAR",
    ]
    static let dateLiteralsWithN: Set<String> = ["LAST_N_DAYS", "NEXT_N_DAYS", "N_DAYS_AGO", "LAST_N_WEEKS", "NEXT_N_WEEKS", "LAST_N_MONTHS", "NEXT_N_MONTHS"]

    struct Parser {
        let tokens: [Token]
        /// Each quoted string's LIKE form, by token index (`tokenizeWithPatterns`).
        var patterns: [Int: String] = [:]
        var i = 0
        var depth = 0

        /// Enters one level of nesting (a parenthesis, a NOT, a subquery); refused past `maxNesting`.
        mutating func nest() throws {
            depth += 1
            guard depth <= SOQLParser.maxNesting else {
                throw SOQLParser.malformed("the query nests parentheses, NOT or subqueries deeper than \(SOQLParser.maxNesting) levels")
            }
        }

        init(tokens: [Token], patterns: [Int: String] = [:]) {
            self.tokens = tokens
            self.patterns = patterns
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
            "NULLS", "FOR", "WITH", "USING", "RETURNING", "FIND",
        ]

        /// A field or a relationship path, as written (`Account.Owner.Name` → three names).
        mutating func path() throws -> [String] {
            guard case .word(let w)? = peek, !Self.reserved.contains(w.uppercased()) else {
                throw SOQLParser.malformed("unexpected token: \(describe(peek))")
            }
            i += 1
            if peek == .symbol("(") {
                throw SOQLParser.malformed("\(w)(): only COUNT() and COUNT(field) are in the SOQL this org supports")
            }
            let parts = w.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard !parts.contains(where: \.isEmpty), parts.count <= 6 else { throw SOQLParser.malformed("'\(w)' is not a field or a relationship path") }
            return parts
        }

        mutating func selectItem() throws -> SOQLQuery.Item {
            if peek == .symbol("(") {
                i += 1
                try nest()
                let inner = try query()
                try symbol(")")
                depth -= 1
                return .subquery(inner)
            }
            if case .word(let w)? = peek, w.uppercased() == "COUNT", i + 1 < tokens.count, tokens[i + 1] == .symbol("(") {
                i += 2
                var field: [String]?
                if peek != .symbol(")") { field = try path() }
                try symbol(")")
                var alias: String?
                if case .word(let a)? = peek, !Self.reserved.contains(a.uppercased()) {
                    alias = a
                    i += 1
                }
                return .count(field: field, alias: alias)
            }
            return .field(try path())
        }

        mutating func query() throws -> SOQLQuery {
            try keyword("SELECT")
            var items = [try selectItem()]
            while peek == .symbol(",") {
                i += 1
                items.append(try selectItem())
            }
            try keyword("FROM")
            guard case .word(let object)? = peek, !Self.reserved.contains(object.uppercased()) else { throw SOQLParser.malformed("expecting an object name near \(describe(peek))") }
            i += 1
            var query = SOQLQuery(items: items, object: object)
            try clauses(&query)
            return query
        }

        /// WHERE, ORDER BY, LIMIT and OFFSET (also the part of a SOSL RETURNING clause after its fields).
        mutating func clauses(_ query: inout SOQLQuery) throws {
            if isKeyword("WHERE") {
                i += 1
                query.condition = try orExpression()
            }
            if isKeyword("ORDER") {
                i += 1
                try keyword("BY")
                repeat {
                    if peek == .symbol(",") { i += 1 }
                    let p = try path()
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
                    query.orderBy.append(.init(path: p, ascending: ascending, nullsFirst: nullsFirst))
                } while peek == .symbol(",")
            }
            if isKeyword("LIMIT") {
                i += 1
                query.limit = try integer()
            }
            if isKeyword("OFFSET") {
                i += 1
                query.offset = try integer()
                guard query.offset! <= 2000 else { throw SalesforceError(.badRequest, "NUMBER_OUTSIDE_VALID_RANGE", "Maximum SOQL offset allowed is 2000") }
            }
        }

        mutating func integer() throws -> Int {
            guard case .literal(let l)? = peek, let n = Int(l), n >= 0 else {
                throw SOQLParser.malformed("expecting a non-negative integer near \(describe(peek))")
            }
            i += 1
            return n
        }

        mutating func orExpression() throws -> SOQLQuery.Condition {
            var terms = [try andExpression()]
            while isKeyword("OR") {
                i += 1
                terms.append(try andExpression())
            }
            return terms.count == 1 ? terms[0] : .or(terms)
        }

        mutating func andExpression() throws -> SOQLQuery.Condition {
            var terms = [try unary()]
            while isKeyword("AND") {
                i += 1
                terms.append(try unary())
            }
            return terms.count == 1 ? terms[0] : .and(terms)
        }

        mutating func unary() throws -> SOQLQuery.Condition {
            if isKeyword("NOT") {
                i += 1
                try nest()
                defer { depth -= 1 }
                return .not(try unary())
            }
            if peek == .symbol("(") {
                i += 1
                try nest()
                let inner = try orExpression()
                try symbol(")")
                depth -= 1
                return inner
            }
            let f = try path()
            var negated = false
            if isKeyword("NOT") {
                i += 1
                negated = true
            }
            if isKeyword("IN") {
                i += 1
                try symbol("(")
                if isKeyword("SELECT") { throw SOQLParser.malformed("semi-join subqueries (IN (SELECT …)) are outside the SOQL this org supports") }
                var values = [try value()]
                while peek == .symbol(",") {
                    i += 1
                    values.append(try value())
                }
                try symbol(")")
                return .inList(path: f, values: values, negated: negated)
            }
            if isKeyword("LIKE") {
                i += 1
                guard case .string(let decoded)? = peek else { throw SOQLParser.malformed("LIKE needs a quoted pattern") }
                // With `\` as the LIKE escape: the decoded value's own `\`, `%` and `_` are then literal when escaped.
                let pattern = patterns[i] ?? decoded.replacingOccurrences(of: "\\", with: "\\\\")
                i += 1
                return .like(path: f, pattern: pattern, negated: negated)
            }
            guard !negated else { throw SOQLParser.malformed("expecting IN or LIKE after NOT") }
            guard case .symbol(let op)? = peek, ["=", "!=", "<>", "<", ">", "<=", ">="].contains(op) else {
                throw SOQLParser.malformed("expecting a comparison operator near \(describe(peek))")
            }
            i += 1
            return .compare(path: f, op: op == "<>" ? "!=" : op, value: try value())
        }

        mutating func value() throws -> SOQLQuery.Value {
            switch peek {
            case .string(let s)?:
                i += 1
                return .string(s)
            case .literal(let l)?:
                i += 1
                return .literal(l)
            case .word(let w)?:
                let upper = w.uppercased()
                switch upper {
                case "TRUE": i += 1; return .bool(true)
                case "FALSE": i += 1; return .bool(false)
                case "NULL": i += 1; return .null
                default: break
                }
                if SOQLParser.dateLiterals.contains(upper) {
                    i += 1
                    return .dateLiteral(upper, nil)
                }
                let parts = upper.split(separator: ":")
                if parts.count == 2, SOQLParser.dateLiteralsWithN.contains(String(parts[0])), let n = Int(parts[1]) {
                    i += 1
                    return .dateLiteral(String(parts[0]), n)
                }
                throw SOQLParser.malformed("expecting a value near \(describe(peek))")
            default:
                throw SOQLParser.malformed("expecting a value near \(describe(peek))")
            }
        }
    }
}
