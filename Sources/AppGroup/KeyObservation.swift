import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches one key of a `SharedDefaults` file for changes made by any process.
///
/// Why inotify: writers replace the file by `rename`, which inotify reports on the directory at once
/// (`IN_MOVED_TO`), so a change is seen in about a millisecond and an idle observer costs nothing.
/// A polled change counter would need a wake-up every few tens of milliseconds in every observer to
/// stay well under the 250 ms bound. Where inotify is not available (limits exhausted, odd file
/// systems) the observer falls back to polling the file's identity every 50 ms.
package final class KeyObservation: Sendable {
    package var key: String { core.key }
    /// True when changes are detected with inotify, false when polling.
    package var usesInotify: Bool { core.usesInotify }

    private let core: ObservationCore

    init(defaults: SharedDefaults, key: String, handler: @escaping @Sendable (PlistValue?) -> Void) throws {
        core = try ObservationCore(defaults: defaults, key: key, handler: handler)
    }

    /// Stops the observation; the handler is not called after this returns.
    package func cancel() { core.cancel() }

    // The watching thread holds the core, never this handle, so dropping the handle stops the observation.
    deinit { core.cancel() }
}

/// The state and thread behind a `KeyObservation`.
final class ObservationCore: @unchecked Sendable {
    let key: String
    let usesInotify: Bool

    private let defaults: SharedDefaults
    private let handler: @Sendable (PlistValue?) -> Void
    private let inotifyFD: Int32
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let state = NSLock()
    private var cancelled = false
    private var last: PlistValue?
    private let finished = DispatchSemaphore(value: 0)

    init(defaults: SharedDefaults, key: String, handler: @escaping @Sendable (PlistValue?) -> Void) throws {
        self.defaults = defaults
        self.key = key
        self.handler = handler
        let dir = defaults.url.deletingLastPathComponent()
        try SecureFiles.makeDirectory(dir)

        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw FileError(path: dir.path, reason: "pipe failed: \(SecureFiles.errnoString())") }
        wakeRead = fds[0]
        wakeWrite = fds[1]
        _ = fcntl(wakeRead, F_SETFD, FD_CLOEXEC)
        _ = fcntl(wakeWrite, F_SETFD, FD_CLOEXEC)

        // APPGROUPSIM_OBSERVE_POLL=1 forces the polling fallback (the benchmark's baseline).
        let forcePolling = ProcessInfo.processInfo.environment["APPGROUPSIM_OBSERVE_POLL"] == "1"
        let ifd = forcePolling ? -1 : inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        var watching = false
        if ifd >= 0 {
            let mask = UInt32(IN_MOVED_TO | IN_CLOSE_WRITE | IN_CREATE | IN_DELETE | IN_MOVED_FROM)
            watching = inotify_add_watch(ifd, dir.path, mask) >= 0
            if !watching { close(ifd) }
        }
        inotifyFD = watching ? ifd : -1
        usesInotify = watching
        last = defaults.peekDictionary()?[key]

        let t = Thread { self.run() }
        t.name = "KeyObservation(\(key))"

        t.start()
    }

    func cancel() {
        state.lock()
        if cancelled {
            state.unlock()
            return
        }
        cancelled = true
        state.unlock()
        var one: UInt8 = 1
        _ = write(wakeWrite, &one, 1)
        finished.wait()
        if inotifyFD >= 0 { close(inotifyFD) }
        close(wakeRead)
        close(wakeWrite)
    }

    private var isCancelled: Bool {
        state.lock()
        defer { state.unlock() }
        return cancelled
    }

    private func run() {
        defer { finished.signal() }
        let fileName = defaults.url.lastPathComponent
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        var signature = Self.signature(of: defaults.url)
        while !isCancelled {
            var pfds = [pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)]
            if inotifyFD >= 0 { pfds.append(pollfd(fd: inotifyFD, events: Int16(POLLIN), revents: 0)) }
            let n = poll(&pfds, nfds_t(pfds.count), inotifyFD >= 0 ? -1 : 50)
            if isCancelled { return }
            if n < 0 {
                if errno == EINTR { continue }
                return
            }
            var changed = false
            if inotifyFD >= 0 {
                guard pfds.count > 1, pfds[1].revents & Int16(POLLIN) != 0 else { continue }
                changed = drainEvents(&buffer, matching: fileName)
            } else {
                let now = Self.signature(of: defaults.url)
                changed = now != signature
                signature = now
            }
            if changed { deliverIfChanged() }
        }
    }

    /// Reads every pending inotify event; true if one of them names our file.
    private func drainEvents(_ buffer: inout [UInt8], matching name: String) -> Bool {
        InotifyEvents.drain(inotifyFD, &buffer, matching: name)
    }

    private func deliverIfChanged() {
        // A file caught mid-recovery or corrupt reads as nil here; the next good write is delivered.
        guard let dict = defaults.peekDictionary() else { return }
        let value = dict[key]
        state.lock()
        let isNew = value != last && !cancelled
        if isNew { last = value }
        state.unlock()
        if isNew { handler(value) }
    }

    private struct Signature: Equatable {
        var inode: UInt64 = 0
        var size: Int64 = 0
        var mtimeNanos: Int64 = 0
    }

    private static func signature(of url: URL) -> Signature {
        var st = stat()
        guard stat(url.path, &st) == 0 else { return Signature() }
        return Signature(
            inode: UInt64(st.st_ino), size: Int64(st.st_size),
            mtimeNanos: Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))
    }
}

/// Reading a non-blocking inotify descriptor's pending events (`KeyObservation`, `LockStateObservation`).
enum InotifyEvents {
    /// Reads every pending event; true if one of them names the file `name` in the watched folder.
    static func drain(_ fd: Int32, _ buffer: inout [UInt8], matching name: String) -> Bool {
        var matched = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count <= 0 { return matched }
            var offset = 0
            let header = MemoryLayout<inotify_event>.size
            while offset + header <= count {
                let len = buffer.withUnsafeBytes { raw in
                    raw.loadUnaligned(fromByteOffset: offset + header - MemoryLayout<UInt32>.size, as: UInt32.self)
                }
                let nameStart = offset + header
                let nameEnd = min(nameStart + Int(len), count)
                let nameBytes = buffer[nameStart..<nameEnd].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { matched = true }
                offset = nameStart + Int(len)
            }
        }
    }
}
