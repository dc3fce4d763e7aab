import Foundation

/// A bundle's `userstore.json` / `globalstore.json`: the soups and their indexes.
///
/// ```json
/// {"soups": [{"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"}]}]}
/// ```
package struct StoreConfig: Sendable, Decodable, Equatable {
    package struct Soup: Sendable, Decodable, Equatable {
        package var soupName: String
        package var indexes: [IndexSpec]
    }

    package var soups: [Soup]

    /// Reads the file; nil when it does not exist.
    package static func load(_ url: URL) throws -> StoreConfig? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(StoreConfig.self, from: data)
        } catch {
            throw SmartStoreError.invalidQuery("\(url.path) is not a valid store config (\(error)); expected {\"soups\": [{\"soupName\", \"indexes\": [{\"path\", \"type\"}]}]}")
        }
    }

    /// Registers every soup (existing ones are left as they are).
    package func register(in store: SmartStore) throws {
        for soup in soups { try store.registerSoup(soup.soupName, indexSpecs: soup.indexes) }
    }
}
