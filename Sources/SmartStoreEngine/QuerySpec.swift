import FastJSON

/// What to fetch from a soup, shaped like the SDK's `QuerySpec`.
///
/// ```swift
/// let recent = QuerySpec.smart(
///     "SELECT {contacts:_soup} FROM {contacts} ORDER BY {contacts:_soupLastModifiedDate} DESC", pageSize: 3)
/// let haas = QuerySpec.exact(soup: "contacts", path: "LastName", value: "Haas")
/// ```
package struct QuerySpec: Sendable, Hashable {
    package enum Kind: Sendable, Hashable {
        case all
        case exact(JSON)
        /// Either bound may be nil: begin only, end only, both, or neither.
        case range(begin: JSON?, end: JSON?)
        case like(String)
        /// An FTS5 query; `{soup:path}` inside it names a full_text index.
        case match(String)
        case smart(String)
    }

    package enum Order: String, Sendable, Hashable { case ascending, descending }

    package var kind: Kind
    /// Nil for smart SQL.
    package var soupName: String?
    /// The indexed path the query filters on (for `match`, nil searches every full_text column).
    package var path: String?
    package var orderPath: String?
    package var order: Order
    package var pageSize: Int
    /// When set, each result is an array of these paths' values instead of the whole entry.
    package var selectPaths: [String]?
    /// Arguments for `?` placeholders; smart SQL only.
    package var whereArgs: [JSON]?

    package init(
        kind: Kind, soupName: String?, path: String? = nil, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = 10, selectPaths: [String]? = nil, whereArgs: [JSON]? = nil
    ) {
        self.kind = kind
        self.soupName = soupName
        self.path = path
        self.orderPath = orderPath
        self.order = order
        self.pageSize = pageSize
        self.selectPaths = selectPaths
        self.whereArgs = whereArgs
    }

    package static func all(
        soup: String, orderPath: String? = nil, order: Order = .ascending, pageSize: Int = 10, selectPaths: [String]? = nil
    ) -> QuerySpec {
        QuerySpec(kind: .all, soupName: soup, orderPath: orderPath, order: order, pageSize: pageSize, selectPaths: selectPaths)
    }

    package static func exact(
        soup: String, path: String, value: JSON, orderPath: String? = nil, order: Order = .ascending, pageSize: Int = 10,
        selectPaths: [String]? = nil
    ) -> QuerySpec {
        QuerySpec(kind: .exact(value), soupName: soup, path: path, orderPath: orderPath, order: order, pageSize: pageSize, selectPaths: selectPaths)
    }

    package static func range(
        soup: String, path: String, begin: JSON?, end: JSON?, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = 10, selectPaths: [String]? = nil
    ) -> QuerySpec {
        QuerySpec(
            kind: .range(begin: begin, end: end), soupName: soup, path: path, orderPath: orderPath, order: order,
            pageSize: pageSize, selectPaths: selectPaths)
    }

    package static func like(
        soup: String, path: String, pattern: String, orderPath: String? = nil, order: Order = .ascending, pageSize: Int = 10,
        selectPaths: [String]? = nil
    ) -> QuerySpec {
        QuerySpec(kind: .like(pattern), soupName: soup, path: path, orderPath: orderPath, order: order, pageSize: pageSize, selectPaths: selectPaths)
    }

    package static func match(
        soup: String, path: String?, matchKey: String, orderPath: String? = nil, order: Order = .ascending,
        pageSize: Int = 10, selectPaths: [String]? = nil
    ) -> QuerySpec {
        QuerySpec(kind: .match(matchKey), soupName: soup, path: path, orderPath: orderPath, order: order, pageSize: pageSize, selectPaths: selectPaths)
    }

    package static func smart(_ sql: String, pageSize: Int = 10, whereArgs: [JSON]? = nil) -> QuerySpec {
        QuerySpec(kind: .smart(sql), soupName: nil, pageSize: pageSize, whereArgs: whereArgs)
    }
}
