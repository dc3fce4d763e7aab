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
}
