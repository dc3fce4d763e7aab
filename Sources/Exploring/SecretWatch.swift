import Foundation

/// The `secret-exposed` invariant, in one place for both explorers (`msdk-sim explore` and AppGroupSimTesting's
/// `DeviceExploration`): no token of the device's keychain is in any actor's output or in any file of the device.
///
/// The explorer gives it the keychain's values as it finds them (`learn`); a token is a value of printable text
/// of 20 characters or more (keys and other binary values are not looked for: a random key's bytes are no text
/// a log would hold, and short values would match by chance).
package struct SecretWatch: Sendable {
    package private(set) var secrets: Set<String> = []

    package init() {}

    /// Keeps the tokens among the keychain's values.
    package mutating func learn(_ values: [[UInt8]]) {
        for value in values where value.count >= 20 && value.allSatisfy({ $0 >= 0x21 && $0 < 0x7f }) {
            secrets.insert(String(decoding: value, as: UTF8.self))
        }
    }

    /// Whether any of `outputs` holds a token.
    package func isExposed(in outputs: String...) -> Bool {
        secrets.contains { secret in outputs.contains { $0.contains(secret) } }
    }

    /// `text` with every token replaced by `<token>`: what an explorer prints of an actor's output.
    package func redacted(_ text: String) -> String {
        secrets.reduce(text) { $0.contains($1) ? $0.replacingOccurrences(of: $1, with: "<token>") : $0 }
    }

    /// The first file under `root` (in path order) that holds a token, or nil.
    package func fileHolding(under root: URL) -> URL? {
        guard !secrets.isEmpty, let walker = FileManager.default.enumerator(at: root, includingPropertiesForKeys: [.isRegularFileKey]) else { return nil }
        let needles = secrets.sorted().map { Data($0.utf8) }
        var files: [URL] = []
        for case let url as URL in walker where (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true { files.append(url) }
        for url in files.sorted(by: { $0.path < $1.path }) {
            guard let data = WholeFile.data(url) else { continue }
            if needles.contains(where: { data.range(of: $0) != nil }) { return url }
        }
        return nil
    }
}
