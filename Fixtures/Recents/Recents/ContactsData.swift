//
//  ContactsData.swift — the app's data layer: the contacts soup, synced down with the configured sync,
//  and the "viewed" contacts the widget shows.
//

import Foundation
import MobileSync

final class ContactsData {
    static let syncDownName = "syncDownContacts"

    let user: UserAccount
    private let store: SmartStore
    private let syncManager: SyncManager

    init?(user: UserAccount?) {
        guard let user, let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user) else { return nil }
        self.user = user
        self.store = store
        syncManager = SyncManager.sharedInstance(forUserAccount: user)
    }

    /// The soup and syncs of userstore.json and usersyncs.json, as the template's app sets them up after login.
    static func setUpStoreAndSyncs() {
        MobileSyncSDKManager.shared.setupUserStoreFromDefaultConfig()
        MobileSyncSDKManager.shared.setupUserSyncsFromDefaultConfig()
    }

    /// Runs the sync down; the completion gets the number of records in the org's answer.
    func syncDown(completion: @escaping (Result<Int, MobileSyncError>) -> Void) {
        syncManager.reSyncWithoutUpdates(named: Self.syncDownName) { result in
            completion(result.map { $0.totalSize })
        }
    }

    func contact(id: String) -> ContactSummary? {
        query("SELECT {contacts:Id}, {contacts:FirstName}, {contacts:LastName} FROM {contacts} WHERE {contacts:Id} = '\(id.replacingOccurrences(of: "'", with: "''"))'").first
    }

    func contacts(lastName: String) -> [ContactSummary] {
        query("SELECT {contacts:Id}, {contacts:FirstName}, {contacts:LastName} FROM {contacts} WHERE {contacts:LastName} = '\(lastName.replacingOccurrences(of: "'", with: "''"))' ORDER BY {contacts:FirstName}")
    }

    /// The list screen's rows: by last name, then first name.
    func contactList(limit: Int) -> [ContactSummary] {
        query("SELECT {contacts:Id}, {contacts:FirstName}, {contacts:LastName} FROM {contacts} ORDER BY {contacts:LastName}, {contacts:FirstName} LIMIT \(limit)")
    }

    /// What the contact screen does when it opens: the contact joins the viewed ones.
    @discardableResult
    func view(id: String) throws -> ContactSummary? {
        guard let contact = contact(id: id) else { return nil }
        try RecentContacts.recordViewed(contact)
        return contact
    }

    private func query(_ smartSQL: String) -> [ContactSummary] {
        guard let spec = QuerySpec.buildSmartQuerySpec(smartSql: smartSQL, pageSize: 100),
              let rows = try? store.query(using: spec, startingFromPageIndex: 0) as? [[Any]]
        else { return [] }
        return rows.compactMap { row in
            guard let id = row.first as? String else { return nil }
            return ContactSummary(id: id, firstName: row.dropFirst().first as? String, lastName: row.dropFirst(2).first as? String)
        }
    }
}
