import Foundation
import SalesforceSDKCommon
import WidgetSnapshot

// The widget's timeline provider: the group first, the login flag, then the snapshot the app published.
WidgetSnapshot.useAppGroup()
guard UserDefaults.msdk().bool(forKey: "userLoggedIn") else {
    print("not logged in")
    exit(0)
}
guard let snapshot = WidgetSnapshot.read() else {
    print("no snapshot yet")
    exit(0)
}
print("header: \(snapshot.count) contact(s)")
for name in snapshot.names { print("- \(name)") }
