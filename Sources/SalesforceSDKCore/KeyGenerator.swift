import CoreEngine
import Foundation
import Keychain
import SalesforceSDKCommon

/// The SDK's `KeyGenerator` (`SFSDKKeyGenerator`): a 256-bit key per label, made once and kept in the keychain
/// under service `com.salesforce.keystore.<label>` with no account, in this process's keychain groups, and
/// cached per process. What the SDK does when the item cannot be used is kept, because it is the field
/// failure: it makes a NEW key and overwrites the item, so whatever another process encrypted with the old
/// key can no longer be read. A widget in another keychain group gets a key of its own this way.
///
/// The key is written wrapped with the EC key pair `defaultKey` (ECIES, as the SDK's `Encryptor` does), whose
/// halves never leave the device; the rule is the engine's (`KeychainHelper.symmetricKey`), which the account key
/// (`com.salesforce.userAccount.encryptionKey`) follows too.
public class KeyGenerator: NSObject {
    static let keyStoreService = "com.salesforce.keystore"

    public enum KeyGeneratorError: Error {
        case keychainWriteError(underlyingError: Error?)
    }

    private static let cache = PerProcess<[String: SymmetricKey]> { [:] }

    // The SDK's `throws -> Data` variant is Objective-C only (obsoleted in Swift), so Swift sees this one.
    public static func encryptionKey(for label: String) throws -> SymmetricKey {
        if let key = cache.withValue({ $0[label] }) { return key }
        let key = try symmetricKey(for: label)
        cache.withValue { $0[label] = key }
        return key
    }

    /// Removes the label's key from the keychain (and this process's cache).
    @discardableResult
    public static func removeEncryptionKey(for label: String) -> Bool {
        cache.withValue { _ = $0.removeValue(forKey: label) }
        return KeychainHelper.remove(service: storedLabel(label), account: nil).success
    }

    static func storedLabel(_ label: String) -> String { "\(keyStoreService).\(label)" }

    static func symmetricKey(for label: String) throws -> SymmetricKey {
        let keychain = SDKProcess.current.keychain
        let service = storedLabel(label)
        // Not in the keychain, or not a key this device can unwrap: a new one, written over whatever was there.
        let state = try SDKProcess.blocking { await keychain.symmetricKey(service: service, create: true, regenerate: true) }
        guard case .loaded(let key, _) = state else {
            let error: KeychainError? = if case .unreadable(let result) = state { result.error } else { nil }
            throw KeyGeneratorError.keychainWriteError(underlyingError: error)
        }
        return key.symmetric
    }
}
