import FastJSON
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

/// The fields Mobile Sync keeps on every record it manages.
package enum SyncField {
    package static let local = "__local__"
    package static let locallyCreated = "__locally_created__"
    package static let locallyUpdated = "__locally_updated__"
    package static let locallyDeleted = "__locally_deleted__"
    package static let syncId = "__sync_id__"
    package static let lastError = "__last_error__"
    package static let id = "Id"
    package static let lastModifiedDate = "LastModifiedDate"
    static let all = [local, locallyCreated, locallyUpdated, locallyDeleted, syncId, lastError]
}

/// One page of server records and how to get the next.
package struct SyncPage: Sendable {
    package var records: [SoupEntry]
    package var totalSize: Int
    package var nextRecordsUrl: String?
    /// How a target that does not page by `nextRecordsUrl` gets its next page (a briefcase's next slice of ids).
    package var continuation: (@Sendable (RestClient) async throws -> SyncPage?)?

    package init(records: [SoupEntry], totalSize: Int, nextRecordsUrl: String?, continuation: (@Sendable (RestClient) async throws -> SyncPage?)? = nil) {
        self.records = records
        self.totalSize = totalSize
        self.nextRecordsUrl = nextRecordsUrl
        self.continuation = continuation
    }
}

/// Where a sync down gets its records. SOQL, MRU and refresh targets ship; others plug in through
/// `SyncManager.register(customTarget:)`.
package protocol SyncDownTarget: Sendable {
    /// What is stored in the sync's state, and given back to the factory on a later run.
    var json: JSON { get }
    /// The first page, of records changed after `maxTimeStamp` (epoch ms; -1 for all).
    func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage
    /// The page after `page`, or nil when there is none.
    func continueFetch(client: RestClient, after page: SyncPage) async throws -> SyncPage?
    /// Every id the server would return now, for `cleanResyncGhosts`.
    func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String>
    /// The soup a fetched record is saved in (nil: not saved). The sync's soup, except for a target that
    /// fills several (a briefcase).
    func soupName(for record: SoupEntry, syncSoup: String) -> String?
    /// The soups whose ghosts `cleanResyncGhosts` removes, each with the ids the server would return now.
    func remoteIdsBySoup(client: RestClient, store: SmartStore, soupName: String) async throws -> [String: Set<String>]
    /// The soups the target fills, each with its id field: the sync's soup, or a briefcase's soups by type.
    func filledSoups(syncSoup: String, idField: String) -> [(soup: String, idField: String)]
}

extension SyncDownTarget {
    package func continueFetch(client: RestClient, after page: SyncPage) async throws -> SyncPage? {
        if let continuation = page.continuation { return try await continuation(client) }
        guard let next = page.nextRecordsUrl else { return nil }
        return try SyncPage(response: await client.send(.queryMore(next)))
    }

    package func soupName(for record: SoupEntry, syncSoup: String) -> String? { syncSoup }

    package func filledSoups(syncSoup: String, idField: String) -> [(soup: String, idField: String)] { [(syncSoup, idField)] }

    package func remoteIdsBySoup(client: RestClient, store: SmartStore, soupName: String) async throws -> [String: Set<String>] {
        [soupName: try await remoteIds(client: client, store: store, soupName: soupName)]
    }
}

extension SyncPage {
    /// Parsed with SmartStore's JSON reader: Foundation's JSONSerialization on Linux took about a
    /// third of a 10,000-record sync down.
    init(response: RestResponse) throws {
        guard let body = JSON(text: String(decoding: response.body, as: UTF8.self)), let records = body["records"]?.arrayValue else {
            throw RestError.malformedResponse("a query answer without records")
        }
        self.init(
            records: records.compactMap(\.objectValue), totalSize: Int(body["totalSize"]?.intValue ?? Int64(records.count)),
            nextRecordsUrl: body["nextRecordsUrl"]?.stringValue)
    }
}

/// A SOQL query. As the SDK does, it adds `Id` and `LastModifiedDate` to the select list and
/// `ORDER BY LastModifiedDate` when missing, and on a re-sync `LastModifiedDate > <maxTimeStamp>`.
package struct SoqlSyncDownTarget: SyncDownTarget {
    package var query: String
    package var maxBatchSize: Int

    /// As the SDK does at creation (`modifyQueryIfNeeded`), the query kept (and stored in syncs_soup)
    /// selects `LastModifiedDate` and `Id` and is ordered by `LastModifiedDate`: missing fields are added
    /// in front and a missing `order by` is added, and then the query is rebuilt in the SDK builder's
    /// form (`select … from … order by LastModifiedDate limit …`). A query that needs none of this is
    /// kept as written.
    package init(query: String, maxBatchSize: Int = 2000) {
        self.query = Self.modifiedAtCreation(query)
        self.maxBatchSize = maxBatchSize
    }

    static func modifiedAtCreation(_ query: String) -> String {
        var mutator = SoqlMutator(query)
        var mutated = false
        for field in ["LastModifiedDate", "Id"] where !mutator.isSelecting(field) {
            mutator.addSelectFields(field)
            mutated = true
        }
        if !mutator.hasOrderBy {
            mutator.replaceOrderBy("LastModifiedDate")
            mutated = true
        }
        return mutated ? mutator.build() : query
    }

    package var json: JSON {
        SyncTargetFormat.downTarget("soql", impl: "SFSoqlSyncDownTarget", ["query": .string(query), "maxBatchSize": .int(Int64(maxBatchSize))])
    }

    package func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage {
        try SyncPage(response: await client.send(.query(Self.prepare(query, maxTimeStamp: maxTimeStamp), batchSize: maxBatchSize)))
    }

    package func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String> {
        let idQuery = Self.withSelectList(Self.withoutOrderBy(query), "Id")
        var page = try SyncPage(response: await client.send(.query(idQuery, batchSize: 2000)))
        var ids = Set(page.records.compactMap { $0[SyncField.id]?.stringValue })
        while let next = try await continueFetch(client: client, after: page) {
            ids.formUnion(next.records.compactMap { $0[SyncField.id]?.stringValue })
            page = next
        }
        return ids
    }

    /// The query as sent: select list completed, ordered by LastModifiedDate, filtered after maxTimeStamp.
    package static func prepare(_ query: String, maxTimeStamp: Int64) -> String {
        var q = withRequiredFields(query.trimmingCharacters(in: .whitespacesAndNewlines))
        if keyword(q, "order by") == nil {
            let insertAt = [keyword(q, "limit"), keyword(q, "offset")].compactMap { $0 }.min() ?? q.endIndex
            q = String(q[..<insertAt]).trimmingCharacters(in: .whitespaces) + " order by LastModifiedDate" + (insertAt == q.endIndex ? "" : " " + q[insertAt...])
        }
        if maxTimeStamp > 0 {
            let filter = "LastModifiedDate > \(SalesforceTime.soqlLiteral(maxTimeStamp))"
            let end = [keyword(q, "order by"), keyword(q, "limit"), keyword(q, "offset")].compactMap { $0 }.min() ?? q.endIndex
            if let whereStart = keyword(q, "where") {
                let conditionStart = q.index(whereStart, offsetBy: 5)
                let condition = q[conditionStart..<end].trimmingCharacters(in: .whitespaces)
                q = String(q[..<whereStart]) + "where \(filter) and (\(condition)) " + q[end...]
            } else {
                q = String(q[..<end]).trimmingCharacters(in: .whitespaces) + " where \(filter) " + q[end...]
            }
        }
        return q.trimmingCharacters(in: .whitespaces)
    }

    /// The query with `Id` and `LastModifiedDate` in its select list (added in front when missing).
    static func withRequiredFields(_ query: String) -> String {
        var q = query
        let fields = selectList(q).map { $0.lowercased() }
        var missing: [String] = []
        if !fields.contains("id") { missing.append("Id") }
        if !fields.contains("lastmodifieddate") { missing.append("LastModifiedDate") }
        if !missing.isEmpty, let select = keyword(q, "select") {
            let start = q.index(select, offsetBy: 7)
            q = String(q[..<start]) + missing.joined(separator: ",") + "," + String(q[start...]).trimmingCharacters(in: .whitespaces)
        }
        return q
    }

    static func selectList(_ q: String) -> [String] {
        guard let select = keyword(q, "select"), let from = keyword(q, "from") else { return [] }
        return q[q.index(select, offsetBy: 6)..<from].split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    }

    static func withSelectList(_ q: String, _ list: String) -> String {
        guard let select = keyword(q, "select"), let from = keyword(q, "from") else { return q }
        return String(q[..<q.index(select, offsetBy: 6)]) + " " + list + " " + q[from...]
    }

    static func withoutOrderBy(_ q: String) -> String {
        guard let order = keyword(q, "order by") else { return q }
        let end = [keyword(q, "limit"), keyword(q, "offset")].compactMap { $0 }.min() ?? q.endIndex
        return String(q[..<order]) + q[end...]
    }

    /// Where a keyword starts, outside quoted strings, as a whole word (case-insensitive).
    static func keyword(_ q: String, _ word: String) -> String.Index? {
        let lower = q.lowercased()
        guard lower.count == q.count else { return nil }
        var inQuote = false
        var i = lower.startIndex
        while i < lower.endIndex {
            let c = lower[i]
            if c == "'" { inQuote.toggle() }
            if !inQuote, lower[i...].hasPrefix(word) {
                let before = i == lower.startIndex ? " " : lower[lower.index(before: i)]
                let afterIndex = lower.index(i, offsetBy: word.count)
                let after = afterIndex < lower.endIndex ? lower[afterIndex] : " "
                if !(before.isLetter || before.isNumber || before == "_"), !(after.isLetter || after.isNumber || after == "_") {
                    return q.index(q.startIndex, offsetBy: lower.distance(from: lower.startIndex, to: i))
                }
            }
            i = lower.index(after: i)
        }
        return nil
    }
}

/// The user's most recently used records of a type (from `sobjects/<type>`'s `recentItems`).
package struct MruSyncDownTarget: SyncDownTarget {
    package var sobjectType: String
    package var fieldlist: [String]

    package init(sobjectType: String, fieldlist: [String]) {
        self.sobjectType = sobjectType
        self.fieldlist = fieldlist
    }

    package var json: JSON {
        SyncTargetFormat.downTarget("mru", impl: "SFMruSyncDownTarget", ["sobjectType": .string(sobjectType), "fieldlist": .array(fieldlist.map(JSON.string))])
    }

    package func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage {
        let ids = try await recentIds(client)
        guard !ids.isEmpty else { return SyncPage(records: [], totalSize: 0, nextRecordsUrl: nil) }
        var soql = "SELECT \(Self.fields(fieldlist)) FROM \(sobjectType) WHERE Id IN (\(ids.map { "'\($0)'" }.joined(separator: ",")))"
        if maxTimeStamp > 0 { soql += " AND LastModifiedDate > \(SalesforceTime.soqlLiteral(maxTimeStamp))" }
        return try SyncPage(response: await client.send(.query(soql)))
    }

    package func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String> {
        Set(try await recentIds(client))
    }

    private func recentIds(_ client: RestClient) async throws -> [String] {
        let body = try await client.send(RestRequest(path: "/services/data/\(RestClient.apiVersion)/sobjects/\(sobjectType)")).value()
        return (body["recentItems"]?.arrayValue ?? []).compactMap { $0["Id"]?.stringValue }
    }

    static func fields(_ list: [String]) -> String {
        var fields = list
        for required in ["LastModifiedDate", "Id"] where !fields.contains(where: { $0.lowercased() == required.lowercased() }) {
            fields.insert(required, at: 0)
        }
        return fields.joined(separator: ", ")
    }
}

/// Re-fetches the records already in the soup, in chunks of ids.
package struct RefreshSyncDownTarget: SyncDownTarget {
    package var sobjectType: String
    package var fieldlist: [String]
    package var countIdsPerSoql: Int

    package init(sobjectType: String, fieldlist: [String], countIdsPerSoql: Int = 500) {
        self.sobjectType = sobjectType
        self.fieldlist = fieldlist
        self.countIdsPerSoql = countIdsPerSoql
    }

    package var json: JSON {
        // iOS spells the key coundIdsPerSoql (sic); Android countIdsPerSoql. Written as iOS does, read either way.
        SyncTargetFormat.downTarget("refresh", impl: "SFRefreshSyncDownTarget", [
            "sobjectType": .string(sobjectType), "fieldlist": .array(fieldlist.map(JSON.string)),
            SyncTargetFormat.countIdsPerSoqlKey: .int(Int64(countIdsPerSoql)),
        ])
    }

    package func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage {
        let ids = try Self.localIds(store, soupName)
        var records: [SoupEntry] = []
        var start = 0
        while start < ids.count {
            let chunk = ids[start..<min(start + countIdsPerSoql, ids.count)]
            let soql = "SELECT \(MruSyncDownTarget.fields(fieldlist)) FROM \(sobjectType) WHERE Id IN (\(chunk.map { "'\($0)'" }.joined(separator: ",")))"
            var page = try SyncPage(response: await client.send(.query(soql)))
            records += page.records
            while let next = try await continueFetch(client: client, after: page) {
                records += next.records
                page = next
            }
            start += countIdsPerSoql
        }
        return SyncPage(records: records, totalSize: records.count, nextRecordsUrl: nil)
    }

    package func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String> {
        Set(try await startFetch(client: client, maxTimeStamp: -1, store: store, soupName: soupName).records.compactMap { $0[SyncField.id]?.stringValue })
    }

    static func localIds(_ store: SmartStore, _ soupName: String) throws -> [String] {
        let spec = QuerySpec.smart("SELECT {\(soupName):Id} FROM {\(soupName)} WHERE {\(soupName):Id} NOT LIKE 'local_%'", pageSize: Int.max / 2)
        return try store.query(spec).compactMap { $0.arrayValue?.first?.stringValue }
    }
}

/// How the SDK serialises a target: its type, the iOS class that implements it (`iOSImpl`), and the
/// id and modification-date field names (the SDK's defaults, `Id` and `LastModifiedDate`).
enum SyncTargetFormat {
    static let countIdsPerSoqlKey = "coundIdsPerSoql"

    static func downTarget(_ type: String, impl: String, _ fields: [String: JSON]) -> JSON {
        var out = fields
        out["type"] = .string(type)
        out["iOSImpl"] = .string(impl)
        out["idFieldName"] = "Id"
        out["modificationDateFieldName"] = "LastModifiedDate"
        return .object(out)
    }
}
