import CXattr
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's data protection class (`NSFileProtectionType`), as iOS keeps it for every file in an app's
/// containers (issue 36). Kept here as the extended attribute `user.msdk.protection` of the file, so `getfattr`
/// and `ls`-like tools can show it; a file without one has the class iOS gives an app's files by default,
/// `completeUntilFirstUserAuthentication` (also the SDK's `FileProtectionHelper` default).
package enum FileProtectionClass: String, CaseIterable, Sendable, Codable {
    case complete, completeUnlessOpen, completeUntilFirstUserAuthentication, none

    /// iOS's default for an app's files, and the SDK's (`SFFileProtectionHelper.defaultNSFileProtectionMode`).
    package static let sdkDefault = FileProtectionClass.completeUntilFirstUserAuthentication
    /// The extended attribute that holds the class.
    package static let attribute = "user.msdk.protection"

    /// Foundation's name for it (`FileProtectionType.rawValue`, the value of `NSFileProtectionKey`).
    package var foundationName: String {
        switch self {
        case .complete: return "NSFileProtectionComplete"
        case .completeUnlessOpen: return "NSFileProtectionCompleteUnlessOpen"
        case .completeUntilFirstUserAuthentication: return "NSFileProtectionCompleteUntilFirstUserAuthentication"
        case .none: return "NSFileProtectionNone"
        }
    }

    /// The class Foundation's name (or ours) names.
    package init?(name: String) {
        if let own = FileProtectionClass(rawValue: name) {
            self = own
        } else if let match = FileProtectionClass.allCases.first(where: { $0.foundationName == name }) {
            self = match
        } else {
            return nil
        }
    }

    /// iOS's rule: `complete` only while unlocked; `completeUnlessOpen` likewise, except that a new file can
    /// be created (and written) while locked; `completeUntilFirstUserAuthentication` from the first unlock
    /// after a boot; `none` always.
    package func isAvailable(_ state: DeviceLockState, creating: Bool = false) -> Bool {
        switch self {
        case .complete: return state.isUnlocked
        case .completeUnlessOpen: return state.isUnlocked || creating
        case .completeUntilFirstUserAuthentication: return state.unlockedSinceBoot
        case .none: return true
        }
    }
}

/// A file that iOS's data protection would not open in the device's state: `open(2)` fails with EPERM
/// there, which Foundation gives as NSCocoaErrorDomain 257 (reading) or 513 (writing), and SQLite as
/// SQLITE_AUTH. Nothing is changed.
package struct FileProtectionError: Error, CustomStringConvertible, Equatable, LocalizedError {
    package let path: String
    package let protection: FileProtectionClass
    package let state: DeviceLockState
    package let writing: Bool

    /// Foundation's code for it (`NSFileReadNoPermissionError` / `NSFileWriteNoPermissionError`).
    package var cocoaCode: Int { writing ? 513 : 257 }

    package var description: String {
        let state = self.state == .beforeFirstUnlock ? "before its first unlock" : self.state.rawValue
        return "\(path) is protected \(protection.rawValue) (\(protection.foundationName)), which iOS does not "
            + "\(writing ? "write" : "open") while the device is \(state): Operation not permitted (EPERM, NSCocoaErrorDomain \(cocoaCode)); "
            + (protection.isAvailable(.locked)
                ? "it can be read once the device is unlocked after its boot (msdk-sim device unlock)"
                : "give files a background launch reads completeUntilFirstUserAuthentication, the SDK's default")
    }

    package var errorDescription: String? { description }
}

/// Where iOS's data protection is enforced: every read and write of a file in a device's `Containers` goes
/// through `check`, which reads the device's lock state (one small file) and, unless the device is unlocked,
/// the file's class (one `getxattr`). The real file system stays readable to any other process.
package enum FileProtection {
    /// Runs `body` as a reader of the device from the outside (`msdk-sim inspect`, `doctor`: as Xcode's container
    /// view, or `cat`): iOS's data protection is not its to obey while it runs.
    package static func fromOutside<T>(_ body: () throws -> T) rethrows -> T {
        outside.enter()
        defer { outside.leave() }
        return try body()
    }

    /// `fromOutside` for an `async` body.
    package static func fromOutside<T>(_ body: () async throws -> T) async rethrows -> T {
        outside.enter()
        defer { outside.leave() }
        return try await body()
    }

    private static let outside = OutsideReaders()

    /// The class of the file (or folder) at `url`; nil when it carries none (then it has the default of its
    /// folder when it was made, which is `FileProtectionClass.sdkDefault` unless a folder says otherwise).
    package static func storedClass(of url: URL) -> FileProtectionClass? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = getxattr(url.path, FileProtectionClass.attribute, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return FileProtectionClass(rawValue: String(decoding: buffer[0..<count], as: UTF8.self))
    }

    /// The class the file at `url` has: its own, or the default.
    package static func effectiveClass(of url: URL) -> FileProtectionClass { storedClass(of: url) ?? .sdkDefault }

    /// The class a new file in `directory` gets: the folder's own, as on iOS, or the default.
    package static func classForNewFile(in directory: URL) -> FileProtectionClass? { storedClass(of: directory) }

    /// Gives the file or folder at `url` its class (`FileManager.setAttributes([.protectionKey: …])`). As on iOS,
    /// the class of a file that is not available now cannot be changed (its key is not in memory).
    package static func set(_ protection: FileProtectionClass, on url: URL) throws {
        if let current = storedClass(of: url), current == protection { return }
        try check(url, writing: true)
        let value = Array(protection.rawValue.utf8)
        guard setxattr(url.path, FileProtectionClass.attribute, value, value.count, 0) == 0 else {
            let reason = String(cString: strerror(errno))
            throw FileError(
                path: url.path,
                reason: errno == ENOTSUP
                    ? "its file system keeps no extended attributes (\(reason)), so it cannot carry a file protection class; put the device on a file system that does (ext4, xfs, btrfs, tmpfs)"
                    : "its file protection class cannot be set (\(reason))")
        }
    }

    /// Whether files made in `directory` can carry a protection class: a probe file made there, given a class and
    /// removed (a file system without `user.` extended attributes cannot: tmpfs before Linux 6.6, for one).
    package static func canCarryClasses(in directory: String) -> Bool {
        var template = Array("\(directory)/.appgroupsim-probe-XXXXXX".utf8CString)
        let fd = mkstemp(&template)
        guard fd >= 0 else { return false }
        Glibc.close(fd)
        let probe = String(cString: template)
        defer { unlink(probe) }
        let value = Array(FileProtectionClass.complete.rawValue.utf8)
        return setxattr(probe, FileProtectionClass.attribute, value, value.count, 0) == 0
    }

    /// The device whose `Containers` hold `url`, as its root; nil for a file outside any device's containers.
    package static func deviceRoot(of url: URL) -> URL? {
        deviceRootPath(of: url.path).map { URL(fileURLWithPath: String($0), isDirectory: true) }
    }

    /// The path before the first `/Containers/` in `path` (searched in its bytes: every file access asks, and
    /// Foundation's `range(of:)` goes through NSString on Linux).
    static func deviceRootPath(of path: String) -> Substring? {
        let marker = Array("/Containers/".utf8)
        let bytes = path.utf8
        var start = bytes.startIndex
        while let first = bytes[start...].firstIndex(of: marker[0]) {
            if bytes[first...].starts(with: marker) { return path[..<first] }
            start = bytes.index(after: first)
        }
        return nil
    }

    /// The device's state for a file at `url` (unlocked for a file outside a device's containers).
    package static func state(for url: URL) -> DeviceLockState {
        guard let root = deviceRootPath(of: url.path) else { return .unlocked }
        return DeviceLockStateFile(rootPath: root).stateOrStrictest
    }

    /// Throws when iOS would not let a process open the file at `url` (for reading, or for `writing`) in the
    /// device's state now. A file that is not there is not checked (its folder's metadata is never protected),
    /// except that creating one in a folder of `complete` class while locked is refused, as on iOS.
    package static func check(_ url: URL, writing: Bool = false) throws(FileProtectionError) {
        guard !outside.isSet, let root = deviceRootPath(of: url.path) else { return }
        let state = DeviceLockStateFile(rootPath: root).stateOrStrictest
        if state == .unlocked { return }
        if let own = storedClass(of: url) ?? (exists(url) ? .sdkDefault : nil) {
            guard own.isAvailable(state) else { throw FileProtectionError(path: url.path, protection: own, state: state, writing: writing) }
            return
        }
        let folderClass = classForNewFile(in: url.deletingLastPathComponent()) ?? .sdkDefault
        guard folderClass.isAvailable(state, creating: true) else {
            throw FileProtectionError(path: url.path, protection: folderClass, state: state, writing: true)
        }
    }

    private static func exists(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0
    }
}

/// The SDK's `FileProtectionHelper` rule, its one home: the class for a path is the one added for that exact
/// path, else the default mode (`completeUntilFirstUserAuthentication` unless the app changes it). The SDK's
/// persister and directory manager give account files and folders this class; a bundle's
/// `AppGroupConfig.plist` can set the default (`fileProtection`) for the binaries.
package final class FileProtectionPolicy: @unchecked Sendable {
    package static let shared = FileProtectionPolicy()

    private let lock = NSLock()
    private var mode = FileProtectionClass.sdkDefault
    private var paths: [String: FileProtectionClass] = [:]

    package init() {}

    /// `FileProtectionHelper.defaultMode`.
    package var defaultMode: FileProtectionClass {
        get { lock.withLock { mode } }
        set { lock.withLock { mode = newValue } }
    }

    /// `FileProtectionHelper.pathStatusMap`.
    package var pathClasses: [String: FileProtectionClass] { lock.withLock { paths } }

    /// `FileProtectionHelper.protection(for:)`.
    package func protection(for url: URL) -> FileProtectionClass { protection(forPath: url.path) }

    package func protection(forPath path: String) -> FileProtectionClass { lock.withLock { paths[path] ?? mode } }

    /// `FileProtectionHelper.addProtection(_:for:)`.
    package func addProtection(_ protection: FileProtectionClass, forPath path: String) { lock.withLock { paths[path] = protection } }

    /// Back to the SDK's defaults (a new process identity in tests).
    package func reset() {
        lock.withLock {
            mode = .sdkDefault
            paths = [:]
        }
    }
}

/// How many outside readers are running in this process (`FileProtection.fromOutside`).
final class OutsideReaders: @unchecked Sendable {
    private let lock = NSLock()
    private var depth = 0
    var isSet: Bool { lock.withLock { depth > 0 } }
    func enter() { lock.withLock { depth += 1 } }
    func leave() { lock.withLock { depth -= 1 } }
}
