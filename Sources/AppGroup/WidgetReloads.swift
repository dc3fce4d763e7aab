import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// WidgetKit's `WidgetCenter` reloads, as the simulated device records them: one JSON line per call in
/// `WidgetKit/<app bundle id>.jsonl` (the app whose widgets reload; an extension's calls count for its
/// host app, as on iOS). `extension-widget --watch` re-renders when a reload is added; `inspect` lists them.
///
/// The file is bounded: past `compactAtBytes` it is compacted to its newest `keptAfterCompaction` lines, and
/// a first line `{"compacted": N}` keeps the count of those dropped, so the total is never lost. An app that
/// reloads 140,000 times leaves a file of a few hundred kilobytes, and a watcher reads only what is new.
package enum WidgetReloads {
    package struct Reload: Codable, Sendable, Equatable {
        /// Milliseconds since 1970.
        package var time: Int64
        /// The widget kind, or nil for `reloadAllTimelines()`.
        package var kind: String?
        /// The bundle whose code called it.
        package var from: String
    }

    /// The first line of a compacted file.
    struct Header: Codable {
        var compacted: Int
    }

    package static let compactAtBytes = 256 * 1024
    package static let keptAfterCompaction = 1000

    package static func file(_ layout: DeviceLayout, app bundleID: String) -> URL {
        layout.root.appendingPathComponent("WidgetKit").appendingPathComponent("\(bundleID).jsonl")
    }

    /// Appends one reload, and compacts the file once it is past `compactAtBytes`. Writers hold an exclusive
    /// lock beside the file, so an append is never lost to a compaction, and two processes both count.
    package static func record(_ layout: DeviceLayout, app bundleID: String, kind: String?, from caller: String) throws {
        let url = file(layout, app: bundleID)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let reload = Reload(time: Int64((Date().timeIntervalSince1970 * 1000).rounded()), kind: kind, from: caller)
        let line = try JSONEncoder().encode(reload) + Data("\n".utf8)
        try withLock(url) {
            let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard fd >= 0 else { throw FileError(path: url.path, reason: "cannot be written (\(SecureFiles.errnoString()))") }
            defer { close(fd) }
            let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard written == line.count else { throw FileError(path: url.path, reason: "a reload could not be appended (\(SecureFiles.errnoString()))") }
            var info = stat()
            if fstat(fd, &info) == 0, Int(info.st_size) > compactAtBytes { try compact(url) }
        }
    }

    private static func withLock<T>(_ url: URL, _ body: () throws -> T) throws -> T {
        let lock = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock")
        let fd = open(lock.path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw FileError(path: lock.path, reason: "cannot be opened (\(SecureFiles.errnoString()))") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else { throw FileError(path: lock.path, reason: "cannot be locked (\(SecureFiles.errnoString()))") }
        }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Keeps the newest lines and adds the dropped ones to the header's count; replaced atomically, so a
    /// reader sees the file before or after, each whole.
    private static func compact(_ url: URL) throws {
        guard let data = try SecureFiles.readIfPresent(url) else { return }
        let (compacted, lines) = parse(data)
        let kept = lines.suffix(keptAfterCompaction)
        let header = try JSONEncoder().encode(Header(compacted: compacted + lines.count - kept.count))
        var out = header + Data("\n".utf8)
        for line in kept { out += line + Data("\n".utf8) }
        try SecureFiles.writeAtomically(out, to: url, durability: .atomic)
    }

    /// The header's count and every other complete line.
    static func parse(_ data: Data) -> (compacted: Int, lines: [Data]) {
        var compacted = 0
        var lines: [Data] = []
        for (i, line) in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: true).enumerated() {
            if i == 0, line.first == UInt8(ascii: "{"), let header = try? JSONDecoder().decode(Header.self, from: Data(line)) {
                compacted = header.compacted
                continue
            }
            lines.append(Data(line))
        }
        return (compacted, lines)
    }

    /// The reloads the file keeps (all of them, until it was compacted), oldest first; a line that is not a
    /// reload is skipped.
    package static func all(_ layout: DeviceLayout, app bundleID: String) -> [Reload] {
        guard let data = FileManager.default.contents(atPath: file(layout, app: bundleID).path) else { return [] }
        return parse(data).lines.compactMap { try? JSONDecoder().decode(Reload.self, from: $0) }
    }

    /// How many reloads were ever recorded: those compacted away and those kept.
    package static func count(_ layout: DeviceLayout, app bundleID: String) -> Int {
        guard let data = FileManager.default.contents(atPath: file(layout, app: bundleID).path) else { return 0 }
        let (compacted, lines) = parse(data)
        return compacted + lines.count
    }

    /// Follows one app's reload count reading only what was added since the last look: one `stat` when
    /// nothing changed, the new bytes when the file grew, the whole (bounded) file when it was compacted.
    package struct Tail {
        let url: URL
        private var inode: UInt64 = 0
        private var offset: Int = 0
        package private(set) var count = 0

        package init(_ layout: DeviceLayout, app bundleID: String) {
            url = WidgetReloads.file(layout, app: bundleID)
            _ = poll()
        }

        /// The count now; true when it changed since the last poll.
        @discardableResult
        package mutating func poll() -> Bool {
            var info = stat()
            guard stat(url.path, &info) == 0 else {
                defer { (inode, offset, count) = (0, 0, 0) }
                return count != 0
            }
            let before = count
            if UInt64(info.st_ino) != inode || Int(info.st_size) < offset {
                // New or compacted: read it whole (it is bounded).
                guard let data = FileManager.default.contents(atPath: url.path) else { return false }
                let complete = data.lastIndex(of: UInt8(ascii: "\n")).map { data.startIndex..<($0 + 1) } ?? data.startIndex..<data.startIndex
                let (compacted, lines) = WidgetReloads.parse(data[complete])
                count = compacted + lines.count
                inode = UInt64(info.st_ino)
                offset = complete.count
                return count != before
            }
            guard Int(info.st_size) > offset else { return false }
            let fd = open(url.path, O_RDONLY | O_CLOEXEC)
            guard fd >= 0 else { return false }
            defer { close(fd) }
            var buffer = [UInt8](repeating: 0, count: Int(info.st_size) - offset)
            let n = pread(fd, &buffer, buffer.count, off_t(offset))
            guard n > 0, let last = buffer[0..<n].lastIndex(of: UInt8(ascii: "\n")) else { return false }
            // Only complete lines count; a line still being written is read next time.
            count += buffer[0...last].filter { $0 == UInt8(ascii: "\n") }.count
            offset += last + 1
            return count != before
        }
    }
}
