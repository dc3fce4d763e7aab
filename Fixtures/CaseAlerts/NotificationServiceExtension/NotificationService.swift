import UserNotifications
import SalesforceSDKCore

// The notification service extension, written the way the SDK's encrypted-notification template writes its
// own: a mutable copy of the content, decrypted by the SDK, handed back; on an error the content as it came.
class NotificationService: UNNotificationServiceExtension {
    var contentHandler: ((UNNotificationContent) -> Void)?
    var bestAttemptContent: UNMutableNotificationContent?

    override func didReceive(_ request: UNNotificationRequest, withContentHandler contentHandler: @escaping (UNNotificationContent) -> Void) {
        self.contentHandler = contentHandler
        bestAttemptContent = request.content.mutableCopy() as? UNMutableNotificationContent
        deliver()
    }

    override func serviceExtensionTimeWillExpire() {
        deliver()
    }

    private func deliver() {
        guard let contentHandler, let content = bestAttemptContent else { return }
        do {
            try SFSDKPushNotificationDecryption.decryptNotificationContent(content)
        } catch {
            SalesforceLogger.e(NotificationService.self, message: "Could not decrypt the notification: \(error as NSError)")
        }
        contentHandler(content)
    }
}
