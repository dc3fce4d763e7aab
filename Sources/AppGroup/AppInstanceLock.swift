import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// "One instance of an app per device", as iOS gives it: a process that runs a bundle as an app holds
/// an exclusive `flock` on `.running.lock` in the app's private container for as long as it lives.
/// A second launch of the same bundle on the same device waits for it, up to a bound, then fails with
/// one message. The kernel drops the lock when the holder exits, SIGKILL included, so nothing goes stale.
/// Extensions never take it: iOS runs them beside their app.
package final class AppInstanceLock: @unchecked Sendable {
    package static let fileName = ".running.lock"
    /// How long a second launch waits: 30 s, or `APPGROUPSIM_APP_LOCK_TIMEOUT` seconds.
    package static var defaultTimeout: TimeInterval {
        ProcessInfo.processInfo.environment["APPGROUPSIM_APP_LOCK_TIMEOUT"].flatMap(Double.init).flatMap { $0 >= 0 && $0 <= 3600 ? $0 : nil } ?? 30
    }

    private let fd: Int32

    /// Takes the lock, waiting up to `timeout` seconds for the process that holds it.
    package init(sandbox: AppSandbox, timeout: TimeInterval = AppInstanceLock.defaultTimeout) throws {
        try SecureFiles.makeDirectory(sandbox.dataContainer)
        let url = sandbox.dataContainer.appendingPathComponent(Self.fileName)
        let fd = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw FileError(path: url.path, reason: "cannot open the app's instance lock: \(SecureFiles.errnoString())") }
        let deadline = Date().addingTimeInterval(timeout)
        while flock(fd, LOCK_EX | LOCK_NB) != 0 {
            guard errno == EWOULDBLOCK || errno == EINTR else {
                let reason = SecureFiles.errnoString()
                close(fd)
                throw FileError(path: url.path, reason: "flock failed: \(reason)")
            }
            if Date() >= deadline {
                let holder = Self.holder(fd)
                close(fd)
                throw AppInstanceError.alreadyRunning(bundleID: sandbox.bundleIdentifier, pid: holder, waited: timeout)
            }
            usleep(50_000)
        }
        self.fd = fd
        // Who holds it, for the next launch's message; the lock, not this number, is what counts.
        let pid = Array("\(getpid())\n".utf8)
        _ = ftruncate(fd, 0)
        _ = pwrite(fd, pid, pid.count, 0)
    }

    deinit {
        flock(fd, LOCK_UN)
        close(fd)
    }

    private static func holder(_ fd: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 32)
        let n = pread(fd, &buffer, buffer.count, 0)
        guard n > 0 else { return nil }
        return Int32(String(decoding: buffer[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines))
    }
}

package enum AppInstanceError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case alreadyRunning(bundleID: String, pid: Int32?, waited: TimeInterval)

    package var description: String {
        switch self {
        case .alreadyRunning(let bundleID, let pid, let waited):
            let who = pid.map { " (pid \($0))" } ?? ""
            return "\(bundleID) is already running on this device\(who), and iOS runs one instance of an app; "
                + "waited \(Int(waited)) s for it to exit: let that command (or main-app shell) finish, then run this one again"
        }
    }

    package var errorDescription: String? { description }
}
