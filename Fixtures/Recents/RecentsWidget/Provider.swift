//
//  Provider.swift — the widget's timeline: the viewed contacts the app keeps, decrypted with the shared key.
//  It never reads a login state: with no current user there is no directory, and it shows the placeholder.
//

import Foundation
import WidgetKit
import SalesforceSDKCommon.SFSDKDatasharingHelper

struct ContactsEntry: TimelineEntry {
    let date: Date
    /// nil: the placeholder.
    let contacts: [ContactSummary]?
}

struct Provider: TimelineProvider {
    init() {
        DataSharingHelper.shared.appGroupName = "group.com.acme.recents"
    }

    func placeholder(in context: Context) -> ContactsEntry {
        ContactsEntry(date: Date(), contacts: nil)
    }

    func getSnapshot(in context: Context, completion: @escaping (ContactsEntry) -> Void) {
        completion(currentEntry())
    }

    func getTimeline(in context: Context, completion: @escaping (Timeline<ContactsEntry>) -> Void) {
        completion(Timeline(entries: [currentEntry()], policy: .never))
    }

    func currentEntry() -> ContactsEntry {
        guard let contacts = RecentContacts.persistedContacts(), !contacts.isEmpty else { return ContactsEntry(date: Date(), contacts: nil) }
        return ContactsEntry(date: Date(), contacts: contacts)
    }

    /// Each cell opens its contact in the app; the last cell adds one.
    static func link(for contact: ContactSummary?) -> URL {
        guard let contact else { return URL(string: "recents://contact/new")! }
        return URL(string: "recents://contact/\(contact.id)")!
    }
}
