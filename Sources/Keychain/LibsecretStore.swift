import SchedulePoints
import CSecret
import Foundation

/// A `SecretStore` on the freedesktop Secret Service through libsecret (gnome-keyring here).
///
/// Items use the schema `com.appgroupsim.GenericPassword`; values are stored as bytes
/// (`application/octet-stream`), so any `Data` round-trips. Every call is blocking D-Bus I/O:
/// `KeychainHelper` runs them on its own queue, never on the caller's thread.
package final class LibsecretStore: SecretStore, @unchecked Sendable {
    package static let schemaName = "com.appgroupsim.GenericPassword"
    package static let attributeNames = ["device", "accessGroup", "service", "account", "creator", "accessible", "backup"]

    // Built once and never freed: a schema is a small immutable value used for the life of the process.
    private let schema: UnsafeMutablePointer<SecretSchema>

    package init() {
        let types = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, nil)
        for name in Self.attributeNames {
            // The value is the attribute type; SECRET_SCHEMA_ATTRIBUTE_STRING is 0, i.e. a null pointer.
            g_hash_table_insert(types, g_strdup(name), nil)
        }
        schema = secret_schema_newv(Self.schemaName, SECRET_SCHEMA_NONE, types)
        g_hash_table_unref(types)
    }

    package func availability() -> SecretStoreAvailability {
        let service: UnsafeMutablePointer<SecretService>
        switch connect() {
        case .connected(let s): service = s
        case .unavailable(let a): return a
        }
        defer { g_object_unref(gpointer(service)) }
        var err: UnsafeMutablePointer<GError>?
        guard let collection = secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, nil, &err) else {
            if let message = Self.take(&err) { return .noSecretService(detail: message) }
            return .noDefaultCollection
        }
        defer { g_object_unref(gpointer(collection)) }
        return secret_collection_get_locked(collection) != 0 ? .locked : .ready
    }

    package func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
        SchedulePoint.reach(.keychainRead, Self.pointDetail(attributes))
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        let table = Self.hashTable(attributes)
        defer { g_hash_table_unref(table) }
        var err: UnsafeMutablePointer<GError>?
        let flags = SecretSearchFlags(rawValue: SECRET_SEARCH_ALL.rawValue | SECRET_SEARCH_LOAD_SECRETS.rawValue)
        let list = secret_service_search_sync(service, schema, table, flags, nil, &err)
        if let message = Self.take(&err) { throw Self.error(message) }
        defer { g_list_free_full(list, g_object_unref) }
        var out: [SecretStoreItem] = []
        var node = list
        while let n = node {
            if let raw = n.pointee.data {
                let item = raw.assumingMemoryBound(to: SecretItem.self)
                var attrs: [String: String] = [:]
                if let table = secret_item_get_attributes(item) {
                    attrs = Self.dictionary(table)
                    g_hash_table_unref(table)
                }
                var bytes: [UInt8] = []
                if let value = secret_item_get_secret(item) {
                    var length: gsize = 0
                    if let p = secret_value_get(value, &length), length > 0 {
                        p.withMemoryRebound(to: UInt8.self, capacity: Int(length)) {
                            bytes = Array(UnsafeBufferPointer(start: $0, count: Int(length)))
                        }
                    }
                    secret_value_unref(gpointer(value))
                }
                out.append(SecretStoreItem(attributes: attrs, secret: bytes))
            }
            node = n.pointee.next
        }
        return out
    }

    /// One SearchItems and, for a match, one GetSecrets: no proxy for the item or its collection (a
    /// `search` makes both, a dozen D-Bus messages more), and no unlock prompt for a locked match.
    package func lookup(_ attributes: [String: String]) throws(KeychainError) -> SecretStoreLookup {
        SchedulePoint.reach(.keychainRead, Self.pointDetail(attributes))
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        let table = Self.hashTable(attributes)
        defer { g_hash_table_unref(table) }
        var err: UnsafeMutablePointer<GError>?
        var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
        _ = secret_service_search_for_dbus_paths_sync(service, schema, table, nil, &unlocked, &locked, &err)
        defer {
            g_strfreev(unlocked)
            g_strfreev(locked)
        }
        if let message = Self.take(&err) { throw Self.error(message) }
        guard let path = unlocked?.pointee else { return locked?.pointee == nil ? .notFound : .locked }
        let value = secret_service_get_secret_for_dbus_path_sync(service, path, nil, &err)
        if let message = Self.take(&err) { throw Self.error(message) }
        // Deleted between the two calls: as if it had not been found.
        guard let value else { return .notFound }
        defer { secret_value_unref(gpointer(value)) }
        var length: gsize = 0
        guard let p = secret_value_get(value, &length), length > 0 else { return .found([]) }
        return .found(p.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) })
    }

    /// One SearchItems per alternative tried (in order, until one is found or locked), then one GetSecrets for
    /// every value found: reads that would each cost two trips cost one each, plus one.
    package func lookupFirst(_ reads: [[[String: String]]]) throws(KeychainError) -> [SecretStoreFirstMatch] {
        SchedulePoint.reach(.keychainRead, reads.compactMap { $0.first.map(Self.pointDetail) }.joined(separator: ", "))
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        var err: UnsafeMutablePointer<GError>?
        var paths: [String?] = []
        var results: [SecretStoreFirstMatch] = []
        for alternatives in reads {
            var found: String?
            var result = SecretStoreFirstMatch(lookup: .notFound, alternative: nil)
            for (i, attributes) in alternatives.enumerated() {
                let table = Self.hashTable(attributes)
                var unlocked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
                var locked: UnsafeMutablePointer<UnsafeMutablePointer<gchar>?>?
                _ = secret_service_search_for_dbus_paths_sync(service, schema, table, nil, &unlocked, &locked, &err)
                g_hash_table_unref(table)
                found = unlocked?.pointee.map { String(cString: $0) }
                let isLocked = found == nil && locked?.pointee != nil
                g_strfreev(unlocked)
                g_strfreev(locked)
                if let message = Self.take(&err) { throw Self.error(message) }
                if isLocked { result = SecretStoreFirstMatch(lookup: .locked, alternative: i) }
                if found != nil {
                    result.alternative = i
                    break
                }
                if isLocked { break }
            }
            paths.append(found)
            results.append(result)
        }
        let wanted = paths.compactMap { $0 }
        guard !wanted.isEmpty else { return results }
        // A NULL-terminated array of the paths; libsecret copies what it needs.
        var cPaths: [UnsafeMutablePointer<gchar>?] = wanted.map { strdup($0) } + [nil]
        defer { for p in cPaths { free(p) } }
        let values = cPaths.withUnsafeMutableBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: UnsafePointer<gchar>?.self, capacity: buffer.count) {
                secret_service_get_secrets_for_dbus_paths_sync(service, $0, nil, &err)
            }
        }
        if let message = Self.take(&err) { throw Self.error(message) }
        defer { if let values { g_hash_table_unref(values) } }
        for (i, path) in paths.enumerated() {
            guard let path else { continue }
            // Deleted between the two calls: as if it had not been found.
            guard let values, let raw = path.withCString({ g_hash_table_lookup(values, $0) }) else {
                results[i] = SecretStoreFirstMatch(lookup: .notFound, alternative: nil)
                continue
            }
            var length: gsize = 0
            guard let p = secret_value_get(OpaquePointer(raw), &length), length > 0 else {
                results[i].lookup = .found([])
                continue
            }
            results[i].lookup = .found(p.withMemoryRebound(to: UInt8.self, capacity: Int(length)) { Array(UnsafeBufferPointer(start: $0, count: Int(length))) })
        }
        return results
    }

    /// Connects and opens the Secret Service session (libsecret keeps both for the process).
    package func prepare() {
        if case .connected(let service) = connect() { g_object_unref(gpointer(service)) }
    }

    package func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) {
        SchedulePoint.reach(.keychainWrite, Self.pointDetail(attributes))
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        let table = Self.hashTable(attributes)
        defer { g_hash_table_unref(table) }
        // secret_value_new copies the bytes; an empty value (reset, createIfNotPresent) still needs a valid pointer.
        var bytes = secret.map { gchar(bitPattern: $0) }
        let length = bytes.count
        if bytes.isEmpty { bytes = [0] }
        let value = bytes.withUnsafeBufferPointer { secret_value_new($0.baseAddress, gssize(length), "application/octet-stream") }
        defer { secret_value_unref(gpointer(value)) }
        var err: UnsafeMutablePointer<GError>?
        let ok = secret_service_store_sync(service, schema, table, nil, label, value, nil, &err)
        if let message = Self.take(&err) { throw Self.error(message) }
        if ok == 0 { throw KeychainError(status: .io, message: "the Secret Service refused to store the item") }
    }

    @discardableResult
    package func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool {
        SchedulePoint.reach(.keychainDelete, Self.pointDetail(attributes))
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        let table = Self.hashTable(attributes)
        defer { g_hash_table_unref(table) }
        var err: UnsafeMutablePointer<GError>?
        let removed = secret_service_clear_sync(service, schema, table, nil, &err)
        if let message = Self.take(&err) { throw Self.error(message) }
        return removed != 0
    }

    /// Locks the default collection, as the device does when it locks. For tests and `scenario`s.
    package func lockDefaultCollection() throws(KeychainError) {
        let service = try requireService()
        defer { g_object_unref(gpointer(service)) }
        var err: UnsafeMutablePointer<GError>?
        guard let collection = secret_collection_for_alias_sync(service, "default", SECRET_COLLECTION_NONE, nil, &err) else {
            throw KeychainError(status: .notAvailable, message: Self.take(&err) ?? "no default collection to lock")
        }
        defer { g_object_unref(gpointer(collection)) }
        let objects = g_list_append(nil, gpointer(collection))
        defer { g_list_free(objects) }
        _ = secret_service_lock_sync(service, objects, nil, nil, &err)
        if let message = Self.take(&err) { throw Self.error(message) }
    }

    // MARK: Internals

    private enum Connection {
        case connected(UnsafeMutablePointer<SecretService>)
        case unavailable(SecretStoreAvailability)
    }

    private func connect() -> Connection {
        var err: UnsafeMutablePointer<GError>?
        let flags = SecretServiceFlags(rawValue: SECRET_SERVICE_OPEN_SESSION.rawValue)
        let service = secret_service_get_sync(flags, nil, &err)
        if let message = Self.take(&err) {
            if let service { g_object_unref(gpointer(service)) }
            return .unavailable(Self.classify(message))
        }
        guard let service else { return .unavailable(.noSecretService(detail: "libsecret returned no service")) }
        return .connected(service)
    }

    private func requireService() throws(KeychainError) -> UnsafeMutablePointer<SecretService> {
        switch connect() {
        case .connected(let s): return s
        case .unavailable(let a): throw KeychainHelper.error(for: a)
        }
    }

    /// What a schedule point names of an item: its service, or its key tag, and its access group.
    static func pointDetail(_ attributes: [String: String]) -> String {
        let name = attributes["service"] ?? attributes["tag"].map { "key " + $0 } ?? attributes.keys.sorted().filter { $0 != "device" }.joined(separator: ",")
        return attributes["accessGroup"].map { name + " in " + $0 } ?? name
    }

    static func classify(_ message: String) -> SecretStoreAvailability {
        let lower = message.lowercased()
        if lower.contains("org.freedesktop.secrets") || lower.contains("serviceunknown") || lower.contains("not provided") {
            return .noSecretService(detail: message)
        }
        return .noSessionBus(detail: message)
    }

    static func error(_ message: String) -> KeychainError {
        if message.lowercased().contains("locked") {
            return KeychainError(
                status: .interactionNotAllowed, message: "the keychain is locked (\(message)); unlock the default collection")
        }
        return KeychainError(status: .io, message: "Secret Service error: \(message)")
    }

    static func take(_ err: inout UnsafeMutablePointer<GError>?) -> String? {
        guard let e = err else { return nil }
        let message = e.pointee.message.map { String(cString: $0) } ?? "unknown error"
        g_error_free(e)
        err = nil
        return message
    }

    static func hashTable(_ attributes: [String: String]) -> OpaquePointer {
        let table = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free)!
        for (k, v) in attributes {
            g_hash_table_insert(table, g_strdup(k), g_strdup(v))
        }
        return table
    }

    static func dictionary(_ table: OpaquePointer) -> [String: String] {
        var out: [String: String] = [:]
        var iter = GHashTableIter()
        g_hash_table_iter_init(&iter, table)
        var key: gpointer?
        var value: gpointer?
        while g_hash_table_iter_next(&iter, &key, &value) != 0 {
            if let key, let value {
                out[String(cString: key.assumingMemoryBound(to: CChar.self))] =
                    String(cString: value.assumingMemoryBound(to: CChar.self))
            }
        }
        return out
    }
}
