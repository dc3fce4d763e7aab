/// Where a soup lives in the database: its table and one column per index.
struct SoupInfo: Sendable {
    struct Index: Sendable {
        var spec: IndexSpec
        /// Nil for json1 indexes, which have no column.
        var column: String?
        /// The path split at dots, once.
        var components: [String]

        init(spec: IndexSpec, column: String?) {
            self.spec = spec
            self.column = column
            components = spec.path.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        }
    }

    var name: String
    var table: String
    var indexes: [Index]

    var ftsTable: String { table + "_fts" }
    var fullTextColumns: [String] { indexes.filter { $0.spec.type == .fullText }.compactMap(\.column) }

    func index(for path: String) -> Index? { indexes.first { $0.spec.path == path } }

    /// The SQL expression for a path: a special field, an index column, json_extract for json1 indexes,
    /// or (with `allowUnindexed`, as smart SQL allows) json_extract on any path.
    func expression(for path: String, allowUnindexed: Bool) -> String? {
        switch path {
        case SoupField.entryId: return "\(table).id"
        case SoupField.lastModifiedDate: return "\(table).lastModified"
        case SoupField.createdDate: return "\(table).created"
        case SoupField.soup: return "\(table).soup"
        default: break
        }
        if let index = index(for: path) {
            if let column = index.column { return "\(table).\(column)" }
            return Self.jsonExtract(table: table, path: path)
        }
        return allowUnindexed ? Self.jsonExtract(table: table, path: path) : nil
    }

    /// What smart SQL's `{soup:path}` becomes, as the SDK converts it: an index column by its own
    /// (unique) name, a special field by its table's column, anything else `json_extract` of the soup
    /// column. With a qualifier (`mgr.{employees:lastName}`, `{employees}.{employees:education}`) the
    /// qualifier goes in front of the column, or inside `json_extract`.
    func smartSQLExpression(for path: String, qualifier: String?) -> String {
        let special: String?
        switch path {
        case SoupField.entryId: special = "id"
        case SoupField.lastModifiedDate: special = "lastModified"
        case SoupField.createdDate: special = "created"
        case SoupField.soup: special = "soup"
        default: special = nil
        }
        if let special { return "\(qualifier ?? table).\(special)" }
        if let column = index(for: path)?.column { return qualifier.map { "\($0).\(column)" } ?? column }
        let soupColumn = qualifier.map { "\($0).soup" } ?? "soup"
        return "json_extract(\(soupColumn), '$.\(path.replacingOccurrences(of: "'", with: "''"))')"
    }

    static func jsonExtract(table: String, path: String) -> String {
        "json_extract(\(table).soup, '$.\(path.replacingOccurrences(of: "'", with: "''"))')"
    }
}
