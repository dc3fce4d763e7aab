import CoreEngine
import Foundation
import SalesforceSDKCommon

/// The SDK's `KeyValueEncryptedFileStore`: encrypted values in files, per user or global, in the SDK's
/// `Documents/key_value_stores` (the app group's when the group is enabled, so the app and its extensions share
/// them). The layout, the versions and the encryption are the engine's (`CoreEngine.KeyValueFileStore`); the key
/// is `KeyGenerator.encryptionKey(for: "com.salesforce.keyValueStores.encryptionKey")`, so the device's lock
/// state and the keychain group decide who can open a store. Shared stores are cached per process, as the SDK's.
public class KeyValueEncryptedFileStore: NSObject, @unchecked Sendable {
    public let directory: URL
    public let name: String
    public private(set) var storeVersion: Int
    public static let maxStoreNameLength = KeyValueFileStore.maxNameLength

    private let store: KeyValueFileStore
    private static let globalStores = PerProcess<[String: KeyValueEncryptedFileStore]> { [:] }
    private static let userStores = PerProcess<[String: [String: KeyValueEncryptedFileStore]]> { [:] }

    /// A store `name` in the directory, made when it is not there; nil (and an error line) for an invalid name,
    /// a key the keychain does not give, or a store that does not open with it.
    public convenience init?(parentDirectory: String, name: String) {
        let key: SymmetricKey
        do { key = try KeyGenerator.encryptionKey(for: KeyValueFileStore.keyLabel) } catch {
            SalesforceLogger.e(KeyValueEncryptedFileStore.self, message: "init(parentDirectory:name:): Error getting the encryption key: \(error)")
            return nil
        }
        self.init(parentDirectory: parentDirectory, name: name, key: key)
    }

    private init?(parentDirectory: String, name: String, key: SymmetricKey) {
        do { store = try KeyValueFileStore(parent: URL(fileURLWithPath: parentDirectory), name: name, key: key) } catch {
            SalesforceLogger.e(KeyValueEncryptedFileStore.self, message: "KeyValueEncryptedFileStore: \(error)")
            return nil
        }
        directory = store.directory
        self.name = name
        storeVersion = store.version
        super.init()
    }

    // MARK: - Store management

    public static func shared(withName name: String) -> KeyValueEncryptedFileStore? {
        guard let user = UserAccountManager.shared.currentUserAccount else {
            SalesforceLogger.w(KeyValueEncryptedFileStore.self, message: "shared(withName:): Cannot create shared store with name '\(name)' for nil user. Did you mean to call KeyValueEncryptedFileStore.sharedGlobal(withName:)?")
            return nil
        }
        return shared(withName: name, forUserAccount: user)
    }

    public static func shared(withName name: String, forUserAccount user: UserAccount) -> KeyValueEncryptedFileStore? {
        let userKey = user.engine.identity.description
        if let store = userStores.withValue({ $0[userKey]?[name] }) { return store }
        guard let directory = storesDirectory(user), let store = KeyValueEncryptedFileStore(parentDirectory: directory, name: name) else {
            SalesforceLogger.e(KeyValueEncryptedFileStore.self, message: "shared(withName:forUserAccount:): Creating store failed")
            return nil
        }
        userStores.withValue { $0[userKey, default: [:]][name] = store }
        return store
    }

    public static func sharedGlobal(withName name: String) -> KeyValueEncryptedFileStore? {
        if let store = globalStores.withValue({ $0[name] }) { return store }
        guard let directory = storesDirectory(nil), let store = KeyValueEncryptedFileStore(parentDirectory: directory, name: name) else {
            SalesforceLogger.e(KeyValueEncryptedFileStore.self, message: "sharedGlobal(withName:): Creating store failed")
            return nil
        }
        globalStores.withValue { $0[name] = store }
        return store
    }

    public static func allNames() -> [String] {
        guard let user = UserAccountManager.shared.currentUserAccount else { return [] }
        return allNames(forUserAccount: user)
    }

    public static func allNames(forUserAccount user: UserAccount) -> [String] {
        storesDirectory(user).map { KeyValueFileStore.names(in: URL(fileURLWithPath: $0)) } ?? []
    }

    public static func allGlobalNames() -> [String] { storesDirectory(nil).map { KeyValueFileStore.names(in: URL(fileURLWithPath: $0)) } ?? [] }

    public static func removeShared(withName name: String) {
        guard let user = UserAccountManager.shared.currentUserAccount else { return }
        removeShared(withName: name, forUserAccount: user)
    }

    public static func removeShared(withName name: String, forUserAccount user: UserAccount) {
        guard KeyValueFileStore.isValidName(name), let directory = storesDirectory(user) else { return }
        remove(directory, name)
        userStores.withValue { _ = $0[user.engine.identity.description]?.removeValue(forKey: name) }
    }

    public static func removeSharedGlobal(withName name: String) {
        guard KeyValueFileStore.isValidName(name), let directory = storesDirectory(nil) else { return }
        remove(directory, name)
        globalStores.withValue { _ = $0.removeValue(forKey: name) }
    }

    public static func removeAllForCurrentUser() {
        guard let user = UserAccountManager.shared.currentUserAccount else { return }
        removeAll(forUserAccount: user)
    }

    public static func removeAll(forUserAccount user: UserAccount) {
        for name in allNames(forUserAccount: user) { removeShared(withName: name, forUserAccount: user) }
    }

    public static func removeAllGlobal() {
        for name in allGlobalNames() { removeSharedGlobal(withName: name) }
    }

    public static func isValidName(_ name: String) -> Bool { KeyValueFileStore.isValidName(name) }

    private static func storesDirectory(_ user: UserAccount?) -> String? {
        user.map { SFDirectoryManager.shared().directory(forUser: $0, type: .documentDirectory, components: [KeyValueFileStore.directoryName]) }
            ?? SFDirectoryManager.shared().globalDirectory(ofType: .documentDirectory, components: [KeyValueFileStore.directoryName])
    }

    private static func remove(_ directory: String, _ name: String) {
        if !KeyValueFileStore.removeStore(parent: URL(fileURLWithPath: directory), name: name) {
            SalesforceLogger.e(KeyValueEncryptedFileStore.self, message: "Error removing the store '\(name)' in '\(directory)'")
        }
    }

    // MARK: - Store operations

    @discardableResult
    public func saveValue(_ value: String, forKey key: String) -> Bool { saveData(Data(value.utf8), forKey: key) }

    @discardableResult
    public func saveData(_ data: Data, forKey key: String) -> Bool { store.save(data, forKey: key) }

    public subscript(key: String) -> String? {
        get { store.read(key).flatMap { String(data: $0, encoding: .utf8) } }
        set {
            if let newValue { saveValue(newValue, forKey: key) } else { removeValue(forKey: key) }
        }
    }

    public func readData(key: String) -> Data? { store.read(key) }

    @discardableResult
    public func removeValue(forKey key: String) -> Bool { store.remove(key) }

    public func removeAll() { store.removeAll() }

    /// The keys of a version 2 store; nil for a version 1 store.
    public func allKeys() -> [String]? { store.allKeys() }

    public func count() -> Int { store.count() }

    public func isEmpty() -> Bool { count() == 0 }
}
