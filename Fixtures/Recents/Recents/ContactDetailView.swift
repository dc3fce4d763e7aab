//
//  ContactDetailView.swift — UI: one contact, or the new-contact form.
//

import SwiftUI

struct ContactDetailView: View {
    let screen: ContactScreen

    var body: some View {
        switch screen {
        case .detail(let contact): Text(contact.displayName).font(.title)
        case .newContactForm: Text("New contact")
        case .notFound(let id): Text("No contact \(id)")
        }
    }
}
