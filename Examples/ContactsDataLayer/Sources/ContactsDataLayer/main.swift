import Combine
import Foundation
import MobileSync

// As the app's delegate does: the group first, then the SDK, then the user's store and syncs.
DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
DataSharingHelper.shared.isAppGroupEnabled = true
MobileSyncSDKManager.initializeSDK()
guard let user = UserAccountManager.shared.currentUserAccount else {
    print("no user: log in with main-app login first")
    exit(2)
}
MobileSyncSDKManager.shared.setupUserStoreFromDefaultConfig()
MobileSyncSDKManager.shared.setupUserSyncsFromDefaultConfig()
guard let model = ContactsModel(user: user) else {
    print("the store or the sync manager could not be opened")
    exit(1)
}

var published: [Int] = []
let watching = model.$contacts.sink { published.append($0.count) }
let done = DispatchSemaphore(value: 0)
let finished = model.syncDown(named: "syncDownContacts").sink(receiveCompletion: { completion in
    if case .failure(let error) = completion { print("sync failed: \(error)") }
    done.signal()
}, receiveValue: { _ in })
guard done.wait(timeout: .now() + 120) == .success else {
    print("the sync did not finish in 2 minutes")
    exit(1)
}
// The reload's query is a Future that has run by now; the model published its rows.
print("user: \(user.idData.username)")
print(model.lastSync)
print("published list sizes: \(published.map(String.init).joined(separator: " -> "))")
print("first: \(model.contacts.first ?? "none")")
watching.cancel()
finished.cancel()
exit(published.last ?? 0 > 0 ? 0 : 1)
