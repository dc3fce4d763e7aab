import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One process of an actor (the app, its widget, its notification service extension, or a developer's own
/// executable run as one of them) under an explorer (`msdk-sim explore`, AppGroupSimTesting's `DeviceExploration`):
/// started with posix_spawn, its end of a socket pair as descriptor 3 (`APPGROUPSIM_EXPLORE_FD`), its output
/// in two files. It runs only between the explorer's go and its next schedule point, so at any moment at
/// most one of the device's processes runs.
package final class ActorProcess {
    package enum Event: Equatable {
        /// Stopped at a point (`SchedulePoint.Kind` raw value) and waiting for a go.
        case point(kind: String, detail: String)
        /// Ended: its exit status, or the signal that ended it.
        case exited(status: Int32)
        case signaled(signal: Int32)
    }

    package let pid: pid_t
    private let socket: Int32
    private let outFile: URL
    private let errFile: URL
    private var buffer: [UInt8] = []
    package private(set) var ended = false
    /// Answers to the requests the process sends that are no point (`SchedulePoint.call`): by the line's kind,
    /// the answer line to its request (without the newline). The explorer's in-memory keychain is one.
    package var answers: [String: (String) -> String] = [:]

    /// Starts `executable` with `arguments`; it runs up to its first point (read with `next`).
    package init(executable: URL, arguments: [String], environment: [String: String], outputDirectory: URL, name: String) throws {
        var pair: [Int32] = [0, 0]
        // Both ends close-on-exec from the start: another thread's spawn (the explorer runs runs at once) must
        // not inherit either, or this process's end would not be seen. The child gets its end as descriptor 3
        // by dup2, which clears the flag there.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ExploreError.setup("socketpair failed: \(String(cString: strerror(errno)))")
        }
        if pair[1] == 3 {
            // dup2(3, 3) would leave the flag set in the child: give the child's end another number first.
            let moved = fcntl(pair[1], F_DUPFD_CLOEXEC, 10)
            close(pair[1])
            pair[1] = moved
        }
        outFile = outputDirectory.appendingPathComponent("\(name).out")
        errFile = outputDirectory.appendingPathComponent("\(name).err")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 3)
        var env = environment
        env["APPGROUPSIM_EXPLORE_FD"] = "3"
        let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
        let envp = env.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var child: pid_t = 0
        let rc = posix_spawn(&child, executable.path, &actions, nil, argv, envp)
        close(pair[1])
        guard rc == 0 else {
            close(pair[0])
            throw ExploreError.setup("\(executable.lastPathComponent) could not be started: \(String(cString: strerror(rc)))")
        }
        pid = child
        socket = pair[0]
    }

    deinit {
        if !ended {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            _ = waitpid(pid, &status, 0)
        }
        close(socket)
    }

    /// Lets the process run from the point it stands at.
    package func resume() {
        var go: UInt8 = UInt8(ascii: "g")
        _ = write(socket, &go, 1)
    }

    /// Waits for the process's next point, or its end. A process that neither reaches a point nor ends within
    /// `timeout` seconds is killed and reported as hung (nil).
    package func next(timeout: Double = 30) -> Event? {
        while true {
            if let nl = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<nl], as: UTF8.self)
                buffer.removeSubrange(...nl)
                let parts = line.split(separator: "\t", maxSplits: 1, omittingEmptySubsequences: false)
                let detail = parts.count > 1 ? String(parts[1]) : ""
                if let answer = answers[String(parts[0])] {
                    // Answered at once; the process goes on to its next point.
                    var bytes = Array((answer(detail) + "\n").utf8)
                    var offset = 0
                    while offset < bytes.count {
                        let n = bytes.withUnsafeMutableBytes { write(socket, $0.baseAddress! + offset, $0.count - offset) }
                        if n < 0, errno == EINTR { continue }
                        if n <= 0 { break }
                        offset += n
                    }
                    continue
                }
                return .point(kind: String(parts[0]), detail: detail)
            }
            var fds = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&fds, 1, Int32(timeout * 1000))
            if ready < 0, errno == EINTR { continue }
            if ready == 0 {
                killNow()
                return nil
            }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let n = read(socket, &chunk, chunk.count)
            if n < 0, errno == EINTR { continue }
            if n <= 0 { return reap() }
            buffer.append(contentsOf: chunk[..<n])
        }
    }

    /// SIGKILL where it stands (a kill by the explorer, a reboot).
    @discardableResult
    package func killNow() -> Event {
        guard !ended else { return .signaled(signal: SIGKILL) }
        kill(pid, SIGKILL)
        return reap()
    }

    private func reap() -> Event {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        ended = true
        // WIFEXITED / WEXITSTATUS / WTERMSIG, which Swift does not import from glibc's macros.
        if status & 0x7f == 0 { return .exited(status: (status >> 8) & 0xff) }
        return .signaled(signal: status & 0x7f)
    }

    package var stdout: String { WholeFile.text(outFile) ?? "" }
    package var stderr: String { WholeFile.text(errFile) ?? "" }
}

package enum ExploreError: Error, CustomStringConvertible {
    case setup(String)
    case badSchedule(String)

    package var description: String {
        switch self {
        case .setup(let detail): return "the explorer could not start: \(detail)"
        case .badSchedule(let detail): return "the schedule file cannot be replayed: \(detail)"
        }
    }
}
