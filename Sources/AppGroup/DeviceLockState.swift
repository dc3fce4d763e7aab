import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The device's lock state, as iOS's data protection sees it (issue 36): before its first unlock after a boot,
/// unlocked, or locked after having been unlocked. Kept in one small file of the device, `lock-state`, that
/// every process reads at each keychain access (one file read, never a D-Bus call). `msdk-sim device reboot`,
/// `unlock` and `lock` change it. The real gnome-keyring stays unlocked: the SDK's layers enforce protection,
/// and a process outside the SDK's API can still read everything (docs/differences.md).
package enum DeviceLockState: String, Codable, Sendable, CaseIterable {
    case beforeFirstUnlock, unlocked, locked

    /// Unlocked now.
    package var isUnlocked: Bool { self == .unlocked }
    /// Unlocked at least once since the last boot.
    package var unlockedSinceBoot: Bool { self != .beforeFirstUnlock }

    /// What the state means, in a few words.
    package var meaning: String {
        switch self {
        case .beforeFirstUnlock: return "rebooted and not unlocked since: only items and files of no protection can be read"
        case .unlocked: return "every class of keychain item and file can be read"
        case .locked: return "unlocked once since its boot, locked now: afterFirstUnlock items and files can be read, whenUnlocked ones cannot"
        }
    }
}

extension Device {
    package var lockStateFile: URL { URL(fileURLWithPath: DeviceLockStateFile(root: root).path, isDirectory: false) }

    /// `DEVICE/restored-from`: the backup this device was made from (`msdk-sim device restore`), nil for a device
    /// that was set up new.
    package var restoredFrom: String? { Self.restoredFrom(root: root) }

    package static func restoredFrom(root: URL) -> String? {
        (try? SecureFiles.readIfPresent(root.appendingPathComponent("restored-from"))).flatMap { $0 }
            .map { String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) }
    }

    /// The backup the device holding `path` (a file in its containers) was restored from.
    package static func restoredFrom(containing path: String) -> String? {
        FileProtection.deviceRoot(of: URL(fileURLWithPath: path)).flatMap { restoredFrom(root: $0) }
    }

    package func markRestored(from backupID: String) throws {
        try SecureFiles.writeAtomically(Data((backupID + "\n").utf8), to: root.appendingPathComponent("restored-from"))
    }

    /// The state now. A device without the file was never rebooted or locked here: unlocked. A file this version
    /// cannot read is an error that names it (nothing then reads as if unlocked).
    package func lockState() throws(DeviceError) -> DeviceLockState { try DeviceLockStateFile(root: root).read() }

    /// The state for the keychain and file layers: a state file that cannot be read counts as before the first
    /// unlock (the strictest), so an unreadable file never gives out more than iOS would.
    package var lockStateOrStrictest: DeviceLockState { DeviceLockStateFile(root: root).stateOrStrictest }

    /// The user locks the phone: a device before its first unlock stays so (its data was never unlocked).
    package func lock() throws {
        try setLockState(try lockState() == .beforeFirstUnlock ? .beforeFirstUnlock : .locked)
    }

    /// Sets the state (written whole, then renamed into place, so a reader never sees half of it).
    package func setLockState(_ state: DeviceLockState) throws {
        try SecureFiles.writeAtomically(Data((state.rawValue + "\n").utf8), to: lockStateFile)
    }
}

/// The device's `lock-state` file, read from the device's root alone: the file layer knows a path, not a
/// `Device`, and reads the same file (`FileProtection.check`). Built from a path, not a URL: every file access
/// reads it, and a URL would be parsed (and its folder looked up) each time.
struct DeviceLockStateFile {
    /// The file's path.
    let path: String

    init(root: URL) { path = root.path + "/lock-state" }

    /// The device whose root is `rootPath`.
    init(rootPath: some StringProtocol) { path = rootPath + "/lock-state" }

    func read() throws(DeviceError) -> DeviceLockState {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        if fd < 0 {
            if errno == ENOENT { return .unlocked }
            throw .unreadable(path: path, reason: String(cString: strerror(errno)))
        }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = Glibc.read(fd, &buffer, buffer.count)
        let text = count > 0 ? String(decoding: buffer[0..<count], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines) : ""
        guard let state = DeviceLockState(rawValue: text) else {
            throw .unreadable(path: path, reason: "it holds '\(visible(String(text.prefix(40))))', not one of \(DeviceLockState.allCases.map(\.rawValue).joined(separator: ", ")); set it with msdk-sim device unlock")
        }
        return state
    }

    /// An unreadable state file counts as before the first unlock (the strictest), so it never gives out more
    /// than iOS would.
    var stateOrStrictest: DeviceLockState { (try? read()) ?? .beforeFirstUnlock }
}
