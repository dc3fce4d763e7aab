import FastJSON

/// The smart SQL the SDK's `SFQuerySpec` writes for a spec (`smartSql`, `countSmartSql`,
/// `idsSmartSql`), in its exact form: clauses each followed by a space, `?` for the values (bound in
/// the order of `smartSQLArguments`), the match key inlined and qualified per term. Running
/// `.smart(spec.smartSQL, whereArgs: spec.smartSQLArguments)` returns what `query(spec)` returns.
extension QuerySpec {
    package var smartSQL: String {
        if case .smart(let sql) = kind { return sql }
        return "SELECT \(selectClause) \(fromClause)\(whereClause)\(orderByClause)"
    }

    package var countSmartSQL: String {
        if case .smart(let sql) = kind { return "SELECT count(*) FROM (\(sql))" }
        return "SELECT count(*) \(fromClause)\(whereClause)"
    }

    package var idsSmartSQL: String {
        if case .smart(let sql) = kind { return "SELECT id FROM (\(sql))" }
        return "SELECT id \(fromClause)\(whereClause)\(orderByClause)"
    }

    /// The values for the `?` of `smartSQL` (and of the count and ids forms), in order.
    package var smartSQLArguments: [JSON] {
        switch kind {
        case .all, .match: return []
        case .exact(let value): return [value]
        case .range(let begin, let end): return [begin, end].compactMap { $0 }
        case .like(let pattern): return [.string(pattern)]
        case .smart: return whereArgs ?? []
        }
    }

    private var soup: String { soupName ?? "" }

    private var selectClause: String {
        guard let selectPaths, !selectPaths.isEmpty else { return "{\(soup):\(SoupField.soup)}" }
        return selectPaths.map { "{\(soup):\($0)}" }.joined(separator: ", ")
    }

    private var fromClause: String { "FROM {\(soup)} " }

    private var field: String? { path.map { "{\(soup):\($0)}" } }

    private var whereClause: String {
        guard let field else {
            if case .match(let key) = kind {
                return "WHERE {\(soup):\(SoupField.entryId)} IN (SELECT rowid FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH '\(SmartSQL.qualifyMatchKey(key, field: nil))') "
            }
            return ""
        }
        switch kind {
        case .all, .smart: return ""
        case .exact: return "WHERE \(field) = ? "
        case .range(let begin, let end):
            let bounds = [begin.map { _ in "\(field) >= ?" }, end.map { _ in "\(field) <= ?" }].compactMap { $0 }
            return bounds.isEmpty ? "" : "WHERE \(bounds.joined(separator: " AND ")) "
        case .like: return "WHERE \(field) LIKE ? "
        case .match(let key):
            return "WHERE {\(soup):\(SoupField.entryId)} IN (SELECT rowid FROM {\(soup)}_fts WHERE {\(soup)}_fts MATCH '\(SmartSQL.qualifyMatchKey(key, field: field))') "
        }
    }

    private var orderByClause: String {
        guard let orderPath else { return "" }
        return "ORDER BY {\(soup):\(orderPath)} \(order == .ascending ? "ASC" : "DESC") "
    }
}

extension SmartSQL {
    /// FTS5 takes `table MATCH 'column:value'`, not `column MATCH 'value'`: as the SDK does, every term
    /// of the key gets `field:` in front, except the operators (AND, OR, NOT, in any case) and terms
    /// already qualified (`{soup:path}:…`). A term is a run of characters other than parentheses and
    /// spaces. With no field the key is unchanged.
    package static func qualifyMatchKey(_ key: String, field: String?) -> String {
        guard let field else { return key }
        var out = ""
        var term = ""
        func flush() {
            guard !term.isEmpty else { return }
            let lower = term.lowercased()
            out += ["and", "or", "not"].contains(lower) || term.hasPrefix("{") ? term : "\(field):\(term)"
            term = ""
        }
        for ch in key {
            if ch == "(" || ch == ")" || ch == " " {
                flush()
                out.append(ch)
            } else {
                term.append(ch)
            }
        }
        flush()
        return out
    }
}
