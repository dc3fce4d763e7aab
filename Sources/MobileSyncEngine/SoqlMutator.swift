import Foundation

/// Reads a SOQL query's top-level clauses and writes the query back, as the SDK's SOQL mutator and
/// builder do when a SOQL sync down target is created:
/// - clauses are found outside quotes and parentheses (a subquery's `ORDER BY` is not the query's);
/// - a field is selected when it is one of the top-level select list's comma-separated names, compared
///   as written (case matters, as in the SDK);
/// - fields are added in front of the select list;
/// - the query is rebuilt with lower-case keywords in the order
///   `select … from … where … group by … having … order by … limit … offset …`.
struct SoqlMutator {
    static let clauseKeywords = ["select", "from", "where", "having", "order by", "group by", "limit", "offset"]

    private(set) var clauses: [String: String] = [:]
    private var clausesWithoutSubqueries: [String: String] = [:]

    init(_ soql: String) {
        var current: String?
        for token in Self.tokens(soql) {
            if let keyword = Self.clauseKeywords.first(where: { token.caseInsensitiveCompare($0) == .orderedSame }) {
                current = keyword
                clauses[keyword] = ""
                clausesWithoutSubqueries[keyword] = ""
            } else if let current {
                clauses[current, default: ""] += token
                if !token.hasPrefix("(") { clausesWithoutSubqueries[current, default: ""] += token }
            }
        }
    }

    func clause(_ keyword: String) -> String {
        (clauses[keyword] ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func isSelecting(_ field: String) -> Bool {
        (clausesWithoutSubqueries["select"] ?? "").replacingOccurrences(of: " ", with: "").split(separator: ",", omittingEmptySubsequences: false)
            .contains { $0 == field }
    }

    var hasOrderBy: Bool { clauses["order by"] != nil }

    func isOrdering(by fields: String) -> Bool {
        guard let orderBy = clauses["order by"] else { return false }
        return orderBy.replacingOccurrences(of: " ", with: "") == fields.replacingOccurrences(of: " ", with: "")
    }

    mutating func addSelectFields(_ fields: String) {
        clauses["select"] = fields + "," + clause("select")
        clausesWithoutSubqueries["select"] = fields + "," + (clausesWithoutSubqueries["select"] ?? "").trimmingCharacters(in: .whitespaces)
    }

    mutating func replaceSelectFields(_ fields: String) {
        clauses["select"] = fields
        clausesWithoutSubqueries["select"] = fields
    }

    mutating func replaceOrderBy(_ fields: String) {
        clauses["order by"] = fields
    }

    mutating func addWherePredicates(_ predicates: String) {
        let existing = clause("where")
        clauses["where"] = existing.isEmpty && clauses["where"] == nil ? predicates : "\(predicates) and \(existing)"
    }

    /// The query rebuilt as the SDK's builder writes it; a limit or offset of 0 (or not a number) is left out.
    func build() -> String {
        var query = "select \(clause("select")) from \(clause("from"))"
        for (keyword, name) in [("where", "where"), ("group by", "group by"), ("having", "having"), ("order by", "order by")] {
            let value = clause(keyword)
            if !value.isEmpty { query += " \(name) \(value)" }
        }
        for keyword in ["limit", "offset"] {
            if let n = Int(clause(keyword)), n != 0 { query += " \(keyword) \(n)" }
        }
        return query
    }

    /// Top-level tokens: words, runs of white space, quoted strings (a backslash escapes a quote) and
    /// parenthesised groups (with everything inside them); `order by` and `group by` become one token.
    static func tokens(_ soql: String) -> [String] {
        var tokens: [String] = []
        var current = ""
        var depth = 0
        var inQuotes = false
        var inWhiteSpace = false
        var last: Character = "\0"
        func push() {
            if depth == 0 {
                tokens.append(current)
                current = ""
            }
        }
        for ch in soql {
            if ch == "'" {
                if !inQuotes {
                    push()
                    inQuotes = true
                    inWhiteSpace = false
                    current.append(ch)
                } else if last != "\\" {
                    current.append(ch)
                    push()
                    inQuotes = false
                } else {
                    current.append(ch)
                }
            } else if inQuotes {
                current.append(ch)
            } else if ch == "(" {
                push()
                inWhiteSpace = false
                depth += 1
                current.append(ch)
            } else if ch == ")" {
                current.append(ch)
                depth -= 1
                if depth <= 0 {
                    depth = 0
                    push()
                }
            } else if ch.isWhitespace {
                if !inWhiteSpace { push() }
                inWhiteSpace = true
                current.append(" ")
            } else {
                if inWhiteSpace { push() }
                inWhiteSpace = false
                current.append(ch)
            }
            last = ch
        }
        tokens.append(current)
        var combined: [String] = []
        var i = 0
        while i < tokens.count {
            let token = tokens[i]
            if i + 2 < tokens.count, tokens[i + 1].trimmingCharacters(in: .whitespaces).isEmpty,
                tokens[i + 2].caseInsensitiveCompare("by") == .orderedSame,
                token.caseInsensitiveCompare("order") == .orderedSame || token.caseInsensitiveCompare("group") == .orderedSame
            {
                combined.append("\(token) \(tokens[i + 2])")
                i += 3
                continue
            }
            combined.append(token)
            i += 1
        }
        return combined.filter { !$0.isEmpty }
    }
}
