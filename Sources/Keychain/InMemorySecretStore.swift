import Foundation

/// A `SecretStore` in memory, for unit tests of code above the keychain. It can be switched to
/// any availability to exercise the failure paths; it never touches the Secret Service.
package final class InMemorySecretStore: SecretStore, @unchecked Sendable {
    private let lock = NSLock()
    private var items: [SecretStoreItem] = []
    private var state: SecretStoreAvailability = .ready

    package init() {}

    package func setAvailability(_ availability: SecretStoreAvailability) {
        lock.withLock { state = availability }
    }

    package var count: Int { lock.withLock { items.count } }

    package func availability() -> SecretStoreAvailability { lock.withLock { state } }

    package func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
        lock.withLock { items.filter { Self.matches($0, attributes) } }
    }

    package func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) {
        lock.withLock {
            if let i = items.firstIndex(where: { $0.attributes == attributes }) {
                items[i].secret = secret
            } else {
                items.append(SecretStoreItem(attributes: attributes, secret: secret))
            }
        }
    }

    package func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool {
        lock.withLock {
            let before = items.count
            items.removeAll { Self.matches($0, attributes) }
            return items.count != before
        }
    }

    private static func matches(_ item: SecretStoreItem, _ attributes: [String: String]) -> Bool {
        attributes.allSatisfy { item.attributes[$0.key] == $0.value }
    }
}
