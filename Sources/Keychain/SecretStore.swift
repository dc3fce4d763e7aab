/// Whether a secret store can be used right now. A locked collection is told apart from an empty one:
/// libsecret answers lookups in a locked collection with nothing and no error.
package enum SecretStoreAvailability: Sendable, Equatable {
    case ready
    /// No D-Bus session bus to talk to.
    case noSessionBus(detail: String)
    /// A bus, but nobody provides `org.freedesktop.secrets` on it.
    case noSecretService(detail: String)
    /// A Secret Service with no default collection (gnome-keyring started without `--unlock`).
    case noDefaultCollection
    /// The default collection exists and is locked.
    case locked
}

/// One stored item: its attributes and its value.
package struct SecretStoreItem: Sendable, Equatable {
    package var attributes: [String: String]
    package var secret: [UInt8]
}

/// The storage under `KeychainHelper`: the Secret Service in production and in integration tests,
/// an in-memory double in unit tests. Attribute matching is by subset: an item matches when it has
/// every given attribute with the given value.
package protocol SecretStore: Sendable {
    func availability() -> SecretStoreAvailability
    func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem]
    /// The value of the first item matching `attributes`, without its attributes: a launch's read. A
    /// store may answer this with fewer trips than `availability()` then `search` (the Secret Service:
    /// two calls instead of a dozen), and must tell a locked match apart from no match.
    func lookup(_ attributes: [String: String]) throws(KeychainError) -> SecretStoreLookup
    /// Several reads at once: for each list of alternatives (one item in several groups, in order), what
    /// `lookup` gives for the first alternative that is found or locked, `.notFound` when none is. A store may
    /// fetch every found value in one trip (the Secret Service: one SearchItems per alternative tried, then one
    /// GetSecrets for all the values).
    func lookupFirst(_ reads: [[[String: String]]]) throws(KeychainError) -> [SecretStoreFirstMatch]
    /// Opens what later calls need (the Secret Service: the D-Bus connection and its session), so that a
    /// launch can do it while it reads its files. Errors are left for the calls that follow.
    func prepare()
    /// Creates the item, or replaces the value of the item with exactly these attributes.
    func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError)
    /// Deletes every matching item; true if there was one.
    @discardableResult
    func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool
}

/// What `SecretStore.lookup` found.
package enum SecretStoreLookup: Sendable, Equatable {
    case found([UInt8])
    case notFound
    /// A matching item exists in a locked collection: its value cannot be read now.
    case locked
}

/// What `SecretStore.lookupFirst` found for one read: the lookup, and which alternative gave it (nil when none).
package struct SecretStoreFirstMatch: Sendable, Equatable {
    package var lookup: SecretStoreLookup
    package var alternative: Int?
}

extension SecretStore {
    /// `availability()` then `search`: right for any store, and what a double needs.
    package func lookup(_ attributes: [String: String]) throws(KeychainError) -> SecretStoreLookup {
        switch availability() {
        case .ready: break
        case .locked: return .locked
        case let other: throw KeychainHelper.error(for: other)
        }
        return try search(attributes).first.map { .found($0.secret) } ?? .notFound
    }

    /// One `lookup` per alternative, in order: right for any store.
    package func lookupFirst(_ reads: [[[String: String]]]) throws(KeychainError) -> [SecretStoreFirstMatch] {
        var out: [SecretStoreFirstMatch] = []
        for alternatives in reads {
            var match = SecretStoreFirstMatch(lookup: .notFound, alternative: nil)
            for (i, attributes) in alternatives.enumerated() {
                let result = try lookup(attributes)
                if result != .notFound {
                    match = SecretStoreFirstMatch(lookup: result, alternative: i)
                    break
                }
            }
            out.append(match)
        }
        return out
    }

    package func prepare() {}
}
