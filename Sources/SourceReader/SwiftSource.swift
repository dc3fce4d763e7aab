import Foundation
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax
#if canImport(Glibc)
import Glibc
#endif

/// A developer's Swift file, parsed within bounds (issue 34): every reader of Swift (doctor, import's
/// port and its UI check) gets its tree from here, so none of them can be crashed or stalled by a file.
///
/// - Nesting: brackets, parentheses, braces and `#if` deeper than `maximumNesting` are refused with the
///   line where the bound is passed, before the parser sees them (a linear scan), and the tree's depth is
///   checked again without recursion before any visitor walks it. Parsing and walking run on a thread with
///   a stack far larger than what the bounds need, so a bounded file never overflows it.
/// - Time: swift-syntax's lookahead for `[N of T]` (InlineArray, since 602) is exponential in a run of `[`
///   and `(` that open one inside the other (`[[[[…`: 20 took 23 s in a debug build). What the parser reads
///   is the file with each `[` beyond the third of such a run, that holds another such run, read as `(` (and
///   its `]` as `)`): the same length, lines and columns, a tuple where an array literal was, and linear
///   time. Nothing the readers look for is an array nested four deep.
package enum SwiftSource {
    /// How deeply `(`, `[`, `{` and `#if` may nest together. Real code stays below 40.
    package static let maximumNesting = 200
    /// How deep the syntax tree may be: several nodes per level of nesting, and chains (`a.b.c…`, `f()()…`,
    /// `a + b + …`) are one node deeper per link.
    package static let maximumTreeDepth = 4_000
    /// How deeply generic arguments (`A<B<C>>`) may nest on one line: the parser's time grows with the square of it.
    package static let maximumGenericNesting = 64
    /// The largest file read: swift-syntax built for debugging (what `swift build` makes) parses about
    /// 65 KB a second, so a bigger file is refused by name rather than read for minutes.
    package static let maximumFileSize = 2 << 20
    /// The `[` of one run beyond which `[` reads as `(`.
    static let squaresKeptInARun = 3
    /// The parsing thread's stack: the bounds above need a small part of it, in a debug build too.
    static let stackSize = 1 << 30

    /// Parses `text` (named `file` in errors) and runs `body` on the tree, on the large stack. A file past a
    /// bound, or one that does not parse, throws `SourceReadError` naming file:line.
    package static func withTree<T: Sendable>(
        _ text: String, file: String, _ body: @escaping @Sendable (SourceFileSyntax, SourceLocationConverter) throws -> T
    ) throws -> T {
        let parsed = try NestingScan.scan(Array(text.utf8), file: file)
        return try LargeStack.run(stackSize: stackSize) {
            let tree = parsed.withUnsafeBufferPointer { Parser.parse(source: $0, maximumNestingLevel: maximumNesting + 56) }
            let converter = SourceLocationConverter(fileName: file, tree: tree)
            try checkDepth(tree, file: file, converter: converter)
            if tree.hasError {
                let diagnostics = ParseDiagnosticsGenerator.diagnostics(for: tree)
                if let first = diagnostics.first {
                    let loc = first.location(converter: converter)
                    throw SourceReadError.syntax(file: file, line: loc.line, column: loc.column, message: SourceReadError.clipped(first.message))
                }
                throw SourceReadError.syntax(file: file, line: 1, column: 1, message: "the file does not parse")
            }
            return try body(tree, converter)
        }
    }

    /// The tree's depth, measured with an explicit stack (no recursion), against `maximumTreeDepth`.
    static func checkDepth(_ tree: SourceFileSyntax, file: String, converter: SourceLocationConverter) throws {
        var stack: [(Syntax, Int)] = [(Syntax(tree), 0)]
        while let (node, depth) = stack.popLast() {
            if depth > maximumTreeDepth {
                let loc = converter.location(for: node.positionAfterSkippingLeadingTrivia)
                throw SourceReadError.tooDeep(file: file, line: loc.line, what: "expressions chained or nested more than \(maximumTreeDepth) deep")
            }
            for child in node.children(viewMode: .sourceAccurate) { stack.append((child, depth + 1)) }
        }
    }
}

/// One pass over the bytes of a Swift file: how deeply `(`, `[`, `{` and `#if` nest (comments and string
/// literals skipped, interpolations counted as code), refused past the bound before the parser, whose
/// recursion is deep, ever sees it; and the bytes the parser reads (`SwiftSource`: deep `[` runs as `(`).
enum NestingScan {
    enum Kind: Equatable {
        case paren, square, brace, poundIf
        /// `\(` in a string: code until its `)`, then the string again (`hashes` and `multiline` of that string).
        case interpolation(hashes: Int, multiline: Bool)
    }

    struct Frame {
        var kind: Kind
        /// Where its opening byte is.
        var open: Int
        /// How many `[` the run of openers ending here holds (`[([` is 2).
        var squares: Int
        /// Read as `(` … `)`.
        var rewritten = false
    }

    static func scan(_ source: [UInt8], file: String) throws -> [UInt8] {
        guard source.count <= SwiftSource.maximumFileSize else {
            throw SourceReadError.tooLarge(file: file, bytes: source.count, limit: SwiftSource.maximumFileSize)
        }
        var s = source
        var angles = 0
        var stack: [Frame] = []
        var line = 1
        var i = 0
        var atLineStart = true
        var lastSignificant = -1
        let n = s.count
        func push(_ kind: Kind, at index: Int) throws {
            var squares = kind == .square ? 1 : 0
            if kind == .square || kind == .paren, let top = stack.last, top.kind == .square || top.kind == .paren, top.open == lastSignificant {
                squares += top.squares
            }
            var frame = Frame(kind: kind, open: index, squares: squares)
            if kind == .square, squares > SwiftSource.squaresKeptInARun, let next = nextSignificant(s, after: index), s[next] == 91 || s[next] == 40 {
                s[index] = 40
                frame.rewritten = true
            }
            stack.append(frame)
            if stack.count > SwiftSource.maximumNesting {
                throw SourceReadError.tooDeep(file: file, line: line, what: "brackets, parentheses, braces and #if nested more than \(SwiftSource.maximumNesting) deep")
            }
        }
        func pop(_ kind: Kind, at index: Int) {
            // Unbalanced input is the parser's to report; only a matching frame is popped.
            guard let last = stack.last, last.kind == kind else { return }
            stack.removeLast()
            if last.rewritten { s[index] = 41 }
        }
        /// Skips a string literal whose opening quote(s) end before `i`; returns true when it stopped at an
        /// interpolation (`\(`), with `i` after the `(`.
        func skipString(hashes: Int, multiline: Bool) -> Bool {
            while i < n {
                let c = s[i]
                if c == 92 /* \ */ {
                    var k = i + 1
                    var h = 0
                    while h < hashes, k < n, s[k] == 35 { h += 1; k += 1 }
                    if h == hashes {
                        if k < n, s[k] == 40 /* ( */ { i = k + 1; return true }
                        if k < n, s[k] == 10 { line += 1 }
                        i = k + 1
                        continue
                    }
                    i += 1
                    continue
                }
                if c == 10 {
                    line += 1
                    if !multiline { return false }
                }
                if c == 34 /* " */ {
                    let quotes = multiline ? 3 : 1
                    var k = i
                    var q = 0
                    while q < quotes, k < n, s[k] == 34 { q += 1; k += 1 }
                    if q == quotes {
                        var h = 0
                        while h < hashes, k < n, s[k] == 35 { h += 1; k += 1 }
                        if h == hashes { i = k; return false }
                    }
                    i += 1
                    continue
                }
                i += 1
            }
            return false
        }
        while i < n {
            let c = s[i]
            if c == 10 { line += 1; i += 1; atLineStart = true; angles = 0; continue }
            if c == 32 || c == 9 || c == 13 { i += 1; continue }
            if c == 47, i + 1 < n, s[i + 1] == 47 { while i < n, s[i] != 10 { i += 1 }; continue }
            if c == 47, i + 1 < n, s[i + 1] == 42 {
                i = skipBlockComment(s, from: i) { line += 1 }
                continue
            }
            let lineStart = atLineStart
            atLineStart = false
            defer { lastSignificant = i - 1 }
            if c == 35 /* # */ {
                // `#if` … `#endif` at the start of a line; `#"` a raw string.
                var k = i
                var hashes = 0
                while k < n, s[k] == 35 { hashes += 1; k += 1 }
                if k < n, s[k] == 34 {
                    let multiline = k + 2 < n && s[k + 1] == 34 && s[k + 2] == 34
                    i = k + (multiline ? 3 : 1)
                    if skipString(hashes: hashes, multiline: multiline) { try push(.interpolation(hashes: hashes, multiline: multiline), at: i - 1) }
                    continue
                }
                var e = k
                while e < n, s[e] >= 97 && s[e] <= 122 { e += 1 }
                if lineStart, hashes == 1 {
                    let word = String(decoding: s[k..<e], as: UTF8.self)
                    if word == "if" { try push(.poundIf, at: i) } else if word == "endif" { pop(.poundIf, at: i) }
                }
                i = max(e, i + 1)
                continue
            }
            if c == 34 {
                let multiline = i + 2 < n && s[i + 1] == 34 && s[i + 2] == 34
                i += multiline ? 3 : 1
                if skipString(hashes: 0, multiline: multiline) { try push(.interpolation(hashes: 0, multiline: multiline), at: i - 1) }
                continue
            }
            switch c {
            case 60 where i > 0 && isNameByte(s[i - 1]) || (i > 0 && s[i - 1] == 60):
                // `Name<`: a generic argument list opens (or a comparison without spaces: one line of those is short).
                angles += 1
                if angles > SwiftSource.maximumGenericNesting {
                    throw SourceReadError.tooDeep(file: file, line: line, what: "generic arguments (<…>) nested more than \(SwiftSource.maximumGenericNesting) deep on one line")
                }
            case 62 where angles > 0 && !(i > 0 && s[i - 1] == 45): angles -= 1
            case 59: angles = 0
            case 40: try push(.paren, at: i)
            case 91: try push(.square, at: i)
            case 123:
                angles = 0
                try push(.brace, at: i)
            case 41:
                if case .interpolation(let hashes, let multiline)? = stack.last?.kind {
                    stack.removeLast()
                    i += 1
                    if skipString(hashes: hashes, multiline: multiline) { try push(.interpolation(hashes: hashes, multiline: multiline), at: i - 1) }
                    continue
                }
                pop(.paren, at: i)
            case 93: pop(.square, at: i)
            case 125:
                angles = 0
                pop(.brace, at: i)
            default: break
            }
            i += 1
        }
        return s
    }

    static func isNameByte(_ c: UInt8) -> Bool { c == 95 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0x80 }

    /// The index after a `/* … */` comment (nested, as Swift's) that starts at `i`; `newline` for each line in it.
    static func skipBlockComment(_ s: [UInt8], from start: Int, newline: () -> Void = {}) -> Int {
        var depth = 1
        var i = start + 2
        while i < s.count, depth > 0 {
            if s[i] == 10 { newline() }
            if s[i] == 47, i + 1 < s.count, s[i + 1] == 42 { depth += 1; i += 2; continue }
            if s[i] == 42, i + 1 < s.count, s[i + 1] == 47 { depth -= 1; i += 2; continue }
            i += 1
        }
        return i
    }

    /// The first byte after `index` that is not white space or a comment.
    static func nextSignificant(_ s: [UInt8], after index: Int) -> Int? {
        var i = index + 1
        while i < s.count {
            let c = s[i]
            if c == 10 || c == 32 || c == 9 || c == 13 { i += 1; continue }
            if c == 47, i + 1 < s.count, s[i + 1] == 47 { while i < s.count, s[i] != 10 { i += 1 }; continue }
            if c == 47, i + 1 < s.count, s[i + 1] == 42 { i = skipBlockComment(s, from: i); continue }
            return i
        }
        return nil
    }
}

/// Runs a closure on a new thread with a given stack size and waits for it: the parser and the visitors
/// recurse once per level of nesting, and the main thread's 8 MB is not enough for a debug build's frames.
enum LargeStack {
    /// What the new thread runs: not generic, as a C function pointer cannot capture a generic parameter.
    final class Job: @unchecked Sendable {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func run<T>(stackSize: Int, _ body: @escaping () throws -> T) throws -> T {
        nonisolated(unsafe) var result: Result<T, any Error>?
        let job = Job { result = Result { try body() } }
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setstacksize(&attributes, stackSize)
        var thread = pthread_t()
        let context = Unmanaged.passRetained(job).toOpaque()
        let started = pthread_create(&thread, &attributes, { raw in
            Unmanaged<Job>.fromOpaque(raw!).takeRetainedValue().run()
            return nil
        }, context)
        guard started == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            // No thread: read on this one (a small file never needs the large stack).
            return try body()
        }
        pthread_join(thread, nil)
        guard let result else { throw SourceReadError.unreadable(file: "?", detail: "the reader's thread ended without a result") }
        return try result.get()
    }
}
