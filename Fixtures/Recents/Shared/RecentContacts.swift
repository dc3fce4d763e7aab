//
//  RecentContacts.swift — compiled into the app and the widget.
//  The contacts the user viewed last, newest first, kept encrypted in the current user's library
//  directory (inside the group container when app groups are on), as the Mobile SDK's Swift template does.
//

import Foundation
import UIKit.UIApplication
import SalesforceSDKCore

#if canImport(WidgetKit)
import WidgetKit
#endif

/// A contact as the widget's cells show it.
struct ContactSummary: Codable, Hashable {
    let id: String
    let firstName: String?
    let lastName: String?

    var displayName: String { [firstName, lastName].compactMap { $0 }.joined(separator: " ") }
}

enum RecentContactsError: Error {
    case noCurrentUser
}

final class RecentContacts {
    /// The key both targets ask KeyGenerator for; it lives in the shared keychain group.
    static let encryptionKeyLabel = "com.acme.recents.viewedcontacts.key"
    static let fileName = "viewedContacts.json"
    static let limit = 3

    /// The viewed contacts, or nil when there is no current user, no file, or the file cannot be decrypted.
    static func persistedContacts() -> [ContactSummary]? {
        guard let path = SFDirectoryManager.shared().directoryOfCurrentUser(forType: .libraryDirectory, components: [fileName]),
              let sealed = try? Data(contentsOf: URL(fileURLWithPath: path))
        else { return nil }
        do {
            let key = try KeyGenerator.encryptionKey(for: encryptionKeyLabel)
            let plain = try Encryptor.decrypt(data: sealed, using: key)
            return try JSONDecoder().decode([ContactSummary].self, from: plain)
        } catch {
            SalesforceLogger.e(RecentContacts.self, message: "Cannot read the viewed contacts: \(error)")
            return nil
        }
    }

    /// Puts the contact first, keeps the newest `limit`, and asks the widget to reload.
    static func recordViewed(_ contact: ContactSummary) throws {
        var contacts = persistedContacts() ?? []
        contacts.removeAll { $0.id == contact.id }
        contacts.insert(contact, at: 0)
        try persistContacts(Array(contacts.prefix(limit)))
    }

    static func persistContacts(_ contacts: [ContactSummary]) throws {
        guard let directory = SFDirectoryManager.shared().directoryOfCurrentUser(forType: .libraryDirectory, components: nil) else {
            throw RecentContactsError.noCurrentUser
        }
        try SFDirectoryManager.ensureDirectoryExists(directory)
        let key = try KeyGenerator.encryptionKey(for: encryptionKeyLabel)
        let sealed = try Encryptor.encrypt(data: JSONEncoder().encode(contacts), using: key)
        try sealed.write(to: URL(fileURLWithPath: directory).appendingPathComponent(fileName), options: .atomic)
        #if canImport(WidgetKit)
        WidgetCenter.shared.reloadAllTimelines()
        #endif
    }
}
