import Foundation
import _CryptoExtras

/// The app's RSA key pair for encrypted notifications (the SDK's `kPNEncryptionKeyName`, 2,048 bits):
/// made once, the private key kept in the keychain (PKCS#1 DER, service
/// `com.salesforce.mobilesdk.notificationKey`) in the app's keychain group, so that the notification
/// service extension, entitled to the same group, can read it. The public key goes to the org.
/// The keychain side is `PushKeyStore`.
package enum PushKey {
    package static let service = "com.salesforce.mobilesdk.notificationKey"
    package static let bits = 2048

    /// A new key pair.
    package static func make() throws -> _RSA.Encryption.PrivateKey { try _RSA.Encryption.PrivateKey(keySize: .bits2048) }

    /// The key from the keychain item's bytes (PKCS#1 DER); nil when they are not an RSA private key.
    package static func privateKey(der bytes: [UInt8]) -> _RSA.Encryption.PrivateKey? {
        try? _RSA.Encryption.PrivateKey(derRepresentation: bytes)
    }

    /// What the SDK sends as `RsaPublicKey`: base64 of the public key's PKCS#1 DER.
    package static func publicKeyText(_ key: _RSA.Encryption.PrivateKey) -> String {
        key.publicKey.pkcs1DERRepresentation.base64EncodedString()
    }
}
