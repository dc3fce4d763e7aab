import AppGroupSimTestSupport
import Foundation
import OrgSimulator
import SmartStoreEngine
import XCTest

/// A sync down in another process, killed with SIGKILL halfway, then resumed by a new process.
final class CrashRecoveryTests: XCTestCase {
    func testASyncDownKilledHalfwayAndRestartedInANewProcessHasEveryIdExactlyOnce() async throws {
        // Latency makes each 200-record page take a while, so the kill lands mid-sync.
        let org = try await OrgHarness.start(faults: FaultSettings(latencyMs: 150))
        let dir = try TestSupport.temporaryDirectory(self)
        let storeURL = dir.appendingPathComponent("store.sqlite")
        let probe = try TestSupport.executable("appgroupsim-probe")
        let args = ["sync-down", "--org", org.baseURL.absoluteString, "--store", storeURL.path, "--batch-size", "200"]

        let first = Process()
        first.executableURL = probe
        first.arguments = args
        let out = Pipe()
        first.standardOutput = out
        try first.run()
        // Wait for a page past the first, then kill.
        var seen = ""
        while !seen.contains("RUNNING 40") && first.isRunning {
            seen += String(decoding: out.fileHandleForReading.availableData, as: UTF8.self)
        }
        kill(first.processIdentifier, SIGKILL)
        first.waitUntilExit()
        XCTAssertEqual(first.terminationReason, .uncaughtSignal, "the first process was killed, it did not finish: \(seen)")

        let reader = try SmartStore(url: storeURL, name: "check")
        let partial = try reader.count(.all(soup: "contacts"))
        XCTAssertGreaterThan(partial, 0)
        XCTAssertLessThan(partial, 1000)

        let second = try TestSupport.run(probe, args)
        XCTAssertEqual(second.status, 0, second.stderr)
        XCTAssertTrue(second.stdout.contains("final DONE"), second.stdout)
        let ids = try reader.query(.smart("SELECT {contacts:Id} FROM {contacts}", pageSize: 5000)).compactMap { $0.arrayValue?.first?.stringValue }
        XCTAssertEqual(ids.count, 1000)
        XCTAssertEqual(Set(ids).count, 1000, "every id exactly once")
        await org.stop()
    }
}
