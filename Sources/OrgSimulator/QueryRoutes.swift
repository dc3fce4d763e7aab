import Foundation
import Hummingbird

/// `query` and `queryAll` with `nextRecordsUrl` paging and `Sforce-Query-Options: batchSize=N`.
struct QueryRoutes {
    let state: OrgState
    let auth: OAuthRoutes

    static let defaultBatchSize = 2000

    func register(on router: Router<BasicRequestContext>) {
        for (path, all) in [("query", false), ("queryAll", true)] {
            router.get("/services/data/:version/\(path)") { request, context in
                try await self.query(request, context, includeDeleted: all)
            }
            router.get("/services/data/:version/\(path)/:locator") { request, context in
                await self.more(request, context, path: path)
            }
        }
    }

    private func query(_ request: Request, _ context: BasicRequestContext, includeDeleted: Bool) async throws -> Outcome {
        let version = context.parameters.get("version") ?? ""
        guard HTTP.isSupportedVersion(version) else { return notFound() }
        guard let session = await auth.authenticate(request) else { return Self.invalidSession() }
        return await run(session: session, version: version, soql: HTTP.query(request, "q"), includeDeleted: includeDeleted, batchSize: Self.batchSize(request))
    }

    /// A query for a session; composite sub-requests come here too.
    func run(session: OrgState.AccessToken, version: String, soql: String?, includeDeleted: Bool, batchSize: Int) async -> Outcome {
        guard let q = soql, !q.isEmpty else {
            return HTTP.error(.badRequest, "MALFORMED_QUERY", "A query string has to be specified")
        }
        let parsed: SOQLQuery
        do { parsed = try SOQLParser.parse(q) } catch let error as SOQLError {
            return HTTP.error(.badRequest, error.errorCode, error.message)
        } catch {
            return HTTP.error(.badRequest, "MALFORMED_QUERY", "\(error)")
        }
        let rows = parsed.run(on: await state.allContacts(orgId: session.orgId, includeDeleted: includeDeleted))
        if rows.count <= batchSize {
            return HTTP.json(.ok, Self.page(rows, fields: parsed.fields, total: rows.count, version: version, next: nil))
        }
        let locator = await state.storeCursor(rows: rows, fields: parsed.fields, batchSize: batchSize, orgId: session.orgId)
        let path = includeDeleted ? "queryAll" : "query"
        return HTTP.json(.ok, Self.page(
            Array(rows.prefix(batchSize)), fields: parsed.fields, total: rows.count, version: version,
            next: "/services/data/\(version)/\(path)/\(locator)-\(batchSize)"))
    }

    private func more(_ request: Request, _ context: BasicRequestContext, path: String) async -> Outcome {
        let version = context.parameters.get("version") ?? ""
        guard HTTP.isSupportedVersion(version) else { return notFound() }
        guard let session = await auth.authenticate(request) else { return Self.invalidSession() }
        let parts = (context.parameters.get("locator") ?? "").split(separator: "-")
        guard parts.count == 2, let offset = Int(parts[1]), let cursor = await state.cursor(String(parts[0])), cursor.orgId == session.orgId,
            offset >= 0, offset < cursor.rows.count
        else {
            return HTTP.error(.badRequest, "INVALID_QUERY_LOCATOR", "invalid query locator")
        }
        let end = min(offset + cursor.batchSize, cursor.rows.count)
        let next = end < cursor.rows.count ? "/services/data/\(version)/\(path)/\(parts[0])-\(end)" : nil
        return HTTP.json(.ok, Self.page(Array(cursor.rows[offset..<end]), fields: cursor.fields, total: cursor.rows.count, version: version, next: next))
    }

    /// 200 to 2,000 (values outside are brought inside), default 2,000.
    static func batchSize(_ request: Request) -> Int {
        guard let header = request.headers.first(where: { $0.name.canonicalName == "sforce-query-options" })?.value else {
            return defaultBatchSize
        }
        for option in header.split(separator: ",") {
            let kv = option.split(separator: "=").map { $0.trimmingCharacters(in: .whitespaces) }
            if kv.count == 2, kv[0].lowercased() == "batchsize", let n = Int(kv[1]) { return min(max(n, 200), 2000) }
        }
        return defaultBatchSize
    }

    static func page(_ rows: [[String: FieldValue]], fields: [String], total: Int, version: String, next: String?) -> [String: Any] {
        var body: [String: Any] = [
            "totalSize": total, "done": next == nil, "records": rows.map { record(of: $0, fields: fields, version: version) },
        ]
        if let next { body["nextRecordsUrl"] = next }
        return body
    }

    static func record(of row: [String: FieldValue], fields: [String], version: String) -> [String: Any] {
        var out: [String: Any] = [
            "attributes": ["type": "Contact", "url": "/services/data/\(version)/sobjects/Contact/\(row["Id"]?.stringValue ?? "")"],
        ]
        for field in fields { out[field] = ContactSchema.value(row, field).jsonObject }
        return out
    }

    static func invalidSession() -> Outcome {
        HTTP.error(.unauthorized, "INVALID_SESSION_ID", "Session expired or invalid")
    }

    private func notFound() -> Outcome { HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist") }
}
