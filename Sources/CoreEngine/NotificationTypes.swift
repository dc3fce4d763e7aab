import Foundation

/// The org's notification types (`GET …/connect/notifications/types`: `{"notificationTypes": [{type, apiName, label,
/// actionGroups: [{name, actions: [{name, actionKey, label, type}]}]}]}`) as the SDK turns them into notification
/// categories (`NotificationCategoryFactory`): one category per action group, named by the group; each action keeps its
/// key and label; an action of type `NotificationApiAction` (answered by the org without opening the app) requires
/// authentication, any other opens the app (foreground). A type with no action group makes no category.
package enum NotificationTypeRules {
    package struct Action: Sendable, Equatable {
        package var identifier: String
        package var title: String
        /// `.authenticationRequired` (true) or `.foreground` (false).
        package var authenticationRequired: Bool
    }

    package struct Category: Sendable, Equatable {
        package var identifier: String
        package var actions: [Action]
    }

    package static let apiActionType = "NotificationApiAction"

    /// `groups`: each action group's name and its actions' (key, label, type).
    package static func categories(_ groups: [(name: String, actions: [(key: String, label: String, type: String)])]) -> [Category] {
        groups.map { group in
            Category(identifier: group.name, actions: group.actions.map { Action(identifier: $0.key, title: $0.label, authenticationRequired: $0.type == apiActionType) })
        }
    }

    /// `filteredCopy(keepingActions:)`: every group kept, with only the actions of the allowed types.
    package static func keeping<T>(_ actions: [T], types allowed: Set<String>, type: (T) -> String) -> [T] { actions.filter { allowed.contains(type($0)) } }
}
