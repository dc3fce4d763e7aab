import Crypto
import Foundation

/// The SDK's `EncryptStream`/`DecryptStream` format: the plaintext cut into chunks of 512 bytes (the last may be
/// shorter), each sealed on its own with AES-GCM under the key and a fresh nonce, and written combined (12-byte
/// nonce, ciphertext, 16-byte tag: 540 bytes for a whole chunk). A reader opens one sealed chunk at a time.
package enum CryptStream {
    package static let chunkSize = 512
    package static let sealedBoxSize = chunkSize + 28

    package enum Failure: Error, Equatable, CustomStringConvertible {
        /// A sealed chunk that does not open with the key (another key, or damaged bytes).
        case cannotOpen
        /// A chunk that opened to more than 512 bytes: not this format.
        case chunkTooLarge

        package var description: String {
            switch self {
            case .cannotOpen: return "a sealed chunk does not open with this key (another key, or damaged bytes)"
            case .chunkTooLarge: return "Returned decrypted data is larger than the encryption block size"
            }
        }
    }

    /// The writing side: bytes in, sealed chunks out; `finish` seals what is left.
    package struct Encoder {
        let key: SymmetricKey
        var remainder = Data()

        package init(key: SymmetricKey) { self.key = key }

        package mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>) throws -> [Data] {
            var sealed: [Data] = []
            var rest = bytes[...]
            while !rest.isEmpty {
                let take = rest.prefix(CryptStream.chunkSize - remainder.count)
                remainder.append(contentsOf: take)
                rest = rest.dropFirst(take.count)
                if remainder.count == CryptStream.chunkSize {
                    sealed.append(try CryptStream.seal(remainder, key))
                    remainder = Data()
                }
            }
            return sealed
        }

        package mutating func finish() throws -> Data? {
            guard !remainder.isEmpty else { return nil }
            defer { remainder = Data() }
            return try CryptStream.seal(remainder, key)
        }
    }

    static func seal(_ chunk: Data, _ key: SymmetricKey) throws -> Data {
        guard let combined = try AES.GCM.seal(chunk, using: key, nonce: AES.GCM.Nonce()).combined else { throw Failure.cannotOpen }
        return combined
    }

    /// One sealed chunk opened.
    package static func open(_ sealed: Data, key: SymmetricKey) throws(Failure) -> Data {
        let plain: Data
        do { plain = try AES.GCM.open(try AES.GCM.SealedBox(combined: sealed), using: key) } catch { throw .cannotOpen }
        guard plain.count <= chunkSize else { throw .chunkTooLarge }
        return plain
    }
}
