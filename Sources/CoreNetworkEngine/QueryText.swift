import Foundation

/// SOQL and SOSL text as the SDK's query builders write it (`SFRestAPI+QueryBuilder`, `SFSDKSoqlBuilder`,
/// `SFSDKSoslBuilder`, `SFSDKSoslReturningBuilder`): clause order, escaping, the SOSL limit's cap, and the URL
/// encoding of `encodeAndBuild`. Two differences, on purpose, where the SDK's output depends on a hash order:
/// `soql(fields:…)` keeps the first of duplicate fields in the order given (the SDK passes them through a set),
/// and `sosl(term:…)` writes the object scope in the order given (the SDK's comes from a dictionary).
package enum QueryText {
    /// `kSOSLReservedCharacters`: escaped with a backslash by `sanitizeSOSLSearchTerm`.
    package static let soslReservedCharacters = "\\?&|!{}[]()^~*:\"'+-"
    /// `kSOSLEscapeCharacter`.
    package static let soslEscapeCharacter = "\\"
    /// `kMaxSOSLSearchLimit`: a SOSL limit above it is written as it.
    package static let maxSOSLSearchLimit = 200

    package static func sanitizeSOSL(_ term: String) -> String {
        var result = term
        for character in soslReservedCharacters {
            result = result.replacingOccurrences(of: String(character), with: soslEscapeCharacter + String(character))
        }
        return result
    }

    /// `FIND {term} <scope> [RETURNING …] [LIMIT n]`; nil without a term. The scope defaults to `IN NAME FIELDS`.
    package static func sosl(term: String?, fieldScope: String?, objectScope: [(object: String, fields: String?)], limit: Int) -> String? {
        guard let term, !term.isEmpty else { return nil }
        var query = "FIND {\(sanitizeSOSL(term))} \(fieldScope.flatMap { $0.isEmpty ? nil : $0 } ?? "IN NAME FIELDS")"
        if !objectScope.isEmpty {
            query += " RETURNING " + objectScope.map { scope in scope.fields.map { "\(scope.object) (\($0))" } ?? scope.object }.joined(separator: ",")
        }
        if limit > 0 { query += " LIMIT \(min(limit, maxSOSLSearchLimit))" }
        return query
    }

    /// `select … from …` with the optional clauses; nil without fields or an object. `having` only with `groupBy`.
    package static func soql(fields: [String], sObject: String?, whereClause: String?, groupBy: [String]?, having: String?, orderBy: [String]?, limit: Int) -> String? {
        guard !fields.isEmpty, let sObject, !sObject.isEmpty else { return nil }
        var seen = Set<String>()
        var query = "select \(fields.filter { seen.insert($0).inserted }.joined(separator: ",")) from \(sObject)"
        if let whereClause, !whereClause.isEmpty { query += " where \(whereClause)" }
        if let groupBy, !groupBy.isEmpty {
            query += " group by \(groupBy.joined(separator: ","))"
            if let having, !having.isEmpty { query += " having \(having)" }
        }
        if let orderBy, !orderBy.isEmpty { query += " order by \(orderBy.joined(separator: ","))" }
        if limit > 0 { query += " limit \(limit)" }
        return query
    }

    /// `SFSDKSoqlBuilder`'s query. `with` is kept and not written, as in the SDK.
    package struct SOQL: Sendable {
        package var fields = "", from = "", whereClause = "", with = "", groupBy = "", having = "", orderBy = ""
        package var limit = 0, offset = 0

        package init() {}

        package func build() -> String? {
            guard !fields.isEmpty, !from.isEmpty else { return nil }
            var query = "select \(fields) from \(from)"
            if !whereClause.isEmpty { query += " where \(whereClause)" }
            if !groupBy.isEmpty { query += " group by \(groupBy)" }
            if !having.isEmpty { query += " having \(having)" }
            if !orderBy.isEmpty { query += " order by \(orderBy)" }
            if Int32(truncatingIfNeeded: limit) != 0 { query += " limit \(Int32(truncatingIfNeeded: limit))" }
            if Int32(truncatingIfNeeded: offset) != 0 { query += " offset \(Int32(truncatingIfNeeded: offset))" }
            return query
        }
    }

    /// `SFSDKSoslReturningBuilder`'s clause, with the SDK's leading space.
    package struct SOSLReturning: Sendable {
        package var objectName = "", fields = "", whereClause = "", withNetwork = "", orderBy = ""
        package var limit = 0

        package init(objectName: String) { self.objectName = objectName }

        package func build() -> String? {
            guard !objectName.isEmpty else { return nil }
            var clause = " \(objectName)"
            guard !fields.isEmpty else { return clause }
            clause += "(\(fields)"
            if !whereClause.isEmpty { clause += " where \(whereClause)" }
            if !orderBy.isEmpty { clause += " order by \(orderBy)" }
            if !withNetwork.isEmpty { clause += " with network = \(withNetwork)" }
            if Int32(truncatingIfNeeded: limit) != 0 { clause += " limit \(Int32(truncatingIfNeeded: limit))" }
            return clause + ")"
        }
    }

    /// `SFSDKSoslBuilder`'s query: its term escaped with the builder's own list (which differs from
    /// `sanitizeSOSL`'s: no `?`, `|`, `*` or `"`, but `&`, `:` and `!`).
    package struct SOSL: Sendable {
        package private(set) var searchTerm = ""
        package var searchGroup = "", divisionFilter = "", dataCategory = ""
        package var returning: [SOSLReturning] = []
        package var limit = 0

        package init(searchTerm: String?) {
            var value = searchTerm ?? ""
            for special in ["\\", "+", "^", "~", "'", "-", "[", "]", "{", "}", "(", ")", "&", ":", "!"] {
                value = value.replacingOccurrences(of: special, with: "\\" + special)
            }
            self.searchTerm = value
        }

        package func build() -> String? {
            guard !searchTerm.isEmpty else { return nil }
            var query = "find {\(searchTerm)}"
            if !searchGroup.isEmpty { query += " in \(searchGroup)" }
            if !returning.isEmpty { query += " returning " + returning.map { $0.build() ?? "(null)" }.joined(separator: ", ") }
            if !divisionFilter.isEmpty { query += " with \(divisionFilter)" }
            if !dataCategory.isEmpty { query += " with data category \(dataCategory)" }
            if Int32(truncatingIfNeeded: limit) != 0 { query += " limit \(Int32(truncatingIfNeeded: limit))" }
            return query
        }
    }

    /// `sfsdk_stringByURLEncoding`: percent-encodes `\n\r "#%/:<>?@[\]^`{|}&=+`, and leaves the rest.
    package static func urlEncode(_ text: String) -> String {
        var allowed = CharacterSet(charactersIn: "\n\r \"#%/:<>?@[\\]^`{|}&:/=+").inverted
        allowed.remove(charactersIn: "\u{0}")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }

    /// `<path>/query/?q=…` or `<path>/search/?q=…`, one slash between.
    package static func withPath(_ path: String, _ resource: String, _ query: String) -> String {
        (path.hasSuffix("/") ? path : path + "/") + "\(resource)/?q=" + query
    }
}
