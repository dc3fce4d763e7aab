import Crypto
import Foundation

/// The SDK's `KeyValueEncryptedFileStore` on disk: a directory per store, one file per value named by the
/// SHA-256 of its key (hex), each sealed with AES-GCM (the SDK's `Encryptor`: nonce, ciphertext and tag in one
/// blob) under the key labelled `com.salesforce.keyValueStores.encryptionKey`. A version 2 store (every new
/// one) also keeps each key, sealed, in `<hash>_key` beside `<hash>_value`, and says so in a sealed `version`
/// file; a store without one is version 1 (bare `<hash>` files, no key list). `gcmEncryption` marks a store
/// sealed with AES-GCM. The directory is the user's (or the global) `Documents/key_value_stores`, which is the
/// app group's when the group is enabled, so an app and its extension share a store.
///
/// Nothing the store cannot read is deleted: a value that does not open with the key reads as nil, and stays.
package struct KeyValueFileStore: @unchecked Sendable {
    package static let maxNameLength = 96
    package static let directoryName = "key_value_stores"
    package static let keyLabel = "com.salesforce.keyValueStores.encryptionKey"
    static let versionFile = "version", gcmFile = "gcmEncryption"

    package enum OpenError: Error, CustomStringConvertible {
        case invalidName(String)
        case cannotCreate(String)
        case unreadableVersion(String)

        package var description: String {
            switch self {
            case .invalidName(let name): "'\(name)' is not a store name (1 to 96 letters, digits or underscores)"
            case .cannotCreate(let detail): "the store could not be made: \(detail)"
            case .unreadableVersion(let path): "the store's version file at \(path) does not open with the store key (another key, or not written by a store)"
            }
        }
    }

    package let directory: URL
    package let name: String
    package let version: Int
    private let key: SymmetricKey

    package static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= maxNameLength && name.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }
    }

    /// Opens the store `name` in `parent`, making it (version 2) when it is not there.
    package init(parent: URL, name: String, key: SymmetricKey) throws(OpenError) {
        guard Self.isValidName(name) else { throw .invalidName(name) }
        let directory = parent.appendingPathComponent(name, isDirectory: true)
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) && isDirectory.boolValue
        self.directory = directory
        self.name = name
        self.key = key
        if exists {
            let versionURL = directory.appendingPathComponent(Self.versionFile)
            if FileManager.default.fileExists(atPath: versionURL.path) {
                guard let text = Self.open(versionURL, key).flatMap({ String(data: $0, encoding: .utf8) }), let number = Int(text) else {
                    throw .unreadableVersion(versionURL.path)
                }
                version = number
            } else {
                version = 1
            }
        } else {
            version = 2
            do {
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
                try Self.seal(Data("2".utf8), key).write(to: directory.appendingPathComponent(Self.versionFile), options: .atomic)
                guard FileManager.default.createFile(atPath: directory.appendingPathComponent(Self.gcmFile).path, contents: nil) else {
                    throw OpenError.cannotCreate("the gcmEncryption file")
                }
            } catch { throw .cannotCreate("\(error)") }
        }
    }

    private func url(_ key: String, _ suffix: String) -> URL? {
        guard !key.isEmpty else { return nil }
        let hash = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent(hash + (version >= 2 ? suffix : ""))
    }

    static func seal(_ data: Data, _ key: SymmetricKey) throws -> Data {
        guard let combined = try AES.GCM.seal(data, using: key).combined else { throw CryptoKitError.incorrectParameterSize }
        return combined
    }

    static func open(_ url: URL, _ key: SymmetricKey) -> Data? {
        guard let sealed = try? Data(contentsOf: url), let box = try? AES.GCM.SealedBox(combined: sealed) else { return nil }
        return try? AES.GCM.open(box, using: key)
    }

    /// Writes the value (and, in a version 2 store, its key); false when the key is empty or a write fails.
    @discardableResult
    package func save(_ data: Data, forKey key: String) -> Bool {
        guard let valueURL = url(key, "_value") else { return false }
        do { try Self.seal(data, self.key).write(to: valueURL, options: .atomic) } catch { return false }
        if version >= 2, let keyURL = url(key, "_key") { try? Self.seal(Data(key.utf8), self.key).write(to: keyURL, options: .atomic) }
        return true
    }

    /// The value, nil when there is none or it does not open with the store's key.
    package func read(_ key: String) -> Data? { url(key, "_value").flatMap { Self.open($0, self.key) } }

    /// Removes the value (and its key file); true when it is gone or was never there.
    @discardableResult
    package func remove(_ key: String) -> Bool {
        guard let valueURL = url(key, "_value") else { return false }
        guard Self.removeFile(valueURL) else { return false }
        if version >= 2, let keyURL = url(key, "_key") { Self.removeFile(keyURL) }
        return true
    }

    @discardableResult
    static func removeFile(_ url: URL) -> Bool {
        guard FileManager.default.fileExists(atPath: url.path) else { return true }
        return (try? FileManager.default.removeItem(at: url)) != nil
    }

    private var files: [String] { (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] }

    /// Removes every value, keeping the store (its version and gcmEncryption files).
    package func removeAll() {
        for file in files where file != Self.versionFile && file != Self.gcmFile { Self.removeFile(directory.appendingPathComponent(file)) }
    }

    /// The keys of a version 2 store, sorted; nil for a version 1 store, which keeps none.
    package func allKeys() -> [String]? {
        guard version >= 2 else { return nil }
        return files.filter { $0.hasSuffix("_key") }.compactMap { Self.open(directory.appendingPathComponent($0), key).flatMap { String(data: $0, encoding: .utf8) } }.sorted()
    }

    /// How many values: key files in a version 2 store, every file but `gcmEncryption` in a version 1 store.
    package func count() -> Int {
        version >= 2 ? files.filter { $0.hasSuffix("_key") }.count : files.filter { $0 != Self.gcmFile }.count
    }

    /// Removes the store `name` of a stores directory, and everything in it; true when it is gone.
    @discardableResult
    package static func removeStore(parent: URL, name: String) -> Bool {
        guard isValidName(name) else { return false }
        return removeFile(parent.appendingPathComponent(name, isDirectory: true))
    }

    /// The names of the stores in a stores directory.
    package static func names(in parent: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: parent.path)) ?? []).filter(isValidName).sorted()
    }
}
