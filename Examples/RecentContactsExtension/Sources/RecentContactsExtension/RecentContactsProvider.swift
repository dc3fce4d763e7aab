import Foundation
import MobileSync

/// What the widget's timeline provider reads: the newest contacts of the user the app logged in.
struct RecentContactsProvider {
    static let appGroup = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
    static let loggedInKey = "userLoggedIn"

    struct Contact {
        let name: String
        let title: String
    }

    enum Entry {
        case notLoggedIn
        case contacts([Contact])
    }

    /// The extension's own setup, before the SDK: the group first, as the sample's extension does.
    init() {
        DataSharingHelper.shared.appGroupName = Self.appGroup
    }

    func entry(limit: Int = 3) -> Entry {
        // The app writes this flag when its current user changes; without a user the SDK must not start.
        guard UserDefaults.msdk().bool(forKey: Self.loggedInKey) else { return .notLoggedIn }
        MobileSyncSDKManager.initializeSDK()
        guard let user = UserAccountManager.shared.currentUserAccount,
              let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user)
        else { return .notLoggedIn }
        let sql = "SELECT {contacts:_soup} FROM {contacts} ORDER BY {contacts:_soupLastModifiedDate} DESC, {contacts:_soupEntryId} DESC"
        guard let spec = QuerySpec.buildSmartQuerySpec(smartSql: sql, pageSize: UInt(limit)),
              let rows = try? store.query(using: spec, startingFromPageIndex: 0) as? [[Any]]
        else { return .contacts([]) }
        return .contacts(rows.compactMap { row in
            guard let record = row.first as? [String: Any] else { return nil }
            let name = [record["FirstName"] as? String, record["LastName"] as? String].compactMap { $0 }.joined(separator: " ")
            return Contact(name: name, title: record["Title"] as? String ?? "")
        })
    }
}
