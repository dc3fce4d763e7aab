import CoreNetworkEngine
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The SDK's `BiometricAuthenticationManager`, without `presentOptInDialog(viewController:)` (UIKit). The app's
/// biometric lock is not simulated: the SDK's own manager is replaced by one that is never enabled nor locked.
public protocol BiometricAuthenticationManager: AnyObject {
    /// If the feature is enabled for the current user.
    var enabled: Bool { get }
    /// If the app is locked: authenticated requests are not retried while it is.
    var locked: Bool { get }
    func lock()
    func biometricOptIn(optIn: Bool)
    func hasBiometricOptedIn() -> Bool
    func enableNativeBiometricLoginButton(enabled: Bool)
}

/// The default manager here: biometric lock is not simulated, so never enabled and never locked.
final class UnlockedBiometricAuthenticationManager: BiometricAuthenticationManager, @unchecked Sendable {
    static let shared = UnlockedBiometricAuthenticationManager()
    var enabled: Bool { false }
    var locked: Bool { false }
    func lock() {}
    func biometricOptIn(optIn: Bool) {}
    func hasBiometricOptedIn() -> Bool { false }
    func enableNativeBiometricLoginButton(enabled: Bool) {}
}

/// The SDK's `RetryPolicyEvaluating`: a task whose answer may call for a token refresh and a retry.
public protocol RetryPolicyEvaluating {
    var response: URLResponse? { get }
    var originalRequest: URLRequest? { get }
    func shouldRetry(with responseData: Data?, biometricAuthManager: BiometricAuthenticationManager) -> Bool
}

extension URLSessionTask: RetryPolicyEvaluating {
    /// True for a 401, or a 403 `Bad_OAuth_Token` from an OAuth URL, unless the biometric lock is on
    /// (`CoreNetworkEngine.SessionRetryPolicy`).
    public func shouldRetry(with responseData: Data? = nil) -> Bool {
        shouldRetry(with: responseData, biometricAuthManager: UnlockedBiometricAuthenticationManager.shared)
    }

    /// As above, with the app's biometric manager.
    public func shouldRetry(with responseData: Data?, biometricAuthManager: BiometricAuthenticationManager) -> Bool {
        SessionRetryPolicy.shouldRetry(status: (response as? HTTPURLResponse)?.statusCode, path: originalRequest?.url?.path, body: responseData,
                                       locked: biometricAuthManager.locked)
    }
}
