import Foundation
import SalesforceSDKCommon

/// The SDK's `KeyGenerator` (`SFSDKKeyGenerator`): a 256-bit key per label, made once and kept in the keychain
/// under service `com.salesforce.keystore.<label>` with no account, in this process's keychain groups, and
/// cached per process. What the SDK does when the item cannot be used is kept, because it is the field
/// failure: it makes a NEW key and overwrites the item, so whatever another process encrypted with the old
/// key can no longer be read. A widget in another keychain group gets a key of its own this way.
///
/// One difference, as for the account key (docs/differences.md): the SDK wraps the key with an EC key pair of its
/// own (`defaultKey`, in the Secure Enclave where there is one) before writing it; here the item holds the 32
/// bytes, which the Secret Service encrypts at rest. The engine's account key is the same item
/// (`com.salesforce.userAccount.encryptionKey`).
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
        let service = storedLabel(label)
        if let data = KeychainHelper.read(service: service, account: nil).data, data.count == 32 {
            return SymmetricKey(data: data)
        }
        // Not in the keychain, or not a key: a new one, written over whatever was there (the SDK's way).
        let key = SymmetricKey(size: .bits256)
        let result = KeychainHelper.write(service: service, data: key.withUnsafeBytes { Data($0) }, account: nil)
        guard result.success else { throw KeyGeneratorError.keychainWriteError(underlyingError: result.error) }
        return key
    }
}
