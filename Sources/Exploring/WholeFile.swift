import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file's whole contents, read with POSIX calls, for what an explorer reads again and again: an actor's output,
/// every file of a device at each run's end.
///
/// Not `Data(contentsOf:)`, `String(contentsOf:)` or `FileManager.contents(atPath:)`: in this toolchain's Foundation
/// (Swift 6.3 on Linux) each of them keeps 4 KB for good every time it reads an empty file (20,000 reads: 80 MB
/// more resident). An actor's stderr is usually empty, and a device has empty files, so an exploration grew by
/// about 50 KB a run (700 MB over 10,000 runs). `WholeFileTests` holds this to that.
package enum WholeFile {
    /// The bytes of the file at `url`, or nil when it cannot be opened or read.
    package static func data(_ url: URL) -> Data? {
        let fd = open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let n = read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                return nil
            }
            if n == 0 { return data }
            data.append(buffer, count: n)
        }
    }

    /// The file's text as UTF-8 (invalid bytes repaired), or nil when it cannot be read.
    package static func text(_ url: URL) -> String? {
        data(url).map { String(decoding: $0, as: UTF8.self) }
    }
}
