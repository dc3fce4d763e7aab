/// Whether a secret store can be used right now. A locked collection is told apart from an empty one:
/// libsecret answers lookups in a locked collection with nothing and no error.
public enum SecretStoreAvailability: Sendable, Equatable {
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
public struct SecretStoreItem: Sendable, Equatable {
    public var attributes: [String: String]
    public var secret: [UInt8]
}

/// The storage under `KeychainHelper`: the Secret Service in production and in integration tests,
/// an in-memory double in unit tests. Attribute matching is by subset: an item matches when it has
/// every given attribute with the given value.
public protocol SecretStore: Sendable {
    func availability() -> SecretStoreAvailability
    func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem]
    /// Creates the item, or replaces the value of the item with exactly these attributes.
    func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError)
    /// Deletes every matching item; true if there was one.
    @discardableResult
    func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool
}
