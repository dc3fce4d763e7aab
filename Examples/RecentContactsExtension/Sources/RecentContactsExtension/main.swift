import Foundation

switch RecentContactsProvider().entry() {
case .notLoggedIn:
    print("not logged in")
case .contacts(let contacts):
    for contact in contacts { print("\(contact.name) | \(contact.title)") }
}
