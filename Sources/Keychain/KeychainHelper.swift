import SchedulePoints
import Dispatch
import Foundation

/// The SDK's `KeychainHelper`, on a Secret Service (DESIGN.md §4).
///
/// One helper belongs to one process of one device: it knows the device id (so devices sharing a
/// Secret Service never see each other's items) and the access groups the process is entitled to,
/// in iOS's order. The iOS rules follow:
/// - a write with no group updates the item wherever the process can see it, else creates it in the
///   first entitled group;
/// - a read with no group searches every entitled group, in order;
/// - an explicit group the process is not entitled to is `errSecMissingEntitlement` (-34018);
/// - a locked collection is `errSecInteractionNotAllowed` (-25308), never an empty keychain.
///
/// Every call is checked against the store's availability first and runs on the helper's own serial
/// queue: libsecret blocks on D-Bus, and this keeps that off the caller's thread and the main actor.
///
/// ```swift
/// let keychain = KeychainHelper(store: LibsecretStore(), deviceID: device.id.uuidString,
///                               accessGroups: sandbox.keychainAccessGroups)
/// let result = await keychain.read(service: "com.salesforce.mobilesdk.oauth.refresh", account: account)
/// ```
package final class KeychainHelper: Sendable {
    /// The `creator` attribute on every item this SDK makes; `removeAll` touches only those.
    package static let creator = "com.appgroupsim.sdk"

    package let deviceID: String
    /// Entitled access groups, expanded, in order; a write with no group goes to the first.
    package let accessGroups: [String]
    package let store: any SecretStore
    private let queue = DispatchQueue(label: "com.appgroupsim.keychain")
    private let budget: SecretServiceBudget
    /// The device's lock state, read at each call (one small file read on a simulated device; never D-Bus).
    private let protection: @Sendable () -> KeychainProtectionState
    private let classLock = NSLock()
    nonisolated(unsafe) private var newItemClass: KeychainAccessibility
    /// Reads done ahead (`readAhead`), each kept for the read that asks for it next, with the lock state it was
    /// read in. Touched only on `queue`.
    /// Keyed by `aheadKey(query)`, a string: a dictionary keyed by dictionaries costs each launch the runtime's
    /// look-up of Dictionary's conditional Hashable conformance (seen in a profile of the widget's launch).
    nonisolated(unsafe) private var aheadResults: [String: (state: KeychainProtectionState, result: KeychainResult)] = [:]
    /// Whether the call running on `queue` took a read done ahead; any other call drops them all.
    nonisolated(unsafe) private var tookAhead = false

    /// - Parameter budget: the time this helper's calls may wait on the store in all; the process's
    ///   shared budget unless a test gives its own.
    /// - Parameter protection: the device's lock state now (always unlocked unless given).
    /// - Parameter accessibility: the class of the items this helper makes (the SDK's default unless given).
    package init(
        store: any SecretStore, deviceID: String, accessGroups: [String], budget: SecretServiceBudget = .shared,
        protection: @escaping @Sendable () -> KeychainProtectionState = { .unlocked }, accessibility: KeychainAccessibility = .sdkDefault
    ) {
        self.store = store
        self.deviceID = deviceID
        self.accessGroups = accessGroups
        self.budget = budget
        self.protection = protection
        newItemClass = accessibility
    }

    /// The class of the items this helper makes from now on (`KeychainHelper.accessibilityAttribute`).
    package var accessibility: KeychainAccessibility { classLock.withLock { newItemClass } }

    /// `KeychainHelper.setAccessibleAttribute(_:)`, as the SDK has it: new items get the class from now on, then
    /// every item this SDK made in the process's groups is saved again with it. None made: `errSecItemNotFound`
    /// (the class is still set, as the SDK sets it first). An item, or the new class, that cannot be read in the
    /// device's state: `errSecInteractionNotAllowed`, and no item changed.
    package func setAccessibility(_ accessibility: KeychainAccessibility) async -> KeychainResult {
        classLock.withLock { newItemClass = accessibility }
        return await run { () throws(KeychainError) in
            try self.requireReady()
            let state = self.protection()
            var items: [SecretStoreItem] = []
            for group in self.accessGroups {
                items += try self.store.search(["device": self.deviceID, "creator": Self.creator, "accessGroup": group])
            }
            guard !items.isEmpty else { return .failure(.itemNotFound, "no keychain item of this SDK in the process's groups to give the class \(accessibility.rawValue)") }
            for item in items {
                let current = KeychainAccessibility.of(item.attributes)
                guard current.isAvailable(state), accessibility.isAvailable(state) else {
                    throw (current.isAvailable(state) ? accessibility : current).unavailable(service: item.attributes["service"] ?? "", state: state)
                }
            }
            for item in items where item.attributes[KeychainAccessibility.attribute] != accessibility.rawValue {
                var attributes = item.attributes
                attributes[KeychainAccessibility.attribute] = accessibility.rawValue
                // Deleted first (an item without the attribute would match both by subset), then stored with the
                // class; a store that fails puts the item back as it was, so a value is never lost.
                try self.store.delete(item.attributes)
                do throws(KeychainError) {
                    try self.store.store(attributes, label: Self.label(service: attributes["service"] ?? "", group: attributes["accessGroup"] ?? ""), secret: item.secret)
                } catch {
                    try? self.store.store(item.attributes, label: Self.label(service: item.attributes["service"] ?? "", group: item.attributes["accessGroup"] ?? ""), secret: item.secret)
                    throw error
                }
            }
            return .ok()
        }
    }

    /// `.success` when the keychain can be used; otherwise the status and a message that says how to fix it.
    package func status() async -> KeychainResult {
        await run { () throws(KeychainError) in
            try self.requireReady()
            return .ok()
        }
    }

    /// The value of the item, searching every entitled group when `accessGroup` is nil.
    /// With `account` nil, any account matches (the first found).
    ///
    /// One `lookup` per group, in entitlement order, until one finds it: on the Secret Service, two D-Bus
    /// calls for a read that finds its item in the first group. Only a read that finds nothing asks whether
    /// the keychain is usable at all, so a keyring with no default collection is not reported as an
    /// empty keychain.
    package func read(service: String, account: String? = nil, accessGroup: String? = nil) async -> KeychainResult {
        await run(readBody(service: service, account: account, accessGroup: accessGroup))
    }

    /// `read`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func readBlocking(service: String, account: String? = nil, accessGroup: String? = nil) -> KeychainResult {
        runBlocking(readBody(service: service, account: account, accessGroup: accessGroup))
    }

    private func readBody(service: String, account: String?, accessGroup: String?) -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            var query = ["device": self.deviceID, "service": service]
            if let account { query["account"] = account }
            let groups: [String]
            if let accessGroup {
                try self.checkEntitled(accessGroup)
                groups = [accessGroup]
            } else {
                if let ahead = self.takeAhead(query) { return ahead }
                groups = self.accessGroups
            }
            if let found = try self.firstInGroups(query, groups: groups, service: service) { return found }
            try self.requireReady()
            return self.notFound(service: service, account: account, accessGroup: accessGroup)
        }
    }

    /// Starts the reads a launch is about to make, on the helper's queue, and returns at once: `services` as
    /// `read(service:)` reads them, `keyTags` as `readKey(tag:)` does, all in one trip to the store for their values
    /// (`SecretStore.lookupFirst`), while the caller reads its files. Each result is kept for the read that asks
    /// for it next, in the same lock state; any other call first drops them, so a read never sees a value older
    /// than a change made through this helper. Opens the store as `prepare()` does.
    package func readAhead(services: [String], keyTags: [String]) {
        let queries = services.map { ["device": deviceID, "service": $0] } + keyTags.map { Self.keyQuery(tag: $0, device: deviceID) }
        // Under `msdk-sim explore` the read is made before the call returns: read alongside the launch's file reads,
        // its schedule point would come before or after theirs by chance, and a run must be a function of its seed.
        let dispatch: (@escaping @Sendable () -> Void) -> Void = SchedulePoint.isExplored ? { self.queue.sync(execute: $0) } : { self.queue.async(execute: $0) }
        dispatch {
            self.aheadResults = [:]
            let state = self.protection()
            // Locked or before the first unlock, the item's class decides: the reads stay the ordinary ones.
            guard state == .unlocked else { return }
            let reads = queries.map { query in self.accessGroups.map { query.merging(["accessGroup": $0]) { $1 } } }
            guard let found = try? self.store.lookupFirst(reads) else { return }
            // Only values are kept: a read that finds nothing, or a locked item, is made again in its turn, which
            // also asks whether the keychain could be used at all.
            for (i, match) in found.enumerated() {
                if case .found(let secret) = match.lookup, let alternative = match.alternative {
                    self.aheadResults[Self.aheadKey(queries[i])] = (state, .ok(secret, group: self.accessGroups[alternative]))
                }
            }
        }
    }

    /// The value of the first item matching `query` in `groups`, in order (nil when none has one). Unlocked, one
    /// `lookup` per group; otherwise a `search`, since the item's class decides whether the state gives it out.
    private func firstInGroups(_ query: [String: String], groups: [String], service: String) throws(KeychainError) -> KeychainResult? {
        var query = query
        let state = protection()
        for group in groups {
            query["accessGroup"] = group
            if state != .unlocked {
                guard let item = try store.search(query).first else { continue }
                let accessibility = KeychainAccessibility.of(item.attributes)
                guard accessibility.isAvailable(state) else { throw accessibility.unavailable(service: service, state: state) }
                return .ok(item.secret, group: group)
            }
            switch try store.lookup(query) {
            case .found(let secret): return .ok(secret, group: group)
            case .locked: throw Self.error(for: .locked)
            case .notFound: continue
            }
        }
        return nil
    }

    /// The creator of the SDK's key items (its `kSecClassKey` items: the EC key pair `KeyGenerator` wraps its keys
    /// with), which are not the SDK's generic passwords: `setAccessibleAttribute` and `removeAll` never touch them.
    package static let keyCreator = "com.salesforce.mobilesdk.key"

    /// A key item (`kSecClassKey`, tag `tag`) in the first entitled group that has it: always
    /// afterFirstUnlockThisDeviceOnly, so never in a backup, and not given out before the first unlock.
    package func readKey(tag: String) async -> KeychainResult {
        await run { () throws(KeychainError) in
            let query = Self.keyQuery(tag: tag, device: self.deviceID)
            if let ahead = self.takeAhead(query) { return ahead }
            if let found = try self.firstInGroups(query, groups: self.accessGroups, service: tag) { return found }
            try self.requireReady()
            return .failure(.itemNotFound, "no key item \(tag) in any entitled group")
        }
    }

    /// Stores a key item (`SecKeyCreateRandomKey` with `kSecAttrIsPermanent`) in the group writes go to.
    package func writeKey(tag: String, secret: [UInt8]) async -> KeychainResult {
        await run { () throws(KeychainError) in
            try self.requireReady()
            let accessibility = KeychainAccessibility.afterFirstUnlockThisDeviceOnly
            let state = self.protection()
            guard accessibility.isAvailable(state) else { throw accessibility.unavailable(service: tag, state: state) }
            let group = try self.writeGroup(nil)
            let attributes = [
                "device": self.deviceID, "accessGroup": group, "service": tag, "account": "", "creator": Self.keyCreator,
                KeychainAccessibility.attribute: accessibility.rawValue,
            ]
            try self.store.store(attributes, label: Self.label(service: tag, group: group), secret: secret)
            return .ok(group: group)
        }
    }

    /// Removes the key item `tag` from every entitled group.
    package func removeKey(tag: String) async -> KeychainResult {
        await run { () throws(KeychainError) in
            for group in self.accessGroups {
                _ = try self.store.delete(["device": self.deviceID, "service": tag, "creator": Self.keyCreator, "accessGroup": group])
            }
            return .ok()
        }
    }

    /// Starts opening the store (the Secret Service's connection and session) on the helper's queue and
    /// returns at once; the calls that follow queue behind it. A launch calls this as soon as it knows it
    /// will read the keychain, so the key exchange overlaps its file reads. Costs nothing if never used.
    package func prepare() {
        let store = self.store
        queue.async { store.prepare() }
    }

    /// Creates the item or replaces its value.
    package func write(_ data: [UInt8], service: String, account: String? = nil, accessGroup: String? = nil) async -> KeychainResult {
        await run(writeBody(data, service: service, account: account, accessGroup: accessGroup))
    }

    /// `write`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func writeBlocking(_ data: [UInt8], service: String, account: String? = nil, accessGroup: String? = nil) -> KeychainResult {
        runBlocking(writeBody(data, service: service, account: account, accessGroup: accessGroup))
    }

    private func writeBody(_ data: [UInt8], service: String, account: String?, accessGroup: String?) -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            try self.requireReady()
            let existing = try self.find(service: service, account: account ?? "", accessGroup: accessGroup)
            if let existing {
                // The item keeps its attributes (its class among them), as SecItemUpdate keeps them.
                try self.checkAvailable(existing.attributes, service: service)
                let group = existing.attributes["accessGroup"] ?? ""
                try self.store.store(existing.attributes, label: Self.label(service: service, group: group), secret: data)
                return .ok(group: group)
            }
            let group = try self.writeGroup(accessGroup)
            try self.storeNew(service: service, account: account ?? "", group: group, secret: data)
            return .ok(group: group)
        }
    }

    /// `SecItemAdd`: creates the item, or fails with `errSecDuplicateItem` if it exists.
    package func add(_ data: [UInt8], service: String, account: String? = nil, accessGroup: String? = nil) async
        -> KeychainResult
    {
        await run { () throws(KeychainError) in
            try self.requireReady()
            if try self.find(service: service, account: account ?? "", accessGroup: accessGroup) != nil {
                return .failure(.duplicateItem, "an item for service \(service) already exists")
            }
            let group = try self.writeGroup(accessGroup)
            try self.storeNew(service: service, account: account ?? "", group: group, secret: data)
            return .ok()
        }
    }

    /// Returns the item's value, creating an empty item first when there is none.
    package func createIfNotPresent(service: String, account: String? = nil, accessGroup: String? = nil) async -> KeychainResult {
        await run(createIfNotPresentBody(service: service, account: account, accessGroup: accessGroup))
    }

    /// `createIfNotPresent`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func createIfNotPresentBlocking(service: String, account: String? = nil, accessGroup: String? = nil) -> KeychainResult {
        runBlocking(createIfNotPresentBody(service: service, account: account, accessGroup: accessGroup))
    }

    private func createIfNotPresentBody(service: String, account: String?, accessGroup: String?) -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            try self.requireReady()
            if let item = try self.find(service: service, account: account ?? "", accessGroup: accessGroup) {
                try self.checkAvailable(item.attributes, service: service)
                return .ok(item.secret)
            }
            let group = try self.writeGroup(accessGroup)
            try self.storeNew(service: service, account: account ?? "", group: group, secret: [])
            return .ok([])
        }
    }

    /// Empties the item's value and keeps the item.
    package func reset(service: String, account: String? = nil, accessGroup: String? = nil) async -> KeychainResult {
        await run(resetBody(service: service, account: account, accessGroup: accessGroup))
    }

    /// `reset`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func resetBlocking(service: String, account: String? = nil, accessGroup: String? = nil) -> KeychainResult {
        runBlocking(resetBody(service: service, account: account, accessGroup: accessGroup))
    }

    private func resetBody(service: String, account: String?, accessGroup: String?) -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            try self.requireReady()
            guard let item = try self.find(service: service, account: account, accessGroup: accessGroup) else {
                return self.notFound(service: service, account: account, accessGroup: accessGroup)
            }
            try self.checkAvailable(item.attributes, service: service)
            try self.store.store(
                item.attributes, label: Self.label(service: service, group: item.attributes["accessGroup"] ?? ""),
                secret: [])
            return .ok()
        }
    }

    /// Deletes the item; `errSecItemNotFound` when there is none.
    package func remove(service: String, account: String? = nil, accessGroup: String? = nil) async -> KeychainResult {
        await run(removeBody(service: service, account: account, accessGroup: accessGroup))
    }

    /// `remove`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func removeBlocking(service: String, account: String? = nil, accessGroup: String? = nil) -> KeychainResult {
        runBlocking(removeBody(service: service, account: account, accessGroup: accessGroup))
    }

    private func removeBody(service: String, account: String?, accessGroup: String?) -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            try self.requireReady()
            guard let item = try self.find(service: service, account: account, accessGroup: accessGroup) else {
                return self.notFound(service: service, account: account, accessGroup: accessGroup)
            }
            try self.store.delete(item.attributes)
            return .ok()
        }
    }

    /// Deletes every item this SDK created on this device in the process's groups; others' items stay.
    package func removeAll() async -> KeychainResult {
        await run(removeAllBody())
    }

    /// `removeAll`, blocking the calling thread until the helper's queue has done it (the SDK's synchronous Swift API).
    package func removeAllBlocking() -> KeychainResult {
        runBlocking(removeAllBody())
    }

    private func removeAllBody() -> @Sendable () throws(KeychainError) -> KeychainResult {
        { () throws(KeychainError) in
            try self.requireReady()
            for group in self.accessGroups {
                try self.store.delete(["device": self.deviceID, "creator": Self.creator, "accessGroup": group])
            }
            return .ok()
        }
    }

    /// What the process can see, without values: for `inspect` and tests.
    package func items() async throws(KeychainError) -> [KeychainItemInfo] {
        let result: Result<[KeychainItemInfo], KeychainError> = await onQueue(timedOut: { .failure($0) }) {
            do throws(KeychainError) {
                try self.requireReady()
                return .success(
                    try self.store.search(["device": self.deviceID, "creator": Self.creator])
                        .filter { self.accessGroups.contains($0.attributes["accessGroup"] ?? "") }
                        .map {
                            KeychainItemInfo(
                                service: $0.attributes["service"] ?? "", account: $0.attributes["account"] ?? "",
                                accessGroup: $0.attributes["accessGroup"] ?? "", valueLength: $0.secret.count,
                                accessible: KeychainAccessibility.of($0.attributes).rawValue)
                        }
                        .sorted { ($0.accessGroup, $0.service, $0.account) < ($1.accessGroup, $1.service, $1.account) })
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Internals

    package static func error(for availability: SecretStoreAvailability) -> KeychainError {
        switch availability {
        case .ready:
            return KeychainError(status: .success, message: "ready")
        case .noSessionBus(let detail):
            return KeychainError(
                status: .notAvailable,
                message: "keychain unavailable (no D-Bus session bus): no Secret Service can be reached (\(detail)); run the command inside scripts/with-keyring")
        case .noSecretService(let detail):
            return KeychainError(
                status: .notAvailable,
                message: "keychain unavailable (no provider): no Secret Service on the session bus (\(detail)); start gnome-keyring, e.g. run inside scripts/with-keyring")
        case .noDefaultCollection:
            return KeychainError(
                status: .notAvailable,
                message: "keychain unavailable (no default collection): the Secret Service has no default collection (gnome-keyring was started without --unlock); "
                    + "restart it unlocked, e.g. run inside scripts/with-keyring")
        case .locked:
            return KeychainError(
                status: .interactionNotAllowed,
                message: "keychain unavailable (locked): the keychain is locked, as before first unlock on a device; unlock the default collection and retry")
        }
    }

    private func requireReady() throws(KeychainError) {
        let availability = store.availability()
        if availability != .ready { throw Self.error(for: availability) }
    }

    /// The group a new item goes to: the explicit one if entitled, else the first entitled group.
    private func writeGroup(_ accessGroup: String?) throws(KeychainError) -> String {
        if let accessGroup {
            try checkEntitled(accessGroup)
            return accessGroup
        }
        guard let first = accessGroups.first else {
            throw KeychainError(status: .missingEntitlement, message: "the process has no keychain access group; add one to keychain-access-groups")
        }
        return first
    }

    private func checkEntitled(_ group: String) throws(KeychainError) {
        guard accessGroups.contains(group) else {
            throw KeychainError(
                status: .missingEntitlement,
                message: "not entitled to keychain access group \(group) (entitled: \(accessGroups.joined(separator: ", "))); "
                    + "add it to keychain-access-groups in the target's .entitlements")
        }
    }

    /// The first matching item in the process's groups (in entitlement order). A nil `account` matches any.
    private func find(service: String, account: String?, accessGroup: String?) throws(KeychainError) -> SecretStoreItem? {
        var query = ["device": deviceID, "service": service]
        if let account { query["account"] = account }
        if let accessGroup {
            try checkEntitled(accessGroup)
            query["accessGroup"] = accessGroup
        }
        let found = try store.search(query)
        for group in accessGroups {
            if let item = found.first(where: { $0.attributes["accessGroup"] == group }) { return item }
        }
        return nil
    }

    private func attributes(service: String, account: String, group: String) -> [String: String] {
        ["device": deviceID, "accessGroup": group, "service": service, "account": account, "creator": Self.creator]
    }

    /// A new item, of this helper's class: refused when that class is not available in the device's state, as
    /// `SecItemAdd` is.
    private func storeNew(service: String, account: String, group: String, secret: [UInt8]) throws(KeychainError) {
        let accessibility = self.accessibility
        let state = protection()
        guard accessibility.isAvailable(state) else { throw accessibility.unavailable(service: service, state: state) }
        var attributes = attributes(service: service, account: account, group: group)
        attributes[KeychainAccessibility.attribute] = accessibility.rawValue
        try store.store(attributes, label: Self.label(service: service, group: group), secret: secret)
    }

    /// `errSecInteractionNotAllowed` when the item's class is not available in the device's state.
    private func checkAvailable(_ attributes: [String: String], service: String) throws(KeychainError) {
        let state = protection()
        guard state != .unlocked else { return }
        let accessibility = KeychainAccessibility.of(attributes)
        guard accessibility.isAvailable(state) else { throw accessibility.unavailable(service: service, state: state) }
    }

    /// The read done ahead for `query`, taken (it answers one read), when the lock state is still the one it was
    /// read in.
    private func takeAhead(_ query: [String: String]) -> KeychainResult? {
        guard let ahead = aheadResults.removeValue(forKey: Self.aheadKey(query)) else { return nil }
        tookAhead = true
        return ahead.state == protection() ? ahead.result : nil
    }

    /// Runs on `queue` around every call: reads done ahead live only until a call that does not take one.
    private func dropAheadUnlessTaken() {
        if !tookAhead { aheadResults = [:] }
        tookAhead = false
    }

    /// One string per query: its attributes in order of name, each `name=value`, separated by NUL (which no
    /// attribute here holds).
    private static func aheadKey(_ query: [String: String]) -> String {
        var key = ""
        for name in query.keys.sorted() { key += name + "=" + (query[name] ?? "") + "\u{0}" }
        return key
    }

    private static func keyQuery(tag: String, device: String) -> [String: String] {
        ["device": device, "service": tag, "creator": keyCreator]
    }

    private func notFound(service: String, account: String?, accessGroup: String?) -> KeychainResult {
        var what = "service \(service)"
        if let account { what += ", account \(account)" }
        what += accessGroup.map { " in group \($0)" } ?? " in any entitled group"
        return .failure(.itemNotFound, "no keychain item for \(what)")
    }

    private static func label(service: String, group: String) -> String { "AppGroupSim \(service) (\(group))" }

    /// `run` on the calling thread: waits on a semaphore (not on Swift's concurrency pool) for the helper's
    /// queue, within the same Secret Service budget.
    private func runBlocking(_ body: @escaping @Sendable () throws(KeychainError) -> KeychainResult) -> KeychainResult {
        let budget = self.budget
        guard let remaining = budget.remaining() else { return .failure(budget.timeoutError) }
        let box = ResultBox()
        let done = DispatchSemaphore(value: 0)
        queue.async {
            box.set({ () -> KeychainResult in do throws(KeychainError) { return try body() } catch { return .failure(error) } }())
            self.dropAheadUnlessTaken()
            done.signal()
        }
        guard done.wait(timeout: .now() + remaining) == .success, let result = box.get() else {
            budget.exhaust()
            return .failure(budget.timeoutError)
        }
        return result
    }

    private func run(_ body: @escaping @Sendable () throws(KeychainError) -> KeychainResult) async -> KeychainResult {
        await onQueue(timedOut: { .failure($0) }) {
            do throws(KeychainError) { return try body() } catch { return .failure(error) }
        }
    }

    /// Runs `body` on the helper's queue, waiting at most the process's Secret Service budget. A D-Bus
    /// peer that accepts and never answers would otherwise hang the launch forever; past the budget the
    /// call, and every later one, ends at once with `errSecNotAvailable` and a "timeout" reason, so a
    /// launch waits on an unresponsive Secret Service once, never longer than the budget. The stuck
    /// libsecret call stays on its own thread, which the process simply leaves behind at exit.
    private func onQueue<T: Sendable>(
        timedOut: @escaping @Sendable (KeychainError) -> T, _ body: @escaping @Sendable () -> T
    ) async -> T {
        let budget = self.budget
        guard let remaining = budget.remaining() else { return timedOut(budget.timeoutError) }
        return await withCheckedContinuation { continuation in
            let once = ResumeOnce(continuation)
            queue.async {
                let result = body()
                self.dropAheadUnlessTaken()
                once.resume(result)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + remaining) {
                if once.resume(timedOut(budget.timeoutError)) { budget.exhaust() }
            }
        }
    }
}

/// How long a process waits for the Secret Service to answer one call (DESIGN.md §4): 5 s by default,
/// `APPGROUPSIM_KEYCHAIN_TIMEOUT` seconds when set. After the first call that gets no answer in time,
/// the Secret Service counts as unresponsive for the rest of the process and keychain calls fail at
/// once, so a launch never waits longer than this in all. Calls that answer cost nothing from it: a
/// long-lived process (a shell, `--watch`) makes as many as it likes.
package final class SecretServiceBudget: @unchecked Sendable {
    package static let shared = SecretServiceBudget(
        seconds: ProcessInfo.processInfo.environment["APPGROUPSIM_KEYCHAIN_TIMEOUT"].flatMap(Double.init).flatMap { $0 > 0 && $0 < 3600 ? $0 : nil } ?? 5)

    let seconds: Double
    private let lock = NSLock()
    private var exhausted = false

    package init(seconds: Double) {
        self.seconds = seconds
    }

    var timeoutError: KeychainError {
        KeychainError(
            status: .notAvailable,
            message: "keychain unavailable (timeout): the Secret Service did not answer within \(Self.format(seconds)) s; "
                + "check that gnome-keyring-daemon is running and responsive on this D-Bus session, or run inside scripts/with-keyring")
    }

    /// How long the next call may wait; nil once the Secret Service has failed to answer in time. Under
    /// `msdk-sim explore` a call may stand at a schedule point while other processes run, for as long as the
    /// explorer decides: no deadline then, since a wall-clock timeout would make a run depend on the machine's speed.
    func remaining() -> DispatchTimeInterval? {
        if SchedulePoint.isExplored { return .never }
        return lock.withLock { exhausted ? nil : .milliseconds(Int(seconds * 1000)) }
    }

    func exhaust() { lock.withLock { exhausted = true } }

    private static func format(_ s: Double) -> String { s == s.rounded() ? String(Int(s)) : String(s) }
}

/// Resumes a continuation once; whichever of the call and its deadline comes first wins.
private final class ResumeOnce<T: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<T, Never>?

    init(_ continuation: CheckedContinuation<T, Never>) { self.continuation = continuation }

    @discardableResult
    func resume(_ value: T) -> Bool {
        let c = lock.withLock { () -> CheckedContinuation<T, Never>? in
            defer { continuation = nil }
            return continuation
        }
        c?.resume(returning: value)
        return c != nil
    }
}

/// An item as `inspect` shows it: where it is and how long its value is, never the value.
package struct KeychainItemInfo: Sendable, Equatable, Codable {
    package var service: String
    package var account: String
    package var accessGroup: String
    package var valueLength: Int
    /// The item's accessibility class (`KeychainAccessibility`).
    package var accessible: String
}

private final class ResultBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: KeychainResult?
    func set(_ result: KeychainResult) { lock.withLock { value = result } }
    func get() -> KeychainResult? { lock.withLock { value } }
}
