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

    /// What the walk reads: regular files at any depth, hidden ones too, the first in path order named; a symbolic
    /// link is not followed (a link to a leaking file outside the root is no file of the root).
    func testTheWalkReadsHiddenFilesInPathOrderAndFollowsNoLink() throws {
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("secret-watch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: base) }
        let root = base.appendingPathComponent("device"), outside = base.appendingPathComponent("outside")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("b/.hidden"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        var watch = SecretWatch()
        watch.learn([Array(token.utf8)])
        try Data("x \(token) y".utf8).write(to: outside.appendingPathComponent("leak.txt"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("a-link.txt"), withDestinationURL: outside.appendingPathComponent("leak.txt"))
        try FileManager.default.createSymbolicLink(at: root.appendingPathComponent("a-folder"), withDestinationURL: outside)
        XCTAssertNil(watch.fileHolding(under: root), "a link, to a file or a folder, is not followed")
        try Data("\(token)".utf8).write(to: root.appendingPathComponent("b/.hidden/.cache"))
        try Data("<\(token)>".utf8).write(to: root.appendingPathComponent("c.plist"))
        XCTAssertEqual(watch.fileHolding(under: root)?.lastPathComponent, ".cache", "b/.hidden/.cache comes before c.plist")
        XCTAssertNil(watch.fileHolding(under: base.appendingPathComponent("missing")))
    }

    func testTheByteSearchFindsANeedleAnywhereAndNothingElse() {
        func has(_ hay: String, _ needle: String) -> Bool {
            Array(hay.utf8).withUnsafeBytes { h in Array(needle.utf8).withUnsafeBytes { SecretWatch.contains(h, $0) } }
        }
        XCTAssertTrue(has("tokenABC", "token"), "at the start")
        XCTAssertTrue(has("xxtokentoken", "token"), "at the end")
        XCTAssertTrue(has("ttoktokentt", "token"), "after partial matches of its first bytes")
        XCTAssertTrue(has("token", "token"), "the whole haystack")
        XCTAssertFalse(has("tokeN tokex toke", "token"))
        XCTAssertFalse(has("tok", "token"), "a needle longer than the haystack")
        XCTAssertFalse(has("", "token"))
        XCTAssertFalse(has("token", ""), "an empty needle is no secret")
    }
}
