import CProcessControl
import SchedulePoints
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The explorer's side of `ForkServer`: one server per actor executable, started at its first launch and
/// kept for the explorer's life, asked for each launch after. A launch from a server skips the dynamic linker
/// (half of an actor's start, measured in docs/benchmarks.md). The explorer is the subreaper of what the
/// servers start, so a launched process is its child, waited for and killed as one it spawned.
///
/// `APPGROUPSIM_EXPLORE_LAUNCH=exec` turns it off (every launch a posix_spawn), to compare the two.
package final class ForkClient: @unchecked Sendable {
    package static let shared = ForkClient()

    /// A client of its own, with servers of its own (tests: a server started now, not one an earlier test started).
    package init() {}

    /// Its servers end when their socket closes (`ForkServer`: the explorer is gone); each is waited for.
    deinit {
        for server in servers.values {
            close(server.socket)
            var status: Int32 = 0
            while waitpid(server.pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    private final class Server {
        let pid: pid_t
        let socket: Int32
        let lock = NSLock()
        var broken = false
        init(pid: pid_t, socket: Int32) {
            self.pid = pid
            self.socket = socket
        }
    }

    private let lock = NSLock()
    private var servers: [String: Server] = [:]
    private var refused: Set<String> = []
    private var isSubreaper = false

    /// The bytes a launch's arguments may take in what `ps` shows (more are cut).
    static let titleRoom = 4096

    package static var enabled: Bool { ProcessInfo.processInfo.environment["APPGROUPSIM_EXPLORE_LAUNCH"] != "exec" }

    /// A new process of `executable` with `arguments` (the first is its name), exactly `environment`, and `fds`
    /// as its descriptors 0 to 3; nil when the executable cannot serve (the caller spawns it instead).
    package func launch(executable: String, arguments: [String], environment: [String], fds: [Int32]) -> pid_t? {
        guard let server = server(for: executable) else { return nil }
        server.lock.lock()
        defer { server.lock.unlock() }
        guard !server.broken else { return nil }
        var payload: [UInt8] = Array("\(arguments.count)\0\(environment.count)\0".utf8)
        for field in arguments + environment {
            payload += Array(field.utf8)
            payload.append(0)
        }
        payload.removeLast()
        guard payload.count <= ForkServer.requestLimit, send(server.socket, payload, fds), let pid = answer(server.socket), pid > 0 else {
            // An executable that does not serve (it ignored the variable and ended), or one that cannot now:
            // spawned from here on.
            server.broken = true
            return nil
        }
        return pid
    }

    private func server(for executable: String) -> Server? {
        lock.lock()
        defer { lock.unlock() }
        if let server = servers[executable] { return server.broken ? nil : server }
        guard !refused.contains(executable) else { return nil }
        if !isSubreaper {
            guard appgroupsim_become_child_subreaper() == 0 else {
                refused.insert(executable)
                return nil
            }
            isSubreaper = true
        }
        guard let server = start(executable) else {
            refused.insert(executable)
            return nil
        }
        servers[executable] = server
        return server
    }

    private func start(_ executable: String) -> Server? {
        var pair: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 3)
        // The server lives as long as the explorer: a descriptor it inherited stays open that long (and in every
        // process forked from it).
        ActorProcess.closeInheritedDescriptors(&actions)
        // Room for each launch's own arguments in what ps shows (ForkServer.retitle), and the explorer's
        // environment, which /proc/PID/environ of every launch shows (the session's clean-up finds its
        // processes by their HOME there). LD_BIND_NOW: every symbol bound once, in the server, for all the
        // processes forked from it.
        let argv = [strdup(executable), strdup(String(repeating: " ", count: Self.titleRoom)), nil]
        var environment = ProcessInfo.processInfo.environment
        environment[ForkServer.environmentKey] = "3"
        environment["LD_BIND_NOW"] = "1"
        let envp = environment.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, executable, &actions, nil, argv, envp)
        close(pair[1])
        guard rc == 0 else {
            close(pair[0])
            return nil
        }
        return Server(pid: pid, socket: pair[0])
    }

    private func send(_ socket: Int32, _ payload: [UInt8], _ fds: [Int32]) -> Bool {
        let space = MemoryLayout<cmsghdr>.size + fds.count * MemoryLayout<Int32>.size
        var control = [UInt8](repeating: 0, count: space)
        var payload = payload
        return payload.withUnsafeMutableBytes { data in
            control.withUnsafeMutableBytes { controlBytes in
                var header = cmsghdr()
                header.cmsg_len = space
                header.cmsg_level = SOL_SOCKET
                header.cmsg_type = Int32(SCM_RIGHTS)
                controlBytes.storeBytes(of: header, as: cmsghdr.self)
                for (i, fd) in fds.enumerated() {
                    controlBytes.storeBytes(of: fd, toByteOffset: MemoryLayout<cmsghdr>.size + 4 * i, as: Int32.self)
                }
                var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                return withUnsafeMutablePointer(to: &iov) { iovp in
                    var message = ForkServer.message(iovp, control: controlBytes)
                    while true {
                        let n = sendmsg(socket, &message, Int32(MSG_NOSIGNAL))
                        if n < 0, errno == EINTR { continue }
                        return n == data.count
                    }
                }
            }
        }
    }

    /// The server's answer: the new process's pid, or a negated errno. Nil when it does not answer in 10 s.
    private func answer(_ socket: Int32) -> pid_t? {
        var poller = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        while true {
            let ready = poll(&poller, 1, 10_000)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            break
        }
        var value: Int32 = 0
        let n = withUnsafeMutableBytes(of: &value) { recv(socket, $0.baseAddress, 4, 0) }
        return n == 4 ? value : nil
    }
}
