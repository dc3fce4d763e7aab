import CProcessControl
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

    /// Starts `executable` with `arguments`; it runs up to its first point (read with `next`). With `forkServer`,
    /// from the executable's fork server (`ForkClient`) when it has one, which only the actors of this package's
    /// own executables have; spawned otherwise.
    package init(
        executable: URL, arguments: [String], environment: [String: String], outputDirectory: URL, name: String, forkServer: Bool = false
    ) throws {
        var pair: [Int32] = [0, 0]
        // Both ends close-on-exec from the start: another thread's spawn (the explorer runs runs at once) must
        // not inherit either, or this process's end would not be seen. The child gets its end as descriptor 3
        // by dup2, which clears the flag there.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw ExploreError.setup("socketpair failed: \(String(cString: strerror(errno)))")
        }
        outFile = outputDirectory.appendingPathComponent("\(name).out")
        errFile = outputDirectory.appendingPathComponent("\(name).err")
        // The child's 0 to 2, opened here close-on-exec (dup2 gives the child its own copies).
        let stdio = [
            open("/dev/null", O_RDONLY | O_CLOEXEC),
            open(outFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600),
            open(errFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600),
        ]
        defer { stdio.filter { $0 >= 0 }.forEach { close($0) } }
        guard stdio.allSatisfy({ $0 >= 0 }) else {
            close(pair[0])
            close(pair[1])
            throw ExploreError.setup("\(outputDirectory.path) cannot take the output of \(name): \(String(cString: strerror(errno)))")
        }
        var env = environment
        env["APPGROUPSIM_EXPLORE_FD"] = "3"
        let arguments = [executable.path] + arguments
        let entries = env.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        if forkServer, ForkClient.enabled,
            let child = ForkClient.shared.launch(executable: executable.path, arguments: arguments, environment: entries, fds: stdio + [pair[1]])
        {
            close(pair[1])
            pid = child
            socket = pair[0]
            return
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // All four moved above 3 first, so that no dup2 overwrites a descriptor still to be given.
        let high = (stdio + [pair[1]]).map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
        defer { high.filter { $0 >= 0 }.forEach { close($0) } }
        for (target, fd) in high.enumerated() { posix_spawn_file_actions_adddup2(&actions, fd, Int32(target)) }
        ActorProcess.closeInheritedDescriptors(&actions)
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = entries.map { strdup($0) } + [nil]
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

    /// Closes every descriptor from 4 up in the child, after the dup2s that give it 0 to 3. What this package
    /// opens is close-on-exec, but not what others open: Foundation's `Process` watches each child it starts
    /// through a socket pair whose child end is not, and hears of the exit only when every copy of that end is
    /// closed. A process spawned by another thread in that moment kept a copy, and a fork server keeps its copy for
    /// the exploration's life: the org's exit was never heard, and `waitUntilExit()` waited 37 minutes in one CI run.
    static func closeInheritedDescriptors(_ actions: inout posix_spawn_file_actions_t) {
        appgroupsim_spawn_close_from(&actions, 4)
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
