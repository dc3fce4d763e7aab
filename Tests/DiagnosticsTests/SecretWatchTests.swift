import Exploring
import Foundation
import XCTest

/// The secret-exposed rule both explorers share (`msdk-sim explore`, `DeviceExploration`).
final class SecretWatchTests: XCTestCase {
    let token = "00D5g0000000001!AQ8AQFakeAccessTokenForTheWatch"

    func testATokenIsLearnedButShortOrBinaryValuesAreNot() {
        var watch = SecretWatch()
        watch.learn([Array(token.utf8), Array("short-value".utf8), [UInt8](repeating: 0x01, count: 32), Array("has a space in it, twenty+".utf8)])
        XCTAssertEqual(watch.secrets, [token])
        XCTAssertTrue(watch.isExposed(in: "", "debug: session \(token) ok"))
        XCTAssertFalse(watch.isExposed(in: "short-value", String(token.dropLast())))
        XCTAssertFalse(SecretWatch().isExposed(in: token), "nothing learned, nothing exposed")
    }

    func testTheFirstFileHoldingATokenIsNamedWhereverItIs() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("secret-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let nested = root.appendingPathComponent("Shared/AppGroup/G/Library/Preferences")
        try FileManager.default.createDirectory(at: nested, withIntermediateDirectories: true)
        try Data("<plist>nothing here</plist>".utf8).write(to: root.appendingPathComponent("a.plist"))
        var watch = SecretWatch()
        watch.learn([Array(token.utf8)])
        XCTAssertNil(watch.fileHolding(under: root))
        let leaked = nested.appendingPathComponent("msdkUserDefaults.plist")
        try Data("<string>\(token)</string>".utf8).write(to: leaked)
        XCTAssertEqual(watch.fileHolding(under: root)?.resolvingSymlinksInPath().path, leaked.resolvingSymlinksInPath().path)
    }
}
