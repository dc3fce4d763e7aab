import Foundation
import HTTPTypes
import Hummingbird

/// The request context of every route: the session of an authenticated REST request and its API
/// version, set by `APIMiddleware` on `/services/data/:version`.
struct OrgContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    var session: Session?
    var apiVersion = "v66.0"

    init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }

    /// The session; only routes behind `APIMiddleware` ask for it.
    var requireSession: Session {
        get throws {
            guard let session else { throw SalesforceError.invalidSession() }
            return session
        }
    }
}

/// One middleware for the REST API: a version from v31.0 to v66.0, then a valid access token.
struct APIMiddleware: RouterMiddleware {
    typealias Context = OrgContext
    let state: OrgState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let version = context.parameters.get("version") ?? ""
        guard HTTP.isSupportedVersion(version) else { return SalesforceError.notFound().outcome.response }
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else {
            return SalesforceError.invalidSession().outcome.response
        }
        let authenticated: (Session, Int)?
        do {
            authenticated = try await state.grants.authenticate(accessToken: String(header.dropFirst("Bearer ".count)))
        } catch let error as SQLStoreError {
            return SalesforceError.unknown(error).outcome.response
        }
        guard let (session, usage) = authenticated else { return SalesforceError.invalidSession().outcome.response }
        var context = context
        context.session = session
        context.apiVersion = version
        var response = try await next(request, context)
        // As a real org reports the day's usage on every answer.
        response.headers[HTTPField.Name("Sforce-Limit-Info")!] = "api-usage=\(usage)/\(DescribeRoutes.dailyApiRequests)"
        return response
    }
}

/// A REST call as the store sees it: method, path below `/services/data/vXX.X/`, query and body.
/// Routes and composite sub-requests both come here, so both answer the same.
struct APICall: Sendable {
    var method: HTTPRequest.Method
    var path: [String]
    var query: [String: String]
    var body: Data
    var session: Session
    var version: String
    var batchSize = QueryEngine.defaultBatchSize

    func json() throws -> [String: Any] {
        guard let object = HTTP.parseJSONObject(body) else {
            throw SalesforceError(.badRequest, "JSON_PARSER_ERROR", "The request body is not a JSON object")
        }
        return object
    }
}

/// Encodes a Codable answer.
extension HTTP {
    static func encoded<T: Encodable>(_ status: HTTPResponse.Status, _ value: T) -> Outcome {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Outcome(status: status, headers: [.contentType: "application/json;charset=UTF-8"], body: data)
    }

    static func rawJSON(_ status: HTTPResponse.Status, _ data: Data) -> Outcome {
        Outcome(status: status, headers: [.contentType: "application/json;charset=UTF-8"], body: data)
    }
}

/// The result of saving one record, as `sobjects` and the collections answer it.
struct SaveResult: Codable, Sendable {
    struct Failure: Codable, Sendable {
        var statusCode: String
        var message: String
        var fields: [String]
    }

    var id: String?
    var success: Bool
    var errors: [Failure]
    var created: Bool?

    static func ok(_ id: String, created: Bool? = nil) -> SaveResult { SaveResult(id: id, success: true, errors: [], created: created) }

    static func failed(_ error: SalesforceError, id: String? = nil) -> SaveResult {
        SaveResult(id: id, success: false, errors: [Failure(statusCode: error.errorCode, message: error.message, fields: error.fields)])
    }

    func encode(to encoder: any Encoder) throws {
        enum K: String, CodingKey { case id, success, errors, created }
        var c = encoder.container(keyedBy: K.self)
        if let id { try c.encode(id, forKey: .id) } else { try c.encodeNil(forKey: .id) }
        try c.encode(success, forKey: .success)
        try c.encode(errors, forKey: .errors)
        try c.encodeIfPresent(created, forKey: .created)
    }
}
