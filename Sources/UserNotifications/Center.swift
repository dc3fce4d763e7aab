import AppGroup
import Foundation
import SalesforceSDKCommon

public struct UNAuthorizationOptions: OptionSet, Sendable, Hashable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let badge = UNAuthorizationOptions(rawValue: 1 << 0)
    public static let sound = UNAuthorizationOptions(rawValue: 1 << 1)
    public static let alert = UNAuthorizationOptions(rawValue: 1 << 2)
    public static let carPlay = UNAuthorizationOptions(rawValue: 1 << 3)
    public static let criticalAlert = UNAuthorizationOptions(rawValue: 1 << 4)
    public static let providesAppNotificationSettings = UNAuthorizationOptions(rawValue: 1 << 5)
    public static let provisional = UNAuthorizationOptions(rawValue: 1 << 6)

    var names: [String] {
        [(Self.badge, "badge"), (.sound, "sound"), (.alert, "alert"), (.carPlay, "carPlay"), (.criticalAlert, "criticalAlert"),
         (.providesAppNotificationSettings, "providesAppNotificationSettings"), (.provisional, "provisional")].filter { contains($0.0) }.map(\.1)
    }
}

/// `UNUserNotificationCenter.current()` of the process's app on the simulated device: authorization requests
/// (granted, as a user who taps Allow does) and categories are recorded in the device's
/// `Notifications/<app>/settings.json`, for the app whose notifications they are (an extension's calls count
/// for its host app, as on iOS), and `getNotificationCategories` reads them back. A record that cannot be
/// written is a warning on standard error, and the request then reports the error.
public final class UNUserNotificationCenter: NSObject, @unchecked Sendable {
    private static let shared = UNUserNotificationCenter()

    public static func current() -> UNUserNotificationCenter { shared }

    private override init() { super.init() }

    private func record(_ change: (inout NotificationSettings) -> Void) throws {
        let sandbox = SDKProcess.current.sandbox
        try NotificationSettings.update(sandbox.device.layout, app: sandbox.bundle.owningAppIdentifier, change)
    }

    private func settings() throws -> NotificationSettings {
        let sandbox = SDKProcess.current.sandbox
        return try NotificationSettings.read(sandbox.device.layout, app: sandbox.bundle.owningAppIdentifier)
    }

    public func requestAuthorization(options: UNAuthorizationOptions = [], completionHandler: @escaping @Sendable (Bool, (any Error)?) -> Void) {
        do {
            try record { settings in
                settings.authorizationRequests += 1
                for name in options.names where !settings.authorization.contains(name) { settings.authorization.append(name) }
            }
            SDKProcess.traceStep("notificationAuthorization", ["options": options.names.joined(separator: ",")])
            completionHandler(true, nil)
        } catch {
            SDKProcess.warn("UNUserNotificationCenter could not record the authorization request: \(error)")
            completionHandler(false, error)
        }
    }

    public func requestAuthorization(options: UNAuthorizationOptions = []) async throws -> Bool {
        try await withCheckedThrowingContinuation { continuation in
            requestAuthorization(options: options) { granted, error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume(returning: granted) }
            }
        }
    }

    public func setNotificationCategories(_ categories: Set<UNNotificationCategory>) {
        do {
            try record { settings in
                settings.categories = categories.sorted { $0.identifier < $1.identifier }.map { category in
                    NotificationSettings.Category(
                        identifier: category.identifier,
                        actions: category.actions.map { NotificationSettings.Action(identifier: $0.identifier, title: $0.title, options: $0.options.names) },
                        options: category.options.names)
                }
            }
            SDKProcess.traceStep("notificationCategories", ["count": String(categories.count)])
        } catch {
            SDKProcess.warn("UNUserNotificationCenter could not record the categories: \(error)")
        }
    }

    public func getNotificationCategories(completionHandler: @escaping @Sendable (Set<UNNotificationCategory>) -> Void) {
        completionHandler(recordedCategories())
    }

    public func notificationCategories() async -> Set<UNNotificationCategory> { recordedCategories() }

    private func recordedCategories() -> Set<UNNotificationCategory> {
        guard let recorded = try? settings() else { return [] }
        return Set(recorded.categories.map { category in
            UNNotificationCategory(
                identifier: category.identifier,
                actions: category.actions.map { action in
                    UNNotificationAction(identifier: action.identifier, title: action.title, options: UNNotificationActionOptions(names: action.options))
                },
                intentIdentifiers: [], options: UNNotificationCategoryOptions(names: category.options))
        })
    }
}

extension UNNotificationActionOptions {
    init(names: [String]) {
        self = [Self.authenticationRequired, .destructive, .foreground].filter { Self(rawValue: $0.rawValue).names.allSatisfy(names.contains) }
            .reduce(into: []) { $0.insert($1) }
    }
}

extension UNNotificationCategoryOptions {
    init(names: [String]) {
        self = [Self.customDismissAction, .allowInCarPlay, .hiddenPreviewsShowTitle, .hiddenPreviewsShowSubtitle]
            .filter { $0.names.allSatisfy(names.contains) }.reduce(into: []) { $0.insert($1) }
    }
}
