@_exported import Foundation

// UserNotifications' content and request types, for a notification service extension's code on Linux (issue
// 37): the names, initialisers and copying of Apple's framework, so that the SDK's encrypted-notification
// template compiles and runs unchanged. Like Apple's module, this one re-exports Foundation.

/// A notification's sound: the default, or a named one from the app's bundle.
open class UNNotificationSound: NSObject, NSCopying, @unchecked Sendable {
    /// The sound's name; nil for the default sound.
    public let name: String?

    init(name: String?) { self.name = name }

    public convenience init(named name: UNNotificationSoundName) { self.init(name: name.rawValue) }

    public class var `default`: UNNotificationSound { UNNotificationSound(name: nil) }

    public func copy(with zone: NSZone? = nil) -> Any { self }

    open override func isEqual(_ object: Any?) -> Bool { (object as? UNNotificationSound)?.name == name }
    open override var hash: Int { name?.hashValue ?? 0 }
}

public struct UNNotificationSoundName: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
}

/// What a notification shows: immutable, as iOS hands it. `mutableCopy()` gives a `UNMutableNotificationContent`
/// with the same values, `copy()` an immutable one.
open class UNNotificationContent: NSObject, NSCopying, NSMutableCopying, @unchecked Sendable {
    public internal(set) var title: String = ""
    public internal(set) var subtitle: String = ""
    public internal(set) var body: String = ""
    public internal(set) var userInfo: [AnyHashable: Any] = [:]
    public internal(set) var badge: NSNumber?
    public internal(set) var sound: UNNotificationSound?
    public internal(set) var categoryIdentifier: String = ""
    public internal(set) var threadIdentifier: String = ""
    public internal(set) var targetContentIdentifier: String?
    public internal(set) var launchImageName: String = ""
    public internal(set) var summaryArgument: String = ""
    public internal(set) var summaryArgumentCount: Int = 0

    public override init() { super.init() }

    func take(_ other: UNNotificationContent) {
        title = other.title
        subtitle = other.subtitle
        body = other.body
        userInfo = other.userInfo
        badge = other.badge
        sound = other.sound
        categoryIdentifier = other.categoryIdentifier
        threadIdentifier = other.threadIdentifier
        targetContentIdentifier = other.targetContentIdentifier
        launchImageName = other.launchImageName
        summaryArgument = other.summaryArgument
        summaryArgumentCount = other.summaryArgumentCount
    }

    public func copy(with zone: NSZone? = nil) -> Any {
        let copy = UNNotificationContent()
        copy.take(self)
        return copy
    }

    public func mutableCopy(with zone: NSZone? = nil) -> Any {
        let copy = UNMutableNotificationContent()
        copy.take(self)
        return copy
    }

    open override var description: String {
        "<\(type(of: self)): title: \(title), subtitle: \(subtitle), body: \(body), categoryIdentifier: \(categoryIdentifier), threadIdentifier: \(threadIdentifier), userInfo keys: \(userInfo.keys.map { "\($0)" }.sorted())>"
    }
}

/// The content an extension changes.
open class UNMutableNotificationContent: UNNotificationContent, @unchecked Sendable {
    open override var title: String { get { super.title } set { super.title = newValue } }
    open override var subtitle: String { get { super.subtitle } set { super.subtitle = newValue } }
    open override var body: String { get { super.body } set { super.body = newValue } }
    open override var userInfo: [AnyHashable: Any] { get { super.userInfo } set { super.userInfo = newValue } }
    open override var badge: NSNumber? { get { super.badge } set { super.badge = newValue } }
    open override var sound: UNNotificationSound? { get { super.sound } set { super.sound = newValue } }
    open override var categoryIdentifier: String { get { super.categoryIdentifier } set { super.categoryIdentifier = newValue } }
    open override var threadIdentifier: String { get { super.threadIdentifier } set { super.threadIdentifier = newValue } }
    open override var targetContentIdentifier: String? { get { super.targetContentIdentifier } set { super.targetContentIdentifier = newValue } }
    open override var launchImageName: String { get { super.launchImageName } set { super.launchImageName = newValue } }
    open override var summaryArgument: String { get { super.summaryArgument } set { super.summaryArgument = newValue } }
    open override var summaryArgumentCount: Int { get { super.summaryArgumentCount } set { super.summaryArgumentCount = newValue } }
}

/// What makes a notification arrive.
open class UNNotificationTrigger: NSObject, NSCopying, @unchecked Sendable {
    public let repeats: Bool
    init(repeats: Bool) { self.repeats = repeats }
    public func copy(with zone: NSZone? = nil) -> Any { self }
}

/// A remote notification's trigger: APNs delivered it.
open class UNPushNotificationTrigger: UNNotificationTrigger, @unchecked Sendable {
    init() { super.init(repeats: false) }
}

/// One notification: an identifier, its content and its trigger.
open class UNNotificationRequest: NSObject, NSCopying, @unchecked Sendable {
    public let identifier: String
    public let content: UNNotificationContent
    public let trigger: UNNotificationTrigger?

    public init(identifier: String, content: UNNotificationContent, trigger: UNNotificationTrigger?) {
        self.identifier = identifier
        self.content = content.copy() as! UNNotificationContent
        self.trigger = trigger
    }

    /// A remote notification's request as iOS makes it for a service extension: the payload's `aps.alert` (a
    /// dictionary, or one string: the body), `aps.badge`, `aps.sound`, `aps.category`, `aps.thread-id`, and the
    /// whole payload as `userInfo`.
    public static func remote(identifier: String, userInfo: [AnyHashable: Any]) -> UNNotificationRequest {
        let content = UNMutableNotificationContent()
        content.userInfo = userInfo
        let aps = userInfo["aps"] as? [String: Any] ?? [:]
        if let alert = aps["alert"] as? [String: Any] {
            content.title = alert["title"] as? String ?? ""
            content.subtitle = alert["subtitle"] as? String ?? ""
            content.body = alert["body"] as? String ?? ""
            content.launchImageName = alert["launch-image"] as? String ?? ""
        } else if let alert = aps["alert"] as? String {
            content.body = alert
        }
        if let badge = aps["badge"] as? Int { content.badge = NSNumber(value: badge) }
        if let sound = aps["sound"] as? String { content.sound = sound == "default" ? .default : UNNotificationSound(named: UNNotificationSoundName(sound)) }
        content.categoryIdentifier = aps["category"] as? String ?? ""
        content.threadIdentifier = aps["thread-id"] as? String ?? ""
        content.targetContentIdentifier = aps["target-content-id"] as? String
        return UNNotificationRequest(identifier: identifier, content: content, trigger: UNPushNotificationTrigger())
    }

    public func copy(with zone: NSZone? = nil) -> Any { self }
}
