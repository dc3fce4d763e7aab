import UIKit
import UserNotifications
import SalesforceSDKCore

// The app's delegate, as the SDK's encrypted-notification template has one: the SDK, then notifications.
@main
class AppDelegate: UIResponder, UIApplicationDelegate {
    func application(_ application: UIApplication, didFinishLaunchingWithOptions launchOptions: [UIApplication.LaunchOptionsKey: Any]?) -> Bool {
        SalesforceManager.initializeSDK()
        CaseAlertsNotifications.requestAuthorization()
        return true
    }

    func application(_ application: UIApplication, didRegisterForRemoteNotificationsWithDeviceToken deviceToken: Data) {
        PushNotificationManager.sharedInstance().didRegisterForRemoteNotifications(withDeviceToken: deviceToken)
        PushNotificationManager.sharedInstance().registerForSalesforceNotifications { _ in }
    }
}
