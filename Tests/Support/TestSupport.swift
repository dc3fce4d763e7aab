import Foundation
import XCTest

/// Helpers shared by the test targets: temp directories, the package's paths, and running the
/// built executables as separate processes.
package enum TestSupport {
    /// The package root (this file is Tests/Support/TestSupport.swift).
    package static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    package static var fixtureApp: URL {
        packageRoot.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app")
    }

    package static var fixtureWidget: URL {
        fixtureApp.appendingPathComponent("PlugIns/RecentContacts.appex")
    }

    /// The most files, sockets and pipes the test process may hold when a test starts. The whole run holds
    /// under 100. A test that keeps its stores, servers or URL sessions past its end (an XCTestCase keeps its
    /// properties until the run ends) adds its own each time; past 1,024 a descriptor no longer fits the
    /// `fd_set` that Foundation's run loop gives `select()`, which then writes past it: the run crashed with
    /// SIGSEGV in CI at about 1,400.
    static let openFileLimit = 400

    /// Fails the test when the process holds more than `openFileLimit` descriptors, naming their kinds.
    static func checkOpenFiles(_ test: XCTestCase) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd"), names.count > openFileLimit else { return }
        var kinds: [String: Int] = [:]
        for name in names {
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(name)")) ?? "?"
            let kind = target.hasPrefix("socket:") ? "socket" : target.hasPrefix("pipe:") ? "pipe" : target.hasSuffix("(deleted)") ? "deleted file" : target.hasPrefix("/") ? "file" : target
            kinds[kind, default: 0] += 1
        }
        let list = kinds.sorted { $0.value > $1.value }.map { "\($0.value) \($0.key)" }.joined(separator: ", ")
        XCTFail("the test process holds \(names.count) open descriptors (\(list)) as \(test.name) starts, over \(openFileLimit): a test before it keeps its stores, servers or URL sessions (nil the test's properties in tearDown, invalidate sessions)")
    }

    /// A new empty directory, removed when the test ends.
    package static func temporaryDirectory(_ test: XCTestCase) throws -> URL {
        checkOpenFiles(test)
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("appgroupsim-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: url) }
        return url
    }

    /// Every entry under `url` (relative path, kind, and a file's bytes or a link's target), as one string:
    /// equal before and after means nothing under it was created, changed or deleted.
    package static func treeHash(_ url: URL) throws -> String {
        var lines: [String] = []
        let fm = FileManager.default
        guard let walker = fm.enumerator(atPath: url.path) else { return "" }
        for case let relative as String in walker {
            let path = url.appendingPathComponent(relative).path
            let attributes = try fm.attributesOfItem(atPath: path)
            switch attributes[.type] as? FileAttributeType {
            case .typeSymbolicLink?: lines.append("\(relative) -> \(try fm.destinationOfSymbolicLink(atPath: path))")
            case .typeDirectory?: lines.append("\(relative)/")
            default:
                let data = fm.contents(atPath: path) ?? Data()
                var hash: UInt64 = 0xcbf2_9ce4_8422_2325
                for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
                lines.append("\(relative) \(data.count) \(String(hash, radix: 16))")
            }
        }
        return lines.sorted().joined(separator: "\n")
    }

    /// A built executable of this package (tests run after `swift build --build-tests`, which builds them all).
    package static func executable(_ name: String) throws -> URL {
        let candidates = [
            Bundle.main.executableURL?.deletingLastPathComponent(),
            Bundle.main.bundleURL,
            Bundle.main.bundleURL.deletingLastPathComponent(),
        ].compactMap { $0 }
        for dir in candidates {
            let url = dir.appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        throw MissingExecutable(name: name, searched: candidates.map(\.path))
    }

    package struct MissingExecutable: Error, CustomStringConvertible {
        package let name: String
        package let searched: [String]
        package var description: String {
            "\(name) is not built (looked in \(searched.joined(separator: ", "))); run `swift build --build-tests` first, as scripts/test does"
        }
    }

    /// Runs a process to completion and returns its status and output.
    @discardableResult
    package static func run(
        _ executable: URL, _ arguments: [String], environment: [String: String]? = nil, stdin: Data? = nil
    ) throws -> (status: Int32, stdout: String, stderr: String) {
        let p = Process()
        p.executableURL = executable
        p.arguments = arguments
        if let environment { p.environment = environment }
        let out = Pipe()
        let err = Pipe()
        let input = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = input
        try p.run()
        if let stdin { input.fileHandleForWriting.write(stdin) }
        try input.fileHandleForWriting.close()
        // Read both pipes before waiting so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: outData, as: UTF8.self), String(decoding: errData, as: UTF8.self))
    }
}
