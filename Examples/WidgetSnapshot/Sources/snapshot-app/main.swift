import Foundation
import MobileSync
import WidgetSnapshot

// The app's code, as its delegate and its list screen run it: the group, the SDK, the user's store.
WidgetSnapshot.useAppGroup()
MobileSyncSDKManager.initializeSDK()
guard let user = UserAccountManager.shared.currentUserAccount else {
    print("no user: log in first")
    exit(2)
}
MobileSyncSDKManager.shared.setupUserStoreFromDefaultConfig()
guard let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user) else {
    FileHandle.standardError.write(Data("the user's store could not be opened\n".utf8))
    exit(1)
}

func names() -> [String] {
    let sql = "SELECT {contacts:LastName} FROM {contacts} ORDER BY {contacts:_soupEntryId}"
    guard let spec = QuerySpec.buildSmartQuerySpec(smartSql: sql, pageSize: 1000),
          let rows = try? store.query(using: spec, startingFromPageIndex: 0) as? [[Any]]
    else { return [] }
    return rows.compactMap { $0.first as? String }
}

switch CommandLine.arguments.dropFirst().first {
case "add":
    // A contact made on the phone, waiting for a sync up.
    let next = names().count + 1
    _ = store.upsert(entries: [[
        "attributes": ["type": "Contact"], "Id": "local_\(next)", "LastName": "Snapshot \(next)",
        "__local__": true, "__locally_created__": true, "__locally_updated__": false, "__locally_deleted__": false,
    ]], forSoupNamed: "contacts")
case "clear":
    store.clearSoup("contacts")
case "debug-session":
    // A second mistake planted on purpose, which DeviceExploration's built-in secret-exposed finds: a debugging
    // aid that prints the session's token and keeps it in the group's defaults for the widget.
    let token = user.credentials.accessToken ?? ""
    print("session of \(user.idData.username): \(token)")
    UserDefaults.msdk().set(token, forKey: "debugSessionToken")
    UserDefaults.msdk().synchronize()
    exit(0)
default:
    print("usage: snapshot-app add|clear|debug-session")
    exit(64)
}
let snapshot = WidgetSnapshot(names: names())
snapshot.publish()
print("published \(snapshot.count) contact(s)")
