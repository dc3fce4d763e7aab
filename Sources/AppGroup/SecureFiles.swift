#if canImport(SchedulePoints)
import SchedulePoints  // (scripts/fuzz compiles this file with SchedulePoint.swift in one module)
#endif
import CXattr
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// File-system helpers that keep the device's permissions (directories 0700, files 0600)
/// and make replacements atomic (temp file in the same directory, fsync, rename, fsync dir).
package enum SecureFiles {
    /// Creates `url` and any missing parents with mode 0700.
    package static func makeDirectory(_ url: URL) throws {
        // The common case, a directory already there, with one stat (every shared-defaults write asks).
        var info = stat()
        if stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
        let fm = FileManager.default
        var isDir: ObjCBool = false
        if fm.fileExists(atPath: url.path, isDirectory: &isDir) {
            if isDir.boolValue { return }
            throw FileError(path: url.path, reason: "exists and is not a directory")
        }
        do {
            try fm.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw FileError(path: url.path, reason: "cannot create directory (\(error.localizedDescription))")
        }
    }

    /// What `ensureDirectory` found in the way.
    package enum DirectoryProblem: Error, Equatable {
        case fileInTheWay(String)
        case cannotCreate(String, reason: String)
    }

    /// The directory at `path`, made (0700, with its parents) when missing; a file there is an error, as the
    /// SDK's `SFDirectoryManager ensureDirectoryExists:` has it.
    package static func ensureDirectory(_ path: String) throws(DirectoryProblem) {
        var info = stat()
        if stat(path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw .fileInTheWay(path) }
            return
        }
        do { try makeDirectory(URL(fileURLWithPath: path)) } catch { throw .cannotCreate(path, reason: "\(error)") }
    }

    /// The size of the file at `url` in bytes; nil when there is none.
    package static func size(_ url: URL) -> UInt64? {
        var info = stat()
        guard stat(url.path, &info) == 0 else { return nil }
        return UInt64(info.st_size)
    }

    /// How far a replacement must have gone before `writeAtomically` returns.
    package enum Durability: Sendable {
        /// Visible to every process and kept across any process's death (SIGKILL included): the rename is
        /// done. A power cut or kernel crash may lose it. cfprefsd promises this much for user defaults.
        case atomic
        /// Also on disk: the file and its directory entry are fsynced (account files, device.json).
        case synced
    }

    /// Writes `data` to `url` atomically with mode 0600: a reader sees the old file or the new one, never part of one,
    /// and a crash (even SIGKILL) at any point leaves one of the two.
    ///
    /// In a device's containers, the write is refused as iOS refuses it when the file's protection class is not
    /// available in the device's lock state (`FileProtection.check`), and the new file keeps its class: the
    /// `protection` given, else the old file's, else its folder's.
    package static func writeAtomically(_ data: Data, to url: URL, durability: Durability = .synced, protection: FileProtectionClass? = nil) throws {
        sharedPoint(.fileWrite, url)
        let dir = url.deletingLastPathComponent()
        try makeDirectory(dir)
        try FileProtection.check(url, writing: true)
        let keptClass = protection ?? FileProtection.storedClass(of: url) ?? FileProtection.classForNewFile(in: dir)
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        let fd = open(tmp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(path: tmp.path, reason: "cannot create temp file: \(errnoString())") }
        if let keptClass {
            let value = Array(keptClass.rawValue.utf8)
            if fsetxattr(fd, FileProtectionClass.attribute, value, value.count, 0) != 0 {
                let reason = errnoString()
                close(fd)
                unlink(tmp.path)
                throw FileError(path: url.path, reason: "its file protection class (\(keptClass.rawValue)) cannot be kept: \(reason)")
            }
        }
        var ok = false
        defer {
            if !ok { unlink(tmp.path) }
        }
        do {
            defer { close(fd) }
            try data.withUnsafeBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let n = write(fd, raw.baseAddress!.advanced(by: offset), raw.count - offset)
                    if n < 0 {
                        if errno == EINTR { continue }
                        throw FileError(path: tmp.path, reason: "write failed: \(errnoString())")
                    }
                    offset += n
                }
            }
            if durability == .synced {
                guard fsync(fd) == 0 else { throw FileError(path: tmp.path, reason: "fsync failed: \(errnoString())") }
            }
        }
        guard rename(tmp.path, url.path) == 0 else {
            throw FileError(path: url.path, reason: "rename failed: \(errnoString())")
        }
        ok = true
        guard durability == .synced else { return }
        let dfd = open(dir.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dfd >= 0 {
            _ = fsync(dfd)
            close(dfd)
        }
    }

    /// The whole file, or nil when there is none. Anything else that is not a readable regular file is an
    /// error that says what is there and what to do: a directory where the file belongs, no permission.
    /// A schedule point (`msdk-sim explore`) for a file of a shared container, where processes meet: an app's
    /// and an extension's private containers are each one process's own.
    static func sharedPoint(_ kind: SchedulePoint.Kind, _ url: URL) {
        guard SchedulePoint.isExplored, url.path.contains("/Containers/Shared/") else { return }
        SchedulePoint.reach(kind, url.path)
    }

    /// `point: false` for a caller that reached the read's point itself (one whose cache may skip the read:
    /// whether it does depends on the clock, and a schedule must not).
    package static func readIfPresent(_ url: URL, point: Bool = true) throws -> Data? {
        if point { sharedPoint(.fileRead, url) }
        var info = stat()
        if stat(url.path, &info) != 0 {
            if errno == ENOENT || errno == ENOTDIR { return nil }
            throw FileError(path: url.path, reason: "cannot be examined (\(errnoString())); check the permissions of its directories")
        }
        if (info.st_mode & S_IFMT) == S_IFDIR {
            throw FileError(path: url.path, reason: "is a directory where a file belongs; move the directory aside and retry")
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            throw FileError(path: url.path, reason: "is not a regular file; move it aside and retry")
        }
        try FileProtection.check(url)
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let reason = errno == EACCES ? "cannot be read (permission denied); give its owner read access (chmod 600)" : "cannot be opened (\(errnoString()))"
            throw FileError(path: url.path, reason: reason)
        }
        defer { close(fd) }
        return try readToEnd(fd, url)
    }

    /// The whole file at `url` itself: never through a symbolic link (`O_NOFOLLOW`), and only a regular file (a
    /// FIFO, socket, device or directory is refused by name, opened without blocking). nil when there is none.
    /// For files that another party can put where a file is expected (an inbox).
    package static func readRegularFileNoFollow(_ url: URL) throws -> Data? {
        sharedPoint(.fileRead, url)
        let fd = open(url.path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            if errno == ELOOP { throw FileError(path: url.path, reason: "is a symbolic link: refused, links are never followed here; remove it") }
            throw FileError(path: url.path, reason: "cannot be opened (\(errnoString()))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw FileError(path: url.path, reason: "cannot be examined (\(errnoString()))") }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw FileError(path: url.path, reason: "is \(kind(info.st_mode)), not a regular file: refused and left where it is; remove it")
        }
        try FileProtection.check(url)
        return try readToEnd(fd, url)
    }

    /// Everything left to read from `fd` (the file at `url`, named in errors).
    private static func readToEnd(_ fd: Int32, _ url: URL) throws -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw FileError(path: url.path, reason: "read failed (\(errnoString()))")
            }
            if n == 0 { break }
            data.append(buffer, count: n)
        }
        return data
    }

    /// Removes the folder `target` and everything in it, but only when it is exactly `depth` folders inside
    /// `base` (`Library/<org>/<user>` is 2 inside `Library`), so never `base` itself nor a parent of another
    /// user's folder, and no folder on the way (nor `target`) is a symbolic link or a `.`/`..`. Nothing there:
    /// nothing to do. Every recursive delete of the SDK's files goes through here.
    package static func removeTree(_ target: URL, inside base: URL, depth: Int) throws {
        sharedPoint(.fileDelete, target)
        let refuse = { (why: String) in
            FileError(path: target.path, reason: "was not deleted: \(why); nothing was deleted")
        }
        let baseParts = URL(fileURLWithPath: base.path).standardizedFileURL.pathComponents
        let targetParts = URL(fileURLWithPath: target.path).pathComponents
        guard depth > 0, targetParts.count == baseParts.count + depth, Array(targetParts.prefix(baseParts.count)) == baseParts else {
            throw refuse("it is not a folder \(depth) level\(depth == 1 ? "" : "s") inside \(base.path)")
        }
        let below = targetParts.suffix(depth)
        guard below.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." && !$0.contains("/") }) else {
            throw refuse("its path climbs with . or ..")
        }
        var info = stat()
        var path = URL(fileURLWithPath: base.path).standardizedFileURL
        for (i, part) in below.enumerated() {
            path.appendPathComponent(part)
            if lstat(path.path, &info) != 0 {
                if errno == ENOENT || errno == ENOTDIR { return }
                throw FileError(path: path.path, reason: "cannot be examined (\(errnoString())); nothing was deleted")
            }
            if info.st_mode & S_IFMT == S_IFLNK { throw refuse("\(path.path) is a symbolic link") }
            if i < depth - 1, info.st_mode & S_IFMT != S_IFDIR { return }
        }
        do { try FileManager.default.removeItem(at: path) } catch {
            throw FileError(path: path.path, reason: "cannot be deleted (\((error as NSError).localizedDescription))")
        }
    }

    /// What a file-system entry of this mode is, in words.
    package static func kind(_ mode: mode_t) -> String {
        switch mode & S_IFMT {
        case S_IFREG: return "a regular file"
        case S_IFDIR: return "a directory"
        case S_IFLNK: return "a symbolic link"
        case S_IFIFO: return "a FIFO"
        case S_IFSOCK: return "a socket"
        case S_IFCHR, S_IFBLK: return "a device"
        default: return "not a regular file"
        }
    }

    static func errnoString() -> String { String(cString: strerror(errno)) }
}

/// A file-system operation that failed, naming the path.
package struct FileError: Error, CustomStringConvertible, Sendable, Equatable {
    package let path: String
    package let reason: String
    package var description: String { "\(path): \(reason)" }

    package init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }
}

/// An exclusive `flock` on a lock file, held for the life of the value.
///
/// Each acquisition opens its own descriptor, so two threads of one process exclude each other too
/// (flock locks belong to the open file description).
final class FileLock {
    private let fd: Int32

    init(exclusive url: URL) throws {
        try SecureFiles.makeDirectory(url.deletingLastPathComponent())
        fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(path: url.path, reason: "cannot open lock file: \(SecureFiles.errnoString())") }
        while flock(fd, LOCK_EX) != 0 {
            if errno == EINTR { continue }
            let reason = SecureFiles.errnoString()
            close(fd)
            throw FileError(path: url.path, reason: "flock failed: \(reason)")
        }
        SchedulePoint.lockTaken()
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
        SchedulePoint.lockReleased()
    }
}
