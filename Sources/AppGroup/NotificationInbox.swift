import Crypto
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An app's notification inbox on the simulated device (`Notifications/<app bundle id>/inbox`, where the org's
/// APNs stand-in delivers): iOS's side of handing a remote notification to the app's notification service
/// extension, whichever runs it (`extension-notification`, or a developer's own extension through
/// `msdk-sim device deliver` and AppGroupSimTesting).
package enum NotificationInbox {
    /// What a look into the inbox found: the payload to show (moved to `delivered/`), and what it passed over.
    package struct Taken: Sendable, Equatable {
        package var file: URL?
        /// Inbox entries that are not regular files (a link, a FIFO, a directory): never opened, left in place.
        package var refused: [String] = []
        /// Payloads byte-identical to one shown before: moved to `delivered/` and not shown again.
        package var duplicates: [String] = []
    }

    /// The payloads' names in an inbox (or its `delivered/`), oldest first: `*.json`, not the `.…tmp` a delivery
    /// writes before it renames.
    package static func payloadNames(in directory: URL) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).filter { !$0.hasPrefix(".") && $0.hasSuffix(".json") }.sorted()
    }

    /// Takes the oldest payload from the host app's inbox: it is moved, whole, to `delivered/` before it is
    /// read, so two extensions running at once never show one notification twice, and nothing is lost. An
    /// entry that is not a regular file is refused by name and left; a payload whose bytes were shown before
    /// (APNs delivered it twice) is moved to `delivered/` but not shown: the first process to claim its
    /// SHA-256 (`shown/<hash>`, created exclusively) shows it.
    package static func takeNext(_ layout: DeviceLayout, app: String) throws -> Taken {
        let inbox = layout.notificationInbox(bundleID: app)
        var taken = Taken()
        let names = payloadNames(in: inbox)
        guard !names.isEmpty else { return taken }
        let delivered = layout.deliveredNotifications(bundleID: app)
        let shown = layout.shownNotifications(bundleID: app)
        try SecureFiles.makeDirectory(delivered)
        try SecureFiles.makeDirectory(shown)
        for name in names {
            let from = inbox.appendingPathComponent(name)
            var info = stat()
            guard lstat(from.path, &info) == 0 else { continue }
            guard info.st_mode & S_IFMT == S_IFREG else {
                taken.refused.append("\(name) (\(SecureFiles.kind(info.st_mode)))")
                continue
            }
            let to = delivered.appendingPathComponent(name)
            if rename(from.path, to.path) != 0 {
                // Another extension process took it first.
                if errno == ENOENT { continue }
                throw FileError(path: from.path, reason: "cannot be moved to \(delivered.path) (\(String(cString: strerror(errno))))")
            }
            // Read through no link: what was renamed is what is read (a link swapped in meanwhile is refused).
            let bytes: Data
            do {
                guard let data = try SecureFiles.readRegularFileNoFollow(to) else { continue }
                bytes = data
            } catch {
                taken.refused.append("\(name) (\(error))")
                continue
            }
            let digest = SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined()
            let marker = open(shown.appendingPathComponent(digest).path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            if marker < 0 {
                if errno == EEXIST {
                    taken.duplicates.append(name)
                    continue
                }
                throw FileError(path: shown.path, reason: "cannot record a shown notification (\(String(cString: strerror(errno))))")
            }
            _ = name.withCString { write(marker, $0, strlen($0)) }
            close(marker)
            taken.file = to
            return taken
        }
        return taken
    }
}
