import AppGroup
import Crypto
import Foundation
import Keychain
#if canImport(Glibc)
import Glibc
#endif

/// An encrypted iOS backup of a device, and its restore to a new phone (issue 36, item 5): what the apps kept in
/// their containers (every file with its data protection class, except caches and temporary files), the apps
/// installed, and the keychain items, except those of the `…ThisDeviceOnly` classes, which an encrypted backup
/// leaves behind (the SDK's default class is one of them: tokens and keys do not come along).
///
/// The archive is one property list (binary; `plistlib` reads it; its reading and writing: `DeviceBackupArchive`):
/// `Files` lists each file's path, class, size and SHA-256, `Contents` holds the bytes. The keychain items never
/// leave the Secret Service: a backup copies them there under the backup's id (attribute `backup`, no `device`, so
/// no process of any device sees them), and a restore copies them to the new device. No secret is ever in the archive.
package enum DeviceBackup {
    package static let format = "AppGroupSim device backup 1"

    package struct Summary: Sendable, Equatable {
        package var backupID: String
        package var files: Int
        package var bytes: Int
        /// Keychain items carried (in the Secret Service, under the backup's id).
        package var keychainItems: Int
        /// Keychain items left behind: their class is `…ThisDeviceOnly`.
        package var keychainItemsLeftOut: Int
        package var apps: [String]
    }

    package enum Failure: Error, CustomStringConvertible, LocalizedError, Equatable {
        case deviceNotUnlocked(DeviceLockState)
        case notABackup(path: String, reason: String)
        case targetNotNew(path: String)
        case notEnoughSpace(path: String, needed: UInt64, free: UInt64)
        case tooLarge(path: String, reason: String)

        package var description: String {
            switch self {
            case .deviceNotUnlocked(let state):
                return "the device is \(state.rawValue): iOS asks for the passcode before a backup; run msdk-sim device unlock first"
            case .notABackup(let path, let reason):
                return "\(path) is not an AppGroupSim device backup (\(reason)); nothing was restored"
            case .targetNotNew(let path):
                return "\(path) already holds a device: a backup is restored to a new phone; name a directory that does not exist"
            case .tooLarge(let path, let reason):
                return "\(path) is too large to restore here: \(reason); nothing was restored"
            case .notEnoughSpace(let path, let needed, let free):
                return "the backup's files need \(DeviceBackupArchive.megabytes(needed)) and \(path) has \(DeviceBackupArchive.megabytes(free)) free; free some space or restore elsewhere; nothing was restored"
            }
        }

        package var errorDescription: String? { description }
    }

    /// Writes the backup of `device` to `out` (0600, atomically) and copies its restorable keychain items under
    /// a new backup id.
    package static func backup(_ device: Device, store: any SecretStore, to out: URL) throws -> Summary {
        let state = try device.lockState()
        guard state == .unlocked else { throw Failure.deviceNotUnlocked(state) }
        var files: [DeviceBackupArchive.File] = []
        var contents: [String: Data] = [:]
        var bytes = 0
        for (relative, url) in try regularFiles(under: device.root.appendingPathComponent("Containers"), relativeTo: device.root) {
            guard let data = try SecureFiles.readIfPresent(url) else { continue }
            let protection = FileProtection.effectiveClass(of: url)
            files.append(DeviceBackupArchive.File(Path: relative, Protection: protection.rawValue, Size: data.count, SHA256: hex(SHA256.hash(data: data))))
            contents[relative] = data
            bytes += data.count
        }
        let installed = try SharedDefaults(url: device.root.appendingPathComponent("InstalledApps.plist")).dictionaryRepresentation()
        let backupID = UUID().uuidString
        var carried = 0
        var leftOut = 0
        for item in try store.search(["device": device.id.uuidString]) {
            if KeychainAccessibility.of(item.attributes).thisDeviceOnly {
                leftOut += 1
                continue
            }
            var attributes = item.attributes
            attributes["device"] = nil
            attributes["backup"] = backupID
            try store.store(attributes, label: "AppGroupSim backup \(backupID.prefix(8)): \(attributes["service"] ?? "")", secret: item.secret)
            carried += 1
        }
        let archive = DeviceBackupArchive(
            format: format, backupID: backupID, date: Date(), device: .init(ID: device.id.uuidString, TeamID: device.teamID),
            apps: installed, files: files, contents: contents, keychain: .init(Items: carried, LeftOutThisDeviceOnly: leftOut))
        let data = try archive.encoded()
        try SecureFiles.writeAtomically(data, to: out)
        return Summary(backupID: backupID, files: files.count, bytes: bytes, keychainItems: carried, keychainItemsLeftOut: leftOut, apps: installed.keys.sorted())
    }

    /// Makes a new device at `root` (a new id) from the backup at `file`: its files with their classes, its
    /// installed apps, and the keychain items the backup carried. The new device is unlocked (its user has just
    /// set it up).
    package static func restore(_ file: URL, to root: URL, store: any SecretStore,
                                freeSpace: (URL) -> UInt64? = { DeviceBackup.freeSpace(at: $0) }) throws -> (Device, Summary) {
        guard let data = try SecureFiles.readIfPresent(file) else { throw Failure.notABackup(path: file.path, reason: "there is no such file") }
        let archive: DeviceBackupArchive
        switch DeviceBackupArchive.decode(data) {
        case .success(let read): archive = read
        case .failure(let refusal) where refusal.tooLarge: throw Failure.tooLarge(path: file.path, reason: refusal.reason)
        case .failure(let refusal): throw Failure.notABackup(path: file.path, reason: refusal.reason)
        }
        guard archive.Format == format, let backupID = archive.BackupID, let files = archive.Files, let contents = archive.Contents
        else { throw Failure.notABackup(path: file.path, reason: "no \(format) keys (Format, BackupID, Files, Contents)") }
        // Every entry is checked before anything is written: a path that leaves the containers, or bytes that
        // are not the ones listed, refuse the whole backup.
        var entries: [(path: String, data: Data, protection: FileProtectionClass)] = []
        for entry in files {
            guard let path = entry.Path, isContainerPath(path) else {
                throw Failure.notABackup(path: file.path, reason: "a file path outside Containers/: \(visible(entry.Path ?? "none"))")
            }
            guard let bytes = contents[path], let sha = entry.SHA256, hex(SHA256.hash(data: bytes)) == sha
            else { throw Failure.notABackup(path: file.path, reason: "the bytes of \(path) are missing or not the ones listed") }
            guard let name = entry.Protection, let protection = FileProtectionClass(rawValue: name) else {
                throw Failure.notABackup(path: file.path, reason: "\(path) has no valid Protection")
            }
            entries.append((path, bytes, protection))
        }
        if FileManager.default.fileExists(atPath: root.appendingPathComponent("device.json").path) { throw Failure.targetNotNew(path: root.path) }
        // The files are written only once every one of them fits: a disk that fills halfway would leave half a phone.
        let needed = entries.reduce(UInt64(0)) { $0 + UInt64($1.data.count) }
        if let free = freeSpace(root), needed > free { throw Failure.notEnoughSpace(path: root.path, needed: needed, free: free) }
        let team = archive.Device?.TeamID
        let device = try Device.open(at: root, teamID: team)
        try device.markRestored(from: backupID)
        var bytes = 0
        for entry in entries {
            try SecureFiles.writeAtomically(entry.data, to: root.appendingPathComponent(entry.path), protection: entry.protection)
            bytes += entry.data.count
        }
        let apps = archive.apps
        let registry = SharedDefaults(url: root.appendingPathComponent("InstalledApps.plist"))
        try registry.updateAll { dict in
            for (id, value) in apps { dict[id] = value }
        }
        var carried = 0
        for item in try store.search(["backup": backupID]) {
            var attributes = item.attributes
            attributes["backup"] = nil
            attributes["device"] = device.id.uuidString
            try store.store(attributes, label: "\(attributes["service"] ?? "") (\(attributes["accessGroup"] ?? ""))", secret: item.secret)
            carried += 1
        }
        let leftOut = archive.Keychain?.LeftOutThisDeviceOnly ?? 0
        return (device, Summary(backupID: backupID, files: entries.count, bytes: bytes, keychainItems: carried, keychainItemsLeftOut: leftOut, apps: apps.keys.sorted()))
    }

    /// The bytes an unprivileged writer may still use on the file system that holds `url` (its nearest existing
    /// folder); nil when it cannot be told.
    package static func freeSpace(at url: URL) -> UInt64? {
        var folder = url
        while !FileManager.default.fileExists(atPath: folder.path), folder.path != "/" { folder.deleteLastPathComponent() }
        var info = statvfs()
        guard statvfs(folder.path, &info) == 0 else { return nil }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// A digest in lowercase hex, as the archive's `SHA256` fields hold it.
    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(64)
        for byte in digest { out += [digits[Int(byte >> 4)], digits[Int(byte & 15)]] }
        return String(decoding: out, as: UTF8.self)
    }

    /// `Containers/…`, made of plain components (no `.`, `..` or empty ones).
    static func isContainerPath(_ path: String) -> Bool {
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        return parts.count > 2 && parts[0] == "Containers" && !parts.contains { $0.isEmpty || $0 == "." || $0 == ".." } && !path.contains("\0")
    }

    /// What a backup of `device` would hold, as one SHA-256 (hex): each file's path and bytes, and the apps
    /// installed. Two devices with the same files and apps have the same fingerprint, whatever their ids.
    package static func fingerprint(_ device: Device) throws -> String {
        var hash = SHA256()
        for (relative, url) in try regularFiles(under: device.root.appendingPathComponent("Containers"), relativeTo: device.root) {
            guard let data = try SecureFiles.readIfPresent(url) else { continue }
            hash.update(data: Data("\(relative)\u{0}\(data.count)\u{0}".utf8))
            hash.update(data: data)
        }
        let installed = try SharedDefaults(url: device.root.appendingPathComponent("InstalledApps.plist")).dictionaryRepresentation()
        for id in installed.keys.sorted() { hash.update(data: Data("app\u{0}\(id)\u{0}".utf8)) }
        return hex(hash.finalize())
    }

    /// The regular files under `folder` (never through a link), as paths relative to `base`, sorted; caches,
    /// temporary files, lock files and writers' temp files stay out, as iOS leaves them out of a backup.
    static func regularFiles(under folder: URL, relativeTo base: URL) throws -> [(String, URL)] {
        var out: [(String, URL)] = []
        let prefix = base.standardizedFileURL.path + "/"
        func walk(_ dir: URL) throws {
            for name in try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted() {
                let url = dir.appendingPathComponent(name)
                var info = stat()
                guard lstat(url.path, &info) == 0 else { continue }
                let relative = String(url.standardizedFileURL.path.dropFirst(prefix.count))
                switch info.st_mode & S_IFMT {
                case S_IFDIR:
                    if relative.hasSuffix("/Library/Caches") || relative.hasSuffix("/tmp") { continue }
                    try walk(url)
                case S_IFREG:
                    if name.hasSuffix(".lock") || name.contains(".tmp-") { continue }
                    out.append((relative, url))
                default: continue
                }
            }
        }
        var info = stat()
        if lstat(folder.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR { try walk(folder) }
        return out
    }
}
