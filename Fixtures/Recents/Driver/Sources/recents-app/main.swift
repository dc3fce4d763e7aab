// The Recents app's process: its code, called as iOS calls it. Run with APPGROUPSIM_BUNDLE (the imported
// Recents.app) and APPGROUPSIM_DEVICE, after `main-app login` with that bundle.
//   recents-app sync                 AppSetup.start(), the store and syncs from config, the sync down
//   recents-app list N               the list screen's first N rows
//   recents-app view ID              opens the contact (it joins the viewed ones)
//   recents-app ... handle-url ...   what msdk-sim device open-url launches (APPGROUPSIM_MAIN_APP): the scene opens the link
import Foundation
import MobileSync
@testable import Recents

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("recents-app: \(message)\n".utf8))
    exit(1)
}

let arguments = Array(CommandLine.arguments.dropFirst())
AppSetup.start()
guard let data = ContactsData(user: UserAccountManager.shared.currentUserAccount) else { fail("no current user: log in first (main-app login)") }
print("user: \(data.user.idData.username)")

if arguments.contains("handle-url") {
    // The app's scene: scene(_:openURLContexts:) with the URL iOS delivers.
    guard let url = try SDKProcess.takeOpenedURL() else { fail("no URL was delivered") }
    guard let link = DeepLink(url: url) else { fail("\(url) is not a link this app opens") }
    switch ContactScreen.content(for: link, data: data) {
    case .detail(let contact): print("scene: contact \(contact.id): \(contact.displayName)")
    case .newContactForm: print("scene: new contact")
    case .notFound(let id): print("scene: no contact \(id)")
    }
} else if arguments.first == "sync" {
    ContactsData.setUpStoreAndSyncs()
    let done = DispatchSemaphore(value: 0)
    var outcome: Result<Int, MobileSyncError>?
    data.syncDown { result in
        outcome = result
        done.signal()
    }
    guard done.wait(timeout: .now() + 120) == .success, let outcome else { fail("the sync down did not finish") }
    switch outcome {
    case .success(let total): print("synced: \(total) contacts")
    case .failure(let error): fail("the sync down failed: \(error)")
    }
} else if arguments.first == "list", arguments.count == 2, let limit = Int(arguments[1]) {
    for contact in data.contactList(limit: limit) { print("\(contact.id) | \(contact.displayName)") }
} else if arguments.first == "view", arguments.count == 2 {
    // The contact screen opened from the list.
    let contact: ContactSummary?
    do { contact = try data.view(id: arguments[1]) } catch { fail("cannot record the viewed contact: \(error)") }
    guard let contact else { fail("no contact \(arguments[1]) in the store") }
    print("viewed: \(contact.id) \(contact.displayName)")
} else {
    fail("usage: recents-app sync | list N | view ID | (msdk-sim device open-url)")
}
