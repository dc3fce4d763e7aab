import Foundation
import Hummingbird

/// `composite` (up to 25 sub-requests with `@{ref.path}` references and `allOrNone`) and the
/// `composite/sobjects` collections: create, update and delete up to 200 records, retrieve up to 2,000.
struct CompositeRoutes {
    let state: OrgState
    let auth: OAuthRoutes
    let sobjects: SObjectRoutes
    let queries: QueryRoutes

    func register(on router: Router<BasicRequestContext>) {
        router.post("/services/data/:version/composite") { request, context in
            try await self.guarded(request, context) { s, v, body in await self.composite(s, v, body) }
        }
        router.post("/services/data/:version/composite/sobjects") { request, context in
            try await self.guarded(request, context) { s, _, body in await self.createMany(s, body) }
        }
        router.patch("/services/data/:version/composite/sobjects") { request, context in
            try await self.guarded(request, context) { s, _, body in await self.updateMany(s, body) }
        }
        router.delete("/services/data/:version/composite/sobjects") { request, context in
            try await self.guarded(request, context) { s, _, _ in
                await self.deleteMany(s, ids: HTTP.query(request, "ids") ?? "", allOrNone: HTTP.query(request, "allOrNone") == "true")
            }
        }
        router.patch("/services/data/:version/composite/sobjects/:type/:field") { request, context in
            try await self.guarded(request, context) { s, _, body in
                guard context.parameters.get("type") == "Contact" else {
                    return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
                }
                return await self.upsertMany(s, field: context.parameters.get("field") ?? "", body)
            }
        }
        router.post("/services/data/:version/composite/sobjects/:type") { request, context in
            try await self.guarded(request, context) { s, v, body in
                guard context.parameters.get("type") == "Contact" else {
                    return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
                }
                return await self.retrieve(s, v, body)
            }
        }
    }

    private func guarded(
        _ request: Request, _ context: BasicRequestContext, _ body: (OrgState.AccessToken, String, Data) async -> Outcome
    ) async throws -> Outcome {
        let version = context.parameters.get("version") ?? ""
        guard HTTP.isSupportedVersion(version) else { return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist") }
        guard let session = await auth.authenticate(request) else { return QueryRoutes.invalidSession() }
        let data = try await HTTP.body(request)
        let outcome = await body(session, version, data)
        try? await state.persist()
        return outcome
    }

    // MARK: Collections

    private enum Records {
        case valid([[String: Any]], allOrNone: Bool)
        case invalid(Outcome)
    }

    private func records(_ body: Data, limit: Int) -> Records {
        guard let object = HTTP.parseJSONObject(body), let records = object["records"] as? [[String: Any]] else {
            return .invalid(HTTP.error(.badRequest, "JSON_PARSER_ERROR", "expected {\"allOrNone\": …, \"records\": […]}"))
        }
        guard records.count <= limit else {
            return .invalid(HTTP.error(.badRequest, "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than \(limit) records into this call"))
        }
        return .valid(records, allOrNone: object["allOrNone"] as? Bool ?? false)
    }

    func createMany(_ session: OrgState.AccessToken, _ body: Data) async -> Outcome {
        switch records(body, limit: 200) {
        case .invalid(let outcome): return outcome
        case .valid(let records, let allOrNone):
            let validated = records.map { SObjectRoutes.validateFields($0, requireLastName: true) }
            do {
                let results = try await state.createMany(orgId: session.orgId, userId: session.userId, validated, allOrNone: allOrNone)
                return HTTP.json(.ok, results.map(Self.saveResult))
            } catch {
                return HTTP.error(.internalServerError, "UNKNOWN_EXCEPTION", "\(error)")
            }
        }
    }

    /// `PATCH composite/sobjects/Contact/<external id field>`: upsert up to 200 records by external id;
    /// each result carries `created`.
    func upsertMany(_ session: OrgState.AccessToken, field: String, _ body: Data) async -> Outcome {
        guard let canonical = ContactSchema.canonical(field), ContactSchema.externalIdFields.contains(canonical), canonical != "Id" else {
            return HTTP.error(.notFound, "NOT_FOUND", "Provided external ID field does not exist or is not accessible: \(field)")
        }
        switch records(body, limit: 200) {
        case .invalid(let outcome): return outcome
        case .valid(let records, let allOrNone):
            let items = records.map { record -> (value: String?, fields: Result<OrgState.Record, SObjectRoutes.FieldError>) in
                let value = record.first { $0.key.lowercased() == canonical.lowercased() }?.value as? String
                return (value, SObjectRoutes.validateFields(record, requireLastName: false))
            }
            do {
                let results = try await state.upsertMany(orgId: session.orgId, userId: session.userId, field: canonical, items, allOrNone: allOrNone)
                return HTTP.json(.ok, results.map { result -> [String: Any] in
                    switch result {
                    case .success(let saved): return ["id": saved.id, "success": true, "errors": [Any](), "created": saved.created]
                    case .failure: return Self.saveResult(result.map(\.id))
                    }
                })
            } catch {
                return HTTP.error(.internalServerError, "UNKNOWN_EXCEPTION", "\(error)")
            }
        }
    }

    func updateMany(_ session: OrgState.AccessToken, _ body: Data) async -> Outcome {
        switch records(body, limit: 200) {
        case .invalid(let outcome): return outcome
        case .valid(let records, let allOrNone):
            let items = records.map { record -> (id: String, fields: Result<OrgState.Record, SObjectRoutes.FieldError>) in
                var fields = record
                let id = fields.removeValue(forKey: "Id") as? String ?? fields.removeValue(forKey: "id") as? String ?? ""
                return (id, SObjectRoutes.validateFields(fields, requireLastName: false))
            }
            let results = await state.updateMany(orgId: session.orgId, userId: session.userId, items, allOrNone: allOrNone)
            return HTTP.json(.ok, zip(items, results).map { item, result in Self.saveResult(result.mapError { $0 }, id: item.id) })
        }
    }

    func deleteMany(_ session: OrgState.AccessToken, ids: String, allOrNone: Bool) async -> Outcome {
        let list = ids.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
        guard !list.isEmpty else { return HTTP.error(.badRequest, "MISSING_ARGUMENT", "ids parameter is required") }
        guard list.count <= 200 else {
            return HTTP.error(.badRequest, "EXCEEDED_ID_LIMIT", "record limit reached. cannot submit more than 200 records into this call")
        }
        let results = await state.deleteMany(orgId: session.orgId, ids: list, allOrNone: allOrNone)
        return HTTP.json(.ok, zip(list, results).map { id, result in Self.saveResult(result, id: id) })
    }

    func retrieve(_ session: OrgState.AccessToken, _ version: String, _ body: Data) async -> Outcome {
        guard let object = HTTP.parseJSONObject(body), let ids = object["ids"] as? [String], let fieldNames = object["fields"] as? [String] else {
            return HTTP.error(.badRequest, "JSON_PARSER_ERROR", "expected {\"ids\": […], \"fields\": […]}")
        }
        guard ids.count <= 2000 else {
            return HTTP.error(.badRequest, "EXCEEDED_ID_LIMIT", "cannot retrieve more than 2000 records")
        }
        var fields: [String] = []
        for name in fieldNames {
            guard let canonical = ContactSchema.canonical(name) else {
                return HTTP.error(.badRequest, "INVALID_FIELD", "No such column '\(name)' on sobject of type Contact")
            }
            fields.append(canonical)
        }
        var out: [Any] = []
        for id in ids {
            if let record = await state.contact(orgId: session.orgId, id: id) {
                out.append(QueryRoutes.record(of: record, fields: fields, version: version))
            } else {
                out.append(NSNull())
            }
        }
        return HTTP.json(.ok, out)
    }

    static func saveResult(_ result: Result<String, SObjectRoutes.FieldError>) -> [String: Any] { saveResult(result, id: nil) }

    static func saveResult(_ result: Result<String, SObjectRoutes.FieldError>, id: String?) -> [String: Any] {
        switch result {
        case .success(let id): return ["id": id, "success": true, "errors": [Any]()]
        case .failure(let e):
            return [
                "id": (id.map { $0 as Any }) ?? NSNull(), "success": false,
                "errors": [["statusCode": e.errorCode, "message": e.message, "fields": e.fields]],
            ]
        }
    }

    // MARK: Composite

    func composite(_ session: OrgState.AccessToken, _ version: String, _ body: Data) async -> Outcome {
        guard let object = HTTP.parseJSONObject(body), let requests = object["compositeRequest"] as? [[String: Any]] else {
            return HTTP.error(.badRequest, "JSON_PARSER_ERROR", "expected {\"compositeRequest\": […]}")
        }
        guard requests.count <= 25 else {
            return HTTP.error(.badRequest, "INVALID_BATCH_REQUEST", "Too many sub-requests: the limit is 25")
        }
        let allOrNone = object["allOrNone"] as? Bool ?? false
        let snapshot = allOrNone ? await state.snapshotRecords() : nil
        var results: [String: Any] = [:]
        var responses: [[String: Any]] = []
        var failed = false
        for sub in requests {
            let referenceId = sub["referenceId"] as? String ?? ""
            let outcome: Outcome
            if failed && allOrNone {
                outcome = HTTP.error(.badRequest, "PROCESSING_HALTED", "The transaction was rolled back since another operation in the same transaction failed.")
            } else {
                outcome = await dispatch(session, version, sub, references: results)
            }
            if outcome.status.code >= 400 { failed = true }
            if let json = outcome.json { results[referenceId] = json }
            responses.append([
                "body": outcome.json ?? NSNull(), "httpHeaders": outcome.headers[.location].map { ["Location": $0] } ?? [String: String](),
                "httpStatusCode": outcome.status.code, "referenceId": referenceId,
            ])
        }
        if failed, let snapshot {
            await state.restore(snapshot)
            let halted: [[String: Any]] = [[
                "errorCode": "PROCESSING_HALTED",
                "message": "The transaction was rolled back since another operation in the same transaction failed.",
            ]]
            responses = responses.map { r in
                guard (r["httpStatusCode"] as? Int ?? 0) < 400 else { return r }
                var rolled = r
                rolled["httpStatusCode"] = 400
                rolled["body"] = halted
                return rolled
            }
        }
        return HTTP.json(.ok, ["compositeResponse": responses])
    }

    private func dispatch(_ session: OrgState.AccessToken, _ version: String, _ sub: [String: Any], references: [String: Any]) async -> Outcome {
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
        let parts = components.path.split(separator: "/").map(String.init)
        guard parts.count >= 4, parts[0] == "services", parts[1] == "data", HTTP.isSupportedVersion(parts[2]) else {
            return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
        }
        let version = parts[2]
        let rest = Array(parts[3...])
        // Query strings in sub-request URLs are form-encoded: '+' is a space, '%2B' a plus.
        let query = { (name: String) in components.percentEncodedQueryItems?.first { $0.name == name }?.value.flatMap(HTTP.decode) }
        switch (method, rest.count, rest.first) {
        case ("GET", 1, "query"), ("GET", 1, "queryAll"):
            return await queries.run(session: session, version: version, soql: query("q"), includeDeleted: rest[0] == "queryAll", batchSize: QueryRoutes.defaultBatchSize)
        case (_, _, "sobjects") where rest.count >= 2 && rest[1] == "Contact":
            switch (method, rest.count) {
            case ("GET", 2): return await sobjects.describe(session, version)
            case ("POST", 2): return await sobjects.create(session, bodyData)
            case ("GET", 3): return await sobjects.read(session, version, rest[2], query("fields"))
            case ("PATCH", 3): return await sobjects.update(session, rest[2], bodyData)
            case ("DELETE", 3): return await sobjects.delete(session, rest[2])
            case ("PATCH", 4): return await sobjects.upsert(session, rest[2], rest[3], bodyData)
            default: break
            }
        default: break
        }
        return HTTP.error(.badRequest, "INVALID_BATCH_REQUEST", "\(method) \(components.path) is not supported in composite")
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
