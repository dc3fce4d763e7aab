import Foundation
import Testing

@testable import SourceReader

/// Reading code is bounded, linear and never crashes (issue 34, item 3), and never says more than the code
/// does (item 4). Each bound is tested at the bound and one past it.
struct ReadingBoundsTests {
    static func tooDeep(_ text: String) -> SourceReadError? {
        do {
            _ = try SwiftReader.read(text, file: "Deep.swift")
            return nil
        } catch let error as SourceReadError {
            return error
        } catch { return nil }
    }

    static func nested(_ open: String, _ close: String, _ n: Int, inner: String = "1") -> String {
        "let x = " + String(repeating: open, count: n) + inner + String(repeating: close, count: n) + "\n"
    }

    @Test func bracketsParenthesesAndBracesNestToTheBoundAndNoFurther() throws {
        // `let x =` is at depth 0; a closure's braces count as braces.
        let limit = SwiftSource.maximumNesting
        #expect(Self.tooDeep(Self.nested("(", ")", limit)) == nil)
        let past = try #require(Self.tooDeep(Self.nested("(", ")", limit + 1)))
        #expect(past.isPastABound)
        #expect("\(past)".hasPrefix("Deep.swift:1: not read: brackets, parentheses, braces and #if nested more than \(limit) deep"))
        #expect(Self.tooDeep(Self.nested("{ ", " }", limit)) == nil)
        #expect(Self.tooDeep(Self.nested("{ ", " }", limit + 1))?.isPastABound == true)
        // 2,000 deep: a clear refusal, not SIGSEGV.
        for (open, close) in [("(", ")"), ("[", "]"), ("{ ", " }"), ("[(", ")]")] {
            #expect(Self.tooDeep(Self.nested(open, close, 2_000))?.isPastABound == true, "\(open)")
        }
    }

    @Test func poundIfNestsToTheBoundAndNoFurther() {
        let source = { (n: Int) in String(repeating: "#if A\n", count: n) + "let x = 1\n" + String(repeating: "#endif\n", count: n) }
        #expect(Self.tooDeep(source(SwiftSource.maximumNesting)) == nil)
        let past = Self.tooDeep(source(SwiftSource.maximumNesting + 1))
        #expect(past?.isPastABound == true)
        #expect("\(past.map { "\($0)" } ?? "")".hasPrefix("Deep.swift:\(SwiftSource.maximumNesting + 1): not read"), "names the line")
        #expect(Self.tooDeep(source(2_000))?.isPastABound == true)
    }

    @Test func genericArgumentsNestToTheBoundAndNoFurther() {
        let source = { (n: Int) in "let x: " + String(repeating: "A<", count: n) + "Int" + String(repeating: ">", count: n) + " = y\n" }
        #expect(Self.tooDeep(source(SwiftSource.maximumGenericNesting)) == nil)
        #expect(Self.tooDeep(source(SwiftSource.maximumGenericNesting + 1))?.isPastABound == true)
        #expect(Self.tooDeep(source(2_000))?.isPastABound == true)
        // Comparisons and arrows are not generic arguments: many on many lines read.
        #expect(Self.tooDeep(String(repeating: "let b = a<c && d->e\nfunc f() -> Int { 1 }\n", count: 200)) == nil)
    }

    @Test func chainsAreBoundedByTheTreesDepth() throws {
        // Member and call chains build a tree one node deeper per link, without any bracket nesting.
        let chain = { (n: Int) in "let x = a" + String(repeating: ".b", count: n) + "\n" }
        var fits = 1
        while Self.tooDeep(chain(fits * 2)) == nil { fits *= 2 }
        var low = fits, high = fits * 2
        while high - low > 1 {
            let mid = (low + high) / 2
            if Self.tooDeep(chain(mid)) == nil { low = mid } else { high = mid }
        }
        #expect(Self.tooDeep(chain(low)) == nil, "at the bound")
        let past = try #require(Self.tooDeep(chain(low + 1)))
        #expect("\(past)".contains("chained or nested more than \(SwiftSource.maximumTreeDepth) deep"))
        #expect(Self.tooDeep("let x = f" + String(repeating: "()", count: 5_000) + "\n")?.isPastABound == true)
    }

    @Test func deepRunsOfSquareBracketsReadInLinearTime() throws {
        // swift-syntax's InlineArray lookahead doubles with each `[` of such a run; 60 used to take years.
        for (open, close) in [("[", "]"), ("[(", ")]"), ("([", "])")] {
            let facts = try SwiftReader.read(Self.nested(open, close, 60), file: "Run.swift")
            #expect(facts.sites.isEmpty)
        }
        // What is read there is still the file's: lines and sites after a run are where they are.
        let text = Self.nested("[", "]", 30) + "func f() { DataSharingHelper.shared.appGroupName = \"group.x\" }\n"
        let site = try #require(try SwiftReader.read(text, file: "Run.swift").sites.first)
        #expect(site.value == .string("group.x"))
        #expect(site.line == 2)
        #expect(site.column == 12)
        // A dictionary at the bottom of a run keeps its brackets (only a `[` that holds another run reads as `(`).
        #expect(Self.tooDeep(Self.nested("[", "]", 8, inner: "[\"a\": 1, \"b\": [:]]")) == nil)
    }

    @Test func aFileLargerThanTheBoundIsRefusedByName() throws {
        let limit = SwiftSource.maximumFileSize
        let comment = { (n: Int) in "//" + String(repeating: "x", count: n - 3) + "\n" }
        #expect(Self.tooDeep(comment(limit)) == nil)
        let past = try #require(Self.tooDeep(comment(limit + 1)))
        #expect("\(past)".contains("past the \(limit / 1024) KB doctor and import read"))
    }

    @Test func noMessageQuotesMoreThan200CharactersOfInput() throws {
        let long = String(repeating: "a", count: 1_000_000)
        let facts = try SwiftReader.read("func f() { DataSharingHelper.shared.appGroupName = \(long) + \"x\" }", file: "Long.swift")
        let value = try #require(facts.sites.first?.value)
        guard case .unreadable(let text) = value else { Issue.record("\(value)"); return }
        #expect(text.count <= 201)
        let bad = Self.tooDeep("let \(long) = (")
        #expect(bad != nil)
        #expect("\(bad.map { "\($0)" } ?? "")".count < 400)
    }

    @Test func stringsAreDecodedAsSwiftDecodesThem() throws {
        let facts = try SwiftReader.read(#"""
            func f() {
                DataSharingHelper.shared.appGroupName = "group.\u{61}cme\t"
                let k = KeyGenerator.encryptionKey(for: #"raw\u{61}"#)
            }
            """#, file: "Escapes.swift")
        #expect(facts.sites.first { $0.kind == .groupName }?.value == .string("group.acme\t"))
        #expect(facts.sites.first { $0.kind == .keyLabel }?.value == .string(#"raw\u{61}"#))
    }

    @Test func aGroupBuiltAtRunTimeIsUnreadableNeverItsFirstOperand() throws {
        let facts = try SwiftReader.read("""
            func f(suffix: String, beta: Bool) {
                DataSharingHelper.shared.appGroupName = "group.com.acme.recents" + suffix
                DataSharingHelper.shared.appGroupName += ".beta"
                DataSharingHelper.shared.appGroupName = beta ? "group.a" : "group.b"
                DataSharingHelper.shared.appGroupName = "group.com.acme.recents"
            }
            """, file: "Runtime.swift")
        let values = facts.sites.filter { $0.kind == .groupName }.map(\.value)
        #expect(values.count == 4)
        #expect(values[0] == .unreadable("\"group.com.acme.recents\" + suffix"))
        #expect(values[1] == .unreadable("DataSharingHelper.shared.appGroupName += \".beta\""))
        #expect(values[2] == .unreadable("beta ? \"group.a\" : \"group.b\""))
        #expect(values[3] == .string("group.com.acme.recents"))
    }

    @Test func objectiveCInsideIfZeroIsNotCode() {
        let text = """
            #if 0
            [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.dead";
            #if DEBUG
            [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.dead.too";
            #endif
            #else
            [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.live";
            #endif
            #ifdef DEBUG
            [SFSDKDatasharingHelper sharedInstance].appGroupName = @"group.debug";
            #endif
            """
        let facts = ObjCReader.read(text, file: "If0.m")
        #expect(facts.sites.map(\.value) == [.string("group.live"), .string("group.debug")])
        #expect(facts.sites.map(\.line) == [7, 10])
    }

    @Test func aFIFOADirectoryOrADeviceNamedSwiftIsNamedForWhatItIs() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("reader-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir.appendingPathComponent("Folder.swift"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        #expect(mkfifo(dir.appendingPathComponent("Pipe.swift").path, 0o600) == 0)
        let cases = [("Pipe.swift", "is a FIFO (named pipe), not a source file"), ("Folder.swift", "is a directory, not a source file")]
        for (name, expected) in cases {
            do {
                _ = try SourceReader.read(fileAt: dir.appendingPathComponent(name), name: name)
                Issue.record("\(name) was read")
            } catch {
                #expect("\(error)" == "\(name): \(expected): not read; remove it from the target or replace it with the file")
            }
        }
        do {
            _ = try SourceReader.read(fileAt: URL(fileURLWithPath: "/dev/null.swift"), name: "null.swift")
        } catch { #expect("\(error)".contains("cannot be examined")) }
    }

    /// Found by scripts/fuzz (ObjC) in CI: a send whose brackets and string literals interleave (`["["g" ]dg" ]d:`)
    /// made the reader cut a range whose end came before its start (a crash). Read, it ends in facts, never a crash.
    @Test func aSendWhoseStringsAndBracketsInterleaveIsRead() throws {
        let found = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fuzz/ObjC/corpus/regression-string-then-bracket-send"), encoding: .utf8)
        #expect(found == #"["["g" ]dg" ]d:"#)
        for text in [found, found + "\n", "- (void)f { " + found + " }\n", #"[x "["g" ]dg" ]d:@"k"];"#] {
            let facts = ObjCReader.read(text, file: "Fuzz.m")
            let lines = text.utf8.reduce(1) { $0 + ($1 == 0x0A ? 1 : 0) }
            #expect(facts.sites.allSatisfy { $0.line >= 1 && $0.line <= lines && $0.column >= 1 })
        }
    }

    @Test func objectiveCReadingIsLinearInANestedSend() {
        // 20,000 nested sends (about 360 KB): each send's receiver text is never built from everything inside it.
        let n = 20_000
        let text = "- (void)f { [" + String(repeating: "[", count: n) + "NSUserDefaults standardUserDefaults]"
            + String(repeating: " boolForKey:@\"k\"]", count: n) + " setBool:YES forKey:@\"k\"]; }\n"
        let facts = ObjCReader.read(text, file: "Nested.m")
        #expect(facts.sites.filter { $0.kind == .boolRead }.count == n)
        #expect(facts.sites.allSatisfy { "\($0.defaults.map { "\($0)" } ?? "")".count < 300 })
    }
}
