import Foundation
import GRDB

extension SalesforceError {
    /// What SQLite says when a query is too big or too deep for it, whatever the SOQL parser let through.
    static let sqliteQueryLimits = [
        "too many SQL variables", "parser stack overflow", "Expression tree is too large", "too many terms in compound SELECT",
        "LIKE or GLOB pattern too complex", "too many columns", "at most 64 tables in a join", "string or blob too big",
    ]

    /// Any error a route did not answer itself, in Salesforce's shape. SQLite's refusal of a query that is too
    /// large (`sqliteQueryLimits`) is the client's `MALFORMED_QUERY`, 400. Anything else is a 500 that names
    /// SQLite's result code only: never the generated SQL, its arguments or a path (GRDB's description
    /// carries the SQL).
    static func unknown(_ error: any Error) -> SalesforceError {
        if let error = error as? SalesforceError { return error }
        guard let database = error as? DatabaseError else {
            return SalesforceError(.internalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred (\(type(of: error)))")
        }
        let message = database.message ?? ""
        if let limit = sqliteQueryLimits.first(where: { message.localizedCaseInsensitiveContains($0) }) {
            return .malformedQuery("the query is too large or too deeply nested to run (\(limit.lowercased())); split it into smaller queries")
        }
        return SalesforceError(.internalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred (database result code \(database.extendedResultCode.rawValue))")
    }
}
