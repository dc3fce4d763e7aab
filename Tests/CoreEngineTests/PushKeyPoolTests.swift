import Foundation
import XCTest
@preconcurrency import _CryptoExtras

@testable import CoreEngine

/// The push keys an explorer hands out (`PushKeyPool`): a run's nth new key is the exploration's nth, so that runs
/// after the first search for no prime, and every new key within a run is still a new key.
final class PushKeyPoolTests: XCTestCase {
    func testEachRunGetsTheExplorationsKeysInOrderAndEachNewKeyIsANewKey() throws {
        let pool = PushKeyPool()
        XCTAssertEqual(pool.made, 0)
        let first = pool.run()
        let a = first.answer(""), b = first.answer("")
        XCTAssertNotEqual(a, b, "a run's second new key (a restore to a new phone, a reinstall) must differ from its first")
        XCTAssertEqual(pool.made, 2)
        let second = pool.run()
        XCTAssertEqual(second.answer(""), a, "another run's first key is the exploration's first")
        XCTAssertEqual(second.answer(""), b)
        XCTAssertEqual(second.answer("").isEmpty, false)
        XCTAssertEqual(pool.made, 3)
        for text in [a, b] {
            let der = try XCTUnwrap(Data(base64Encoded: text))
            let key = try XCTUnwrap(PushKey.privateKey(der: Array(der)), "an answer is a private key's PKCS#1 DER")
            XCTAssertEqual(key.keySizeInBits, PushKey.bits)
        }
    }

    /// Outside an explorer, and under one that does not hand out keys, a process makes its own key each time.
    func testWithoutAnExplorerEachKeyIsMadeHere() throws {
        let one = try PushKey.make(), two = try PushKey.make()
        XCTAssertNotEqual(one.derRepresentation, two.derRepresentation)
        XCTAssertEqual(one.keySizeInBits, PushKey.bits)
    }
}
