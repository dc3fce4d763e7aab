import Crypto
import FastJSON
import Foundation
@preconcurrency import _CryptoExtras

/// What Salesforce does before it hands a notification to APNs, written here from the wire format alone (the
/// org shares no code with the client's decryption, so that a mistake on one side cannot hide one on the
/// other): a fresh 16-byte AES-128 key and a 16-byte IV; the content, a UTF-8 JSON dictionary, encrypted with
/// them (AES-128-CBC, PKCS#7 padding); the key then the IV (32 bytes) encrypted with the device's RSA public
/// key (`RsaPublicKey`, RSA-OAEP with SHA-256 for `CipherName` `RSA_OAEP_SHA256`); both base64 in the payload
/// beside `encrypted: true`, and an `aps.alert` the system shows when the extension cannot decrypt.
package enum PushEncryption {
    /// The payload for `content` (a JSON dictionary).
    package static func payload(
        content: [String: JSON], publicKey: _RSA.Encryption.PublicKey, fallbackTitle: String, fallbackBody: String, extra: [String: JSON] = [:]
    ) throws -> [String: JSON] {
        try payload(contentData: Data(JSON.object(content).text.utf8), publicKey: publicKey, fallbackTitle: fallbackTitle, fallbackBody: fallbackBody, extra: extra)
    }

    /// The same with the content's bytes as given (tests send content that is not a JSON dictionary).
    package static func payload(
        contentData: Data, publicKey: _RSA.Encryption.PublicKey, fallbackTitle: String, fallbackBody: String, extra: [String: JSON] = [:]
    ) throws -> [String: JSON] {
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let iv = Data((0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) })
        let secret = try publicKey.encrypt(key + iv, padding: .PKCS1_OAEP_SHA256)
        let content = try AES._CBC.encrypt(contentData, using: SymmetricKey(data: key), iv: try AES._CBC.IV(ivBytes: iv))
        var payload = extra
        payload["encrypted"] = true
        payload["secret"] = .string(secret.base64EncodedString())
        payload["content"] = .string(content.base64EncodedString())
        payload["aps"] = ["alert": ["title": .string(fallbackTitle), "body": .string(fallbackBody)]]
        return payload
    }
}
