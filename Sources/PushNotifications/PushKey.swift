import Foundation
import Keychain
import _CryptoExtras

/// The app's RSA key pair for encrypted notifications (the SDK's `kPNEncryptionKeyName`, 2,048 bits):
/// made once, the private key kept in the keychain (PKCS#1 DER, service
/// `com.salesforce.mobilesdk.notificationKey`) in the app's keychain group, so that the notification
/// service extension, entitled to the same group, can read it. The public key goes to the org.
public enum PushKey {
    public static let service = "com.salesforce.mobilesdk.notificationKey"
    public static let bits = 2048

    public enum Failure: Error, CustomStringConvertible, Equatable {
        /// The keychain could not be asked, or refused (its status).
        case keychain(KeychainResult)
        /// No item in any keychain group this process may read.
        case notFound(groups: [String])
        /// The item is not an RSA private key.
        case unreadable(String)

        public var description: String {
            switch self {
            case .keychain(let r): return "the push key (\(PushKey.service)) cannot be read: \(r.error?.message ?? "status \(r.status.rawValue)")"
            case .notFound(let groups):
                return "no push key (\(PushKey.service)) in the keychain groups this target may read (\(groups.joined(separator: ", "))): the app keeps it in its keychain group; add that group to this target's keychain-access-groups"
            case .unreadable(let why): return "the push key item (\(PushKey.service)) is not an RSA private key: \(why)"
            }
        }
    }

    /// The private key; with `create`, made now when no entitled group has one (the app does, at its
    /// first registration; an extension never does).
    public static func privateKey(_ keychain: KeychainHelper, create: Bool) async throws(Failure) -> _RSA.Encryption.PrivateKey {
        let read = await keychain.read(service: service)
        if read.success, let bytes = read.data, !bytes.isEmpty {
            do { return try _RSA.Encryption.PrivateKey(derRepresentation: bytes) } catch { throw .unreadable("\(error)") }
        }
        guard read.status == .itemNotFound || (read.success && (read.data ?? []).isEmpty) else { throw .keychain(read) }
        guard create else { throw .notFound(groups: keychain.accessGroups) }
        let key: _RSA.Encryption.PrivateKey
        do { key = try _RSA.Encryption.PrivateKey(keySize: .bits2048) } catch { throw .unreadable("cannot make a key: \(error)") }
        let written = await keychain.write(Array(key.derRepresentation), service: service)
        guard written.success else { throw .keychain(written) }
        return key
    }

    /// What the SDK sends as `RsaPublicKey`: base64 of the public key's PKCS#1 DER.
    public static func publicKeyText(_ key: _RSA.Encryption.PrivateKey) -> String {
        key.publicKey.pkcs1DERRepresentation.base64EncodedString()
    }
}
