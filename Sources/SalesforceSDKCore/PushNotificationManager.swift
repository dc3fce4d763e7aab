import Foundation
import CoreEngine
import CoreNetworkEngine
import SalesforceSDKCommon

/// The SDK's push constants: the keychain service of the push encryption key, and its RSA key size.
public final class PushNotificationManagerConstants: NSObject {
    public static let kPNEncryptionKeyName = "com.salesforce.mobilesdk.notificationKey"
    public static let kPNEncryptionKeyLength: UInt = 2048
}

/// Why a push registration or a notification action failed, with the SDK's cases.
public enum PushNotificationManagerError: Error, Equatable {
    case registrationFailed
    case currentUserNotDetected
    case failedNotificationTypesRetrieval
    case notificationActionInvocationFailed(String)
}

/// The SDK's `PushNotificationManager`, on the engine's (the same registration `main-app` makes): the device's
/// APNs token from the simulated APNs, the user's registration at the org (`MobilePushServiceDevice`) with
/// the push key's public half, kept in the app's standard defaults.
public final class PushNotificationManager: NSObject, @unchecked Sendable {
    public static let shared = PushNotificationManager()

    public static func sharedInstance() -> PushNotificationManager { shared }

    public var customPushRegistrationBody: [String: Any]?
    public var registerOnForeground = true

    var engine: CoreNetworkEngine.PushNotificationManager {
        let sdk = SDKEngine.current
        return CoreNetworkEngine.PushNotificationManager(launch: sdk.launch, events: sdk.events)
    }

    /// The device's APNs token (the simulated APNs gives one per device and app).
    public var deviceToken: String? { try? engine.deviceToken() }

    /// The current user's `MobilePushServiceDevice` id, once registered.
    public var deviceSalesforceId: String? {
        guard let user = UserAccountManager.shared.currentUserAccount else { return nil }
        return (try? engine.registration(for: user.engine))??.id
    }

    /// The token comes from the simulated APNs at the first registration; nothing to ask for here.
    public func registerForRemoteNotifications() {}

    public func didRegisterForRemoteNotifications(withDeviceToken: Data) {}

    @discardableResult
    public func registerSalesforceNotifications(completionBlock: (() -> Void)?, failBlock: (() -> Void)?) -> Bool {
        guard let user = UserAccountManager.shared.currentUserAccount else {
            failBlock?()
            return false
        }
        return registerSalesforceNotifications(for: user, completionBlock: completionBlock, failBlock: failBlock)
    }

    @discardableResult
    public func registerSalesforceNotifications(for user: UserAccount, completionBlock: (() -> Void)?, failBlock: (() -> Void)?) -> Bool {
        let ok = register(user)
        if ok { completionBlock?() } else { failBlock?() }
        return ok
    }

    @discardableResult
    public func unregisterSalesforceNotifications(completionBlock: (() -> Void)?) -> Bool {
        guard let user = UserAccountManager.shared.currentUserAccount else { return false }
        return unregisterSalesforceNotifications(for: user, completionBlock: completionBlock)
    }

    @discardableResult
    public func unregisterSalesforceNotifications(for user: UserAccount, completionBlock: (() -> Void)?) -> Bool {
        let ok = unregister(user)
        completionBlock?()
        return ok
    }

    public func registerForSalesforceNotifications(_ completionBlock: @escaping (Result<Bool, PushNotificationManagerError>) -> Void) {
        guard let user = UserAccountManager.shared.currentUserAccount else { return completionBlock(.failure(.currentUserNotDetected)) }
        registerForSalesforceNotifications(user: user, completionBlock: completionBlock)
    }

    public func registerForSalesforceNotifications(user: UserAccount, completionBlock: @escaping (Result<Bool, PushNotificationManagerError>) -> Void) {
        completionBlock(register(user) ? .success(true) : .failure(.registrationFailed))
    }

    public func unregisterForSalesforceNotifications(_ completionBlock: @escaping (Bool) -> Void) {
        guard let user = UserAccountManager.shared.currentUserAccount else { return completionBlock(false) }
        unregisterForSalesforceNotifications(user: user, completionBlock)
    }

    public func unregisterForSalesforceNotifications(user: UserAccount, _ completionBlock: @escaping (Bool) -> Void) {
        completionBlock(unregister(user))
    }

    private func register(_ user: UserAccount) -> Bool {
        let engine = self.engine
        let account = user.engine
        let outcome = try? SDKProcess.blocking { await engine.registerIfNeeded(account) }
        switch outcome {
        case .registered, .alreadyRegistered: return true
        case .failed(let why): SDKProcess.warn("PushNotificationManager: registration failed: \(why)"); return false
        default: return false
        }
    }

    private func unregister(_ user: UserAccount) -> Bool {
        let engine = self.engine
        let account = user.engine
        let outcome = try? SDKProcess.blocking { await engine.unregister(account) }
        if case .unregistered = outcome { return true }
        return false
    }
}
