import FastJSON

/// Pages through a query's results, as the SDK's cursor does.
package struct QueryCursor: Sendable {
    let store: SmartStore
    package let spec: QuerySpec
    package let totalEntries: Int
    package private(set) var currentPageIndex: Int
    package private(set) var entries: [JSON]

    init(store: SmartStore, spec: QuerySpec, totalEntries: Int, currentPageIndex: Int, entries: [JSON]) {
        self.store = store
        self.spec = spec
        self.totalEntries = totalEntries
        self.currentPageIndex = currentPageIndex
        self.entries = entries
    }

    package var pageSize: Int { spec.pageSize }
    package var totalPages: Int { (totalEntries + spec.pageSize - 1) / spec.pageSize }

    package mutating func moveToPage(_ index: Int) throws {
        entries = try store.query(spec, pageIndex: index)
        currentPageIndex = index
    }
}
