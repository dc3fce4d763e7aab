import AppGroupSimTestSupport
import Foundation
import GRDB
import XCTest

@testable import OrgSimulator

/// An org inside a program that goes on after it (`msdk-sim explore` starts and stops one a run, a developer's
/// test one a test): it must leave the program as it found it.
final class EmbeddedOrgTests: XCTestCase {
    /// SIGTERM and SIGINT stay the program's; once stopped, the org holds none of its state's files (the
    /// database, its WAL, its lock), the file is whole and checkpointed, the org itself is freed, and another
    /// org starts on the same file with what the first one wrote.
    func testAnEmbeddedOrgTakesNoSignalAndLetsGoOfItsStateWhenItStops() async throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("embedded-org-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let state = dir.appendingPathComponent("org.sqlite")
        let before = (Self.disposition(SIGTERM), Self.disposition(SIGINT))
        weak var firstState: OrgState?
        do {
            let org = try await EmbeddedOrg.start(.init(port: 0, dataDirectory: OrgHarness.fixtureDirectory, stateFile: state))
            firstState = org.simulator.state
            XCTAssertEqual(Self.disposition(SIGTERM), before.0, "the org took SIGTERM from the program")
            XCTAssertEqual(Self.disposition(SIGINT), before.1, "the org took SIGINT from the program")
            XCTAssertFalse(Self.openFiles(under: dir).isEmpty, "a running org holds its state file open")
            // A write the next org on this file must see.
            let database = org.simulator.state.database
            try await database.store.write { tx in try database.setMeta(tx, "embedded-test", "kept") }
            await org.stop()
        }
        XCTAssertEqual(Self.openFiles(under: dir), [], "the stopped org still holds files of its state open")
        XCTAssertFalse(FileManager.default.fileExists(atPath: state.path + "-wal"), "the state was not checkpointed and closed")
        for _ in 0..<200 where firstState != nil { try await Task.sleep(nanoseconds: 10_000_000) }
        XCTAssertNil(firstState, "the stopped org's state is still referenced: every org started in this process would stay in memory")
        let check = try await DatabaseQueue(path: state.path).read { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
        XCTAssertEqual(check, ["ok"])

        let again = try await EmbeddedOrg.start(.init(port: 0, dataDirectory: OrgHarness.fixtureDirectory, stateFile: state))
        let database = again.simulator.state.database
        let kept = try await database.store.read { tx in try database.meta(tx, "embedded-test") }
        XCTAssertEqual(kept, "kept")
        await again.stop()
        XCTAssertEqual(Self.openFiles(under: dir), [])
    }

    /// An org that cannot listen (its port taken) throws at start instead of waiting forever.
    func testAnEmbeddedOrgThatCannotListenThrows() async throws {
        let first = try await EmbeddedOrg.start(.init(port: 0, dataDirectory: OrgHarness.fixtureDirectory))
        do {
            let second = try await EmbeddedOrg.start(.init(port: first.port, dataDirectory: OrgHarness.fixtureDirectory))
            await second.stop()
            XCTFail("a second org listened on port \(first.port), which the first one holds")
        } catch {}
        await first.stop()
    }

    private static func disposition(_ signal: Int32) -> UInt {
        var current = sigaction()
        sigaction(signal, nil, &current)
        return unsafeBitCast(current.__sigaction_handler.sa_handler, to: UInt.self)
    }

    /// The files under `dir` this process has open (its descriptors' targets).
    private static func openFiles(under dir: URL) -> [String] {
        let fds = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return fds.compactMap { fd in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(fd)") else { return nil }
            return target.hasPrefix(dir.path) ? target : nil
        }.sorted()
    }
}
