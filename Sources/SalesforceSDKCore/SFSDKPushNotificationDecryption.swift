import CoreEngine
import FastJSON
import Foundation
import SalesforceSDKCommon
import UserNotifications

/// The SDK's `SFSDKPushNotificationDecryption`: what a notification service extension calls with the content iOS
/// hands it. It translates to the engine's `PushNotificationDecryption` and holds no rule of its own: content
/// that is not encrypted is left as it is; otherwise the push key is read from the keychain groups of this
/// process (no user is checked, as in the SDK), the secret decrypted (RSA-OAEP SHA-256, then PKCS#1 v1.5), the
/// content decrypted and merged into `userInfo`, and `title` and `body` set from `alertTitle` and `alertBody`.
/// On an error the content is unchanged.
public class SFSDKPushNotificationDecryption: NSObject {
    /// `+decryptNotificationContent:error:`. Its errors are `NSError`s of `SFSDKPushNotificationErrorDomain`
    /// with the SDK's codes and descriptions. The SDK's validation of the payload (no secret, no content, no
    /// `aps.alert` title or body: -1001 to -1006) returns NO without setting its error, so Swift on iOS throws
    /// Foundation's "nil error" (`Foundation._GenericObjCError`, code 0); so does this.
    public class func decryptNotificationContent(_ notificationContent: UNMutableNotificationContent) throws {
        guard let userInfo = JSON.object(sdkEntry: notificationContent.userInfo) else {
            // Not JSON (a payload always is): nothing the SDK could decrypt; its validation fails the same way.
            if CoreEngine.PushNotificationDecryption.isEncrypted([PushNotificationKey.encrypted: JSON(sdkValue: notificationContent.userInfo["encrypted"] as Any) ?? .null]) {
                throw nilError
            }
            return
        }
        var content = CoreEngine.NotificationContent(userInfo: userInfo)
        let keychain = SDKProcess.current.keychain
        let result = try SDKProcess.blocking { [content] () async -> Result<CoreEngine.NotificationContent, PushNotificationError> in
            var decrypted = content
            do throws(PushNotificationError) {
                try await CoreEngine.PushNotificationDecryption.decrypt(&decrypted, keychain: keychain)
            } catch {
                return .failure(error)
            }
            return .success(decrypted)
        }
        switch result {
        case .failure(let error):
            guard error.reportedBySDK else { throw nilError }
            throw NSError(domain: SFSDKPushNotificationErrorDomain, code: error.code, userInfo: [NSLocalizedDescriptionKey: error.description])
        case .success(let decrypted):
            guard decrypted != content else { return }
            content = decrypted
            notificationContent.userInfo = content.userInfo.foundationEntry
            notificationContent.title = content.title
            notificationContent.body = content.body
        }
    }

    /// What Swift throws on iOS when an Objective-C method returns NO and sets no error.
    static var nilError: NSError { NSError(domain: "Foundation._GenericObjCError", code: 0) }
}

/// `SFSDKPushNotificationErrorDomain`.
public let SFSDKPushNotificationErrorDomain = PushNotificationError.domain

/// The SDK's `kRemoteNotificationKey…` names (SFSDKPushNotificationFieldsConstants.h), which its tests use.
public let kRemoteNotificationKeyAlert = PushNotificationKey.alert
public let kRemoteNotificationKeyBody = PushNotificationKey.body
public let kRemoteNotificationKeyTitle = PushNotificationKey.title
public let kRemoteNotificationKeyAlertTitle = PushNotificationKey.alertTitle
public let kRemoteNotificationKeyAlertBody = PushNotificationKey.alertBody
public let kRemoteNotificationKeyUserid = PushNotificationKey.userId
public let kRemoteNotificationKeyAps = PushNotificationKey.aps
public let kRemoteNotificationKeyEncrypted = PushNotificationKey.encrypted
public let kRemoteNotificationKeyContent = PushNotificationKey.content
public let kRemoteNotificationKeySecret = PushNotificationKey.secret
