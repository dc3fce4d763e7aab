import Foundation
@testable import Keychain
import XCTest

/// The explorer's side of its in-memory keychain (`msdk-sim explore --keychain memory`): each request line gets
/// its answer line, as `ExplorerSecretStore` sends and reads them, and a bad request gets an error, not a crash.
final class ExplorerKeychainTests: XCTestCase {
    private func ask(_ keychain: ExplorerKeychain, _ request: [String: Any]) throws -> [String: Any] {
        let line = String(decoding: try JSONSerialization.data(withJSONObject: request), as: UTF8.self)
        let answer = keychain.answer(line)
        XCTAssertFalse(answer.contains("\n"), "one line")
        return try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any])
    }

    func testStoreSearchReplaceAndDelete() throws {
        let keychain = ExplorerKeychain()
        let a = ["device": "d1", "service": "refresh", "account": "alice"]
        let b = ["device": "d1", "service": "refresh", "account": "bob"]
        _ = try ask(keychain, ["op": "store", "attributes": a, "secret": Data("one\n\u{0}two".utf8).base64EncodedString()])
        _ = try ask(keychain, ["op": "store", "attributes": b, "secret": Data([1, 2, 3]).base64EncodedString()])
        // Stored again with exactly the same attributes: replaced, not added.
        _ = try ask(keychain, ["op": "store", "attributes": a, "secret": Data("three".utf8).base64EncodedString()])
        let all = try XCTUnwrap(try ask(keychain, ["op": "search", "attributes": ["device": "d1"]])["items"] as? [[String: Any]])
        XCTAssertEqual(all.count, 2)
        XCTAssertEqual(all.compactMap { $0["attributes"] as? [String: String] }, [a, b], "in the order stored")
        XCTAssertEqual(Data(base64Encoded: try XCTUnwrap(all[0]["secret"] as? String)), Data("three".utf8))
        XCTAssertEqual(try ask(keychain, ["op": "delete", "attributes": ["account": "alice"]])["deleted"] as? Bool, true)
        XCTAssertEqual(try ask(keychain, ["op": "delete", "attributes": ["account": "alice"]])["deleted"] as? Bool, false)
        XCTAssertEqual(keychain.store.count, 1)
        XCTAssertEqual(try ask(keychain, ["op": "availability"])["locked"] as? Bool, false)
    }

    func testABadRequestIsAnErrorAndChangesNothing() throws {
        let keychain = ExplorerKeychain()
        XCTAssertNotNil(keychain.answer("not json").range(of: "\"error\""))
        XCTAssertNotNil(try ask(keychain, ["op": "format"])["error"])
        XCTAssertNotNil(try ask(keychain, ["op": "store", "attributes": ["device": "d"], "secret": "%%%"])["error"])
        // A request nested 100,000 deep is refused by the parser (its depth limit), not a crash of the explorer.
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        XCTAssertNotNil(keychain.answer("{\"op\":\"search\",\"attributes\":\(deep)}").range(of: "\"error\""))
        XCTAssertEqual(keychain.store.count, 0)
    }
}
