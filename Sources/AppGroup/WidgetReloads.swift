import Foundation

/// WidgetKit's `WidgetCenter` reloads, as the simulated device records them: one JSON line per call in
/// `WidgetKit/<app bundle id>.jsonl` (the app whose widgets reload; an extension's calls count for its
/// host app, as on iOS). `extension-widget --watch` re-renders when the file grows; `inspect` lists them.
package enum WidgetReloads {
    package struct Reload: Codable, Sendable, Equatable {
        /// Milliseconds since 1970.
        package var time: Int64
        /// The widget kind, or nil for `reloadAllTimelines()`.
        package var kind: String?
        /// The bundle whose code called it.
        package var from: String
    }

    package static func file(_ layout: DeviceLayout, app bundleID: String) -> URL {
        layout.root.appendingPathComponent("WidgetKit").appendingPathComponent("\(bundleID).jsonl")
    }

    /// Appends one reload (O_APPEND, one write: two processes reloading at once both count).
    package static func record(_ layout: DeviceLayout, app bundleID: String, kind: String?, from caller: String) throws {
        let url = file(layout, app: bundleID)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let reload = Reload(time: Int64((Date().timeIntervalSince1970 * 1000).rounded()), kind: kind, from: caller)
        let line = try JSONEncoder().encode(reload) + Data("\n".utf8)
        let fd = open(url.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteNoPermission, userInfo: [NSFilePathErrorKey: url.path]) }
        defer { close(fd) }
        let written = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        guard written == line.count else { throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path]) }
    }

    /// Every reload recorded for the app, oldest first; a line that is not a reload is skipped.
    package static func all(_ layout: DeviceLayout, app bundleID: String) -> [Reload] {
        guard let data = FileManager.default.contents(atPath: file(layout, app: bundleID).path) else { return [] }
        return data.split(separator: UInt8(ascii: "\n")).compactMap { try? JSONDecoder().decode(Reload.self, from: Data($0)) }
    }
}
