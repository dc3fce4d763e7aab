import Foundation

extension SalesforceError {
    /// Any error a route did not answer itself, in Salesforce's shape. A backend's refusal of a query that is too
    /// large (`SQLStoreError.Kind.tooLarge`) is the client's `MALFORMED_QUERY`, 400. A backend that cannot be
    /// reached is a 503 (`SERVER_UNAVAILABLE`), as Salesforce answers during an outage; the client may retry.
    /// Anything else is a 500 that names the backend's result code only: never the generated SQL, its
    /// arguments or a path.
    static func unknown(_ error: any Error) -> SalesforceError {
        if let error = error as? SalesforceError { return error }
        guard let store = error as? SQLStoreError else {
            return SalesforceError(.internalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred (\(type(of: error)))")
        }
        switch store.kind {
        case .tooLarge:
            return .malformedQuery("the query is too large or too deeply nested to run (\(store.reason)); split it into smaller queries")
        case .unavailable:
            return SalesforceError(.serviceUnavailable, "SERVER_UNAVAILABLE", "The org's database is unavailable; retry the request later")
        case .lockTimeout:
            return SalesforceError(.serviceUnavailable, "SERVER_UNAVAILABLE", "The org is busy (a lock was held past the lock timeout); retry the request later")
        case .invalidText:
            return SalesforceError(.badRequest, "JSON_PARSER_ERROR", "The NUL character (U+0000) is not allowed in a text value")
        case .other:
            return SalesforceError(.internalServerError, "UNKNOWN_EXCEPTION", "An unexpected error occurred (database result code \(store.code))")
        }
    }
}
