/// Errors of SmartStore, with the Mobile SDK's codes where it has them.
package enum SmartStoreError: Error, Equatable, Sendable {
    /// Upsert by external id: more than one entry has the value (SDK code 1).
    case externalIdNotUnique(soup: String, path: String, value: String)
    /// Upsert by external id: the path is not an index of the soup (SDK code 2).
    case externalIdPathNotIndexed(soup: String, path: String)
    /// Upsert by external id: the entry has no value at the path (SDK code 3).
    case externalIdValueMissing(soup: String, path: String)
    /// `whereArgs` given for a query that is not smart SQL (SDK code 5).
    case whereArgsOnNonSmartQuery
    case soupNotFound(String)
    case invalidSoupName
    case noIndexSpecs(soup: String)
    case pathNotIndexed(soup: String, path: String)
    case smartSQLNotSelect(String)
    case smartSQLUnknownSoup(String)
    case smartSQLSyntax(String)
    case entryNotFound(soup: String, id: Int64)
    case invalidEntry(String)
    case invalidQuery(String)
    case userNotLoggedIn(orgId: String, userId: String)
    case invalidStoreName(String)
    case database(path: String, message: String)
    /// Opened read-only, the file is an SQLite database without SmartStore's tables yet: the app is
    /// creating it right now (or was killed while it did). Nothing to read, not damage.
    case storeNotCreatedYet(path: String)
    /// The store's file has a protection class the device's lock state does not open: SQLite gets EPERM
    /// from `open(2)`, SQLITE_AUTH (23) here as on iOS. The SDK deletes a store it cannot open; this is kept.
    /// `detail` is the file layer's refusal (naming the file, its class and the state).
    case protected(path: String, detail: String)

    /// The store could not be opened at all (its file is not a database, or its class is not available now):
    /// what makes the SDK delete the store and set up a new one.
    package var isOpenFailure: Bool {
        switch self {
        case .protected, .database: return true
        default: return false
        }
    }

    /// The SDK's numeric code for the errors that have one.
    package var code: Int? {
        switch self {
        case .externalIdNotUnique: return 1
        case .externalIdPathNotIndexed: return 2
        case .externalIdValueMissing: return 3
        case .whereArgsOnNonSmartQuery: return 5
        default: return nil
        }
    }
}

extension SmartStoreError: CustomStringConvertible {
    package var description: String {
        switch self {
        case .externalIdNotUnique(let soup, let path, let value):
            return "there are more than one soup elements where \(path) is \(value) in soup \(soup)"
        case .externalIdPathNotIndexed(let soup, let path):
            return "\(path) does not have an index in soup \(soup); upsert by external id needs an indexed path"
        case .externalIdValueMissing(let soup, let path):
            return "for upsert with external id path \(path) in soup \(soup), the value cannot be empty for any entries"
        case .whereArgsOnNonSmartQuery: return "whereArgs can only be provided for smart queries"
        case .soupNotFound(let soup): return "soup \(soup) does not exist; register it first"
        case .invalidSoupName: return "a soup name cannot be empty"
        case .noIndexSpecs(let soup): return "soup \(soup) needs at least one index spec"
        case .pathNotIndexed(let soup, let path): return "\(path) is not an index of soup \(soup)"
        case .smartSQLNotSelect(let sql): return "smart SQL must be one statement that reads (not INSERT, UPDATE or DELETE), as in the SDK: \(sql)"
        case .smartSQLUnknownSoup(let soup): return "smart SQL names soup \(soup), which does not exist"
        case .smartSQLSyntax(let detail): return "smart SQL: \(detail)"
        case .entryNotFound(let soup, let id): return "no entry \(id) in soup \(soup)"
        case .invalidEntry(let detail): return "invalid entry: \(detail)"
        case .invalidQuery(let detail): return "invalid query: \(detail)"
        case .userNotLoggedIn(let orgId, let userId):
            return "user \(orgId)/\(userId) is not logged in, so its store cannot be opened; log in first"
        case .invalidStoreName(let name): return "invalid store name \"\(name)\""
        case .database(let path, let message): return "\(path): \(message)"
        case .storeNotCreatedYet(let path): return "\(path) has no SmartStore tables yet; the app has not finished creating it"
        case .protected(_, let detail): return "the store cannot be opened (SQLITE_AUTH, authorization denied): \(detail)"
        }
    }
}
