import Crypto
import FastJSON
import Foundation
import Keychain
import _CryptoExtras

/// The keys of a Salesforce push notification's `userInfo` (the SDK's `kRemoteNotificationKey…`).
package enum PushNotificationKey {
    package static let encrypted = "encrypted"
    package static let secret = "secret"
    package static let content = "content"
    package static let aps = "aps"
    package static let alert = "alert"
    package static let title = "title"
    package static let body = "body"
    package static let alertTitle = "alertTitle"
    package static let alertBody = "alertBody"
    package static let userId = "uid"
}

/// The SDK's push-decryption errors (`SFSDKPushNotificationError`, domain `com.salesforce.mobilesdk.push.error`),
/// with its codes and the descriptions `SFSDKPushNotificationDecryption.m` gives them, word for word.
package enum PushNotificationError: Int, Error, CustomStringConvertible, Sendable {
    /// `SFSDKPushNotificationErrorDomain`.
    package static let domain = "com.salesforce.mobilesdk.push.error"

    case noEncryptedSecret = -1001
    case noEncryptedContent = -1002
    case noApsAlertTitle = -1003
    case noApsAlertBody = -1004
    case noApsDictionary = -1005
    case noApsAlertDictionary = -1006
    case malformedSecretData = -1007
    case privateRSAKeyNotFound = -1008
    case secretDecryptionFailed = -1009
    case malformedContentData = -1010
    case contentDecryptionFailed = -1011
    case invalidContentFormat = -1012

    package var code: Int { rawValue }

    package var description: String {
        switch self {
        case .noEncryptedSecret: return "No secret data in the notification content."
        case .noEncryptedContent: return "No content data in the notification content."
        case .noApsAlertTitle: return "No alert title in the notification content."
        case .noApsAlertBody: return "No alert body in the notification content."
        case .noApsDictionary: return "No aps data in the notification content."
        case .noApsAlertDictionary: return "No alert data in the aps content of the notification."
        case .malformedSecretData: return "Encrypted secret is an invalid Base64 string."
        case .privateRSAKeyNotFound: return "Could not retrieve private RSA key for encrypted notification."
        case .secretDecryptionFailed: return "Failed to decrypt secret with RSA private key."
        case .malformedContentData: return "Encrypted content is an invalid Base64 string."
        case .contentDecryptionFailed: return "Failed to decrypt content with symmetric secret key."
        case .invalidContentFormat: return "Decrypted content is not a valid JSON dictionary."
        }
    }

    /// Whether `SFSDKPushNotificationDecryption` reports this error to its caller. Its validation of the payload
    /// (-1001 to -1006) returns NO without setting the error, so a Swift caller of the SDK catches Foundation's
    /// "nil error" instead; the codes from -1007 on are set.
    package var reportedBySDK: Bool { rawValue <= PushNotificationError.malformedSecretData.rawValue }
}

/// A notification as a service extension gets it and shows it: `userInfo`, and the title and body
/// the system shows (from `aps.alert` until the extension changes them).
package struct NotificationContent: Sendable, Equatable {
    package var userInfo: [String: JSON]
    package var title: String
    package var body: String

    package init(userInfo: [String: JSON]) {
        self.userInfo = userInfo
        let alert = userInfo[PushNotificationKey.aps]?[PushNotificationKey.alert]
        title = alert?[PushNotificationKey.title]?.stringValue ?? ""
        // APNs also takes the alert as one string: the body.
        body = alert?[PushNotificationKey.body]?.stringValue ?? alert?.stringValue ?? ""
    }
}

/// `SFSDKPushNotificationDecryption`: what the SDK's notification service extension does with a
/// Salesforce notification. A payload without `encrypted` (or with it false) passes unchanged. Else the
/// `secret` (base64) is RSA-OAEP-SHA256-decrypted with the app's private key (and when that fails, as the SDK
/// 12 does, RSA PKCS#1 v1.5-decrypted: `LegacyRSA`) to exactly 32 bytes, an
/// AES-128 key then its IV; `content` (base64) is AES-128-CBC (PKCS#7) decrypted to a UTF-8 JSON
/// dictionary whose keys are merged into `userInfo`; `alertTitle`/`alertBody` become the shown title
/// and body, and `aps.alert`'s title and body (where present) are updated. On any error the content is
/// left exactly as it came (the system then shows the fallback alert).
package enum PushNotificationDecryption {
    /// `[userInfo[@"encrypted"] boolValue]`: true, a non-zero number, or "true"/"yes"/"1".
    package static func isEncrypted(_ userInfo: [String: JSON]) -> Bool {
        switch userInfo[PushNotificationKey.encrypted] {
        case .bool(let b)?: return b
        case .int(let i)?: return i != 0
        case .double(let d)?: return d != 0
        case .string(let s)?: return ["true", "yes", "1"].contains(s.lowercased())
        default: return false
        }
    }

    package static func validate(_ userInfo: [String: JSON]) throws(PushNotificationError) {
        guard userInfo[PushNotificationKey.secret]?.stringValue != nil else { throw .noEncryptedSecret }
        guard userInfo[PushNotificationKey.content]?.stringValue != nil else { throw .noEncryptedContent }
        guard let aps = userInfo[PushNotificationKey.aps]?.objectValue else { throw .noApsDictionary }
        guard let alert = aps[PushNotificationKey.alert]?.objectValue else { throw .noApsAlertDictionary }
        guard alert[PushNotificationKey.title]?.stringValue != nil else { throw .noApsAlertTitle }
        guard alert[PushNotificationKey.body]?.stringValue != nil else { throw .noApsAlertBody }
    }

    /// - Parameter privateKey: the app's push key from the shared keychain group; nil when it cannot be read.
    package static func decrypt(_ content: inout NotificationContent, privateKey: _RSA.Encryption.PrivateKey?) throws(PushNotificationError) {
        guard isEncrypted(content.userInfo) else { return }
        try validate(content.userInfo)
        guard let privateKey else { throw .privateRSAKeyNotFound }
        guard let secret = content.userInfo[PushNotificationKey.secret]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw .malformedSecretData
        }
        let keyAndIV: Data
        if let oaep = try? privateKey.decrypt(secret, padding: .PKCS1_OAEP_SHA256) {
            keyAndIV = oaep
        } else if let pkcs1 = try? LegacyRSA.decryptPKCS1(secret, privateKey: privateKey) {
            keyAndIV = pkcs1
        } else {
            throw .secretDecryptionFailed
        }
        guard keyAndIV.count == 32 else { throw .secretDecryptionFailed }
        guard let encrypted = content.userInfo[PushNotificationKey.content]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
            throw .malformedContentData
        }
        let plain: Data
        do {
            plain = try AES._CBC.decrypt(
                encrypted, using: SymmetricKey(data: keyAndIV.prefix(16)), iv: try AES._CBC.IV(ivBytes: keyAndIV.suffix(16)))
        } catch {
            throw .contentDecryptionFailed
        }
        guard let text = String(data: plain, encoding: .utf8) else { throw .contentDecryptionFailed }
        guard let decrypted = JSON(text: text)?.objectValue else { throw .invalidContentFormat }

        var userInfo = content.userInfo
        for (key, value) in decrypted { userInfo[key] = value }
        userInfo[PushNotificationKey.content] = nil
        let title = userInfo[PushNotificationKey.alertTitle]?.stringValue ?? ""
        let body = userInfo[PushNotificationKey.alertBody]?.stringValue ?? ""
        if var aps = userInfo[PushNotificationKey.aps]?.objectValue, var alert = aps[PushNotificationKey.alert]?.objectValue {
            if alert[PushNotificationKey.body] != nil { alert[PushNotificationKey.body] = .string(body) }
            if alert[PushNotificationKey.title] != nil { alert[PushNotificationKey.title] = .string(title) }
            aps[PushNotificationKey.alert] = .object(alert)
            userInfo[PushNotificationKey.aps] = .object(aps)
        }
        content = NotificationContent(userInfo: userInfo)
        content.title = title
        content.body = body
    }

    /// `+decryptNotificationContent:error:` whole: the push key read from `keychain` (any failure to have it is
    /// the SDK's -1008; the SDK checks no user), then `decrypt`.
    package static func decrypt(_ content: inout NotificationContent, keychain: KeychainHelper) async throws(PushNotificationError) {
        guard isEncrypted(content.userInfo) else { return }
        try validate(content.userInfo)
        let key = try? await PushKeyStore.privateKey(keychain, create: false)
        try decrypt(&content, privateKey: key)
    }
}
