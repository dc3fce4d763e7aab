import Foundation
import SchedulePoints
import Synchronization
import _CryptoExtras

/// The app's RSA key pair for encrypted notifications (the SDK's `kPNEncryptionKeyName`, 2,048 bits):
/// made once, the private key kept in the keychain (PKCS#1 DER, service
/// `com.salesforce.mobilesdk.notificationKey`) in the app's keychain group, so that the notification
/// service extension, entitled to the same group, can read it. The public key goes to the org.
/// The keychain side is `PushKeyStore`.
package enum PushKey {
    package static let service = "com.salesforce.mobilesdk.notificationKey"
    package static let bits = 2048

    /// Set by an explorer (`msdk-sim explore`, `DeviceExploration`) in an actor's environment when it hands out the
    /// device's new push keys (`PushKeyPool`); the request's kind on the schedule channel.
    package static let explorerEnvironmentKey = "APPGROUPSIM_EXPLORE_PUSH_KEYS"
    package static let explorerCallKind = "pushkey.make"

    /// A new key pair. Under an explorer that hands out keys, the explorer's next one for this run (an RSA-2048 key
    /// is made by searching for primes: a sixth of an explored run's processor time when each device made its own);
    /// anywhere else, or when the explorer's answer is no key, one made here.
    package static func make() throws -> _RSA.Encryption.PrivateKey {
        if SchedulePoint.isExplored, getenv(explorerEnvironmentKey) != nil,
            let line = SchedulePoint.call(explorerCallKind, ""), let der = Data(base64Encoded: line), let key = privateKey(der: Array(der))
        {
            return key
        }
        return try _RSA.Encryption.PrivateKey(keySize: .bits2048)
    }

    /// The key from the keychain item's bytes (PKCS#1 DER); nil when they are not an RSA private key.
    package static func privateKey(der bytes: [UInt8]) -> _RSA.Encryption.PrivateKey? {
        try? _RSA.Encryption.PrivateKey(derRepresentation: bytes)
    }

    /// What the SDK sends as `RsaPublicKey`: base64 of the public key's PKCS#1 DER.
    package static func publicKeyText(_ key: _RSA.Encryption.PrivateKey) -> String {
        key.publicKey.pkcs1DERRepresentation.base64EncodedString()
    }
}

/// The push keys an explorer hands out to the devices it explores (`PushKey.make` under it): one list for the whole
/// exploration, made as they are first asked for, and each run counts its own. The nth key a run's device makes is
/// the exploration's nth key: within a run every new key is a new key (a restore to a new phone, or a reinstall,
/// makes another one, which the org does not know), and a run of 20 steps costs no prime search after the first.
/// Which key a device holds decides no schedule: a run is still a function of its seed.
package final class PushKeyPool: Sendable {
    private let keys = Mutex<[[UInt8]]>([])

    package init() {}

    /// How many keys the exploration has made.
    package var made: Int { keys.withLock { $0.count } }

    /// The exploration's `index`th key (PKCS#1 DER of the private key), made now if no run asked for it before.
    package func key(_ index: Int) -> [UInt8]? {
        keys.withLock { keys in
            while keys.count <= index {
                guard let key = try? _RSA.Encryption.PrivateKey(keySize: .bits2048) else { return nil }
                keys.append(Array(key.derRepresentation))
            }
            return keys[index]
        }
    }

    /// One run's count of the keys its device made.
    package func run() -> Run { Run(pool: self) }

    /// What answers one run's requests (`ActorProcess.answers[PushKey.explorerCallKind] = run.answer`): its first
    /// request gets the first key, its second the second, whichever of the run's processes asks. An empty line when
    /// no key can be made (the process then makes its own).
    package final class Run: Sendable {
        private let pool: PushKeyPool
        private let made = Mutex(0)

        fileprivate init(pool: PushKeyPool) { self.pool = pool }

        package func answer(_ request: String) -> String {
            let index = made.withLock { n in
                defer { n += 1 }
                return n
            }
            return pool.key(index).map { Data($0).base64EncodedString() } ?? ""
        }
    }
}
