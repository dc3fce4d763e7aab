import Foundation
import SalesforceSDKCommon
import XCTest

final class SalesforceLoggerTests: XCTestCase {
    /// A component's first logger once deadlocked (its initialiser took the lock `logger(forComponent:)` held):
    /// the SDK's encrypted-notification template hung on its first `SalesforceLogger.e`. Run on a thread of its
    /// own, so that a deadlock fails this test instead of hanging the run.
    func testTheFirstLoggerOfAComponentIsMadeAndKept() {
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var made: (SalesforceLogger, SalesforceLogger)?
        Thread.detachNewThread {
            let component = "component-\(UUID().uuidString)"
            made = (SalesforceLogger.logger(forComponent: component), SalesforceLogger.logger(forComponent: component))
            SalesforceLogger.e(SalesforceLoggerTests.self, message: "an error line, on standard error")
            done.signal()
        }
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "logger(forComponent:) did not return")
        XCTAssertTrue(made.map { $0.0 === $0.1 } ?? false, "one logger per component")
    }
}
