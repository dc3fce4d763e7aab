import COpenSSL
import Crypto
import FastJSON
import Foundation
@preconcurrency import _CryptoExtras

/// What Salesforce does before it hands a notification to APNs, written here from the wire format alone (the
/// org shares no code with the client's decryption, so that a mistake on one side cannot hide one on the
/// other): a fresh 16-byte AES-128 key and a 16-byte IV; the content, a UTF-8 JSON dictionary, encrypted with
/// them (AES-128-CBC, PKCS#7 padding); the key then the IV (32 bytes) encrypted with the device's RSA public
/// key (`RsaPublicKey`, RSA-OAEP with SHA-256 for `CipherName` `RSA_OAEP_SHA256`, RSA PKCS#1 v1.5 for a device
/// registered without a CipherName, as Salesforce did before the SDK 12 sent one); both base64 in the payload
/// beside `encrypted: true`, and an `aps.alert` the system shows when the extension cannot decrypt.
package enum PushEncryption {
    /// How the secret (the AES key and IV) is encrypted with the device's public key.
    package enum Cipher: String, Sendable, CaseIterable {
        /// `CipherName` `RSA_OAEP_SHA256`: what the SDK registers since 12.0.
        case oaepSHA256 = "RSA_OAEP_SHA256"
        /// RSA PKCS#1 v1.5: a device registered without a CipherName; the SDK 12 falls back to it.
        case pkcs1 = "RSA_PKCS1"

        /// The cipher for a device's `CipherName` (nil or empty: PKCS#1 v1.5); nil for a name Salesforce does not know.
        package init?(cipherName: String?) {
            guard let name = cipherName, !name.isEmpty else { self = .pkcs1; return }
            self.init(rawValue: name)
        }
    }

    package struct EncryptionFailed: Error, CustomStringConvertible {
        package let description: String
    }

    /// The secret encrypted with `publicKey` as `cipher` says.
    package static func encryptSecret(_ secret: Data, publicKey: _RSA.Encryption.PublicKey, cipher: Cipher) throws -> Data {
        switch cipher {
        case .oaepSHA256: return try publicKey.encrypt(secret, padding: .PKCS1_OAEP_SHA256)
        case .pkcs1: return try pkcs1Encrypt(secret, publicKeySPKI: Array(publicKey.derRepresentation))
        }
    }

    /// PKCS#1 v1.5 with libcrypto's EVP API (swift-crypto encrypts with OAEP only); never a hand-rolled RSA.
    static func pkcs1Encrypt(_ plain: Data, publicKeySPKI der: [UInt8]) throws -> Data {
        let key: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let key else { throw EncryptionFailed(description: "libcrypto cannot read the device's RSA public key") }
        defer { EVP_PKEY_free(key) }
        guard let context = EVP_PKEY_CTX_new(key, nil) else { throw EncryptionFailed(description: "libcrypto: EVP_PKEY_CTX_new failed") }
        defer { EVP_PKEY_CTX_free(context) }
        guard EVP_PKEY_encrypt_init(context) == 1, EVP_PKEY_CTX_set_rsa_padding(context, RSA_PKCS1_PADDING) == 1 else {
            throw EncryptionFailed(description: "libcrypto: cannot set up RSA PKCS#1 v1.5 encryption")
        }
        let input = Array(plain)
        var length = 0
        guard EVP_PKEY_encrypt(context, nil, &length, input, input.count) == 1 else {
            throw EncryptionFailed(description: "libcrypto: RSA PKCS#1 v1.5 encryption failed")
        }
        var output = [UInt8](repeating: 0, count: length)
        guard EVP_PKEY_encrypt(context, &output, &length, input, input.count) == 1 else {
            throw EncryptionFailed(description: "libcrypto: RSA PKCS#1 v1.5 encryption failed")
        }
        return Data(output.prefix(length))
    }

    /// The payload for `content` (a JSON dictionary).
    package static func payload(
        content: [String: JSON], publicKey: _RSA.Encryption.PublicKey, cipher: Cipher = .oaepSHA256, fallbackTitle: String, fallbackBody: String,
        extra: [String: JSON] = [:]
    ) throws -> [String: JSON] {
        try payload(
            contentData: Data(JSON.object(content).text.utf8), publicKey: publicKey, cipher: cipher, fallbackTitle: fallbackTitle,
            fallbackBody: fallbackBody, extra: extra)
    }

    /// The same with the content's bytes as given (tests send content that is not a JSON dictionary).
    package static func payload(
        contentData: Data, publicKey: _RSA.Encryption.PublicKey, cipher: Cipher = .oaepSHA256, fallbackTitle: String, fallbackBody: String,
        extra: [String: JSON] = [:]
    ) throws -> [String: JSON] {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let iv = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let secret = try encryptSecret(key + iv, publicKey: publicKey, cipher: cipher)
        let content = try AES._CBC.encrypt(contentData, using: SymmetricKey(data: key), iv: try AES._CBC.IV(ivBytes: iv))
        var payload = extra
        payload["encrypted"] = true
        payload["secret"] = .string(secret.base64EncodedString())
        payload["content"] = .string(content.base64EncodedString())
        payload["aps"] = ["alert": ["title": .string(fallbackTitle), "body": .string(fallbackBody)]]
        return payload
    }
}
