import CoreEngine
import Foundation
import UserNotifications

/// The SDK's `NotificationTypesResponse`: the org's answer to `GET …/connect/notifications/types`.
public class NotificationTypesResponse: NSObject, Codable, @unchecked Sendable {
    public let notificationTypes: [NotificationType]

    public init(notificationTypes: [NotificationType]) { self.notificationTypes = notificationTypes }
}

/// The SDK's `NotificationType`: a kind of notification and its action groups; archived with the SDK's keys
/// (`NSSecureCoding`), as the SDK keeps them with the account.
public class NotificationType: NSObject, Codable, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }
    public let type: String
    public let apiName: String
    public let label: String
    public let actionGroups: [ActionGroup]?

    public init(type: String, apiName: String, label: String, actionGroups: [ActionGroup]?) {
        self.type = type
        self.apiName = apiName
        self.label = label
        self.actionGroups = actionGroups
    }

    public required convenience init?(coder aDecoder: NSCoder) {
        guard let type = aDecoder.decodeObject(of: NSString.self, forKey: "type") as String?,
            let apiName = aDecoder.decodeObject(of: NSString.self, forKey: "apiName") as String?,
            let label = aDecoder.decodeObject(of: NSString.self, forKey: "label") as String?
        else { return nil }
        let groups = aDecoder.decodeObject(of: [NSArray.self, ActionGroup.self], forKey: "actionGroups") as? [ActionGroup]
        self.init(type: type, apiName: apiName, label: label, actionGroups: groups)
    }

    public func encode(with aCoder: NSCoder) {
        aCoder.encode(type, forKey: "type")
        aCoder.encode(apiName, forKey: "apiName")
        aCoder.encode(label, forKey: "label")
        aCoder.encode(actionGroups, forKey: "actionGroups")
    }

    /// A copy with, in each action group, only the actions whose type is allowed.
    public func filteredCopy(keepingActions allowedActionTypes: Set<String>) -> NotificationType {
        NotificationType(type: type, apiName: apiName, label: label, actionGroups: actionGroups?.map { group in
            ActionGroup(name: group.name, actions: NotificationTypeRules.keeping(group.actions, types: allowedActionTypes, type: \.type))
        })
    }

    /// The types of a `NotificationTypesResponse`'s JSON; empty (and one error line) when it is not one.
    public class func from(jsonData: Data) -> [NotificationType] {
        do {
            return try JSONDecoder().decode(NotificationTypesResponse.self, from: jsonData).notificationTypes
        } catch {
            SalesforceLogger.e(NotificationType.self, message: "Failed to decode NotificationType: \(error)")
            return []
        }
    }
}

/// The SDK's `ActionGroup`.
public class ActionGroup: NSObject, Codable, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }
    public let name: String
    public let actions: [Action]

    public init(name: String, actions: [Action]) {
        self.name = name
        self.actions = actions
    }

    public required convenience init?(coder aDecoder: NSCoder) {
        guard let name = aDecoder.decodeObject(of: NSString.self, forKey: "name") as String?,
            let actions = aDecoder.decodeObject(of: [NSArray.self, Action.self], forKey: "actions") as? [Action]
        else { return nil }
        self.init(name: name, actions: actions)
    }

    public func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(actions, forKey: "actions")
    }
}

/// The SDK's `Action` (its JSON key for `identifier` is `actionKey`; its archive key is `identifier`).
public class Action: NSObject, Codable, NSSecureCoding, @unchecked Sendable {
    public static var supportsSecureCoding: Bool { true }
    public let name: String
    public let identifier: String
    public let label: String
    public let type: String

    enum CodingKeys: String, CodingKey {
        case name, label, type
        case identifier = "actionKey"
    }

    public init(name: String, identifier: String, label: String, type: String) {
        self.name = name
        self.identifier = identifier
        self.label = label
        self.type = type
    }

    public required convenience init?(coder aDecoder: NSCoder) {
        guard let name = aDecoder.decodeObject(of: NSString.self, forKey: "name") as String?,
            let identifier = aDecoder.decodeObject(of: NSString.self, forKey: "identifier") as String?,
            let label = aDecoder.decodeObject(of: NSString.self, forKey: "label") as String?,
            let type = aDecoder.decodeObject(of: NSString.self, forKey: "type") as String?
        else { return nil }
        self.init(name: name, identifier: identifier, label: label, type: type)
    }

    public func encode(with aCoder: NSCoder) {
        aCoder.encode(name, forKey: "name")
        aCoder.encode(identifier, forKey: "identifier")
        aCoder.encode(label, forKey: "label")
        aCoder.encode(type, forKey: "type")
    }
}

/// The SDK's `ActionResultRepresentation`: the org's answer to an invoked action.
public class ActionResultRepresentation: NSObject, Codable, @unchecked Sendable {
    public let message: String

    public init(message: String) { self.message = message }
}

/// The SDK's `NotificationCategoryFactory`: notification categories from the org's notification types
/// (`NotificationTypeRules` holds the rules; this translates to UserNotifications' types).
public class NotificationCategoryFactory: NSObject, @unchecked Sendable {
    public static let shared = NotificationCategoryFactory()

    private override init() { super.init() }

    public func createCategories(from types: [NotificationType]) -> Set<UNNotificationCategory> {
        let groups = types.flatMap { $0.actionGroups ?? [] }.map { group in
            (name: group.name, actions: group.actions.map { (key: $0.identifier, label: $0.label, type: $0.type) })
        }
        return Set(NotificationTypeRules.categories(groups).map { category in
            UNNotificationCategory(
                identifier: category.identifier,
                actions: category.actions.map {
                    UNNotificationAction(identifier: $0.identifier, title: $0.title, options: $0.authenticationRequired ? [.authenticationRequired] : [.foreground])
                },
                intentIdentifiers: [])
        })
    }
}
