import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import XcodeProject

final class PBXParserTests: XCTestCase {
    func parse(_ text: String) throws -> PBXValue { try PBXParser.parse(Data(text.utf8)) }

    func failure(_ text: String) -> PBXParseError? {
        do {
            _ = try parse(text)
            return nil
        } catch { return error as? PBXParseError }
    }

    func testTheGrammarXcodeWrites() throws {
        let value = try parse("""
            // !$*UTF8*$!
            {
            \tarchiveVersion = 1;
            \tobjects = {
            \t\tA1 /* App */ = {isa = PBXNativeTarget; name = "My App"; buildPhases = ( B2 /* Sources */, C3, ); };
            \t};
            \tpath = ../Shared/Info.plist; empty = ""; dollar = "$(SRCROOT)/x";
            \tescapes = "tab\\there \\"quoted\\" back\\\\slash\\nnew \\U00e9 \\101";
            \tblob = <0fA1 ff>;
            \trootObject = A1 /* Project object */;
            }
            """)
        XCTAssertEqual(value["archiveVersion"]?.string, "1")
        let target = value["objects"]?["A1"]
        XCTAssertEqual(target?["name"]?.string, "My App")
        XCTAssertEqual(target?["buildPhases"]?.array, [.string("B2"), .string("C3")])
        XCTAssertEqual(value["path"]?.string, "../Shared/Info.plist")
        XCTAssertEqual(value["empty"]?.string, "")
        XCTAssertEqual(value["dollar"]?.string, "$(SRCROOT)/x")
        XCTAssertEqual(value["escapes"]?.string, "tab\there \"quoted\" back\\slash\nnew é A")
        XCTAssertEqual(value["blob"], .data(Data([0x0F, 0xA1, 0xFF])))
        XCTAssertEqual(value["rootObject"]?.string, "A1")
    }

    func testErrorsNameTheLineAndColumn() {
        let cases: [(String, Int, Int, String)] = [
            ("{\n a = 1;\n b = (1, 2;\n}", 3, 11, "expected ',' or ')'"),
            ("{\n a = \"open;\n}", 2, 6, "not closed"),
            ("{ a = 1 }", 1, 9, "expected ';'"),
            ("{\n\n a = b = c;\n}", 3, 8, "expected ';'"),
            ("{\n a = 1;\n", 1, 1, "not closed with '}'"),
            ("{ a = /* open comment\n }", 1, 7, "comment"),
            ("{ a = <0g>; }", 1, 9, "hex"),
            ("{ a = 1; } trailing", 1, 12, "after the property list"),
            ("{ = 1; }", 1, 3, "unexpected character"),
            (String(repeating: "(", count: 300), 1, 201, "deeper"),
        ]
        for (text, line, column, words) in cases {
            let error = failure(text)
            XCTAssertEqual(error?.line, line, text)
            XCTAssertEqual(error?.column, column, "\(text): \(String(describing: error))")
            XCTAssertTrue(error?.message.contains(words) ?? false, "\(words) not in \(String(describing: error))")
        }
    }

    /// Dictionaries and arrays nest up to 200 levels; one more is one error, never a stack overflow.
    func testNestingIsBoundedAtTheLimitAndRefusedPastIt() throws {
        func nested(_ n: Int) -> Data { Data((String(repeating: "{a = ", count: n - 1) + "(x)" + String(repeating: ";}", count: n - 1)).utf8) }
        XCTAssertNoThrow(try PBXParser.parse(nested(200)))
        XCTAssertTrue(failure(String(decoding: nested(201), as: UTF8.self))?.message.contains("deeper than 200") ?? false)
        XCTAssertTrue(failure(String(repeating: "{a = ", count: 20_000))?.message.contains("deeper than 200") ?? false)
    }

    func testTheFixtureProjectParses() throws {
        let url = TestSupport.packageRoot.appendingPathComponent("Fixtures/FieldService/FieldService.xcodeproj/project.pbxproj")
        let value = try PBXParser.parse(try Data(contentsOf: url))
        XCTAssertEqual(value["rootObject"]?.string, "A90000000000000000000001")
        XCTAssertGreaterThan(value["objects"]?.dictionary?.count ?? 0, 40)
    }
}
