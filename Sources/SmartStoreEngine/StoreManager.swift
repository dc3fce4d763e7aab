import AppGroup
import CoreEngine
import Foundation

/// Whose store: the SDK keeps user stores under `<orgId>/<userId>/<communityId or "internal">`.
package struct StoreUser: Sendable, Hashable {
    package var orgId: String
    package var userId: String
    package var communityId: String?

    package init(orgId: String, userId: String, communityId: String? = nil) {
        self.orgId = orgId
        self.userId = userId
        self.communityId = communityId
    }
}

/// Opens, lists and removes stores in the SDK's documents directory, like the SDK's store manager:
/// global stores in `stores/<name>/store.sqlite`, user stores in
/// `<orgId>/<userId>/internal/stores/<name>/store.sqlite`. A user store opens only for a
/// logged-in user (the SDK facade says who is). One `SmartStore` per file per process.
package final class StoreManager: UserFileHolder, @unchecked Sendable {
    package static let defaultStoreName = "defaultStore"

    /// The SDK root's folders, as `DeviceLayout` names them.
    package let sdkRoot: DeviceLayout.SDKRoot
    package var documentsDirectory: URL { sdkRoot.documents }
    private let isLoggedIn: @Sendable (StoreUser) -> Bool
    /// With `.sdkDestructive`, a store that cannot be opened is deleted and set up again, as the SDK's
    /// `subsequentTimesStoreDatabaseSetup` does; otherwise it is kept and opening it is an error.
    private let recovery: AccountRecovery
    private let events: SDKEvents?
    let lock = NSLock()
    var open: [String: SmartStore] = [:]

    /// - Parameter sdkRoot: `DataSharingHelper.sdkRoot()`: the app group when enabled, the process's container otherwise.
    package init(
        sdkRoot: DeviceLayout.SDKRoot, recovery: AccountRecovery = .keepFiles, events: SDKEvents? = nil,
        isLoggedIn: @escaping @Sendable (StoreUser) -> Bool
    ) {
        self.sdkRoot = sdkRoot
        self.isLoggedIn = isLoggedIn
        self.recovery = recovery
        self.events = events
        UserFiles.register(self)
    }

    /// `SmartStore.sharedGlobal(withName:)`.
    package func globalStore(named name: String = defaultStoreName) throws -> SmartStore {
        try openStore(at: DeviceLayout.SDKRoot.storeFile(in: globalStoresDirectory, named: try Self.checked(name)), name: name)
    }

    /// `SmartStore.shared(withName:forUserAccount:)`; refuses a user who is not logged in.
    package func store(named name: String = defaultStoreName, for user: StoreUser) throws -> SmartStore {
        guard isLoggedIn(user) else { throw SmartStoreError.userNotLoggedIn(orgId: user.orgId, userId: user.userId) }
        return try openStore(at: DeviceLayout.SDKRoot.storeFile(in: storesDirectory(for: user), named: try Self.checked(name)), name: name)
    }

    /// The user's store opened read-only, as an extension opens it; nil when the app has not created it.
    package func existingStore(named name: String = defaultStoreName, for user: StoreUser) throws -> SmartStore? {
        guard isLoggedIn(user) else { throw SmartStoreError.userNotLoggedIn(orgId: user.orgId, userId: user.userId) }
        let file = DeviceLayout.SDKRoot.storeFile(in: storesDirectory(for: user), named: try Self.checked(name))
        guard FileManager.default.fileExists(atPath: file.path) else { return nil }
        return try lock.withLock {
            if let store = open[file.path] { return store }
            let store: SmartStore
            do {
                store = try SmartStore(url: file, name: name, readOnly: true)
            } catch SmartStoreError.storeNotCreatedYet {
                return nil
            }
            open[file.path] = store
            return store
        }
    }

    package func allGlobalStoreNames() -> [String] { Self.storeNames(in: globalStoresDirectory) }

    /// Where a user's named store file is (whether or not it exists).
    package func storeFile(named name: String = defaultStoreName, for user: StoreUser) -> URL {
        DeviceLayout.SDKRoot.storeFile(in: storesDirectory(for: user), named: name)
    }

    package func allStoreNames(for user: StoreUser) -> [String] { Self.storeNames(in: storesDirectory(for: user)) }

    package func removeGlobalStore(named name: String) throws {
        try removeStore(at: DeviceLayout.SDKRoot.storeFile(in: globalStoresDirectory, named: try Self.checked(name)))
    }

    /// `SmartStore.removeShared(withName:forUserAccount:)`.
    package func removeSharedStore(named name: String, for user: StoreUser) throws {
        try removeStore(at: DeviceLayout.SDKRoot.storeFile(in: storesDirectory(for: user), named: try Self.checked(name)))
    }

    /// Every store of the user, as logout does.
    package func removeAllStores(for user: StoreUser) throws {
        for name in allStoreNames(for: user) { try removeSharedStore(named: name, for: user) }
    }

    /// The user's directory in the documents directory (`<orgId>/<userId>/<communityId or internal>`).
    package func userDirectory(for user: StoreUser) -> URL {
        sdkRoot.userDocuments(orgId: user.orgId, userId: user.userId, communityId: user.communityId)
    }

    var globalStoresDirectory: URL { sdkRoot.globalStores }

    func storesDirectory(for user: StoreUser) -> URL { sdkRoot.userStores(orgId: user.orgId, userId: user.userId, communityId: user.communityId) }

    /// The SDK's path rule: `/\?%*|"<>:@` become `_`.
    package static func safePathComponent(_ component: String) -> String { DeviceLayout.safePathComponent(component) }

    static func safe(_ component: String) -> String { DeviceLayout.safePathComponent(component) }

    static func checked(_ name: String) throws -> String {
        guard !name.isEmpty, name != ".", name != "..", safe(name) == name else { throw SmartStoreError.invalidStoreName(name) }
        return name
    }

    static func storeNames(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { FileManager.default.fileExists(atPath: DeviceLayout.SDKRoot.storeFile(in: directory, named: $0).path) }.sorted()
    }

    private func openStore(at file: URL, name: String) throws -> SmartStore {
        let directory = file.deletingLastPathComponent()
        return try lock.withLock {
            if let store = open[file.path] { return store }
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let store: SmartStore
            do {
                store = try SmartStore(url: file, name: name)
            } catch let error as SmartStoreError where recovery == .sdkDestructive && error.isOpenFailure {
                // The SDK: "Deleting store dir since we can't open it anymore", then a new store is set up.
                let global = directory.deletingLastPathComponent().standardizedFileURL.path == globalStoresDirectory.standardizedFileURL.path
                try SecureFiles.removeTree(directory, inside: sdkRoot.documents, depth: global ? 2 : 5)
                events?.step("storeDeleted", ["store": name, "reason": "\(error)"])
                try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
                store = try SmartStore(url: file, name: name)
            }
            open[file.path] = store
            return store
        }
    }

    /// Removes the store's own folder (`…/stores/<name>`), and nothing else: it must be 2 folders inside
    /// the documents' global stores or 5 inside the documents for a user's store.
    private func removeStore(at file: URL) throws {
        let directory = file.deletingLastPathComponent()
        let store = lock.withLock { open.removeValue(forKey: file.path) }
        try store?.close()
        let global = directory.deletingLastPathComponent().standardizedFileURL.path == globalStoresDirectory.standardizedFileURL.path
        try SecureFiles.removeTree(directory, inside: sdkRoot.documents, depth: global ? 2 : 5)
    }
}

extension StoreManager {
    /// Closes the stores it opened under `folder` (a user's, about to be deleted).
    package func release(filesUnder folder: URL) {
        let prefix = folder.standardizedFileURL.path + "/"
        let closing = lock.withLock {
            let matching = open.filter { $0.key.hasPrefix(prefix) }
            for key in matching.keys { open.removeValue(forKey: key) }
            return Array(matching.values)
        }
        for store in closing { try? store.close() }
    }
}

extension SmartStore {
    /// Closes the database; the store must not be used afterwards.
    func close() throws {
        do { try pool.close() } catch { throw SmartStoreError.database(path: url.path, message: "\(error)") }
    }
}
