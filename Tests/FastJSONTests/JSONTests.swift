import Foundation
import XCTest

@testable import FastJSON

/// The JSON reader and writer the data layer shares (FastJSON), checked against Foundation's on the same input.
final class JSONTests: XCTestCase {
    func testTextRoundTripsEveryKindOfValue() throws {
        let value: JSON = [
            "null": .null, "true": true, "false": false, "int": 42, "negative": -7, "big": .int(Int64.max),
            "double": 1.5, "whole double": 2.0, "exp": 1.25e-8, "string": "plain",
            "escapes": "quote \" backslash \\ newline \n tab \t cr \r bell \u{07}",
            "unicode": "héllo wörld — 日本語 🎉", "array": [1, "two", [3], ["four": 4]], "empty": [:], "emptyArray": [],
        ]
        XCTAssertEqual(JSON(text: value.text), value)
        let foundation = try JSONSerialization.jsonObject(with: Data(value.text.utf8))
        XCTAssertEqual(JSON(foundation: foundation), value, "Foundation reads what we write")
    }

    func testParsingMatchesFoundationOnEscapesAndSurrogatePairs() throws {
        let text = #"{"a":"\u00e9\ud83c\udf89\/\b\f","n":[0,-0.5,1E3,12345678901234]}"#
        let ours = try XCTUnwrap(JSON(text: text))
        XCTAssertEqual(ours, JSON(foundation: try JSONSerialization.jsonObject(with: Data(text.utf8))))
        XCTAssertEqual(ours["a"], .string("é🎉/\u{08}\u{0C}"))
        XCTAssertEqual(ours["n"], [0, -0.5, 1000.0, .int(12_345_678_901_234)])
    }

    func testInvalidTextIsRejected() {
        for bad in ["", "{", "[1,]", "{\"a\" 1}", "01", "1.", "tru", "\"unterminated", "\"bad \\x escape\"", "[1] 2", "{\"a\":1,}", "\"raw\ncontrol\""] {
            XCTAssertNil(JSON(text: bad), bad)
        }
    }

    /// Found by scripts/fuzz (JSON): 1e309 became infinity, which the writer can only write as null.
    func testANumberBeyondDoublesRangeIsRefusedNotTurnedIntoInfinity() {
        XCTAssertNil(JSON(text: "[1e309]"))
        XCTAssertNil(JSON(text: "-1e400"))
        XCTAssertEqual(JSON(text: "1e308"), .double(1e308))
        XCTAssertEqual(JSON(text: "1e-400"), .double(0), "underflow to zero is a finite value JSON can write")
    }

    func testProjectionFollowsDottedPathsThroughArrays() {
        let entry: JSON = ["a": ["b": [["c": 1], ["c": 2], ["d": 3]]], "x": 5]
        XCTAssertEqual(entry.project("x"), 5)
        XCTAssertEqual(entry.project("a.b.c"), [1, 2])
        XCTAssertNil(entry.project("a.missing"))
        XCTAssertNil(entry.project("x.y"))
    }

    /// Arrays and objects nest up to `JSON.maxDepth`; one more level is one error (a 40 KB payload of `[`
    /// crashed the notification extension).
    func testNestingIsBoundedAtTheLimitAndRefusedPastIt() throws {
        func nested(_ n: Int, open: String = "[", close: String = "]") -> Data {
            Data((String(repeating: open, count: n) + "1" + String(repeating: close, count: n)).utf8)
        }
        XCTAssertNotNil(JSON(data: nested(JSON.maxDepth)))
        XCTAssertNoThrow(try JSON.parse(nested(JSON.maxDepth)))
        XCTAssertNil(JSON(data: nested(JSON.maxDepth + 1)))
        XCTAssertThrowsError(try JSON.parse(nested(JSON.maxDepth + 1))) { XCTAssertEqual($0 as? JSON.ParseError, .tooDeep(max: JSON.maxDepth)) }
        XCTAssertThrowsError(try JSON.parse(nested(JSON.maxDepth + 1, open: "{\"a\":", close: "}"))) { XCTAssertEqual($0 as? JSON.ParseError, .tooDeep(max: JSON.maxDepth)) }
        XCTAssertThrowsError(try JSON.parse(Data(String(repeating: "[", count: 40_000).utf8))) { XCTAssertEqual($0 as? JSON.ParseError, .tooDeep(max: JSON.maxDepth)) }
        XCTAssertThrowsError(try JSON.parse(Data("[1,".utf8))) { XCTAssertEqual($0 as? JSON.ParseError, .malformed(offset: 3)) }
    }
}
