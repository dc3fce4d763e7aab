/// Turns smart SQL into SQL: `{soup}` becomes the soup's table, `{soup:path}` its column for that path
/// (the special paths `_soup`, `_soupEntryId`, `_soupLastModifiedDate`, `_soupCreatedDate`; index columns;
/// `json_extract` for anything else). Text inside single quotes is left alone, braces included, except
/// the quoted key of an FTS `MATCH '…'`, where `{soup:path}` names a column, as the SDK converts it.
enum SmartSQL {
    static func convert(_ sql: String, soup lookup: (String) throws -> SoupInfo?) throws -> String {
        try checkIsSingleSelect(sql)
        var out = ""
        var i = sql.startIndex
        var inQuote = false
        var inMatchKey = false
        while i < sql.endIndex {
            let c = sql[i]
            if c == "'" {
                if !inQuote { inMatchKey = Self.endsWithMatch(out) }
                inQuote.toggle()
                if !inQuote { inMatchKey = false }
                out.append(c)
                i = sql.index(after: i)
            } else if c == "{" && (!inQuote || inMatchKey) {
                guard let close = sql[i...].firstIndex(of: "}") else {
                    throw SmartStoreError.smartSQLSyntax("unclosed { in \(sql)")
                }
                let inner = sql[sql.index(after: i)..<close]
                let parts = inner.split(separator: ":", maxSplits: 1).map(String.init)
                guard let soupName = parts.first, !soupName.isEmpty else {
                    throw SmartStoreError.smartSQLSyntax("empty {} in \(sql)")
                }
                guard let info = try lookup(soupName) else { throw SmartStoreError.smartSQLUnknownSoup(soupName) }
                if parts.count == 1 {
                    out += info.table
                } else {
                    // `qualifier.{soup:path}`: a table alias (or `{soup}.`) names which row; the SDK keeps it
                    // in front of the column, or inside json_extract for a path kept in the soup's JSON.
                    let qualifier = Self.trailingQualifier(out)
                    if let qualifier { out.removeLast(qualifier.count + 1) }
                    out += info.smartSQLExpression(for: parts[1], qualifier: qualifier)
                }
                i = sql.index(after: close)
            } else {
                out.append(c)
                i = sql.index(after: i)
            }
        }
        return out
    }

    /// True when `sql` ends with `MATCH` and one or more spaces: the next quoted string is a match key.
    static func endsWithMatch(_ sql: String) -> Bool {
        let trimmed = sql.reversed().drop { $0 == " " }
        guard trimmed.count < sql.count else { return false }
        return String(trimmed.prefix(5).reversed()) == "MATCH"
    }

    /// The `name` of a `name.` that ends `sql`: an identifier or a single-quoted alias; nil otherwise.
    static func trailingQualifier(_ sql: String) -> String? {
        guard sql.last == "." else { return nil }
        let before = sql.dropLast()
        if before.last == "'" {
            let body = before.dropLast()
            guard let open = body.lastIndex(of: "'") else { return nil }
            return String(before[open...])
        }
        let name = before.reversed().prefix { $0.isLetter || $0.isNumber || $0 == "_" }
        guard !name.isEmpty, let first = name.last, !first.isNumber else { return nil }
        return String(name.reversed())
    }

    /// As the SDK: anything but INSERT, UPDATE and DELETE (so `WITH … SELECT` and `VALUES` too), one
    /// statement (a trailing semicolon is tolerated). Queries run on a read-only connection, so a
    /// statement that would write anyway fails there and changes nothing.
    static func checkIsSingleSelect(_ sql: String) throws {
        // Trimmed of Unicode white space (new lines included) without Foundation's `trimmingCharacters`, whose
        // generic set-up a widget's launch paid for at its one query.
        var trimmed = Substring(sql)
        while let first = trimmed.first, first.isWhitespace { trimmed.removeFirst() }
        while let last = trimmed.last, last.isWhitespace { trimmed.removeLast() }
        let lower = trimmed.lowercased()
        guard !["insert", "update", "delete"].contains(where: { lower.hasPrefix($0) }) else { throw SmartStoreError.smartSQLNotSelect(sql) }
        var inQuote = false
        for (offset, c) in trimmed.enumerated() {
            if c == "'" { inQuote.toggle() }
            if c == ";" && !inQuote && offset != trimmed.count - 1 { throw SmartStoreError.smartSQLNotSelect(sql) }
        }
    }
}

import Foundation
