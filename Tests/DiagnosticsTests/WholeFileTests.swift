import Exploring
import Foundation
import XCTest

/// What an explorer reads again and again (an actor's output, every file of a device at a run's end): read whole,
/// and without the 4 KB that Foundation's readers keep for each empty file on Linux.
final class WholeFileTests: XCTestCase {
    var dir: URL!

    override func setUpWithError() throws {
        dir = FileManager.default.temporaryDirectory.appendingPathComponent("whole-file-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(at: dir)
    }

    func testAFileIsReadWholeAndAMissingOneIsNil() throws {
        let big = dir.appendingPathComponent("big")
        let bytes = Data((0..<100_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: big)
        XCTAssertEqual(WholeFile.data(big), bytes, "every byte, across several reads")
        let empty = dir.appendingPathComponent("empty")
        try Data().write(to: empty)
        XCTAssertEqual(WholeFile.data(empty), Data())
        XCTAssertEqual(WholeFile.text(empty), "")
        XCTAssertNil(WholeFile.data(dir.appendingPathComponent("none")))
        XCTAssertNil(WholeFile.text(dir.appendingPathComponent("none")))
        let text = dir.appendingPathComponent("text")
        try Data([0x6f, 0x6b, 0xff, 0x0a]).write(to: text)
        XCTAssertEqual(WholeFile.text(text), "ok\u{FFFD}\n", "an invalid byte is repaired, as an actor's output is shown")
    }

    /// Foundation's `Data(contentsOf:)` in its place: 10,000 reads keep about 40 MB more resident (seen failing so).
    func testReadingEmptyFilesAgainAndAgainKeepsNoMemory() throws {
        let empty = dir.appendingPathComponent("empty")
        try Data().write(to: empty)
        _ = WholeFile.data(empty)
        let before = try Self.residentKilobytes()
        var read = 0
        for _ in 0..<10_000 where WholeFile.data(empty) != nil { read += 1 }
        let grown = try Self.residentKilobytes() - before
        XCTAssertEqual(read, 10_000)
        XCTAssertLessThan(grown, 8_000, "10,000 reads of an empty file grew this process by \(grown) KB")
    }

    /// VmRSS of this process, in KB.
    static func residentKilobytes() throws -> Int {
        let status = try XCTUnwrap(WholeFile.text(URL(fileURLWithPath: "/proc/self/status")))
        let line = try XCTUnwrap(status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") })
        return try XCTUnwrap(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    }
}
