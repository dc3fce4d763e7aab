import Foundation

/// The SDK's `Encryptor` (`SFSDKEncryptor`): AES-GCM, the nonce, ciphertext and tag combined in one blob.
public class Encryptor: NSObject {
    enum EncryptorError: Error {
        case combinedBoxFailed
    }

    public static func encrypt(data: Data, using key: SymmetricKey) throws -> Data {
        guard let combined = try AES.GCM.seal(data, using: key, nonce: AES.GCM.Nonce()).combined else {
            throw EncryptorError.combinedBoxFailed
        }
        return combined
    }

    public static func decrypt(data: Data, using key: SymmetricKey) throws -> Data {
        try AES.GCM.open(try AES.GCM.SealedBox(combined: data), using: key)
    }
}
