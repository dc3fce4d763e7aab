#if canImport(Glibc)
import Glibc
#endif

/// The points where a device's processes meet: each keychain operation, each file read or write in the
/// device's containers (the shared defaults among them) and each store transaction; and where a process meets
/// the org: each answer it receives, before it acts on it. Under
/// `msdk-sim explore` (issue 38) the process reports each point on the descriptor named by
/// `APPGROUPSIM_EXPLORE_FD` and waits there until the explorer lets it go on, so that the explorer alone
/// decides which process runs next, injects a device event, or kills the process where it stands.
/// Without that variable a point costs one load of a lazily set global.
///
/// A point is not reported while the process holds a file lock of the device (`FileLock`): a process
/// stopped there would hold every other process that needs the lock, which is not a schedule iOS can
/// produce between separate processes' atomic operations.
package enum SchedulePoint {
    package enum Kind: String, Sendable, CaseIterable {
        case keychainRead = "keychain.read"
        case keychainWrite = "keychain.write"
        case keychainDelete = "keychain.delete"
        case fileRead = "file.read"
        case fileWrite = "file.write"
        case fileDelete = "file.delete"
        case storeRead = "store.read"
        case storeWrite = "store.write"
        /// A write to a shared `msdkUserDefaults` suite (the app group's plist), before its read-modify-write
        /// takes the suite's lock: two writes of two keys are two points, one write of both is one.
        case defaultsWrite = "defaults.write"
        /// An answer of the org (any HTTP exchange of the client), received and not yet acted on: the org has done
        /// what the request asked, and the process does not know it yet. A kill here is an app killed (or
        /// suspended for good) with a request in flight, which the server still carried out.
        case networkResponse = "network.response"
    }

    /// The environment variable naming the descriptor (the explorer passes its socket as descriptor 3).
    package static let environmentKey = "APPGROUPSIM_EXPLORE_FD"

    private static let channel: Int32 = {
        guard let value = getenv(environmentKey), let fd = Int32(String(cString: value)), fd >= 0 else { return -1 }
        return fd
    }()

    private static let state = State()

    /// Whether this process runs under the explorer.
    package static var isExplored: Bool { channel >= 0 }

    /// Reports the point and waits for the explorer's go. `detail` (a path, a keychain service) is only
    /// evaluated when explored.
    package static func reach(_ kind: Kind, _ detail: @autoclosure () -> String) {
        let fd = channel
        guard fd >= 0 else { return }
        state.withLock {
            // One line: kind, a tab, the detail (tabs and newlines in it replaced).
            var line = kind.rawValue + "\t"
            for c in detail().unicodeScalars { line.unicodeScalars.append(c == "\n" || c == "\t" ? " " : c) }
            line += "\n"
            send(fd, line)
            _ = receiveByte(fd)
        }
    }

    /// Writes the whole line. The explorer gone, nothing may run unscheduled: the process ends.
    private static func send(_ fd: Int32, _ line: String) {
        var bytes = Array(line.utf8)
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { write(fd, $0.baseAddress! + offset, $0.count - offset) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { _exit(137) }
            offset += n
        }
    }

    /// The explorer's next byte (a go, or a byte of an answer); the explorer gone, the process ends.
    private static func receiveByte(_ fd: Int32) -> UInt8 {
        var byte: UInt8 = 0
        while true {
            let n = read(fd, &byte, 1)
            if n < 0, errno == EINTR { continue }
            guard n == 1 else { _exit(137) }
            return byte
        }
    }

    /// A request to the explorer that the explorer answers at once (no go awaited): one line out (`kind`, a tab,
    /// `request`, which must hold no newline), one line back, the answer. Nil when not explored. It is sent
    /// even while a device file lock is held, since it is no point: the process goes on as soon as it has the
    /// answer. The explorer's in-memory keychain is served this way (`ExplorerSecretStore`).
    package static func call(_ kind: String, _ request: String) -> String? {
        let fd = channel
        guard fd >= 0 else { return nil }
        var answer: [UInt8] = []
        state.always {
            send(fd, kind + "\t" + request + "\n")
            while true {
                let byte = receiveByte(fd)
                if byte == UInt8(ascii: "\n") { break }
                answer.append(byte)
            }
        }
        return String(decoding: answer, as: UTF8.self)
    }

    /// A device file lock is taken (`FileLock.init`) or let go (`deinit`).
    package static func lockTaken() { if channel >= 0 { state.adjust(1) } }
    package static func lockReleased() { if channel >= 0 { state.adjust(-1) } }

    private final class State: @unchecked Sendable {
        private var mutex = pthread_mutex_t()
        private var held = 0
        private var countMutex = pthread_mutex_t()

        init() {
            pthread_mutex_init(&mutex, nil)
            pthread_mutex_init(&countMutex, nil)
        }

        func adjust(_ delta: Int) {
            pthread_mutex_lock(&countMutex)
            held += delta
            pthread_mutex_unlock(&countMutex)
        }

        /// One exchange with the explorer at a time, whatever locks are held.
        func always(_ body: () -> Void) {
            pthread_mutex_lock(&mutex)
            body()
            pthread_mutex_unlock(&mutex)
        }

        /// One point at a time per process, and none while a device file lock is held.
        func withLock(_ body: () -> Void) {
            pthread_mutex_lock(&countMutex)
            let free = held == 0
            pthread_mutex_unlock(&countMutex)
            guard free else { return }
            pthread_mutex_lock(&mutex)
            body()
            pthread_mutex_unlock(&mutex)
        }
    }
}
