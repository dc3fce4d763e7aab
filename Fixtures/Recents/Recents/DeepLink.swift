//
//  DeepLink.swift — the URLs the widget's cells open: recents://contact/<id> and recents://contact/new.
//

import Foundation

enum DeepLink: Equatable {
    case contact(id: String)
    case newContact

    static let scheme = "recents"

    init?(url: URL) {
        guard url.scheme == Self.scheme, url.host == "contact" else { return nil }
        let id = url.path.split(separator: "/").first.map(String.init)
        switch id {
        case nil: return nil
        case "new"?: self = .newContact
        case let id?: self = .contact(id: id)
        }
    }

    var url: URL {
        switch self {
        case .contact(let id): return URL(string: "\(Self.scheme)://contact/\(id)")!
        case .newContact: return URL(string: "\(Self.scheme)://contact/new")!
        }
    }
}

/// What the app's scene shows for a link (SceneDelegate puts it on screen).
enum ContactScreen: Equatable {
    case detail(ContactSummary)
    case newContactForm
    case notFound(String)

    static func content(for link: DeepLink, data: ContactsData) -> ContactScreen {
        switch link {
        case .newContact: return .newContactForm
        case .contact(let id):
            guard let contact = (try? data.view(id: id)) ?? nil else { return .notFound(id) }
            return .detail(contact)
        }
    }
}
