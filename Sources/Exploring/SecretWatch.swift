import Foundation
#if canImport(Glibc)
import Glibc
#endif

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

    /// The first file under `root` (in path order) that holds a token, or nil. Regular files only, hidden ones
    /// included; a symbolic link is neither read nor followed (what it points to is judged where it is).
    package func fileHolding(under root: URL) -> URL? {
        guard !secrets.isEmpty else { return nil }
        let needles = secrets.sorted().map { Array($0.utf8) }
        for path in Self.regularFiles(under: root.path).sorted() {
            guard let data = WholeFile.data(URL(fileURLWithPath: path)) else { continue }
            let found = data.withUnsafeBytes { bytes in
                needles.contains { needle in
                    needle.withUnsafeBytes { Self.contains(bytes, $0) }
                }
            }
            if found { return URL(fileURLWithPath: path) }
        }
        return nil
    }

    /// Whether `needle` (not empty) occurs in `haystack`: memchr for its first byte, memcmp for the rest (glibc's
    /// memmem is a GNU extension that Swift's Glibc module does not show).
    package static func contains(_ haystack: UnsafeRawBufferPointer, _ needle: UnsafeRawBufferPointer) -> Bool {
        guard let base = haystack.baseAddress, let first = needle.first, let rest = needle.baseAddress, needle.count <= haystack.count else { return false }
        var offset = 0
        let last = haystack.count - needle.count
        while offset <= last {
            guard let hit = memchr(base + offset, Int32(first), last - offset + 1) else { return false }
            let at = base.distance(to: UnsafeRawPointer(hit))
            if memcmp(base + at, rest, needle.count) == 0 { return true }
            offset = at + 1
        }
        return false
    }

    /// Every regular file under `root`, by POSIX calls: at each run's end the explorer walks the whole device, and
    /// FileManager's enumerator asking each URL whether it is a regular file was most of that walk's time.
    static func regularFiles(under root: String) -> [String] {
        var out: [String] = []
        var folders = [root]
        while let folder = folders.popLast() {
            guard let dir = opendir(folder) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                if name == "." || name == ".." { continue }
                let path = folder + "/" + name
                var info = stat()
                guard lstat(path, &info) == 0 else { continue }
                switch info.st_mode & S_IFMT {
                case S_IFDIR: folders.append(path)
                case S_IFREG: out.append(path)
                default: break
                }
            }
        }
        return out
    }
}
