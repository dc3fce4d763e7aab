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

    /// The reading side: whole sealed chunks (one for a buffer under `chunkSize`, else as many as fit) opened into
    /// a pending buffer, so that a caller's buffer of any size gets all of the plaintext, in order. (The SDK copies
    /// a whole opened chunk into the caller's buffer even when it is smaller; what does not fit is kept here.)
    package struct Decoder {
        let key: SymmetricKey
        var pending = Data()

        package init(key: SymmetricKey) { self.key = key }

        /// Plaintext waits to be read.
        package var hasPending: Bool { !pending.isEmpty }

        /// Fills `buffer` with up to `maxLength` bytes: what is pending, then chunks read by `readSealed` (the
        /// count it put in the buffer it is given, 0 or less at the end). The count given, and the failure that
        /// stopped the reading, if one did.
        package mutating func read(
            into buffer: UnsafeMutablePointer<UInt8>, maxLength len: Int, readSealed: (UnsafeMutablePointer<UInt8>, Int) -> Int
        ) -> (given: Int, failure: Failure?) {
            let blocks = len < CryptStream.chunkSize ? 1 : len / CryptStream.chunkSize
            var sealed = [UInt8](repeating: 0, count: CryptStream.sealedBoxSize)
            var failure: Failure?
            for _ in 0..<blocks where pending.count < len {
                let count = sealed.withUnsafeMutableBufferPointer { readSealed($0.baseAddress!, $0.count) }
                if count <= 0 { break }
                do {
                    pending.append(try CryptStream.open(Data(sealed[0..<count]), key: key))
                } catch {
                    failure = error
                    break
                }
            }
            let given = min(len, pending.count)
            if given > 0 {
                pending.copyBytes(to: buffer, count: given)
                pending.removeFirst(given)
            }
            return (given, failure)
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
