import Crypto
import Foundation
import HTTPTypes
import Hummingbird

/// The simulator's own routes, `/__admin/*` (faults, push) and `/__apns/*` (the stand-in for APNs), are not
/// Salesforce's and not a client's: each request carries the admin token that `sf-simulator` prints at start
/// (or reads from `--admin-token-file`) in the `X-AppGroupSim-Admin-Token` header. Without it, or with
/// another, the answer is 401 in Salesforce's error shape and nothing is done.
struct AdminAuthMiddleware: RouterMiddleware {
    typealias Context = OrgContext
    let token: String

    static let headerName = "X-AppGroupSim-Admin-Token"
    static let field = HTTPField.Name(headerName)!

    static func isAdminPath(_ path: String) -> Bool {
        path == "/__admin" || path.hasPrefix("/__admin/") || path == "/__apns" || path.hasPrefix("/__apns/")
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard Self.isAdminPath(request.uri.path) else { return try await next(request, context) }
        guard let given = request.headers[Self.field], Self.equal(given, token) else {
            throw SalesforceError(.unauthorized, "INVALID_ADMIN_TOKEN",
                "\(request.uri.path) needs the admin token sf-simulator printed at start ('admin token: …'), in the \(Self.headerName) header")
        }
        return try await next(request, context)
    }

    /// Compared by their SHA-256, so the time taken says nothing about how much of the token was right.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = SHA256.hash(data: Data(a.utf8)), y = SHA256.hash(data: Data(b.utf8))
        return zip(x, y).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }
}
