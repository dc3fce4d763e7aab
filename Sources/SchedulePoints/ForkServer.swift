#if canImport(Glibc)
import Glibc
#endif

/// An actor's executable as a fork server for the explorer (issue 38). Started once with
/// `APPGROUPSIM_FORK_SERVER_FD` naming a socket, the process loads and links once, then waits there: each
/// request (its arguments, its whole environment, and four descriptors: stdin, stdout, stderr and the schedule
/// points' socket) becomes a new process of the executable, forked from this one instead of started with exec.
/// A launch then skips the dynamic linker's work (half of a launch's CPU: 23,000 symbol look-ups in 63
/// libraries), and what it does after is what a process started afresh does: nothing of the server's state is
/// in it but the loaded libraries, since the server did nothing else.
///
/// The new process is the grandchild of the server (its child ends at once), so that it becomes the child of
/// the explorer, which is the processes' subreaper (`ForkClient`): the explorer waits for it and kills it as
/// for a process it started itself. Without the variable, `serveIfAsked` returns at once.
@_silgen_name("_swift_stdlib_overrideUnsafeArgvArgc")
private func overrideArguments(_ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>, _ argc: CInt)

package enum ForkServer {
    package static let environmentKey = "APPGROUPSIM_FORK_SERVER_FD"
    /// The largest request: arguments and environment, NUL-separated.
    package static let requestLimit = 256 * 1024

    /// For a `warmUp`: the protocol look-ups of a first `print` (whether a String is `TextOutputStreamable`,
    /// `CustomStringConvertible`, …), printed into a string, nothing written.
    package static func warmUpPrinting() {
        var sink = ""
        print("", 0, 0.5, true, Substring(""), to: &sink)
        debugPrint("", to: &sink)
    }

    /// Called first in the executable's `main`. In a fork server it returns only in a new process, with the
    /// request's descriptors, environment and arguments (`CommandLine.arguments`) in place; in the server itself
    /// it never returns (the server ends when the explorer closes its socket). `warmUp` runs once in the server,
    /// before it serves: work every launch would repeat, done once (the command line's parser finding its
    /// commands' types). It must start no thread, write nothing and touch no file: a server that has a second
    /// thread refuses to fork, and the explorer spawns instead.
    ///
    /// The variable is the explorer's own. Set by hand to anything but the explorer's socket (a number that is
    /// no descriptor, a file, a pipe, a socket of another kind), the process says so in one line and exits 64,
    /// having done nothing else.
    package static func serveIfAsked(warmUp: () -> Void = {}) {
        guard let value = getenv(environmentKey) else { return }
        let text = String(cString: value)
        guard let fd = Int32(text), fd >= 0, isRequestSocket(fd) else {
            refuse("\(environmentKey)=\(text) does not name the socket of `msdk-sim explore`, which alone sets it to start this executable as its fork server; unset it and run again")
        }
        unsetenv(environmentKey)
        warmUp()
        serve(fd)
    }

    private static func serve(_ server: Int32) {
        var buffer = [UInt8](repeating: 0, count: requestLimit)
        while true {
            var fds: [Int32] = []
            let count = receive(server, into: &buffer, fds: &fds)
            if count < 0 { refuse("reading the explorer's requests failed: \(String(cString: strerror(errno)))") }
            guard count > 0 else { _exit(0) }  // the explorer is gone
            let fields = buffer[..<count].split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
            guard fds.count == 4, fields.count >= 2, let argc = Int(fields[0]), let envc = Int(fields[1]), fields.count >= 2 + argc + envc, argc > 0 else {
                fds.forEach { close($0) }
                reply(server, -Int32(EINVAL))
                continue
            }
            // fork(2) copies only the calling thread: the server must be that thread alone.
            guard threadCount() == 1 else {
                fds.forEach { close($0) }
                reply(server, -Int32(EDEADLK))
                continue
            }
            let arguments = Array(fields[2..<(2 + argc)])
            let environment = Array(fields[(2 + argc)..<(2 + argc + envc)])
            var pipeFDs: [Int32] = [0, 0]
            guard pipe(&pipeFDs) == 0 else {
                fds.forEach { close($0) }
                reply(server, -errno)
                continue
            }
            let child = fork()
            if child == 0 {
                let grandchild = fork()
                if grandchild == 0 {
                    close(pipeFDs[0])
                    close(pipeFDs[1])
                    close(server)
                    become(fds: fds, environment: environment, arguments: arguments)
                    return
                }
                var pid = grandchild < 0 ? -errno : grandchild
                _ = withUnsafeBytes(of: &pid) { write(pipeFDs[1], $0.baseAddress, 4) }
                _exit(0)
            }
            close(pipeFDs[1])
            fds.forEach { close($0) }
            var pid: Int32 = child < 0 ? -errno : -Int32(EIO)
            if child > 0 {
                var got: Int32 = 0
                var n: Int
                repeat { n = withUnsafeMutableBytes(of: &got) { read(pipeFDs[0], $0.baseAddress, 4) } } while n < 0 && errno == EINTR
                if n == 4 { pid = got }
                // Reaped before the answer: the grandchild is then the explorer's child already.
                var status: Int32 = 0
                while waitpid(child, &status, 0) < 0, errno == EINTR {}
            }
            close(pipeFDs[0])
            reply(server, pid)
        }
    }

    /// In the new process: the request's descriptors as 0 to 3, its environment alone, its arguments.
    private static func become(fds: [Int32], environment: [String], arguments: [String]) {
        // Out of the way first (a received descriptor may have a number below 4), then each in its place;
        // dup2 leaves the new number open across exec, as a spawned process's 0 to 3 are.
        let moved = fds.map { fcntl($0, F_DUPFD_CLOEXEC, 10) }
        fds.forEach { close($0) }
        for (target, fd) in moved.enumerated() {
            dup2(fd, Int32(target))
            close(fd)
        }
        clearenv()
        for entry in environment {
            guard let eq = entry.firstIndex(of: "=") else { continue }
            setenv(String(entry[..<eq]), String(entry[entry.index(after: eq)...]), 1)
        }
        // The runtime's own way to give a process other arguments (CommandLine.arguments reads them lazily,
        // and nothing has read them yet); kept for the process's life, as a process's argv is.
        let argv = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: arguments.count + 1)
        for (i, argument) in arguments.enumerated() { argv[i] = strdup(argument) }
        argv[arguments.count] = nil
        overrideArguments(argv, CInt(arguments.count))
        retitle(arguments)
    }

    /// What `ps`, `pgrep -f` and /proc/PID/cmdline show: the process's own arguments, written over the server's
    /// (which the explorer pads, `ForkClient.titleRoom`), cut short if they do not fit. Its /proc/PID/environ stays
    /// the server's, which is the explorer's environment.
    private static func retitle(_ arguments: [String]) {
        let fd = open("/proc/self/stat", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = read(fd, &bytes, bytes.count)
        close(fd)
        guard n > 0, let paren = bytes[..<n].lastIndex(of: UInt8(ascii: ")")) else { return }
        // After the name: field 3 (the state) on; arg_start and arg_end are fields 48 and 49.
        let fields = bytes[(paren + 1)..<n].split(separator: UInt8(ascii: " "))
        guard fields.count > 46, let start = UInt(String(decoding: fields[45], as: UTF8.self)),
            let end = UInt(String(decoding: fields[46].filter { $0 != UInt8(ascii: "\n") }, as: UTF8.self)), end > start,
            let area = UnsafeMutablePointer<UInt8>(bitPattern: start)
        else { return }
        let room = Int(end - start)
        var title: [UInt8] = []
        for argument in arguments { title += Array(argument.utf8) + [0] }
        if title.count > room { title = Array(title[..<(room - 1)]) + [0] }
        area.initialize(repeating: 0, count: room)
        title.withUnsafeBufferPointer { area.update(from: $0.baseAddress!, count: $0.count) }
    }

    /// A Unix-domain SOCK_SEQPACKET socket: what `ForkClient` hands its servers, and nothing else is.
    private static func isRequestSocket(_ fd: Int32) -> Bool {
        func option(_ name: Int32) -> Int32? {
            var value: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            return getsockopt(fd, SOL_SOCKET, name, &value, &length) == 0 ? value : nil
        }
        return option(SO_DOMAIN) == AF_UNIX && option(SO_TYPE) == Int32(SOCK_SEQPACKET.rawValue)
    }

    /// One line on stderr, named after the executable, and exit 64 (a usage error), with nothing done.
    private static func refuse(_ message: String) -> Never {
        var path = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &path, path.count - 1)
        let name = n > 0 ? String(decoding: path[..<n].map { UInt8(bitPattern: $0) }, as: UTF8.self).split(separator: "/").last.map(String.init) ?? "" : ""
        let line = Array("\(name): \(message)\n".utf8)
        _ = line.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
        _exit(64)
    }

    private static func threadCount() -> Int {
        guard let dir = opendir("/proc/self/task") else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            if entry.pointee.d_name.0 != UInt8(ascii: ".") { count += 1 }
        }
        return count
    }

    private static func reply(_ server: Int32, _ value: Int32) {
        var value = value
        _ = withUnsafeBytes(of: &value) { send(server, $0.baseAddress, 4, Int32(MSG_NOSIGNAL)) }
    }

    /// A message of one buffer (`iov`) and its control data (the descriptors), sent or received.
    package static func message(_ iov: UnsafeMutablePointer<iovec>, control: UnsafeMutableRawBufferPointer) -> msghdr {
        var message = msghdr()
        message.msg_iov = iov
        message.msg_iovlen = 1
        message.msg_control = control.baseAddress
        message.msg_controllen = control.count
        return message
    }

    /// One request (a datagram of the SOCK_SEQPACKET socket) and the descriptors it carries.
    private static func receive(_ server: Int32, into buffer: inout [UInt8], fds: inout [Int32]) -> Int {
        let controlLength = MemoryLayout<cmsghdr>.size + 4 * MemoryLayout<Int32>.size + 16
        var control = [UInt8](repeating: 0, count: controlLength)
        while true {
            let n = buffer.withUnsafeMutableBytes { data in
                control.withUnsafeMutableBytes { controlBytes in
                    var iov = iovec(iov_base: data.baseAddress, iov_len: data.count)
                    return withUnsafeMutablePointer(to: &iov) { iovp in
                        var message = Self.message(iovp, control: controlBytes)
                        let n = recvmsg(server, &message, Int32(MSG_CMSG_CLOEXEC))
                        if n > 0, message.msg_controllen >= MemoryLayout<cmsghdr>.size {
                            let header = controlBytes.load(as: cmsghdr.self)
                            if header.cmsg_level == SOL_SOCKET, header.cmsg_type == Int32(SCM_RIGHTS) {
                                let payload = Int(header.cmsg_len) - MemoryLayout<cmsghdr>.size
                                for i in 0..<(payload / 4) {
                                    fds.append(controlBytes.load(fromByteOffset: MemoryLayout<cmsghdr>.size + 4 * i, as: Int32.self))
                                }
                            }
                        }
                        return n
                    }
                }
            }
            if n < 0, errno == EINTR { continue }
            return n
        }
    }
}
