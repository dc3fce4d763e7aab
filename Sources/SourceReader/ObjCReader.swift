import Foundation

/// Reads an Objective-C file with a small tokenizer and a message-send parser (never a regex over the
/// file): comments, preprocessor lines and string contents cannot fake a match.
enum ObjCReader {
    struct Token: Equatable {
        enum Kind: Equatable { case identifier, string, number, char, punct }
        var kind: Kind
        var text: String
        var line: Int
        var column: Int
        var offset: Int
    }

    /// Identifiers, `@"…"` and `"…"` strings (escapes kept as written), numbers, character literals and
    /// one-character punctuation; comments and preprocessor lines (with their continuations) dropped, and the
    /// lines inside `#if 0` (up to its `#else`, `#elif` or `#endif`), which are not code.
    static func tokenize(_ text: String) -> [Token] {
        let s = Array(text.utf8)
        var out: [Token] = []
        var i = 0, line = 1, lineStart = 0
        var atLineStart = true
        // One entry per open #if: whether its lines are code (false under `#if 0`, or inside another that is not).
        var conditions: [(parentActive: Bool, active: Bool)] = []
        var active: Bool { conditions.last?.active ?? true }
        func isIdent(_ c: UInt8) -> Bool { c == 95 || c == 36 || (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c >= 0x80 }
        while i < s.count {
            let c = s[i]
            if c == 10 { line += 1; i += 1; lineStart = i; atLineStart = true; continue }
            if c == 32 || c == 9 || c == 13 || c == 12 { i += 1; continue }
            if c == 35 /* # */ && atLineStart {
                // A preprocessor line, with its backslash continuations.
                var directive: [UInt8] = []
                while i < s.count && s[i] != 10 {
                    if s[i] == 92 && i + 1 < s.count && s[i + 1] == 10 { line += 1; i += 2; lineStart = i; directive.append(32); continue }
                    directive.append(s[i])
                    i += 1
                }
                let words = String(decoding: directive.dropFirst(), as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "(" || $0 == ")" })
                switch words.first {
                case "if"?:
                    let zero = words.count >= 2 && (words[1] == "0" || words[1] == "false")
                    conditions.append((active, active && !zero))
                case "ifdef"?, "ifndef"?: conditions.append((active, active))
                case "elif"?, "else"?:
                    // The other branch of `#if 0` is code (an `#elif` is read as code: never guessed false).
                    if let last = conditions.popLast() { conditions.append((last.parentActive, last.parentActive)) }
                case "endif"?: _ = conditions.popLast()
                default: break
                }
                continue
            }
            if !active {
                // Not code: skip to the end of the line (a comment or string cannot hide a directive from the preprocessor either).
                while i < s.count && s[i] != 10 { i += 1 }
                continue
            }
            atLineStart = false
            if c == 47 && i + 1 < s.count && s[i + 1] == 47 { while i < s.count && s[i] != 10 { i += 1 }; continue }
            if c == 47 && i + 1 < s.count && s[i + 1] == 42 {
                i += 2
                while i + 1 < s.count && !(s[i] == 42 && s[i + 1] == 47) { if s[i] == 10 { line += 1; lineStart = i + 1 }; i += 1 }
                i = min(i + 2, s.count)
                continue
            }
            let start = i, col = i - lineStart + 1
            if c == 34 || (c == 64 && i + 1 < s.count && s[i + 1] == 34) || c == 39 {
                let quote: UInt8 = c == 39 ? 39 : 34
                i += c == 64 ? 2 : 1
                var content: [UInt8] = []
                while i < s.count && s[i] != quote && s[i] != 10 {
                    if s[i] == 92 && i + 1 < s.count { content.append(s[i]); content.append(s[i + 1]); i += 2; continue }
                    content.append(s[i]); i += 1
                }
                i = min(i + 1, s.count)
                out.append(Token(kind: quote == 39 ? .char : .string, text: String(decoding: content, as: UTF8.self), line: line, column: col, offset: start))
                continue
            }
            if isIdent(c) && !(c >= 48 && c <= 57) {
                while i < s.count && isIdent(s[i]) { i += 1 }
                out.append(Token(kind: .identifier, text: String(decoding: s[start..<i], as: UTF8.self), line: line, column: col, offset: start))
                continue
            }
            if c >= 48 && c <= 57 {
                while i < s.count && (isIdent(s[i]) || s[i] == 46) { i += 1 }
                out.append(Token(kind: .number, text: String(decoding: s[start..<i], as: UTF8.self), line: line, column: col, offset: start))
                continue
            }
            i += 1
            out.append(Token(kind: .punct, text: String(UnicodeScalar(c)), line: line, column: col, offset: start))
        }
        return out
    }

    /// One `[receiver selector:arg …]`: token ranges into the file's tokens.
    struct Message {
        var open: Int
        var close: Int
        var receiver: Range<Int>
        /// `sharedInstance` for a unary send; `setBool:forKey:` keywords with their argument ranges otherwise.
        var parts: [(keyword: String, argument: Range<Int>?)]
        var selector: String { parts.count == 1 && parts[0].argument == nil ? parts[0].keyword : parts.map { $0.keyword + ":" }.joined() }
    }

    static func read(_ text: String, file: String) -> FileFacts {
        let tokens = tokenize(text)
        var facts = FileFacts()
        // Matching brackets, parentheses and braces.
        var match = [Int](repeating: -1, count: tokens.count)
        var stack: [Int] = []
        for (i, t) in tokens.enumerated() where t.kind == .punct {
            switch t.text {
            case "[", "(", "{": stack.append(i)
            case "]", ")", "}":
                if let open = stack.last, pairs(tokens[open].text, t.text) { stack.removeLast(); match[open] = i; match[i] = open }
            default: break
            }
        }
        // Brace depth of each token: a method starts at depth 0.
        var braceDepth = [Int](repeating: 0, count: tokens.count)
        var depth = 0
        for (k, t) in tokens.enumerated() {
            if t.text == "}" && t.kind == .punct { depth = max(0, depth - 1) }
            braceDepth[k] = depth
            if t.text == "{" && t.kind == .punct { depth += 1 }
        }
        // Methods (`- (BOOL)application:(UIApplication *)app didFinishLaunchingWithOptions:(…)opts {`) and C functions.
        var functions: [(range: ClosedRange<Int>, name: String, type: String?)] = []
        var currentType: String?
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if t.kind == .punct, t.text == "@", i + 2 < tokens.count, ["implementation", "interface"].contains(tokens[i + 1].text) {
                currentType = tokens[i + 2].text
            }
            if t.kind == .punct, t.text == "-" || t.text == "+", braceDepth[i] == 0, i + 1 < tokens.count, tokens[i + 1].text == "(" {
                // Scan the selector up to the body's brace (or a declaration's semicolon).
                var j = i + 1
                var name = ""
                var keywords: [String] = []
                while j < tokens.count, tokens[j].text != "{", tokens[j].text != ";" {
                    // Another method's start ends this one's selector: each token is scanned once (linear time).
                    if tokens[j].kind == .punct, tokens[j].text == "-" || tokens[j].text == "+", j + 1 < tokens.count, tokens[j + 1].text == "(" { break }
                    if tokens[j].text == "(", match[j] > j { j = match[j] + 1; continue }
                    if tokens[j].kind == .identifier {
                        if j + 1 < tokens.count, tokens[j + 1].text == ":" { keywords.append(tokens[j].text + ":"); j += 2; continue }
                        if keywords.isEmpty, name.isEmpty { name = tokens[j].text }
                    }
                    j += 1
                }
                if j < tokens.count, tokens[j].text == "{", match[j] > j {
                    functions.append((j...match[j], keywords.isEmpty ? name : keywords.joined(), currentType))
                    i = j + 1
                    continue
                }
            }
            i += 1
        }
        // Each token's function and the @implementation it is in, once for the file (linear, not a search per site).
        var functionAt = [Int](repeating: -1, count: tokens.count)
        for (index, f) in functions.enumerated() { for k in f.range where k < tokens.count { functionAt[k] = index } }
        var typeAt = [String?](repeating: nil, count: tokens.count)
        var openType: String?
        for k in 0..<tokens.count {
            typeAt[k] = openType
            if tokens[k].text == "@", k + 2 < tokens.count, tokens[k + 1].text == "implementation" { openType = tokens[k + 2].text }
        }
        func context(_ index: Int) -> (String?, String?) {
            guard index < tokens.count, functionAt[index] >= 0 else { return (nil, index < tokens.count ? typeAt[index] : nil) }
            let f = functions[functionAt[index]]
            return (f.name, f.type)
        }
        func value(_ range: Range<Int>?) -> CodeSite.Value {
            guard let range, !range.isEmpty else { return .unreadable("(nothing)") }
            let ts = tokens[range]
            if ts.allSatisfy({ $0.kind == .string }) { return .string(ts.map(\.text).joined()) }
            if ts.count == 1, let only = ts.first {
                switch only.text {
                case "YES", "true", "TRUE": return .bool(true)
                case "NO", "false", "FALSE": return .bool(false)
                default: break
                }
            }
            return .unreadable(SourceReadError.clipped(ts.prefix(100).map { $0.kind == .string ? "@\"\($0.text)\"" : $0.text }.joined(separator: " ")))
        }
        func add(_ kind: CodeSite.Kind, _ v: CodeSite.Value, at index: Int, key: CodeSite.Value? = nil, defaults: CodeSite.Defaults? = nil) {
            let t = tokens[index]
            let (function, type) = context(index)
            facts.sites.append(CodeSite(kind: kind, value: v, key: key, defaults: defaults, file: file, line: t.line, column: t.column,
                function: function, type: type, offset: t.offset))
        }

        // Constants: `NSString * const kName = @"…";` and `static NSString *kName = @"…";`.
        for k in 0..<tokens.count where tokens[k].text == "=" && k >= 1 && k + 2 < tokens.count {
            guard tokens[k - 1].kind == .identifier, tokens[k + 1].kind == .string, tokens[k + 2].text == ";" else { continue }
            // Only at file level (outside any function), as a constant is.
            guard functionAt[k] < 0 else { continue }
            facts.constants.append(CodeConstant(name: tokens[k - 1].text, value: tokens[k + 1].text, file: file, line: tokens[k + 1].line))
        }

        // Message sends.
        var messages: [Message] = []
        for open in 0..<tokens.count where tokens[open].text == "[" && match[open] > open {
            if let m = parseMessage(tokens, match: match, open: open) { messages.append(m) }
        }
        let messageAt = Dictionary(messages.map { ($0.open, $0) }, uniquingKeysWith: { first, _ in first })
        /// The receiver's text when it is short (every receiver compared here is a few tokens): a nested send's
        /// receiver spans all the sends inside it, so its text is never built (linear time).
        func receiverText(_ m: Message) -> String { m.receiver.count > 8 ? "" : tokens[m.receiver].map(\.text).joined() }
        func defaults(_ m: Message) -> CodeSite.Defaults {
            let text = receiverText(m)
            if text == "[NSUserDefaultsstandardUserDefaults]" { return .standard }
            if text == "[NSUserDefaultsmsdkUserDefaults]" { return .msdk }
            if let inner = messageAt[m.receiver.lowerBound], inner.selector == "initWithSuiteName:" {
                if case .string(let s) = value(inner.parts[0].argument) { return .suite(s) }
            }
            return facts.defaultsBindings[text] ?? .unknown(SourceReadError.clipped(tokens[m.receiver].prefix(60).map(\.text).joined(separator: " ")))
        }
        // Names bound to a defaults object: `NSUserDefaults *shared = [[NSUserDefaults alloc] initWithSuiteName:@"…"];`.
        for m in messages where m.selector == "initWithSuiteName:" {
            // `x = [[NSUserDefaults alloc] initWithSuiteName:…]`: the send starts at the outer `[` of `[[NSUserDefaults alloc] …]`.
            if m.open >= 2, tokens[m.open - 1].text == "=", tokens[m.open - 2].kind == .identifier, case .string(let s) = value(m.parts[0].argument) {
                facts.defaultsBindings[tokens[m.open - 2].text] = .suite(s)
            }
        }
        for m in messages where m.selector == "standardUserDefaults" || m.selector == "msdkUserDefaults" {
            if m.open >= 2, tokens[m.open - 1].text == "=", tokens[m.open - 2].kind == .identifier {
                facts.defaultsBindings[tokens[m.open - 2].text] = m.selector == "msdkUserDefaults" ? .msdk : .standard
            }
        }

        for m in messages {
            let receiver = receiverText(m)
            let isHelper = receiver == "[SFSDKDatasharingHelpersharedInstance]"
            switch m.selector {
            case "setAppGroupName:" where isHelper: add(.groupName, value(m.parts[0].argument), at: m.open)
            case "setAppGroupEnabled:" where isHelper: add(.groupEnabled, value(m.parts[0].argument), at: m.open)
            case "sharedInstance" where receiver == "SFSDKDatasharingHelper":
                // Dot syntax on the result: `[SFSDKDatasharingHelper sharedInstance].appGroupName = @"…";`.
                let after = m.close + 1
                guard after + 2 < tokens.count, tokens[after].text == ".", tokens[after + 2].text == "=" else { break }
                var end = after + 3
                while end < tokens.count, tokens[end].text != ";" { end += 1 }
                switch tokens[after + 1].text {
                case "appGroupName": add(.groupName, value((after + 3)..<end), at: m.open)
                case "appGroupEnabled": add(.groupEnabled, value((after + 3)..<end), at: m.open)
                default: break
                }
            case "containerURLForSecurityApplicationGroupIdentifier:": add(.containerGroup, value(m.parts[0].argument), at: m.open)
            case "initWithSuiteName:": add(.defaultsSuite, value(m.parts[0].argument), at: m.open)
            case "encryptionKeyFor:error:" where receiver == "SFSDKKeyGenerator": add(.keyLabel, value(m.parts[0].argument), at: m.open)
            case "initializeSDK" where receiver.hasSuffix("Manager"): add(.initializeSDK, .none, at: m.open)
            case "boolForKey:": add(.boolRead, .none, at: m.open, key: value(m.parts[0].argument), defaults: defaults(m))
            case "setBool:forKey:": add(.boolWrite, value(m.parts[0].argument), at: m.open, key: value(m.parts[1].argument), defaults: defaults(m))
            default: break
            }
        }
        facts.sites.sort { $0.offset < $1.offset }
        return facts
    }

    static func pairs(_ open: String, _ close: String) -> Bool { (open, close) == ("[", "]") || (open, close) == ("(", ")") || (open, close) == ("{", "}") }

    /// `[` receiver selector `]`: the receiver is a nested send, a cast-free name, or a `.`-chain of names;
    /// the selector one name, or `keyword: argument` pairs whose arguments run to the next `keyword:` at
    /// their own nesting level.
    static func parseMessage(_ tokens: [Token], match: [Int], open: Int) -> Message? {
        let close = match[open]
        var i = open + 1
        guard i < close else { return nil }
        let receiverStart = i
        if tokens[i].text == "[" {
            // A nested send's `[` left unclosed (`["[" …`) has no match: no receiver to read, so no message.
            guard match[i] > i else { return nil }
            i = match[i] + 1
        } else if tokens[i].kind == .identifier {
            i += 1
            while i + 1 < close, tokens[i].text == ".", tokens[i + 1].kind == .identifier { i += 2 }
        } else {
            return nil
        }
        // Dot access on a nested send's result: `[[X shared].prop method]`.
        while i + 1 < close, tokens[i].text == ".", tokens[i + 1].kind == .identifier { i += 2 }
        let receiver = receiverStart..<i
        guard i < close, tokens[i].kind == .identifier else { return nil }
        if i + 1 == close { return Message(open: open, close: close, receiver: receiver, parts: [(tokens[i].text, nil)]) }
        var parts: [(String, Range<Int>?)] = []
        while i < close {
            guard tokens[i].kind == .identifier, i + 1 < close, tokens[i + 1].text == ":" else { return parts.isEmpty ? nil : Message(open: open, close: close, receiver: receiver, parts: parts) }
            let keyword = tokens[i].text
            var j = i + 2
            let argStart = j
            while j < close {
                if ["[", "(", "{"].contains(tokens[j].text), match[j] > j { j = match[j] + 1; continue }
                if tokens[j].kind == .identifier, j + 1 < close, tokens[j + 1].text == ":", j > argStart { break }
                j += 1
            }
            parts.append((keyword, argStart..<j))
            i = j
        }
        return Message(open: open, close: close, receiver: receiver, parts: parts)
    }
}
