import Foundation

/// A bundle's `userstore.json` / `globalstore.json`: the soups and their indexes.
///
/// ```json
/// {"soups": [{"soupName": "contacts", "indexes": [{"path": "Id", "type": "string"}]}]}
/// ```
public struct StoreConfig: Sendable, Decodable, Equatable {
    public struct Soup: Sendable, Decodable, Equatable {
        public var soupName: String
        public var indexes: [IndexSpec]
    }

    public var soups: [Soup]

    /// Reads the file; nil when it does not exist.
    public static func load(_ url: URL) throws -> StoreConfig? {
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try JSONDecoder().decode(StoreConfig.self, from: data)
        } catch {
            throw SmartStoreError.invalidQuery("\(url.path) is not a valid store config (\(error)); expected {\"soups\": [{\"soupName\", \"indexes\": [{\"path\", \"type\"}]}]}")
        }
    }

    /// Registers every soup (existing ones are left as they are).
    public func register(in store: SmartStore) throws {
        for soup in soups { try store.registerSoup(soup.soupName, indexSpecs: soup.indexes) }
    }
}
