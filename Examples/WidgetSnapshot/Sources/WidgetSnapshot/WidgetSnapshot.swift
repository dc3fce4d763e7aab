import Foundation
import SalesforceSDKCommon

/// What the app hands its widget through the app group: how many contacts the user has, and their names.
public struct WidgetSnapshot: Equatable {
    public static let appGroup = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
    static let countKey = "widgetSnapshot.count"
    static let namesKey = "widgetSnapshot.names"
    static let wholeKey = "widgetSnapshot"

    public var count: Int
    public var names: [String]

    public init(names: [String]) {
        count = names.count
        self.names = names
    }

    init(count: Int, names: [String]) {
        self.count = count
        self.names = names
    }

    /// Both processes set the group before they touch `msdkUserDefaults`, as the SDK's samples do.
    public static func useAppGroup() {
        DataSharingHelper.shared.appGroupName = appGroup
        DataSharingHelper.shared.isAppGroupEnabled = true
    }

    /// Publishes the snapshot for the widget.
    ///
    /// THE BUG, PLANTED ON PURPOSE: the count and the names are two keys, set one after the other. Each `set` is
    /// atomic, but the pair is not: a widget drawn between the two writes reads the new count with the old names.
    /// `WIDGET_SNAPSHOT_ONE_WRITE=1` selects the fix, one value holding both, written once.
    public func publish() {
        let defaults = UserDefaults.msdk()
        if ProcessInfo.processInfo.environment["WIDGET_SNAPSHOT_ONE_WRITE"] == "1" {
            defaults.set(["count": count, "names": names] as [String: Any], forKey: Self.wholeKey)
        } else {
            defaults.set(count, forKey: Self.countKey)
            defaults.set(names, forKey: Self.namesKey)
        }
    }

    /// The snapshot as the widget reads it; nil before the app published one.
    public static func read() -> WidgetSnapshot? {
        let defaults = UserDefaults.msdk()
        if let whole = defaults.object(forKey: wholeKey) as? [String: Any] {
            return WidgetSnapshot(count: whole["count"] as? Int ?? 0, names: whole["names"] as? [String] ?? [])
        }
        guard let count = defaults.object(forKey: countKey) as? Int else { return nil }
        return WidgetSnapshot(count: count, names: defaults.object(forKey: namesKey) as? [String] ?? [])
    }
}
