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
            return Self.pageOutcome(rows, fields: parsed.fields, total: rows.count, version: version, next: nil)
        }
        let locator = await state.storeCursor(rows: rows, fields: parsed.fields, batchSize: batchSize, orgId: session.orgId)
        let path = includeDeleted ? "queryAll" : "query"
        return Self.pageOutcome(
            Array(rows.prefix(batchSize)), fields: parsed.fields, total: rows.count, version: version,
            next: "/services/data/\(version)/\(path)/\(locator)-\(batchSize)")
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
        return Self.pageOutcome(Array(cursor.rows[offset..<end]), fields: cursor.fields, total: cursor.rows.count, version: version, next: next)
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

    /// A query page written straight to bytes: JSONSerialization on Linux spent ~50 µs per record,
    /// which made the org, not the client, the slow side of a sync down.
    static func pageOutcome(_ rows: [[String: FieldValue]], fields: [String], total: Int, version: String, next: String?) -> Outcome {
        var out: [UInt8] = []
        out.reserveCapacity(64 + rows.count * (96 + fields.count * 32))
        out += Array("{\"totalSize\":\(total),\"done\":\(next == nil)".utf8)
        if let next {
            out += Array(",\"nextRecordsUrl\":".utf8)
            JSONBytes.string(next, into: &out)
        }
        out += Array(",\"records\":[".utf8)
        let urlPrefix = "/services/data/\(version)/sobjects/Contact/"
        for (i, row) in rows.enumerated() {
            if i > 0 { out.append(0x2C) }
            out += Array("{\"attributes\":{\"type\":\"Contact\",\"url\":".utf8)
            JSONBytes.string(urlPrefix + (row["Id"]?.stringValue ?? ""), into: &out)
            out.append(0x7D)
            for field in fields {
                out.append(0x2C)
                JSONBytes.string(field, into: &out)
                out.append(0x3A)
                JSONBytes.value(ContactSchema.value(row, field), into: &out)
            }
            out.append(0x7D)
        }
        out += Array("]}".utf8)
        return Outcome(status: .ok, headers: [.contentType: "application/json;charset=UTF-8"], body: Data(out))
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

/// Minimal JSON writing for field values.
enum JSONBytes {
    static func value(_ value: FieldValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += [0x6E, 0x75, 0x6C, 0x6C]
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .int(let i): out += Array(String(i).utf8)
        case .double(let d): out += Array((d.isFinite ? "\(d)" : "null").utf8)
        case .string(let s): string(s, into: &out)
        }
    }

    static func string(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for byte in s.utf8 {
            switch byte {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, 0x6E]
            case 0x0D: out += [0x5C, 0x72]
            case 0x09: out += [0x5C, 0x74]
            case ..<0x20: out += Array(String(format: "\\u%04x", byte).utf8)
            default: out.append(byte)
            }
        }
        out.append(0x22)
    }
}
