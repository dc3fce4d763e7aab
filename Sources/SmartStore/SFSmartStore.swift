import AppGroup
import FastJSON
import Foundation
import SalesforceSDKCore
import SmartStoreEngine

/// The SDK's `SFSmartStore` (`NS_SWIFT_NAME(SmartStore)`), on the engine's store: the same SQLite file, in
/// the same place, that `main-app`, the widget, `inspect` and `doctor` read. A user store lives in this
/// process's SDK root: the group's when the group is set and enabled (an extension that set it opens the
/// app's store), the process's own container otherwise.
public final class SmartStore: NSObject, @unchecked Sendable {
    public static let defaultStoreName = "defaultStore"
    public static let errorDomain = "com.salesforce.smartstore.error"
    public static let JSONParseErrorNotification = "SFSmartStoreJSONParseErrorNotification"
    public static let externalSoupLoadingExceptionName = "com.salesforce.smartstore.LoadExternalSoupError"
    public static let encryptionKeyLabel = "com.salesforce.smartstore.encryption.keyLabel"
    public static let encryptionSaltLabel = "com.salesforce.smartstore.encryption.saltLabel"
    public static let idColumn = "id"
    public static let createdColumn = "created"
    public static let lastModifiedColumn = "lastModified"
    public static let soupColumn = "soup"
    public static let soupEntryId = "_soupEntryId"
    public static let lastModifiedDate = "_soupLastModifiedDate"

    package let engine: SmartStoreEngine.SmartStore
    /// The store's name.
    public let name: String
    /// The user this store belongs to; nil for a global store.
    public var userAccount: UserAccount?
    /// `captureExplainQueryPlan`: when on, each query is first explained, and `lastExplainQueryPlan` keeps that plan.
    public var capturesExplainQueryPlan: Bool {
        get { engine.explain.isOn }
        set { engine.explain.isOn = newValue }
    }

    /// The last query's plan while capturing: `sql` (the `EXPLAIN QUERY PLAN` statement), `args`, `rows` (each with
    /// SQLite's `detail`, `id`, `parent`, `notused`), the SDK's keys.
    public var lastExplainQueryPlan: [AnyHashable: Any] { engine.explain.lastPlan.foundationEntry }

    /// The store file's path.
    public var path: String? { engine.url.path }

    init(engine: SmartStoreEngine.SmartStore, name: String, user: UserAccount?) {
        self.engine = engine
        self.name = name
        userAccount = user
    }

    // MARK: Shared stores

    private static let stores = PerProcess<[String: SmartStore]> { [:] }

    /// The current user's store with this name, created if missing; nil with no current user, as the SDK.
    public class func shared(withName storeName: String) -> SmartStore? {
        guard let user = UserAccountManager.shared.currentUserAccount else { return nil }
        return shared(withName: storeName, forUserAccount: user)
    }

    /// The user's store with this name, created if missing; nil when the name is not a valid store name or
    /// the file cannot be opened (one line on stderr says why).
    public class func shared(withName storeName: String, forUserAccount user: UserAccount) -> SmartStore? {
        open(storeName, user: user) { manager in
            try manager.store(named: storeName, for: StoreUser(orgId: user.accountIdentity.orgId, userId: user.accountIdentity.userId))
        }
    }

    /// A store for no user in particular, created if missing.
    public class func sharedGlobal(withName storeName: String) -> SmartStore {
        guard let store = open(storeName, user: nil, { try $0.globalStore(named: storeName) }) else {
            SDKProcess.fail("AppGroupSim: the global store \(storeName) cannot be opened (the SDK's sharedGlobal never returns nil); see the line above")
        }
        return store
    }

    private class func open(_ name: String, user: UserAccount?, _ body: (StoreManager) throws -> SmartStoreEngine.SmartStore) -> SmartStore? {
        do {
            let engineStore = try body(try storeManager())
            return stores.withValue { byPath in
                if let store = byPath[engineStore.url.path] { return store }
                let store = SmartStore(engine: engineStore, name: name, user: user)
                byPath[engineStore.url.path] = store
                return store
            }
        } catch {
            SDKProcess.warn("SmartStore \(name) cannot be opened: \(error)")
            return nil
        }
    }

    /// The engine's store manager for this process's SDK root; a user store opens for a user whose account
    /// file is there.
    package class func storeManager() throws -> StoreManager {
        let engine = SDKEngine.current
        let sdk = engine.sdk
        _ = engine.loadedAccounts()
        return try SDKProcess.blocking { try await sdk.storeManager() }
    }

    private class func forget(where matches: (String) -> Bool) {
        stores.withValue { $0 = $0.filter { !matches($0.key) } }
    }

    public class func removeShared(withName storeName: String) {
        guard let user = UserAccountManager.shared.currentUserAccount else { return }
        removeShared(withName: storeName, forUserAccount: user)
    }

    public class func removeShared(withName storeName: String, forUserAccount user: UserAccount) {
        attempt("remove store \(storeName)") {
            let manager = try storeManager()
            let storeUser = StoreUser(orgId: user.accountIdentity.orgId, userId: user.accountIdentity.userId)
            let file = manager.storeFile(named: storeName, for: storeUser).path
            forget { $0 == file }
            try manager.removeSharedStore(named: storeName, for: storeUser)
        }
    }

    public class func removeSharedGlobal(withName storeName: String) {
        attempt("remove global store \(storeName)") {
            let manager = try storeManager()
            let file = DeviceLayout.SDKRoot.storeFile(in: manager.sdkRoot.globalStores, named: storeName).path
            forget { $0 == file }
            try manager.removeGlobalStore(named: storeName)
        }
    }

    public class func removeAllForCurrentUser() {
        guard let user = UserAccountManager.shared.currentUserAccount else { return }
        removeAll(forUserAccount: user)
    }

    public class func removeAll(forUserAccount user: UserAccount) {
        for name in storeNames(for: user) { removeShared(withName: name, forUserAccount: user) }
    }

    public class func removeAllGlobal() {
        for name in allGlobalStoreNames { removeSharedGlobal(withName: name) }
    }

    /// The current user's store names.
    public class var allStoreNames: [String] {
        guard let user = UserAccountManager.shared.currentUserAccount else { return [] }
        return storeNames(for: user)
    }

    public class var allGlobalStoreNames: [String] { (try? storeManager().allGlobalStoreNames()) ?? [] }

    private class func storeNames(for user: UserAccount) -> [String] {
        (try? storeManager().allStoreNames(for: StoreUser(orgId: user.accountIdentity.orgId, userId: user.accountIdentity.userId))) ?? []
    }

    private class func attempt(_ what: String, _ body: () throws -> Void) {
        do { try body() } catch { SDKProcess.warn("SmartStore could not \(what): \(error)") }
    }

    // MARK: Soups

    /// The soup's indexes, each with the column the store keeps it in (`soup_index_map`), as the SDK gives them.
    public func indices(forSoupNamed soupName: String) -> [SoupIndex] {
        ((try? engine.indexColumns(for: soupName)) ?? []).map { SoupIndex(engine: $0.spec, columnName: $0.columnName) }
    }

    public func soupExists(forName soupName: String) -> Bool { (try? engine.soupExists(soupName)) ?? false }

    public func registerSoup(withName soupName: String, withIndices indexSpecs: [SoupIndex]) throws {
        let specs = try indexSpecs.map { index -> IndexSpec in
            guard let spec = index.engine else { throw SmartStoreEngine.SmartStoreError.invalidQuery("unknown index type \(index.indexType)") }
            return spec
        }
        try sdkCall { try engine.registerSoup(soupName, indexSpecs: specs) }
    }

    public func allSoupNames() -> [String] { (try? engine.allSoupNames()) ?? [] }

    public func clearSoup(_ soupName: String) { sdkLog { try engine.clearSoup(soupName) } }

    public func removeSoup(_ soupName: String) { sdkLog { try engine.removeSoup(soupName) } }

    public func removeAllSoups() { for soup in allSoupNames() { removeSoup(soup) } }

    public func alterSoup(named soupName: String, indexSpecs: [SoupIndex], reIndexData: Bool) -> Bool {
        let specs = indexSpecs.compactMap(\.engine)
        guard specs.count == indexSpecs.count else { return false }
        return (try? engine.alterSoup(soupName, indexSpecs: specs, reIndexData: reIndexData)) != nil
    }

    public func reIndexSoup(named soupName: String, indexPaths: [String]) -> Bool {
        (try? engine.reIndexSoup(soupName, paths: indexPaths)) != nil
    }

    // MARK: Entries

    public func count(using querySpec: QuerySpec) throws -> NSNumber {
        try sdkCall { NSNumber(value: try engine.count(try querySpec.engineSpec())) }
    }

    public func query(using querySpec: QuerySpec, startingFromPageIndex pageIndex: UInt) throws -> [Any] {
        try query(using: querySpec, startingFromPageIndex: pageIndex, whereArgs: nil)
    }

    public func query(using querySpec: QuerySpec, startingFromPageIndex pageIndex: UInt, whereArgs: [Any]?) throws -> [Any] {
        try sdkCall {
            try engine.query(try querySpec.engineSpec(whereArgs: whereArgs), pageIndex: Int(clamping: pageIndex)).map(\.foundationValue)
        }
    }

    public func retrieve(usingSoupEntryIds soupEntryIds: [NSNumber], fromSoupNamed soupName: String) -> [[AnyHashable: Any]] {
        sdkLog { try engine.retrieve(ids: soupEntryIds.map(\.int64Value), from: soupName).map(\.foundationEntry) } ?? []
    }

    /// Inserts or updates by `_soupEntryId`; errors are logged and give an empty array, as the SDK's
    /// error-less variant.
    @discardableResult
    public func upsert(entries: [[AnyHashable: Any]], forSoupNamed soupName: String) -> [[AnyHashable: Any]] {
        sdkLog { try upsertFoundation(entries, soupName, SoupField.entryId) } ?? []
    }

    @discardableResult
    public func upsert(entries: [Any], forSoupNamed soupName: String, withExternalIdPath externalIdPath: String) throws -> [Any] {
        try sdkCall { try upsertEngine(entries, soupName, externalIdPath) }
    }

    private func upsertEngine(_ entries: [Any], _ soupName: String, _ externalIdPath: String) throws -> [[AnyHashable: Any]] {
        let dictionaries = try entries.map { entry -> [AnyHashable: Any] in
            if let dictionary = entry as? [AnyHashable: Any] { return dictionary }
            throw SmartStoreEngine.SmartStoreError.invalidEntry("an entry is not a JSON object of JSON values, or nests deeper than \(JSON.maxDepth) levels")
        }
        return try upsertFoundation(dictionaries, soupName, externalIdPath)
    }

    /// The stored entries, as the SDK returns them: each given entry with its `_soupEntryId` and
    /// `_soupLastModifiedDate` (the engine stores exactly that), without converting the stored JSON back.
    /// Translation only, made cheap: a large batch is converted on two threads, and the returned dictionaries are
    /// copied while the engine writes (they need only the ids, filled in after).
    private func upsertFoundation(_ entries: [[AnyHashable: Any]], _ soupName: String, _ externalIdPath: String) throws -> [[AnyHashable: Any]] {
        let converted = try Self.convert(entries)
        nonisolated(unsafe) let idKey = AnyHashable(SoupField.entryId), modifiedKey = AnyHashable(SoupField.lastModifiedDate)
        let copies = Copies()
        let copying = DispatchGroup()
        // The entries are the caller's values, read only; the keys are made here: nothing is shared mutably.
        nonisolated(unsafe) let entries = entries
        DispatchQueue.global(qos: .userInitiated).async(group: copying) {
            copies.value = entries.map { entry in
                var stored = entry
                stored[idKey] = 0
                stored[modifiedKey] = 0
                return stored
            }
        }
        let written = Result { try engine.upsertReturningIdsAndModified(converted, into: soupName, externalIdPath: externalIdPath) }
        copying.wait()
        let (ids, modified) = try written.get()
        var saved = copies.value
        copies.value = []
        let modifiedValue = Int(modified)
        saved.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            let parts = out.count >= 1024 ? 2 : 1, size = (out.count + parts - 1) / parts
            DispatchQueue.concurrentPerform(iterations: parts) { part in
                for index in (part * size)..<min(out.count, (part + 1) * size) {
                    out[index][idKey] = Int(ids[index])
                    out[index][modifiedKey] = modifiedValue
                }
            }
        }
        return saved
    }

    private final class Copies: @unchecked Sendable { var value: [[AnyHashable: Any]] = [] }

    /// The entries as the engine's JSON; nil for any that is not JSON (the SDK's error). Two threads from 1,024.
    private static func convert(_ entries: [[AnyHashable: Any]]) throws -> [SoupEntry] {
        let invalid = SmartStoreEngine.SmartStoreError.invalidEntry("an entry is not a JSON object of JSON values, or nests deeper than \(JSON.maxDepth) levels")
        guard entries.count >= 1024 else {
            return try entries.map { entry in
                guard let object = JSON.object(sdkEntry: entry) else { throw invalid }
                return object
            }
        }
        var converted = [SoupEntry?](repeating: nil, count: entries.count)
        let half = entries.count / 2
        nonisolated(unsafe) let entries = entries
        converted.withUnsafeMutableBufferPointer { buffer in
            nonisolated(unsafe) let out = buffer
            DispatchQueue.concurrentPerform(iterations: 2) { part in
                for index in (part == 0 ? 0..<half : half..<entries.count) { out[index] = JSON.object(sdkEntry: entries[index]) }
            }
        }
        return try converted.map { entry in
            guard let entry else { throw invalid }
            return entry
        }
    }

    public func lookupSoupEntryId(soupNamed soupName: String, fieldPath: String, fieldValue: String) throws -> NSNumber {
        try sdkCall {
            let spec = SmartStoreEngine.QuerySpec.exact(soup: soupName, path: fieldPath, value: .string(fieldValue), pageSize: 2, selectPaths: [SoupField.entryId])
            let rows = try engine.query(spec)
            if rows.count > 1 { throw SmartStoreEngine.SmartStoreError.externalIdNotUnique(soup: soupName, path: fieldPath, value: fieldValue) }
            return NSNumber(value: rows.first?.arrayValue?.first?.intValue ?? -1)
        }
    }

    public func remove(entryIds: [NSNumber], forSoupNamed soupName: String) throws {
        try sdkCall { try engine.remove(ids: entryIds.map(\.int64Value), from: soupName) }
    }

    public func removeEntries(usingQuerySpec querySpec: QuerySpec, forSoupNamed soupName: String) throws {
        try sdkCall {
            var spec = try querySpec.engineSpec()
            if spec.soupName == nil { spec.soupName = soupName }
            try engine.remove(matching: spec)
        }
    }

    /// `+dateFromLastModifiedValue:`: a `_soupLastModifiedDate` value (milliseconds since 1970) as a date.
    public class func date(lastModifiedValue: NSNumber) -> Date { Date(timeIntervalSince1970: lastModifiedValue.doubleValue / 1000) }

    /// The store file's size in bytes.
    public func databaseSize() -> UInt {
        UInt(SecureFiles.size(engine.url) ?? 0)
    }

    // MARK: Errors, as the SDK gives them

    /// Runs an engine call; its error becomes the SDK's `NSError` in `SmartStore.errorDomain`, with the SDK's
    /// code where it has one (999 otherwise) and the engine's message.
    private func sdkCall<T>(_ body: () throws -> T) throws -> T {
        do { return try body() } catch let error as SmartStoreEngine.SmartStoreError {
            throw NSError(domain: Self.errorDomain, code: error.code ?? 999, userInfo: [NSLocalizedDescriptionKey: error.description])
        } catch {
            throw NSError(domain: Self.errorDomain, code: 999, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
        }
    }

    /// For the SDK's methods without an error: the SDK logs and returns nothing.
    @discardableResult
    private func sdkLog<T>(_ body: () throws -> T) -> T? {
        do { return try body() } catch {
            SDKProcess.warn("SmartStore \(name): \(error)")
            return nil
        }
    }
}
