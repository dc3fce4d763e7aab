import Foundation

/// A notification service extension's principal class, as iOS runs it: `didReceive(_:withContentHandler:)`
/// with each remote notification whose `aps` says `mutable-content: 1`; the extension calls the handler once
/// with the content to show. When its time is up before it does, iOS calls `serviceExtensionTimeWillExpire()`,
/// and shows what the extension then hands over, or else the content as it came. Apple's documentation of
/// `didReceive(_:withContentHandler:)`: "That method has a limited amount of time (about 30 seconds) to perform
/// its task and execute the provided completion block." (`NotificationServiceRunner` runs it so.)
open class UNNotificationServiceExtension: NSObject {
    public override required init() { super.init() }

    /// The default shows the content unchanged, as Apple's does.
    open func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        contentHandler(request.content)
    }

    open func serviceExtensionTimeWillExpire() {}
}

/// The options of a notification action.
public struct UNNotificationActionOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let authenticationRequired = UNNotificationActionOptions(rawValue: 1 << 0)
    public static let destructive = UNNotificationActionOptions(rawValue: 1 << 1)
    public static let foreground = UNNotificationActionOptions(rawValue: 1 << 2)

    var names: [String] {
        [(Self.authenticationRequired, "authenticationRequired"), (.destructive, "destructive"), (.foreground, "foreground")]
            .filter { contains($0.0) }.map(\.1)
    }
}

/// A button a notification of a category offers.
open class UNNotificationAction: NSObject, NSCopying, @unchecked Sendable {
    public let identifier: String
    public let title: String
    public let options: UNNotificationActionOptions

    public init(identifier: String, title: String, options: UNNotificationActionOptions = []) {
        self.identifier = identifier
        self.title = title
        self.options = options
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationAction else { return false }
        return other.identifier == identifier && other.title == title && other.options == options
    }

    open override var hash: Int { identifier.hashValue }
}

/// The options of a notification category.
public struct UNNotificationCategoryOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let customDismissAction = UNNotificationCategoryOptions(rawValue: 1 << 0)
    public static let allowInCarPlay = UNNotificationCategoryOptions(rawValue: 1 << 1)
    public static let hiddenPreviewsShowTitle = UNNotificationCategoryOptions(rawValue: 1 << 2)
    public static let hiddenPreviewsShowSubtitle = UNNotificationCategoryOptions(rawValue: 1 << 3)

    var names: [String] {
        [(Self.customDismissAction, "customDismissAction"), (.allowInCarPlay, "allowInCarPlay"), (.hiddenPreviewsShowTitle, "hiddenPreviewsShowTitle"),
         (.hiddenPreviewsShowSubtitle, "hiddenPreviewsShowSubtitle")].filter { contains($0.0) }.map(\.1)
    }
}

/// A kind of notification and the actions it offers (a notification names it in `aps.category`).
open class UNNotificationCategory: NSObject, NSCopying, @unchecked Sendable {
    public let identifier: String
    public let actions: [UNNotificationAction]
    public let intentIdentifiers: [String]
    public let options: UNNotificationCategoryOptions

    public init(identifier: String, actions: [UNNotificationAction], intentIdentifiers: [String], options: UNNotificationCategoryOptions = []) {
        self.identifier = identifier
        self.actions = actions
        self.intentIdentifiers = intentIdentifiers
        self.options = options
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UNNotificationCategory else { return false }
        return other.identifier == identifier && other.actions == actions && other.intentIdentifiers == intentIdentifiers && other.options == options
    }

    open override var hash: Int { identifier.hashValue }
}
