import AppGroup
import Crypto
import Foundation
import Keychain

/// How the SDK protects `UserAccount.plist` (`SFDefaultUserAccountPersister`): the archived account is
/// sealed with AES-256-GCM (`Encryptor`: nonce, ciphertext and tag in one blob, CryptoKit's "combined"
/// form) under a key that `KeyGenerator` makes once per app and keeps in the keychain, service
/// `com.salesforce.keystore.com.salesforce.userAccount.encryptionKey`, in the app's keychain access
/// group. A process that cannot read that item cannot read any account: an extension needs the group.
///
/// The key item holds the key wrapped, as the SDK writes it: sealed with ECIES to the EC key pair `defaultKey`
/// (`KeyWrapping.swift`), whose halves never leave the device (the SDK keeps the private one in the Secure
/// Enclave where there is one; here it is a key item of the Secret Service).
package enum AccountEncryption {
    package static let keyLabel = "com.salesforce.userAccount.encryptionKey"
    /// `KeyGenerator.keyStoreService` + "." + the label.
    package static let keyService = "com.salesforce.keystore." + keyLabel

    /// nonce (12 bytes) ‖ ciphertext ‖ tag (16 bytes).
    package static func seal(_ plaintext: Data, with key: SymmetricKey) throws -> Data {
        guard let combined = try AES.GCM.seal(plaintext, using: key, nonce: AES.GCM.Nonce()).combined else {
            throw AccountCipherError.sealFailed
        }
        return combined
    }

    package static func open(_ sealed: Data, with key: SymmetricKey) throws -> Data {
        do {
            return try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key)
        } catch {
            // Too short to hold a nonce and a tag, or the tag does not match (another key, a changed byte).
            throw AccountCipherError.cannotDecrypt(sealed.count < 28 ? "\(sealed.count) bytes, shorter than a nonce and a tag: truncated" : "authentication failed: another key, or changed bytes")
        }
    }

    /// A file as it is on disk: sealed by this build, or a plain property list that a build before
    /// encryption wrote (read once, and sealed at the app's next launch).
    package static func isPlainPropertyList(_ data: Data) -> Bool {
        data.starts(with: Array("<?xml".utf8)) || data.starts(with: Array("bplist".utf8))
    }
}

package enum AccountCipherError: Error, Equatable {
    case sealFailed
    case cannotDecrypt(String)
}

/// The account key of this process, read once from the keychain (the SDK caches it the same way).
package enum AccountKeyState: Sendable {
    case notLoaded
    /// The key, and the access group its item is in.
    case loaded(AccountKey, group: String)
    /// The keychain answered, and no group this process is entitled to has the key.
    case missing
    /// The keychain could not be asked (locked, no Secret Service, not entitled): the error as reported.
    case unreadable(KeychainResult)
}

/// The 32 bytes of the account key. Never printed: its description says only that it is a key.
package struct AccountKey: Sendable, CustomStringConvertible {
    let bytes: [UInt8]
    package var symmetric: SymmetricKey { SymmetricKey(data: bytes) }
    package var description: String { "AccountKey(256 bits)" }
}

final class AccountKeyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: AccountKeyState = .notLoaded

    var state: AccountKeyState {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }
}

extension KeychainHelper {
    /// Reads the account key (`KeyGenerator`'s key for `com.salesforce.userAccount.encryptionKey`); with `create`,
    /// makes one when no entitled group has it, in the group writes go to (the first entitled group, as the SDK's
    /// keychain helper does). A key that cannot be unwrapped is `.unreadable` unless `regenerate` (the SDK's
    /// recovery: it makes a new key and overwrites the item).
    func accountKey(create: Bool, regenerate: Bool = false) async -> AccountKeyState {
        await symmetricKey(service: AccountEncryption.keyService, create: create, regenerate: regenerate)
    }

    /// Starts the reads of `accountKey` now (the key, and the private half of the EC key pair it is wrapped with),
    /// in one trip for both values, while the launch reads its files: a launch that will read its accounts calls it
    /// as early as it knows.
    package func readAheadAccountKey() {
        readAhead(services: [AccountEncryption.keyService], keyTags: [Self.ecPrivateKeyTag])
    }
}

/// An account file read from the outside (`msdk-sim inspect`): how it is protected and, when the key
/// could be read, whose it is.
package struct AccountFileContents: Sendable {
    /// "encrypted, key in group G", "encrypted, key not found in the keychain", or "not encrypted (…)".
    package var protection: String
    package var account: UserAccount?
    /// Why the account could not be read, when it could not.
    package var problem: String?

    /// - Parameter key: the key item's value and group, when the keychain gave it.
    package static func read(_ data: Data, key: (secret: [UInt8], group: String)?) -> AccountFileContents {
        if AccountEncryption.isPlainPropertyList(data) {
            let dict = PlistValue.dictionary(propertyList: data)
            let account = dict.flatMap { UserAccount(sdkArchive: .dictionary($0)) } ?? (try? PropertyListDecoder().decode(UserAccount.self, from: data))
            return AccountFileContents(
                protection: "not encrypted (written before encryption; the app seals it at its next launch)", account: account,
                problem: account == nil ? "not a UserAccount property list" : nil)
        }
        guard let key else {
            return AccountFileContents(protection: "encrypted, key not found in the keychain", account: nil, problem: "the key \(AccountEncryption.keyService) is not readable here")
        }
        let protection = "encrypted, key in group \(key.group)"
        guard key.secret.count == 32 else { return AccountFileContents(protection: protection, account: nil, problem: "the key item is not a 256-bit key") }
        do {
            let plain = try AccountEncryption.open(data, with: AccountKey(bytes: key.secret).symmetric)
            guard let dict = PlistValue.dictionary(propertyList: plain), let account = UserAccount(sdkArchive: .dictionary(dict)) else {
                return AccountFileContents(protection: protection, account: nil, problem: "decrypted, but not a UserAccount")
            }
            return AccountFileContents(protection: protection, account: account, problem: nil)
        } catch {
            return AccountFileContents(protection: protection, account: nil, problem: "does not decrypt with that key (\(error))")
        }
    }
}
