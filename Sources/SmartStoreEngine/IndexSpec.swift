/// One index of a soup: a dotted path into the entries and how it is indexed.
///
/// `string`, `integer` and `floating` get a column of that SQLite type; `full_text` gets a column and
/// an FTS5 table for `match` queries; `json1` gets no column, only an SQLite index on
/// `json_extract(soup, '$.path')`.
package struct IndexSpec: Sendable, Hashable, Codable {
    package enum IndexType: String, Sendable, Hashable, Codable, CaseIterable {
        case string, integer, floating
        case fullText = "full_text"
        case json1
    }

    package var path: String
    package var type: IndexType

    package init(path: String, type: IndexType) {
        self.path = path
        self.type = type
    }

    var columnType: String {
        switch type {
        case .string, .fullText, .json1: return "TEXT"
        case .integer: return "INTEGER"
        case .floating: return "REAL"
        }
    }

    var hasColumn: Bool { type != .json1 }
}

/// The entry fields SmartStore maintains itself.
package enum SoupField {
    package static let entryId = "_soupEntryId"
    package static let lastModifiedDate = "_soupLastModifiedDate"
    package static let createdDate = "_soupCreatedDate"
    package static let soup = "_soup"
}
