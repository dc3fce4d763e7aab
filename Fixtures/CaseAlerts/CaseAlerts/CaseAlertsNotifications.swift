import Foundation
import UserNotifications

/// What the app asks of the notification center: permission to alert, and a category whose notifications offer
/// to open the case or to call the customer back.
enum CaseAlertsNotifications {
    static let caseCategory = "CASE_ESCALATED"

    static func requestAuthorization() {
        let center = UNUserNotificationCenter.current()
        center.requestAuthorization(options: [.alert, .badge, .sound]) { granted, _ in
            guard granted else { return }
            center.setNotificationCategories([category])
        }
    }

    static var category: UNNotificationCategory {
        let open = UNNotificationAction(identifier: "OPEN_CASE", title: "Open case", options: [.foreground])
        let call = UNNotificationAction(identifier: "CALL_BACK", title: "Call back", options: [.authenticationRequired])
        return UNNotificationCategory(identifier: caseCategory, actions: [open, call], intentIdentifiers: [], options: [])
    }
}
