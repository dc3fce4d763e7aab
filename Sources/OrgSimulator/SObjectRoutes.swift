import Foundation
import Hummingbird

/// `sobjects/Contact`: create, read, update, delete, upsert by external id, and the describe with
/// `recentItems`. Validation as a real org does it: `LastName` required, field lengths, unknown and
/// read-only fields.
struct SObjectRoutes {
    let state: OrgState
    let auth: OAuthRoutes

    /// Fields that identify a record for upsert: `Id`, `Email` standing in for an External ID field, and
    /// the custom External ID field `DeviceRecordId__c`.
    static let externalIdFields = ContactSchema.externalIdFields

    func register(on router: Router<BasicRequestContext>) {
        let base = "/services/data/:version/sobjects/:type"
        router.get(RouterPath(base)) { request, context in await self.guarded(request, context) { s, v in await self.describe(s, v) } }
        router.post(RouterPath(base)) { request, context in
            let body = try await HTTP.body(request)
            return await self.guarded(request, context) { s, _ in await self.create(s, body) }
        }
        router.get(RouterPath(base + "/:key")) { request, context in
            await self.guarded(request, context) { s, v in await self.read(s, v, context.parameters.get("key") ?? "", HTTP.query(request, "fields")) }
        }
        router.patch(RouterPath(base + "/:key")) { request, context in
            let body = try await HTTP.body(request)
            return await self.guarded(request, context) { s, _ in await self.update(s, context.parameters.get("key") ?? "", body) }
        }
        router.delete(RouterPath(base + "/:key")) { request, context in
            await self.guarded(request, context) { s, _ in await self.delete(s, context.parameters.get("key") ?? "") }
        }
        router.patch(RouterPath(base + "/:key/:value")) { request, context in
            let body = try await HTTP.body(request)
            return await self.guarded(request, context) { s, _ in
                await self.upsert(s, context.parameters.get("key") ?? "", HTTP.decode(context.parameters.get("value") ?? "") ?? "", body)
            }
        }
    }

    /// Version, session and type checks shared by every route.
    private func guarded(
        _ request: Request, _ context: BasicRequestContext,
        _ body: (OrgState.AccessToken, String) async -> Outcome
    ) async -> Outcome {
        let version = context.parameters.get("version") ?? ""
        guard HTTP.isSupportedVersion(version) else { return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist") }
        guard let session = await auth.authenticate(request) else { return QueryRoutes.invalidSession() }
        guard context.parameters.get("type") == "Contact" else {
            return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
        }
        let response = await body(session, version)
        try? await state.persist()
        return response
    }

    func describe(_ session: OrgState.AccessToken, _ version: String) async -> Outcome {
        var recent: [[String: Any]] = []
        for id in await state.recentItems(userId: session.userId) {
            guard let record = await state.contact(orgId: session.orgId, id: id) else { continue }
            recent.append([
                "attributes": ["type": "Contact", "url": "/services/data/\(version)/sobjects/Contact/\(id)"], "Id": id,
                "Name": ContactSchema.value(record, "Name").jsonObject,
            ])
        }
        return HTTP.json(.ok, [
            "objectDescribe": [
                "name": "Contact", "label": "Contact", "keyPrefix": "003", "createable": true, "updateable": true, "deletable": true,
                "queryable": true, "urls": ["sobject": "/services/data/\(version)/sobjects/Contact", "rowTemplate": "/services/data/\(version)/sobjects/Contact/{ID}"],
            ],
            "recentItems": recent,
        ])
    }

    func create(_ session: OrgState.AccessToken, _ body: Data) async -> Outcome {
        switch Self.validate(body, requireLastName: true) {
        case .failure(let response): return response
        case .success(let fields):
            do {
                let id = try await state.create(orgId: session.orgId, userId: session.userId, fields: fields)
                return HTTP.json(.created, ["id": id, "success": true, "errors": [Any]()])
            } catch {
                return HTTP.error(.internalServerError, "UNKNOWN_EXCEPTION", "\(error)")
            }
        }
    }

    func read(_ session: OrgState.AccessToken, _ version: String, _ id: String, _ fieldList: String?) async -> Outcome {
        guard let record = await state.contact(orgId: session.orgId, id: id) else { return await gone(session, id) }
        var fields = ContactSchema.fields
        if let fieldList {
            fields = []
            for name in fieldList.split(separator: ",").map({ $0.trimmingCharacters(in: .whitespaces) }) {
                guard let canonical = ContactSchema.canonical(name) else {
                    return HTTP.error(.badRequest, "INVALID_FIELD", "No such column '\(name)' on sobject of type Contact")
                }
                fields.append(canonical)
            }
        }
        await state.touch(userId: session.userId, id: id)
        return HTTP.json(.ok, QueryRoutes.record(of: record, fields: fields, version: version))
    }

    func update(_ session: OrgState.AccessToken, _ id: String, _ body: Data) async -> Outcome {
        guard await state.contact(orgId: session.orgId, id: id) != nil else { return await gone(session, id) }
        switch Self.validate(body, requireLastName: false) {
        case .failure(let response): return response
        case .success(let fields):
            if fields["LastName"] == .null || fields["LastName"] == .string("") {
                return HTTP.error(.badRequest, "REQUIRED_FIELD_MISSING", "Required fields are missing: [LastName]", fields: ["LastName"])
            }
            _ = await state.update(orgId: session.orgId, userId: session.userId, id: id, fields: fields)
            return HTTP.noContent()
        }
    }

    func delete(_ session: OrgState.AccessToken, _ id: String) async -> Outcome {
        guard await state.delete(orgId: session.orgId, id: id) else { return await gone(session, id) }
        return HTTP.noContent()
    }

    func upsert(_ session: OrgState.AccessToken, _ field: String, _ value: String, _ body: Data) async -> Outcome {
        guard let canonical = ContactSchema.canonical(field), Self.externalIdFields.contains(canonical) else {
            return HTTP.error(.notFound, "NOT_FOUND", "Provided external ID field does not exist or is not accessible: \(field)")
        }
        let matches = await state.allContacts(orgId: session.orgId, includeDeleted: false).filter {
            guard let v = $0[canonical]?.stringValue else { return false }
            return canonical == "Id" ? OrgState.key(v) == OrgState.key(value) : v.lowercased() == value.lowercased()
        }
        if matches.count > 1 {
            return HTTP.json(.multipleChoices, matches.compactMap { $0["Id"]?.stringValue }.map { "/services/data/v66.0/sobjects/Contact/\($0)" })
        }
        if let existing = matches.first?["Id"]?.stringValue {
            switch Self.validate(body, requireLastName: false) {
            case .failure(let response): return response
            case .success(let fields):
                _ = await state.update(orgId: session.orgId, userId: session.userId, id: existing, fields: fields)
                return HTTP.json(.ok, ["id": existing, "success": true, "errors": [Any](), "created": false])
            }
        }
        guard canonical != "Id" else { return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist") }
        switch Self.validate(body, requireLastName: true) {
        case .failure(let response): return response
        case .success(var fields):
            fields[canonical] = .string(value)
            do {
                let id = try await state.create(orgId: session.orgId, userId: session.userId, fields: fields)
                return HTTP.json(.created, ["id": id, "success": true, "errors": [Any](), "created": true])
            } catch {
                return HTTP.error(.internalServerError, "UNKNOWN_EXCEPTION", "\(error)")
            }
        }
    }

    /// A deleted record is `ENTITY_IS_DELETED`; one that never existed is `NOT_FOUND`.
    private func gone(_ session: OrgState.AccessToken, _ id: String) async -> Outcome {
        if await state.isDeleted(orgId: session.orgId, id: id) {
            return HTTP.error(.notFound, "ENTITY_IS_DELETED", "entity is deleted")
        }
        return HTTP.error(.notFound, "NOT_FOUND", "The requested resource does not exist")
    }

    enum Validation {
        case success([String: FieldValue])
        case failure(Outcome)
    }

    /// The body's fields, or the error a real org gives.
    static func validate(_ body: Data, requireLastName: Bool) -> Validation {
        guard let object = HTTP.parseJSONObject(body) else {
            return .failure(HTTP.error(.badRequest, "JSON_PARSER_ERROR", "The request body is not a JSON object"))
        }
        switch validateFields(object, requireLastName: requireLastName) {
        case .success(let fields): return .success(fields)
        case .failure(let e): return .failure(HTTP.error(.badRequest, e.errorCode, e.message, fields: e.fields))
        }
    }

    struct FieldError: Error {
        var errorCode: String
        var message: String
        var fields: [String]
    }

    static func validateFields(_ object: [String: Any], requireLastName: Bool) -> Result<[String: FieldValue], FieldError> {
        var fields: [String: FieldValue] = [:]
        for (name, raw) in object where name != "attributes" {
            guard let canonical = ContactSchema.canonical(name) else {
                return .failure(FieldError(errorCode: "INVALID_FIELD", message: "No such column '\(name)' on sobject of type Contact", fields: [name]))
            }
            guard let limit = ContactSchema.writable[canonical] else {
                return .failure(FieldError(
                    errorCode: "INVALID_FIELD_FOR_INSERT_UPDATE", message: "Unable to create/update fields: \(canonical). Please check the security settings of this field.",
                    fields: [canonical]))
            }
            guard let value = FieldValue(json: raw) else {
                return .failure(FieldError(errorCode: "JSON_PARSER_ERROR", message: "Cannot deserialize instance of string from \(canonical)", fields: [canonical]))
            }
            if case .string(let s) = value, s.count > limit {
                return .failure(FieldError(
                    errorCode: "STRING_TOO_LONG", message: "\(canonical): data value too large: \(s.prefix(40))... (max length=\(limit))", fields: [canonical]))
            }
            fields[canonical] = value == .string("") ? .null : value
        }
        if requireLastName, fields["LastName"] == nil || fields["LastName"] == .null {
            return .failure(FieldError(errorCode: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [LastName]", fields: ["LastName"]))
        }
        return .success(fields)
    }
}
