import Foundation
import Hummingbird

/// `composite` (up to 25 sub-requests with `@{ref.path}` references and `allOrNone`), `composite/batch` (up to 25
/// independent sub-requests, `haltOnError`), and the
/// `composite/sobjects` collections for any object: create, update and delete up to 200 records,
/// upsert by an External ID field, retrieve up to 2,000. A request runs in one database transaction;
/// `allOrNone` rolls back to a savepoint.
struct CompositeRoutes {
    let state: OrgState
    let sobjects: SObjectRoutes
    let queries: QueryRoutes

    func register(on api: RouterGroup<OrgContext>) {
        api.post("composite") { request, context in try await self.perform(request, context, .post, ["composite"]) }
        api.post("composite/batch") { request, context in try await self.perform(request, context, .post, ["composite", "batch"]) }
        api.post("composite/sobjects") { request, context in try await self.perform(request, context, .post, ["composite", "sobjects"]) }
        api.patch("composite/sobjects") { request, context in try await self.perform(request, context, .patch, ["composite", "sobjects"]) }
        api.delete("composite/sobjects") { request, context in try await self.perform(request, context, .delete, ["composite", "sobjects"]) }
        api.post("composite/sobjects/:type") { request, context in
            try await self.perform(request, context, .post, ["composite", "sobjects", context.parameters.get("type") ?? ""])
        }
        api.patch("composite/sobjects/:type/:field") { request, context in
            try await self.perform(request, context, .patch, ["composite", "sobjects", context.parameters.get("type") ?? "", context.parameters.get("field") ?? ""])
        }
    }

    private func perform(_ request: Request, _ context: OrgContext, _ method: HTTPRequest.Method, _ path: [String]) async throws -> Outcome {
        let body = method == .delete ? Data() : try await HTTP.body(request)
        let call = APICall(method: method, path: path, query: HTTP.queryItems(request), body: body, session: try context.requireSession, version: context.apiVersion)
        return try await state.write { db in try handle(db, call) }
    }

    func handle(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        switch (call.method, call.path.count) {
        case (.post, 1): return try composite(db, call)
        case (.post, 2) where call.path[1] == "batch": return try batch(db, call)
        case (.post, 2): return try collection(db, call) { record, object in
                .ok(try state.records.create(db, session: call.session, object: object, body: record))
            }
        case (.patch, 2):
            // The records are locked first, in one order; one that is not given in time fails alone.
            let (records, _) = try records(call, limit: 200)
            let targets = records.compactMap { record -> (object: ObjectDefinition, id: String)? in
                guard let type = (record["attributes"] as? [String: Any])?["type"] as? String, let object = try? state.records.object(type),
                    let id = record["Id"] as? String ?? record["id"] as? String
                else { return nil }
                return (object, id)
            }
            let unavailable = try state.records.lockRecords(db, orgId: call.session.orgId, targets)
            return try collection(db, call) { record, object in
                var fields = record
                let id = fields.removeValue(forKey: "Id") as? String ?? fields.removeValue(forKey: "id") as? String ?? ""
                guard !id.isEmpty else { throw SalesforceError(.badRequest, "MISSING_ARGUMENT", "Id not specified in an update call") }
                if unavailable.contains(OrgState.key(id)) { throw SalesforceError.unableToLockRow([id]) }
                do {
                    try state.records.update(db, session: call.session, object: object, id: id, body: fields)
                } catch let error as SalesforceError where error.errorCode == "NOT_FOUND" {
                    throw SalesforceError(.badRequest, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id")
                }
                return .ok(OrgState.key(id))
            }
        case (.delete, 2): return try deleteMany(db, call)
        case (.post, 3): return try retrieve(db, call, type: call.path[2])
        case (.patch, 4): return try upsertMany(db, call, type: call.path[2], fieldName: call.path[3])
        default: throw SalesforceError.notFound()
        }
    }

    // MARK: Collections

    func records(_ call: APICall, limit: Int) throws -> ([[String: Any]], allOrNone: Bool) {
        guard let object = HTTP.parseJSONObject(call.body), let records = object["records"] as? [[String: Any]] else {
            throw SalesforceError(.badRequest, "JSON_PARSER_ERROR", "expected {\"allOrNone\": …, \"records\": […]}")
        }
        guard records.count <= limit else {
            throw SalesforceError(.badRequest, "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than \(limit) records into this call")
        }
        return (records, object["allOrNone"] as? Bool ?? false)
    }

    /// Each record in its own savepoint; with `allOrNone`, all of them in one that is rolled back if
    /// any failed (the others then report `ALL_OR_NONE_OPERATION_ROLLED_BACK`).
    func collection(_ db: SQLTransaction, _ call: APICall, type: String? = nil, _ save: ([String: Any], ObjectDefinition) throws -> SaveResult) throws -> Outcome {
        let (records, allOrNone) = try records(call, limit: 200)
        var results: [SaveResult] = []
        try db.inSavepoint {
            for record in records {
                var result: SaveResult = .failed(.rolledBack)
                try db.inSavepoint {
                    do {
                        let typeName = type ?? ((record["attributes"] as? [String: Any])?["type"] as? String)
                        guard let typeName else { throw SalesforceError(.badRequest, "INVALID_TYPE", "Must send a concrete entity type.") }
                        result = try save(record, try state.records.object(typeName))
                        return .commit
                    } catch let error as SalesforceError {
                        result = .failed(error)
                        return .rollback
                    }
                }
                results.append(result)
            }
            guard allOrNone, results.contains(where: { !$0.success }) else { return .commit }
            results = results.map { $0.success ? .failed(.rolledBack) : $0 }
            return .rollback
        }
        return HTTP.encoded(.ok, results)
    }

    func upsertMany(_ db: SQLTransaction, _ call: APICall, type: String, fieldName: String) throws -> Outcome {
        let object = try state.records.object(type)
        let field = try state.records.upsertField(object, fieldName)
        guard field.type != .id else {
            throw SalesforceError(.badRequest, "INVALID_FIELD", "Id is not an External ID field; use PATCH composite/sobjects to update by Id")
        }
        // Every external id of the request locked first, in one order; when one is not given in time, each
        // record's upsert locks its own.
        let (records, _) = try records(call, limit: 200)
        let values = records.compactMap { record in (record.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value as? String).map { (field, FieldValue.string($0)) } }
        try? db.inSavepoint {
            try state.records.lockValues(db, orgId: call.session.orgId, object: object, values)
            return .commit
        }
        return try collection(db, call, type: object.name) { record, object in
            guard let value = record.first(where: { $0.key.lowercased() == field.name.lowercased() })?.value as? String, !value.isEmpty else {
                throw SalesforceError(.badRequest, "MISSING_ARGUMENT", "\(field.name) not specified", fields: [field.name])
            }
            switch try state.records.upsert(db, session: call.session, object: object, field: field, value: value, body: record) {
            case .created(let id): return .ok(id, created: true)
            case .updated(let id): return .ok(id, created: false)
            case .ambiguous:
                throw SalesforceError(.badRequest, "DUPLICATE_EXTERNAL_ID", "\(field.name): more than one record found for external id field: \(value)", fields: [field.name])
            }
        }
    }

    func deleteMany(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let list = (call.query["ids"] ?? "").split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !list.isEmpty else { throw SalesforceError(.badRequest, "MISSING_ARGUMENT", "ids parameter is required") }
        guard list.count <= 200 else {
            throw SalesforceError(.badRequest, "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than 200 records into this call")
        }
        let allOrNone = call.query["allOrNone"] == "true"
        let unavailable = try state.records.lockRecords(db, orgId: call.session.orgId, list.compactMap { id in state.records.object(ofId: id).map { ($0, id) } })
        var results: [SaveResult] = []
        try db.inSavepoint {
            for id in list {
                do {
                    guard let object = state.records.object(ofId: id) else {
                        throw SalesforceError(.badRequest, "MALFORMED_ID", "malformed id \(id)")
                    }
                    if unavailable.contains(OrgState.key(id)) { throw SalesforceError.unableToLockRow([id]) }
                    try state.records.delete(db, session: call.session, object: object, id: id)
                    results.append(.ok(OrgState.key(id)))
                } catch let error as SalesforceError {
                    let e = error.errorCode == "NOT_FOUND" ? SalesforceError(.badRequest, "INVALID_CROSS_REFERENCE_KEY", "invalid cross reference id") : error
                    results.append(.failed(e, id: id))
                }
            }
            guard allOrNone, results.contains(where: { !$0.success }) else { return .commit }
            results = results.map { $0.success ? .failed(.rolledBack, id: $0.id) : $0 }
            return .rollback
        }
        return HTTP.encoded(.ok, results)
    }

    func retrieve(_ db: SQLTransaction, _ call: APICall, type: String) throws -> Outcome {
        let object = try state.records.object(type)
        let body = try call.json()
        guard let ids = body["ids"] as? [String], let names = body["fields"] as? [String] else {
            throw SalesforceError(.badRequest, "JSON_PARSER_ERROR", "expected {\"ids\": […], \"fields\": […]}")
        }
        guard ids.count <= 2000 else { throw SalesforceError(.badRequest, "EXCEEDED_ID_LIMIT", "cannot retrieve more than 2000 records") }
        let fields = try names.map { name -> String in
            guard let field = object.field(name) else {
                throw SalesforceError(.badRequest, "INVALID_FIELD", "No such column '\(name)' on sobject of type \(object.name)", fields: [name])
            }
            return field.name
        }
        let out: [Any] = try ids.map { id in
            guard let record = try state.records.read(db, orgId: call.session.orgId, object: object, id: id) else { return NSNull() }
            return SObjectRoutes.json(record, fields: fields, object: object.name, version: call.version)
        }
        return HTTP.json(.ok, out)
    }

    // MARK: Composite

    static let halted = "The transaction was rolled back since another operation in the same transaction failed."

    func composite(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let object = try call.json()
        guard let requests = object["compositeRequest"] as? [[String: Any]] else {
            throw SalesforceError(.badRequest, "JSON_PARSER_ERROR", "expected {\"compositeRequest\": […]}")
        }
        guard requests.count <= 25 else { throw SalesforceError(.badRequest, "INVALID_BATCH_REQUEST", "Too many sub-requests: the limit is 25") }
        let allOrNone = object["allOrNone"] as? Bool ?? false
        var results: [String: Any] = [:]
        var responses: [[String: Any]] = []
        try db.inSavepoint {
            var failed = false
            for sub in requests {
                let referenceId = sub["referenceId"] as? String ?? ""
                var outcome: Outcome
                if failed && allOrNone {
                    outcome = HTTP.error(.badRequest, "PROCESSING_HALTED", Self.halted)
                } else {
                    outcome = SalesforceError.notFound().outcome
                    try db.inSavepoint {
                        outcome = try dispatch(db, call, sub, references: results)
                        return outcome.status.code < 400 ? .commit : .rollback
                    }
                }
                if outcome.status.code >= 400 { failed = true }
                if let json = outcome.json { results[referenceId] = json }
                responses.append([
                    "body": outcome.json ?? NSNull(), "httpHeaders": outcome.headers[.location].map { ["Location": $0] } ?? [String: String](),
                    "httpStatusCode": outcome.status.code, "referenceId": referenceId,
                ])
            }
            guard failed, allOrNone else { return .commit }
            responses = responses.map { r in
                guard (r["httpStatusCode"] as? Int ?? 0) < 400 else { return r }
                var rolled = r
                rolled["httpStatusCode"] = 400
                rolled["httpHeaders"] = [String: String]()
                rolled["body"] = [["errorCode": "PROCESSING_HALTED", "message": Self.halted]]
                return rolled
            }
            return .rollback
        }
        return HTTP.json(.ok, ["compositeResponse": responses])
    }

    /// Salesforce's Composite Batch: `{"batchRequests": [{"method", "url", "richInput"?}…], "haltOnError"?}`, up to 25
    /// sub-requests run in order, each on its own (one that fails changes nothing, and undoes nothing of the
    /// others). The answer is 200 `{"hasErrors", "results": [{"statusCode", "result"}…]}`, `result` being what the
    /// sub-request's own call answers (null for a 204). With `haltOnError`, the sub-requests after the first
    /// that fails are not run: 412 `BATCH_PROCESSING_HALTED`. A `url` is `vXX.X/…`, `/vXX.X/…` or `/services/data/vXX.X/…`.
    func batch(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let object = try call.json()
        guard let requests = object["batchRequests"] as? [[String: Any]] else {
            throw SalesforceError(.badRequest, "JSON_PARSER_ERROR", "expected {\"batchRequests\": […]}")
        }
        guard requests.count <= 25 else {
            throw SalesforceError(.badRequest, "INVALID_BATCH_REQUEST", "A batch cannot contain more than 25 requests")
        }
        let halt = object["haltOnError"] as? Bool ?? false
        var results: [[String: Any]] = []
        var failed = false
        for sub in requests {
            if failed && halt {
                results.append(["statusCode": 412, "result": [["errorCode": "BATCH_PROCESSING_HALTED", "message": "Batch processing halted per request"]]])
                continue
            }
            var request = sub
            request["body"] = sub["richInput"]
            // `vXX.X/…` as Salesforce documents it, `/vXX.X/…` as the Mobile SDK's BatchRequest writes it.
            if let url = sub["url"] as? String, !url.hasPrefix("/services/") {
                request["url"] = "/services/data/" + (url.hasPrefix("/") ? String(url.dropFirst()) : url)
            }
            var outcome = SalesforceError.notFound().outcome
            try db.inSavepoint {
                outcome = try dispatch(db, call, request, references: [:])
                return outcome.status.code < 400 ? .commit : .rollback
            }
            if outcome.status.code >= 400 { failed = true }
            results.append(["statusCode": outcome.status.code, "result": outcome.json ?? NSNull()])
        }
        return HTTP.json(.ok, ["hasErrors": failed, "results": results])
    }

    private func dispatch(_ db: SQLTransaction, _ call: APICall, _ sub: [String: Any], references: [String: Any]) throws -> Outcome {
        guard let method = (sub["method"] as? String)?.uppercased(), let rawURL = sub["url"] as? String else {
            return HTTP.error(.badRequest, "INVALID_BATCH_REQUEST", "each sub-request needs a method and a url")
        }
        let resolvedURL: String
        var bodyData = Data()
        do {
            resolvedURL = try Self.resolve(rawURL, references)
            if let body = sub["body"] {
                let text = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
                bodyData = Data(try Self.resolve(text, references).utf8)
            }
        } catch let error as ReferenceError {
            return HTTP.error(.badRequest, "PROCESSING_HALTED", "Invalid reference specified. No value for \(error.reference) found")
        } catch {
            return HTTP.error(.badRequest, "JSON_PARSER_ERROR", "\(error)")
        }
        guard let components = URLComponents(string: resolvedURL) else {
            return HTTP.error(.badRequest, "INVALID_BATCH_REQUEST", "bad url \(rawURL)")
        }
        let parts = components.path.split(separator: "/").map { HTTP.decodePath(String($0)) }
        guard parts.count >= 3, parts[0] == "services", parts[1] == "data", HTTP.isSupportedVersion(parts[2]) else {
            return SalesforceError.notFound().outcome
        }
        // Query strings in sub-request URLs are form-encoded: '+' is a space, '%2B' a plus.
        let query = HTTP.form(Data((components.percentEncodedQuery ?? "").utf8))
        let sub = APICall(
            method: HTTPRequest.Method(method) ?? .get, path: Array(parts[3...]), query: query, body: bodyData, session: call.session, version: parts[2])
        do {
            switch sub.path.first {
            case nil: return DescribeRoutes.resources(version: sub.version)
            case "sobjects" where sub.path.count == 1: return DescribeRoutes(state: state).global(version: sub.version)
            case "sobjects": return try sobjects.handle(db, sub)
            case "query" where method == "GET", "queryAll" where method == "GET", "search" where method == "GET": return try queries.handle(db, sub)
            case "limits" where method == "GET": return try DescribeRoutes(state: state).limits(db)
            default: return HTTP.error(.badRequest, "INVALID_BATCH_REQUEST", "\(method) \(components.path) is not supported in composite")
            }
        } catch let error as SalesforceError {
            return error.outcome
        }
    }

    struct ReferenceError: Error { var reference: String }

    /// Replaces every `@{refId.path}` (`id`, `records[0].Id`, …) with the value from an earlier answer.
    static func resolve(_ text: String, _ references: [String: Any]) throws -> String {
        var out = ""
        var rest = Substring(text)
        while let start = rest.range(of: "@{") {
            out += rest[..<start.lowerBound]
            guard let end = rest[start.upperBound...].firstIndex(of: "}") else { break }
            let reference = String(rest[start.upperBound..<end])
            var parts = reference.split(separator: ".").map(String.init)
            guard !parts.isEmpty, var value = references[parts.removeFirst()] else { throw ReferenceError(reference: reference) }
            for part in parts {
                var name = part
                var index: Int?
                if let open = part.firstIndex(of: "["), part.hasSuffix("]") {
                    name = String(part[..<open])
                    index = Int(part[part.index(after: open)..<part.index(before: part.endIndex)])
                }
                guard let object = value as? [String: Any], var next = object[name] else { throw ReferenceError(reference: reference) }
                if let index {
                    guard let array = next as? [Any], index < array.count else { throw ReferenceError(reference: reference) }
                    next = array[index]
                }
                value = next
            }
            out += "\(value)"
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}
