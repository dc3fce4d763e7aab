/// Pages through a query's results, as the SDK's cursor does.
public struct QueryCursor: Sendable {
    let store: SmartStore
    public let spec: QuerySpec
    public let totalEntries: Int
    public private(set) var currentPageIndex: Int
    public private(set) var entries: [JSON]

    init(store: SmartStore, spec: QuerySpec, totalEntries: Int, currentPageIndex: Int, entries: [JSON]) {
        self.store = store
        self.spec = spec
        self.totalEntries = totalEntries
        self.currentPageIndex = currentPageIndex
        self.entries = entries
    }

    public var pageSize: Int { spec.pageSize }
    public var totalPages: Int { (totalEntries + spec.pageSize - 1) / spec.pageSize }

    public mutating func moveToPage(_ index: Int) throws {
        entries = try store.query(spec, pageIndex: index)
        currentPageIndex = index
    }
}
