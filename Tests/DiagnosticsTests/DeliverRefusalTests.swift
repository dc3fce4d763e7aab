import AppGroup
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Diagnostics

/// `msdk-sim device deliver` as an attacker would feed it: an import-package.json whose module is a path, and a
/// notification-settings file replaced by a link. Each is one refusal, and nothing is run, read through or kept.
final class DeliverRefusalTests: XCTestCase {
    func testAModuleThatIsAPathIsRefusedBeforeAnythingIsBuiltOrRun() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let app = dir.appendingPathComponent("Bundles/MobileSyncExplorer.app")
        try FileManager.default.createDirectory(at: app.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
        let report: [String: Any] = ["project": "x", "targets": [[
            "target": "NotificationService", "module": "../../../bin/sh", "bundle": app.appendingPathComponent("PlugIns/NotificationService.appex").path,
            "sources": [], "ui": [], "leftOut": [], "changes": [], "runnable": "runs NotificationService on the next notification",
        ]]]
        try JSONSerialization.data(withJSONObject: report).write(to: dir.appendingPathComponent("import-package.json"))
        XCTAssertThrowsError(try ProjectPackage.deliver(package: dir, target: "NotificationService", device: dir.appendingPathComponent("device"), scratch: nil, arguments: [])) {
            XCTAssertTrue("\($0)".contains("is not a Swift module name"), "\($0)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: dir.appendingPathComponent("deliver-build.log").path), "nothing was built")
    }

    func testASettingsFileReplacedByALinkIsRefusedAndItsTargetUntouched() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: dir.appendingPathComponent("device"), initialize: true)
        let secret = dir.appendingPathComponent("secret.txt")
        try Data("not yours".utf8).write(to: secret)
        let file = NotificationSettings.file(device.layout, app: "com.example.app")
        try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(at: file, withDestinationURL: secret)
        XCTAssertThrowsError(try NotificationSettings.read(device.layout, app: "com.example.app")) {
            XCTAssertTrue("\($0)".contains("symbolic link"), "\($0)")
        }
        XCTAssertThrowsError(try NotificationSettings.update(device.layout, app: "com.example.app") { $0.authorizationRequests += 1 })
        XCTAssertEqual(try String(contentsOf: secret, encoding: .utf8), "not yours")
        XCTAssertNotNil(try? FileManager.default.destinationOfSymbolicLink(atPath: file.path), "the link is left where it is")
    }
}
