import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

/// The store's promises across real, separate processes (the `appgroupsim-probe` executable).
final class CrossProcessTests: XCTestCase {
    func testTwoProcessesWriting500DistinctKeysEachEndWithAll1000() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("group.plist").path
        let go = dir.appendingPathComponent("go").path
        let probe = try TestSupport.executable("appgroupsim-probe")
        let results = try runConcurrently([
            (probe, ["write-keys", "--file", file, "--prefix", "a", "--count", "500", "--start-file", go]),
            (probe, ["write-keys", "--file", file, "--prefix", "b", "--count", "500", "--start-file", go]),
        ], startFile: go)
        for r in results { XCTAssertEqual(r.status, 0, r.stderr) }
        let dict = try SharedDefaults(url: URL(fileURLWithPath: file)).dictionaryRepresentation()
        XCTAssertEqual(dict.count, 1000)
        for i in 0..<500 {
            XCTAssertEqual(dict["a\(i)"], .int(i))
            XCTAssertEqual(dict["b\(i)"], .int(i))
        }
    }

    func testTwoProcessesIncrementingOneKey500TimesEachEndAtExactly1000() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("group.plist").path
        let go = dir.appendingPathComponent("go").path
        let probe = try TestSupport.executable("appgroupsim-probe")
        let args = ["increment", "--file", file, "--key", "counter", "--times", "500", "--start-file", go]
        let results = try runConcurrently([(probe, args), (probe, args)], startFile: go)
        for r in results { XCTAssertEqual(r.status, 0, r.stderr) }
        XCTAssertEqual(try SharedDefaults(url: URL(fileURLWithPath: file)).value(forKey: "counter"), .int(1000))
    }

    func testAWriterKilledWithSIGKILLLeavesAPlistThatFoundationReads() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("group.plist")
        let probe = try TestSupport.executable("appgroupsim-probe")
        for round in 0..<5 {
            let p = Process()
            p.executableURL = probe
            p.arguments = ["write-forever", "--file", file.path]
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            // Wait for the first completed write, then let it run a varying while before the kill.
            _ = out.fileHandleForReading.availableData
            usleep(useconds_t(20_000 + round * 37_000))
            kill(p.processIdentifier, SIGKILL)
            p.waitUntilExit()
            XCTAssertEqual(p.terminationReason, .uncaughtSignal)
            let data = try Data(contentsOf: file)
            let object = try PropertyListSerialization.propertyList(from: data, options: [], format: nil)
            XCTAssertNotNil(object as? [String: Any], "round \(round): the file must be a whole dictionary")
        }
    }

    func testAnotherProcessSeesAChangeThroughItsObservation() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let file = dir.appendingPathComponent("group.plist")
        let probe = try TestSupport.executable("appgroupsim-probe")
        let watcher = Process()
        watcher.executableURL = probe
        watcher.arguments = ["watch", "--file", file.path, "--key", "userLoggedIn", "--count", "1"]
        let out = Pipe()
        watcher.standardOutput = out
        try watcher.run()
        let ready = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        XCTAssertTrue(ready.hasPrefix("ready"), ready)
        try SharedDefaults(url: file).set(true, forKey: "userLoggedIn")
        let rest = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        watcher.waitUntilExit()
        XCTAssertEqual(watcher.terminationStatus, 0)
        XCTAssertTrue(rest.hasPrefix("true "), "the watcher printed \(rest)")
    }

    /// Starts every process, then creates `startFile` so they begin their loops together.
    private func runConcurrently(_ commands: [(URL, [String])], startFile: String) throws
        -> [(status: Int32, stdout: String, stderr: String)]
    {
        let results = ResultsBox(count: commands.count)
        let group = DispatchGroup()
        for (i, (exe, args)) in commands.enumerated() {
            group.enter()
            DispatchQueue.global().async {
                results.set(i, Result { try TestSupport.run(exe, args) })
                group.leave()
            }
        }
        usleep(200_000)
        XCTAssertTrue(FileManager.default.createFile(atPath: startFile, contents: nil))
        group.wait()
        return try results.all()
    }
}

final class ResultsBox: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [Result<(status: Int32, stdout: String, stderr: String), Error>?]
    init(count: Int) { items = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<(status: Int32, stdout: String, stderr: String), Error>) { lock.withLock { items[i] = r } }
    func all() throws -> [(status: Int32, stdout: String, stderr: String)] {
        try lock.withLock { try items.map { try XCTUnwrap($0).get() } }
    }
}
