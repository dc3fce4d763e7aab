import Foundation
import Hummingbird

/// `sobjects/<Type>` for every object of the org: basic info with recent items, create, read, update,
/// delete; GET, PATCH (upsert) and DELETE by an External ID field at `sobjects/<Type>/<Field>/<value>`;
/// `updated` and `deleted` with `start` and `end`.
struct SObjectRoutes {
    let state: OrgState

    func register(on api: RouterGroup<OrgContext>) {
        for path in ["sobjects/:type", "sobjects/:type/:a", "sobjects/:type/:a/:b"] {
            for method in [HTTPRequest.Method.get, .post, .patch, .delete] {
                api.on(RouterPath(path), method: method) { request, context in
                    let session = try context.requireSession
                    let body = method == .get || method == .delete ? Data() : try await HTTP.body(request)
                    let parts = ["sobjects"] + ["type", "a", "b"].compactMap { context.parameters.get($0) }.map { HTTP.decodePath($0) }
                    let call = APICall(method: method, path: parts, query: HTTP.queryItems(request), body: body, session: session, version: context.apiVersion)
                    return try await state.write { db in try handle(db, call) }
                }
            }
        }
    }

    /// A call whose path starts with `sobjects` (also a composite sub-request).
    func handle(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let p = call.path
        guard p.count >= 2 else { throw SalesforceError.notFound() }
        let object = try state.records.object(p[1])
        switch (call.method, p.count) {
        case (.get, 2): return try basicInfo(db, call, object)
        case (.post, 2):
            let id = try state.records.create(db, session: call.session, object: object, body: try call.json())
            var outcome = HTTP.encoded(.created, SaveResult.ok(id))
            outcome.headers[.location] = "/services/data/\(call.version)/sobjects/\(object.name)/\(id)"
            return outcome
        case (.get, 3) where p[2] == "describe":
            return try DescribeRoutes(state: state).describe(type: object.name, version: call.version)
        case (.get, 3) where p[2] == "updated" || p[2] == "deleted":
            return try replication(db, call, object, deleted: p[2] == "deleted")
        case (.get, 3): return try read(db, call, object, id: p[2])
        case (.patch, 3):
            try state.records.update(db, session: call.session, object: object, id: p[2], body: try call.json())
            return HTTP.noContent()
        case (.delete, 3):
            try state.records.delete(db, session: call.session, object: object, id: p[2])
            return HTTP.noContent()
        case (.get, 4), (.delete, 4):
            let field = try state.records.upsertField(object, p[2])
            let ids = try state.records.ids(db, orgId: call.session.orgId, object: object, field: field, value: p[3])
            if ids.count > 1 { return HTTP.json(.multipleChoices, ids.map { "/services/data/\(call.version)/sobjects/\(object.name)/\($0)" }) }
            guard let id = ids.first else { throw SalesforceError.notFound() }
            if call.method == .get { return try read(db, call, object, id: id) }
            try state.records.delete(db, session: call.session, object: object, id: id)
            return HTTP.noContent()
        case (.patch, 4):
            let field = try state.records.upsertField(object, p[2])
            switch try state.records.upsert(db, session: call.session, object: object, field: field, value: p[3], body: try call.json()) {
            case .ambiguous(let ids): return HTTP.json(.multipleChoices, ids.map { "/services/data/\(call.version)/sobjects/\(object.name)/\($0)" })
            case .updated(let id): return HTTP.encoded(.ok, SaveResult.ok(id, created: false))
            case .created(let id):
                var outcome = HTTP.encoded(.created, SaveResult.ok(id, created: true))
                outcome.headers[.location] = "/services/data/\(call.version)/sobjects/\(object.name)/\(id)"
                return outcome
            }
        default:
            throw SalesforceError(.methodNotAllowed, "METHOD_NOT_ALLOWED", "HTTP method '\(call.method.rawValue)' not allowed. Allowed are GET, PATCH, DELETE, HEAD")
        }
    }

    /// `sobjects/<Type>`: the object's summary and the records this user touched last.
    func basicInfo(_ db: SQLTransaction, _ call: APICall, _ object: ObjectDefinition) throws -> Outcome {
        let summary = DescribeRoutes(state: state).summary(object, version: call.version)
        let recent = try state.records.recentItems(db, session: call.session, object: object).map { record -> [String: Any] in
            var item: [String: Any] = [
                "attributes": ["type": object.name, "url": "/services/data/\(call.version)/sobjects/\(object.name)/\(record["Id"]?.stringValue ?? "")"],
                "Id": record["Id"]?.jsonObject ?? NSNull(),
            ]
            if let name = object.nameField { item[name] = (record[name] ?? .null).jsonObject }
            return item
        }
        let data = try JSONEncoder().encode(summary)
        let objectDescribe = try JSONSerialization.jsonObject(with: data)
        return HTTP.json(.ok, ["objectDescribe": objectDescribe, "recentItems": recent])
    }

    func read(_ db: SQLTransaction, _ call: APICall, _ object: ObjectDefinition, id: String) throws -> Outcome {
        guard let record = try state.records.read(db, orgId: call.session.orgId, object: object, id: id) else {
            throw try state.records.gone(db, orgId: call.session.orgId, object: object, id: id)
        }
        var fields = object.fields
        if let list = call.query["fields"] {
            fields = []
            for name in list.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) where !name.isEmpty {
                guard let field = object.field(name) else {
                    throw SalesforceError(.badRequest, "INVALID_FIELD", "No such column '\(name)' on sobject of type \(object.name)", fields: [name])
                }
                fields.append(field)
            }
        }
        try state.records.touch(db, session: call.session, object: object, id: record["Id"]?.stringValue ?? id)
        return HTTP.json(.ok, Self.json(record, fields: fields.map(\.name), object: object.name, version: call.version))
    }

    static func json(_ record: Record, fields: [String], object: String, version: String) -> [String: Any] {
        var out: [String: Any] = [
            "attributes": ["type": object, "url": "/services/data/\(version)/sobjects/\(object)/\(record["Id"]?.stringValue ?? "")"],
        ]
        for field in fields { out[field] = (record[field] ?? .null).jsonObject }
        return out
    }

    /// `updated` (`{"ids", "latestDateCovered"}`) and `deleted` (`{"deletedRecords", "earliestDateAvailable",
    /// "latestDateCovered"}`) between `start` and `end`.
    func replication(_ db: SQLTransaction, _ call: APICall, _ object: ObjectDefinition, deleted: Bool) throws -> Outcome {
        guard let startText = call.query["start"], let endText = call.query["end"], let start = SalesforceDate.parse(startText),
            let end = SalesforceDate.parse(endText)
        else {
            throw SalesforceError(.badRequest, "INVALID_REPLICATION_DATE", "start and end are required, as dateTimes such as 2026-11-01T00:00:00+00:00")
        }
        guard start < end else { throw SalesforceError(.badRequest, "INVALID_REPLICATION_DATE", "start must be before end") }
        let table = OrgDatabase.quote(object.table)
        let latest = min(end, Date())
        let s = SalesforceDate.string(start), e = SalesforceDate.string(latest)
        if deleted {
            let rows = try db.fetchAll("SELECT \"Id\", \"SystemModstamp\" FROM \(table) WHERE org_id = ? AND \"IsDeleted\" = 1 AND \"SystemModstamp\" >= ? AND \"SystemModstamp\" < ? ORDER BY \"SystemModstamp\"", [call.session.orgId, s, e])
            let earliest = try db.value(as: String.self, "SELECT MIN(\"SystemModstamp\") FROM \(table) WHERE org_id = ? AND \"IsDeleted\" = 1", [call.session.orgId])
            var body: [String: Any] = [
                "deletedRecords": rows.map { ["id": $0["Id"] as String, "deletedDate": $0["SystemModstamp"] as String] },
                "latestDateCovered": e,
            ]
            body["earliestDateAvailable"] = earliest ?? SalesforceDate.string(start)
            return HTTP.json(.ok, body)
        }
        let ids = try db.values(as: String.self, "SELECT \"Id\" FROM \(table) WHERE org_id = ? AND \"IsDeleted\" = 0 AND \"SystemModstamp\" >= ? AND \"SystemModstamp\" < ? ORDER BY \"SystemModstamp\"", [call.session.orgId, s, e])
        return HTTP.json(.ok, ["ids": ids, "latestDateCovered": e])
    }
}
