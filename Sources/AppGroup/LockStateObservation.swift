import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Tells a running process when its device's protected data becomes available or is about to become
/// unavailable (iOS's `UIApplication.protectedDataDidBecomeAvailableNotification` and
/// `protectedDataWillBecomeUnavailableNotification`), by watching the device's `lock-state` file with
/// inotify (`msdk-sim device lock|unlock|reboot` replace it by rename). Idle, it costs nothing.
///
/// Protected data is available when the device is unlocked (`isProtectedDataAvailable`): files of class
/// `complete` open only then. The handler gets `true` when it became available, `false` when it did not stay so.
package final class LockStateObservation: @unchecked Sendable {
    private let device: Device
    private let handler: @Sendable (Bool) -> Void
    private let inotifyFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let lock = NSLock()
    private var cancelled = false
    private var available: Bool
    private let finished = DispatchSemaphore(value: 0)

    /// Whether the device's protected data is available now (iOS's `isProtectedDataAvailable`).
    package static func isProtectedDataAvailable(_ device: Device) -> Bool { device.lockStateOrStrictest.isUnlocked }

    package init(device: Device, handler: @escaping @Sendable (Bool) -> Void) throws {
        self.device = device
        self.handler = handler
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FileError(path: device.root.path, reason: "pipe failed: \(SecureFiles.errnoString())") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        _ = fcntl(wakeRead, F_SETFD, FD_CLOEXEC)
        _ = fcntl(wakeWrite, F_SETFD, FD_CLOEXEC)
        let ifd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard ifd >= 0, inotify_add_watch(ifd, device.root.path, UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE)) >= 0 else {
            let reason = SecureFiles.errnoString()
            if ifd >= 0 { close(ifd) }
            close(wakeRead)
            close(wakeWrite)
            throw FileError(path: device.root.path, reason: "cannot watch the device's lock state (inotify: \(reason))")
        }
        inotifyFD = ifd
        available = Self.isProtectedDataAvailable(device)
        let thread = Thread { [self] in run() }
        thread.name = "LockStateObservation"
        thread.start()
    }

    /// Stops watching; the handler is not called after this returns.
    package func cancel() {
        let first = lock.withLock {
            defer { cancelled = true }
            return !cancelled
        }
        guard first else { return }
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
        finished.wait()
        close(inotifyFD)
        close(wakeRead)
        close(wakeWrite)
    }

    deinit { cancel() }

    private var isCancelled: Bool { lock.withLock { cancelled } }

    private func run() {
        defer { finished.signal() }
        var buffer = [UInt8](repeating: 0, count: 16 * 1024)
        while !isCancelled {
            var pfds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0), pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)]
            let n = poll(&pfds, 2, -1)
            if isCancelled { return }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            guard pfds[1].revents & Int16(POLLIN) != 0, InotifyEvents.drain(inotifyFD, &buffer, matching: "lock-state") else { continue }
            let now = Self.isProtectedDataAvailable(device)
            let changed = lock.withLock {
                defer { available = now }
                return now != available && !cancelled
            }
            if changed { handler(now) }
        }
    }
}
