import Crypto
import Foundation
import Keychain

/// The SDK's `Encryptor` with an EC key (`SecKeyCreateEncryptedData(…, .eciesEncryptionStandardX963SHA256AESGCM, …)`),
/// on P-256, built on swift-crypto as Apple's Security framework defines the algorithm: an ephemeral P-256 key
/// agrees a secret with the recipient's key; ANSI X9.63 with SHA-256, the ephemeral public key as shared info,
/// derives a 128-bit AES key (EC keys of 256 bits or less get AES-128); AES-GCM with an all-zero 16-byte IV and a
/// 16-byte tag. The result is the ephemeral public key (65 bytes, uncompressed) ‖ ciphertext ‖ tag.
package enum ECIES {
    static let ephemeralKeyLength = 65
    static let tagLength = 16

    package static func seal(_ plaintext: Data, to recipient: P256.KeyAgreement.PublicKey) throws -> Data {
        let ephemeral = P256.KeyAgreement.PrivateKey()
        let ephemeralPublic = ephemeral.publicKey.x963Representation
        let key = try ephemeral.sharedSecretFromKeyAgreement(with: recipient)
            .x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: ephemeralPublic, outputByteCount: 16)
        let box = try AES.GCM.seal(plaintext, using: key, nonce: try AES.GCM.Nonce(data: Data(count: 16)))
        return ephemeralPublic + box.ciphertext + box.tag
    }

    package static func open(_ sealed: Data, with privateKey: P256.KeyAgreement.PrivateKey) throws -> Data {
        let data = Data(sealed)
        guard data.count >= ephemeralKeyLength + tagLength else { throw ECIESError.truncated(data.count) }
        let ephemeralPublic = data.prefix(ephemeralKeyLength)
        let key = try privateKey.sharedSecretFromKeyAgreement(with: try P256.KeyAgreement.PublicKey(x963Representation: ephemeralPublic))
            .x963DerivedSymmetricKey(using: SHA256.self, sharedInfo: ephemeralPublic, outputByteCount: 16)
        let box = try AES.GCM.SealedBox(
            nonce: try AES.GCM.Nonce(data: Data(count: 16)), ciphertext: data.dropFirst(ephemeralKeyLength).dropLast(tagLength),
            tag: data.suffix(tagLength))
        return try AES.GCM.open(box, using: key)
    }
}

package enum ECIESError: Error, Equatable {
    case truncated(Int)
}

/// The SDK's `KeyGenerator`, its one home: a 256-bit key per label in the keychain (service
/// `com.salesforce.keystore.<label>`), written wrapped with the EC key pair `defaultKey` (its halves are key items,
/// `com.salesforce.eckey.private.defaultKey` and `…public.defaultKey`, always afterFirstUnlockThisDeviceOnly: a
/// backup never carries them). What the SDK does when it cannot read or unwrap a key is kept, because it is the
/// field failure: it makes a new key (and a new pair when either half is missing) and overwrites the item, so
/// whatever was encrypted with the old key can no longer be read. A 32-byte item (what AppGroupSim wrote before
/// keys were wrapped) is read as the key itself.
extension KeychainHelper {
    package static let ecPrivateKeyTag = "com.salesforce.eckey.private.defaultKey"
    package static let ecPublicKeyTag = "com.salesforce.eckey.public.defaultKey"

    /// The SDK's `ecKeyPair(name:)`: both halves when both are there; otherwise (with `create`) both removed and a
    /// new pair made. `.missing` without `create` when a half is missing; the keychain's error when it cannot be
    /// asked. To unwrap (no `create`) only the private half is read: one round trip fewer on every launch of the
    /// widget; the SDK would also notice a public half missing alone and replace the pair, which nothing here removes.
    func ecKeyPair(create: Bool) async -> ECKeyPairLookup {
        let privateHalf = await readKey(tag: Self.ecPrivateKeyTag)
        if !privateHalf.success && privateHalf.status != .itemNotFound { return .failure(privateHalf) }
        let privateKey = privateHalf.data.flatMap { try? P256.KeyAgreement.PrivateKey(rawRepresentation: $0) }
        if let privateKey, !create { return .found(privateKey) }
        if let privateKey {
            let publicHalf = await readKey(tag: Self.ecPublicKeyTag)
            if !publicHalf.success && publicHalf.status != .itemNotFound { return .failure(publicHalf) }
            if publicHalf.success { return .found(privateKey) }
        }
        guard create else { return .missing }
        _ = await removeKey(tag: Self.ecPrivateKeyTag)
        _ = await removeKey(tag: Self.ecPublicKeyTag)
        let pair = P256.KeyAgreement.PrivateKey()
        let wrotePrivate = await writeKey(tag: Self.ecPrivateKeyTag, secret: Array(pair.rawRepresentation))
        guard wrotePrivate.success else { return .failure(wrotePrivate) }
        let wrotePublic = await writeKey(tag: Self.ecPublicKeyTag, secret: Array(pair.publicKey.x963Representation))
        guard wrotePublic.success else { return .failure(wrotePublic) }
        return .found(pair)
    }

    /// The SDK's `KeyGenerator.symmetricKey(for:)` for the item `service`. With `create`, a key is made when there is
    /// none; with `regenerate`, also when the one there cannot be unwrapped (the SDK's way, on every launch).
    /// Without them, a missing key is `.missing` and an unusable one `.unreadable`, naming why.
    package func symmetricKey(service: String, create: Bool, regenerate: Bool = false) async -> AccountKeyState {
        let read = await read(service: service)
        if read.success, let stored = read.data {
            let group = read.accessGroup ?? accessGroups.first ?? ""
            if stored.count == 32 { return .loaded(AccountKey(bytes: stored), group: group) }
            switch await ecKeyPair(create: false) {
            case .failure(let error):
                return .unreadable(error)
            case .found(let pair):
                if let key = try? ECIES.open(Data(stored), with: pair), key.count == 32 { return .loaded(AccountKey(bytes: Array(key)), group: group) }
                if !regenerate {
                    return .unreadable(.failure(.param, "the item holds \(stored.count) bytes that do not unwrap with the EC key pair \(Self.ecPrivateKeyTag) into a 256-bit key"))
                }
            case .missing:
                if !regenerate {
                    return .unreadable(.failure(.itemNotFound, "the key is wrapped with the EC key pair \(Self.ecPrivateKeyTag), which is not on this device (afterFirstUnlockThisDeviceOnly: a backup never carries it), so it cannot be unwrapped (errSecItemNotFound, -25300)"))
                }
            }
        } else if read.status != .itemNotFound {
            return .unreadable(read)
        } else if !create {
            return .missing
        }
        // None, or one the SDK cannot use: a new key, wrapped with the pair (a new pair if a half is missing).
        let pair: P256.KeyAgreement.PrivateKey
        switch await ecKeyPair(create: true) {
        case .failure(let error): return .unreadable(error)
        case .found(let made): pair = made
        case .missing: return .unreadable(.failure(.io, "the EC key pair could not be made"))
        }
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: 0...255, using: &generator) }
        guard let wrapped = try? ECIES.seal(Data(bytes), to: pair.publicKey) else { return .unreadable(.failure(.io, "the key could not be wrapped")) }
        let written = await write(Array(wrapped), service: service)
        guard written.success else { return .unreadable(written) }
        return .loaded(AccountKey(bytes: bytes), group: written.accessGroup ?? accessGroups.first ?? "")
    }
}

/// What `ecKeyPair(create:)` found.
enum ECKeyPairLookup {
    case found(P256.KeyAgreement.PrivateKey)
    /// A half (or both) is not there.
    case missing
    /// The keychain could not be asked.
    case failure(KeychainResult)
}

/// A key item's value as read from the outside (`msdk-sim inspect`): the 32 bytes, unwrapped with the private
/// half of the EC key pair when it is wrapped; nil when it cannot be.
package func unwrappedKey(_ stored: [UInt8], privateKey: [UInt8]?) -> [UInt8]? {
    if stored.count == 32 { return stored }
    guard let privateKey, let pair = try? P256.KeyAgreement.PrivateKey(rawRepresentation: privateKey),
        let key = try? ECIES.open(Data(stored), with: pair), key.count == 32
    else { return nil }
    return Array(key)
}
