import Foundation
import Hummingbird

/// `query` and `queryAll` (SOQL over any object, `nextRecordsUrl` paging, `Sforce-Query-Options:
/// batchSize=N`), and `search` (SOSL).
struct QueryRoutes {
    let state: OrgState

    func register(on api: RouterGroup<OrgContext>) {
        for path in ["query", "queryAll"] {
            api.get(RouterPath(path)) { request, context in
                try await self.perform(request, context, path: [path])
            }
            api.get(RouterPath(path + "/:locator")) { request, context in
                try await self.perform(request, context, path: [path, context.parameters.get("locator") ?? ""])
            }
        }
        api.get("search") { request, context in try await self.perform(request, context, path: ["search"]) }
    }

    private func perform(_ request: Request, _ context: OrgContext, path: [String]) async throws -> Outcome {
        let call = APICall(
            method: .get, path: path, query: HTTP.queryItems(request), body: Data(), session: try context.requireSession, version: context.apiVersion,
            batchSize: Self.batchSize(request))
        do {
            // A query writes only its own cursor (and releases the user's oldest past the v55 limit): serialised
            // with the same user's queries, never with the org's writes (reads take no write lock). A page of an
            // open cursor needs neither lock nor transaction (`QueryEngine.more`).
            if path.count == 2, path[0] != "search" {
                return try await state.database.store.update { db in try handle(db, call) }
            }
            return try await state.database.store.write(locking: "cursors:" + call.session.userId) { db in try handle(db, call) }
        } catch let error as SQLStoreError {
            throw SalesforceError.unknown(error)
        }
    }

    func handle(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let includeDeleted = call.path[0] == "queryAll"
        switch (call.path[0], call.path.count) {
        case ("search", 1):
            guard let q = call.query["q"], !q.isEmpty else { throw SalesforceError(.badRequest, "MALFORMED_SEARCH", "A search string has to be specified (q)") }
            return HTTP.rawJSON(.ok, try SOSLQuery.parse(q).run(db, engine: state.queries, session: call.session, version: call.version))
        case (_, 1):
            guard let q = call.query["q"], !q.isEmpty else { throw SalesforceError.malformedQuery("A query string has to be specified") }
            return HTTP.rawJSON(.ok, try state.queries.run(
                db, soql: q, session: call.session, version: call.version, includeDeleted: includeDeleted, batchSize: call.batchSize))
        default:
            // Answered, not thrown: the transaction commits the expiry of cursors that this call ran.
            do {
                return HTTP.rawJSON(.ok, try state.queries.more(
                    db, locatorAndOffset: call.path[1], session: call.session, version: call.version, path: call.path[0]))
            } catch let error as SalesforceError {
                return error.outcome
            }
        }
    }

    /// 200 to 2,000 (values outside are brought inside), default 2,000.
    static func batchSize(_ request: Request) -> Int {
        guard let header = request.headers.first(where: { $0.name.canonicalName == "sforce-query-options" })?.value else {
            return QueryEngine.defaultBatchSize
        }
        for option in header.split(separator: ",") {
            let kv = option.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == "batchsize", let n = Int(kv[1]) { return min(max(n, 200), 2000) }
        }
        return QueryEngine.defaultBatchSize
    }
}
