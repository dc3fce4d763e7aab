import Foundation
import Keychain
@preconcurrency import _CryptoExtras

/// The push key's keychain item (`PushKey.service`), in the app's keychain group.
package enum PushKeyStore {
    package enum Failure: Error, CustomStringConvertible, Equatable {
        /// The keychain could not be asked, or refused (its status).
        case keychain(KeychainResult)
        /// No item in any keychain group this process may read.
        case notFound(groups: [String])
        /// The item is not an RSA private key.
        case unreadable

        package var description: String {
            switch self {
            case .keychain(let r): return "the push key (\(PushKey.service)) cannot be read: \(r.error?.message ?? "status \(r.status.rawValue)")"
            case .notFound(let groups):
                return "no push key (\(PushKey.service)) in the keychain groups this target may read (\(groups.joined(separator: ", "))): the app keeps it in its keychain group; add that group to this target's keychain-access-groups"
            case .unreadable: return "the push key item (\(PushKey.service)) is not an RSA private key"
            }
        }
    }

    /// The private key; with `create`, made now when no entitled group has one (the app does, at its
    /// first registration; an extension never does).
    package static func privateKey(_ keychain: KeychainHelper, create: Bool) async throws(Failure) -> _RSA.Encryption.PrivateKey {
        let read = await keychain.read(service: PushKey.service)
        if read.success, let bytes = read.data, !bytes.isEmpty {
            guard let key = PushKey.privateKey(der: bytes) else { throw .unreadable }
            return key
        }
        guard read.status == .itemNotFound || read.success else { throw .keychain(read) }
        guard create else { throw .notFound(groups: keychain.accessGroups) }
        guard let key = try? PushKey.make() else { throw .unreadable }
        let written = await keychain.write(Array(key.derRepresentation), service: PushKey.service)
        guard written.success else { throw .keychain(written) }
        return key
    }
}
