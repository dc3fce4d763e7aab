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

    static func jsonExtract(table: String, path: String) -> String {
        "json_extract(\(table).soup, '$.\(path.replacingOccurrences(of: "'", with: "''"))')"
    }
}
