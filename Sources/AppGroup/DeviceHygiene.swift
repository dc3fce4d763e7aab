import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The device's file rules, checked and restored: directories 0700 and files 0600 (DESIGN.md §2), and
/// no temp file of a writer that died between writing and renaming (`.<name>.tmp-<pid>-<n>`).
/// `doctor` reports both; a launch fixes what its process owns and says so once.
package enum DeviceHygiene {
    /// A path whose mode lets the group or others in.
    package struct LooseMode: Sendable, Equatable {
        package var path: String
        package var mode: UInt16
        package var isDirectory: Bool
        package var expected: UInt16 { isDirectory ? 0o700 : 0o600 }
    }

    /// Every directory and regular file under `roots` (the roots included) with group or other bits set.
    /// Symbolic links are not followed.
    package static func looseModes(under roots: [URL], recursive: Bool = true) -> [LooseMode] {
        var out: [LooseMode] = []
        walk(roots, recursive: recursive) { path, info in
            let mode = UInt16(info.st_mode & 0o7777)
            let type = info.st_mode & S_IFMT
            guard type == S_IFDIR || type == S_IFREG, mode & 0o077 != 0 else { return }
            out.append(LooseMode(path: path, mode: mode, isDirectory: type == S_IFDIR))
        }
        return out
    }

    /// Sets every loose path under `roots` back to 0700 (directories) or 0600 (files); returns what changed.
    @discardableResult
    package static func tighten(under roots: [URL], recursive: Bool = true) -> [LooseMode] {
        let loose = looseModes(under: roots, recursive: recursive)
        return loose.filter { chmod($0.path, mode_t($0.expected)) == 0 }
    }

    /// Temp files (`.<name>.tmp-<pid>-<n>`) whose writer is no longer running.
    package static func leftoverTempFiles(under roots: [URL], recursive: Bool = true) -> [String] {
        var out: [String] = []
        walk(roots, recursive: recursive) { path, info in
            guard info.st_mode & S_IFMT == S_IFREG, let pid = writerPID(URL(fileURLWithPath: path).lastPathComponent) else { return }
            if kill(pid, 0) != 0 && errno == ESRCH { out.append(path) }
        }
        return out
    }

    /// Removes the leftover temp files; returns the ones removed.
    @discardableResult
    package static func removeLeftoverTempFiles(under roots: [URL], recursive: Bool = true) -> [String] {
        leftoverTempFiles(under: roots, recursive: recursive).filter { unlink($0) == 0 }
    }

    /// The pid in `.<name>.tmp-<pid>-<n>`, the name `SecureFiles.writeAtomically` and `Device` give temp files.
    static func writerPID(_ name: String) -> pid_t? {
        guard name.hasPrefix("."), let range = name.range(of: ".tmp-", options: .backwards) else { return nil }
        let parts = name[range.upperBound...].split(separator: "-")
        guard parts.count == 2, parts[1].allSatisfy(\.isNumber), let pid = pid_t(parts[0]), pid > 0 else { return nil }
        return pid
    }

    private static func walk(_ roots: [URL], recursive: Bool = true, _ visit: (String, stat) -> Void) {
        var seen = Set<String>()
        var stack = roots.map(\.path)
        while let path = stack.popLast() {
            guard seen.insert(path).inserted else { continue }
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            visit(path, info)
            guard recursive, info.st_mode & S_IFMT == S_IFDIR, let names = try? FileManager.default.contentsOfDirectory(atPath: path) else { continue }
            stack.append(contentsOf: names.map { path + "/" + $0 })
        }
    }
}
