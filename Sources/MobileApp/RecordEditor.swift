import FastJSON
import Foundation
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

/// `records list|add|edit|delete --soup S`: local edits of any soup of the bundle's `userstore.json`,
/// sent at the next sync up, as the current user. `contacts` is the sample's shorthand.
package struct RecordEditor: Sendable {
    package let manager: SyncManager
    package let soup: String

    /// The current user's editor for `soup`; refused, naming the soups there are, when the store has no such soup.
    package init(_ session: AppSession, soup: String) async throws {
        manager = try await session.sdk.syncManager(for: try session.currentAccount())
        guard try manager.store.soupExists(soup) else {
            let soups = try manager.store.allSoupNames().filter { !$0.hasPrefix("syncs_") }
            throw AppError("there is no soup \(soup) in this app's store; its userstore.json has \(soups.joined(separator: ", "))")
        }
        self.soup = soup
    }

    /// Creates an entry locally (`__local__`, `__locally_created__`); returns it with its local id.
    package func add(_ fields: SoupEntry) throws -> SoupEntry { try manager.createLocally(fields, soupName: soup) }

    /// Changes an entry locally, found by `Id` (or local id).
    package func edit(id: String, changes: SoupEntry) throws { try manager.updateLocally(id: id, changes: changes, soupName: soup) }

    /// Marks an entry deleted locally (removed at the org at the next sync up).
    package func delete(id: String) throws { try manager.deleteLocally(id: id, soupName: soup) }

    /// Every entry, newest first (`_soupLastModifiedDate` descending), or by `orderPath` ascending.
    package func list(orderPath: String? = nil) throws -> [SoupEntry] {
        let spec: QuerySpec = orderPath.map { .all(soup: soup, orderPath: $0, pageSize: 1_000_000) }
            ?? .all(soup: soup, orderPath: "_soupLastModifiedDate", order: .descending, pageSize: 1_000_000)
        return try manager.store.query(spec).compactMap(\.objectValue)
    }

    /// One line of `records list`: `*` for a local change, the Id, the record's own fields, and its last sync error.
    package static func line(_ e: SoupEntry) -> String {
        let flag = e["__local__"]?.boolValue == true ? "*" : " "
        let shown = e.filter { !$0.key.hasPrefix("_") && $0.key != "Id" && $0.key != "attributes" }.sorted { $0.key < $1.key }
            .compactMap { k, v in v.stringValue.map { "\(k)=\($0)" } }.joined(separator: "  ")
        return "\(flag) \(e["Id"]?.stringValue ?? "")  \(shown)\(e["__last_error__"]?.stringValue.map { "  (\($0))" } ?? "")"
    }

    /// One line of the sample's `contacts list`: flag, Id, name, last sync error.
    package static func contactLine(_ e: SoupEntry) -> String {
        let flag = e["__local__"]?.boolValue == true ? "*" : " "
        let name = [e["FirstName"]?.stringValue, e["LastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        return "\(flag) \(e["Id"]?.stringValue ?? "")  \(name)\(e["__last_error__"]?.stringValue.map { "  (\($0))" } ?? "")"
    }

    /// Field values from the command line: a JSON object (numbers, booleans, nulls) and `FIELD=VALUE`
    /// pairs (text), the pairs last.
    package static func values(json: String?, set: [String]) throws -> SoupEntry {
        var e: SoupEntry = [:]
        if let json {
            guard let object = JSON(text: json)?.objectValue else { throw AppError("--json must be a JSON object, e.g. '{\"Quantity__c\": 2}'") }
            e = object
        }
        for item in set {
            guard let eq = item.firstIndex(of: "="), eq != item.startIndex else { throw AppError("--set \(item): expected FIELD=VALUE") }
            e[String(item[..<eq])] = .string(String(item[item.index(after: eq)...]))
        }
        return e
    }

    /// The entries of a soup as one JSON array.
    package static func jsonText(_ entries: [SoupEntry]) -> String { JSON.array(entries.map(JSON.object)).text }
}
