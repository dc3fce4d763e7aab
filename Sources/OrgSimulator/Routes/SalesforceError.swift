import Foundation

/// Salesforce's error, in one place for the store and the routes: the REST API answers it as
/// `[{"message", "errorCode", "fields"}]` with `status`; a collection result carries it per record as
/// `{"statusCode", "message", "fields"}`.
struct SalesforceError: Error, Sendable, Equatable {
    /// The statuses the REST API answers errors with (this file needs no HTTP library, so the SOQL
    /// fuzzer can build it alone).
    enum Status: Int, Sendable {
        case badRequest = 400, unauthorized = 401, forbidden = 403, notFound = 404, methodNotAllowed = 405, contentTooLarge = 413
        case internalServerError = 500, serviceUnavailable = 503
    }

    var status: Status
    var errorCode: String
    var message: String
    var fields: [String] = []
    /// An upsert by an external id whose record was held (`UNABLE_TO_LOCK_ROW`) before the statement that waited
    /// could say which record it was: `OrgState.write` names the record once the transaction is rolled back.
    var heldValue: HeldValue?

    struct HeldValue: Sendable, Equatable {
        var orgId: String
        var object: String
        var field: String
        var value: String
    }

    init(_ status: Status = .badRequest, _ errorCode: String, _ message: String, fields: [String] = []) {
        self.status = status
        self.errorCode = errorCode
        self.message = message
        self.fields = fields
    }

    /// A write that waited for a record another transaction holds longer than the org's record lock timeout.
    static func unableToLockRow(_ ids: [String]) -> SalesforceError {
        SalesforceError(.badRequest, "UNABLE_TO_LOCK_ROW", "unable to obtain exclusive access to this record or \(ids.count) records: \(ids.joined(separator: ","))")
    }

    /// A write by external id that waited for the record holding `value` longer than the lock timeout: named by the
    /// value until `OrgState.write` finds the record's id.
    static func unableToLockRow(orgId: String, object: String, field: String, value: String) -> SalesforceError {
        var error = unableToLockRow(["\(field) \(value)"])
        error.heldValue = HeldValue(orgId: orgId, object: object, field: field, value: value)
        return error
    }

    static func notFound() -> SalesforceError { SalesforceError(.notFound, "NOT_FOUND", "The requested resource does not exist") }

    static func invalidSession() -> SalesforceError { SalesforceError(.unauthorized, "INVALID_SESSION_ID", "Session expired or invalid") }

    static func invalidType(_ name: String) -> SalesforceError {
        SalesforceError(.notFound, "NOT_FOUND", "The requested resource does not exist: no sObject type '\(name)' in this org")
    }

    static func malformedQuery(_ detail: String) -> SalesforceError { SalesforceError(.badRequest, "MALFORMED_QUERY", detail) }

    static func invalidField(_ field: String, object: String) -> SalesforceError {
        SalesforceError(
            .badRequest, "INVALID_FIELD",
            "No such column '\(field)' on entity '\(object)'. If you are attempting to use a custom field, be sure to append the '__c' after the custom field name.",
            fields: [field])
    }

    static let rolledBack = SalesforceError(
        .badRequest, "ALL_OR_NONE_OPERATION_ROLLED_BACK",
        "Record rolled back because not all records were valid and the request was using AllOrNone header")

}
