import Foundation
import SwiftParser
import SwiftSyntax
#if canImport(Glibc)
import Glibc
#endif

package enum SourceReader {
    /// Reads a Swift (`.swift`) or Objective-C (`.m`, `.mm`) file; other files say nothing.
    package static func read(fileAt url: URL, name: String) throws -> FileFacts {
        let ext = url.pathExtension.lowercased()
        guard ["swift", "m", "mm"].contains(ext) else { return FileFacts() }
        let data = try readRegularFile(url, name: name)
        guard let text = String(data: data, encoding: .utf8) else {
            throw SourceReadError.unreadable(file: name, detail: "is not UTF-8 text")
        }
        return ext == "swift" ? try SwiftReader.read(text, file: name) : ObjCReader.read(text, file: name)
    }

    /// The file's bytes, when it is a regular file (a link to one is followed): a FIFO is never opened for
    /// reading (it would block), and a directory, socket or device named `.swift` is refused by what it is.
    package static func readRegularFile(_ url: URL, name: String) throws -> Data {
        var info = stat()
        guard stat(url.path, &info) == 0 else {
            throw SourceReadError.unreadable(file: name, detail: "cannot be examined (\(String(cString: strerror(errno))))")
        }
        let kind: String?
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = nil
        case S_IFDIR: kind = "a directory"
        case S_IFIFO: kind = "a FIFO (named pipe)"
        case S_IFSOCK: kind = "a socket"
        case S_IFCHR, S_IFBLK: kind = "a device"
        default: kind = "not a regular file"
        }
        if let kind { throw SourceReadError.unreadable(file: name, detail: "is \(kind), not a source file: not read; remove it from the target or replace it with the file") }
        let fd = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let why = errno == EACCES ? "permission denied; give its owner read access" : String(cString: strerror(errno))
            throw SourceReadError.unreadable(file: name, detail: "cannot be read (\(why))")
        }
        defer { close(fd) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 {
                if errno == EINTR { continue }
                throw SourceReadError.unreadable(file: name, detail: "cannot be read (\(String(cString: strerror(errno))))")
            }
            if n == 0 { break }
            data.append(buffer, count: n)
        }
        return data
    }
}

/// Reads a Swift file with SwiftSyntax: the sites of `CodeSite.Kind`, the file's string constants and its
/// names bound to a defaults suite. A file with a syntax error is refused with the parser's first message.
enum SwiftReader {
    static func read(_ text: String, file: String) throws -> FileFacts {
        try SwiftSource.withTree(text, file: file) { tree, converter in
            // Two passes: names and constants first (a property may be declared below its use), then the sites.
            let visitor = Visitor(file: file, converter: converter)
            visitor.walk(tree)
            visitor.collectingSites = true
            visitor.walk(tree)
            return visitor.facts
        }
    }

    static let helperBases: Set<String> = ["DataSharingHelper.shared", "SFSDKDatasharingHelper.sharedInstance()", "DataSharingHelper.sharedInstance()"]

    final class Visitor: SyntaxVisitor {
        let file: String
        let converter: SourceLocationConverter
        var facts = FileFacts()
        var collectingSites = false

        init(file: String, converter: SourceLocationConverter) {
            self.file = file
            self.converter = converter
            super.init(viewMode: .sourceAccurate)
        }

        // MARK: Where a site is

        func context(of node: some SyntaxProtocol) -> (function: String?, type: String?) {
            var function: String?
            var type: String?
            var current: Syntax? = Syntax(node).parent
            while let n = current {
                if function == nil {
                    if let f = n.as(FunctionDeclSyntax.self) {
                        let labels = f.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                        function = "\(f.name.text)(\(labels))"
                    } else if let i = n.as(InitializerDeclSyntax.self) {
                        let labels = i.signature.parameterClause.parameters.map { "\($0.firstName.text):" }.joined()
                        function = labels.isEmpty ? "init" : "init(\(labels))"
                    } else if let a = n.as(AccessorDeclSyntax.self) {
                        function = a.accessorSpecifier.text
                    }
                }
                if type == nil {
                    if let c = n.as(ClassDeclSyntax.self) { type = c.name.text }
                    else if let s = n.as(StructDeclSyntax.self) { type = s.name.text }
                    else if let e = n.as(ExtensionDeclSyntax.self) { type = Self.text(e.extendedType) }
                    else if let e = n.as(EnumDeclSyntax.self) { type = e.name.text }
                    else if let a = n.as(ActorDeclSyntax.self) { type = a.name.text }
                }
                current = n.parent
            }
            return (function, type)
        }

        func add(_ kind: CodeSite.Kind, _ value: CodeSite.Value, at node: some SyntaxProtocol, key: CodeSite.Value? = nil, defaults: CodeSite.Defaults? = nil) {
            let loc = converter.location(for: node.positionAfterSkippingLeadingTrivia)
            let (function, type) = context(of: node)
            facts.sites.append(CodeSite(
                kind: kind, value: value, key: key, defaults: defaults, file: file, line: loc.line, column: loc.column,
                function: function, type: type, offset: node.positionAfterSkippingLeadingTrivia.utf8Offset))
        }

        // MARK: Values

        static func stripped(_ expr: ExprSyntax) -> ExprSyntax {
            var e = expr
            while true {
                if let o = e.as(OptionalChainingExprSyntax.self) { e = o.expression }
                else if let f = e.as(ForceUnwrapExprSyntax.self) { e = f.expression }
                else if let t = e.as(TupleExprSyntax.self), t.elements.count == 1, let only = t.elements.first, only.label == nil { e = only.expression }
                else { return e }
            }
        }

        /// A literal's value, as Swift decodes it (`"\u{61}"` is `a`, a raw string keeps its backslashes); anything
        /// else (an interpolation, a call, `"a" + b`) is unreadable, with at most 200 characters of its text.
        static func value(_ expr: ExprSyntax) -> CodeSite.Value {
            let e = stripped(expr)
            if let s = e.as(StringLiteralExprSyntax.self), let decoded = s.representedLiteralValue { return .string(decoded) }
            if let b = e.as(BooleanLiteralExprSyntax.self) { return .bool(b.literal.tokenKind == .keyword(.true)) }
            return .unreadable(text(e))
        }

        /// The source text of a node, cut at 200 characters (without describing the rest of a long node).
        static func text(_ node: some SyntaxProtocol) -> String {
            guard node.trimmedLength.utf8Length > 200 else { return node.trimmedDescription }
            var bytes: [UInt8] = []
            for token in node.tokens(viewMode: .sourceAccurate) {
                bytes += token.text.utf8
                if bytes.count > 200 { break }
            }
            return SourceReadError.clipped(String(decoding: bytes, as: UTF8.self))
        }

        /// The text of a short node (a receiver, a callee): nil past 200 bytes, which no name compared here has.
        static func shortText(_ node: some SyntaxProtocol) -> String? {
            node.trimmedLength.utf8Length > 200 ? nil : node.trimmedDescription
        }

        /// `UserDefaults.standard`, `UserDefaults.msdk()`, `UserDefaults(suiteName: "…")`, or a name bound to one.
        func defaults(_ expr: ExprSyntax?) -> CodeSite.Defaults {
            guard let expr else { return .unknown("(none)") }
            let e = Self.stripped(expr)
            guard let text = Self.shortText(e) else { return .unknown(Self.text(e)) }
            if text == "UserDefaults.standard" || text == "NSUserDefaults.standard" { return .standard }
            if text == "UserDefaults.msdk()" || text == "UserDefaults.msdkUserDefaults()" { return .msdk }
            if let call = e.as(FunctionCallExprSyntax.self), let suite = Self.suiteArgument(call) {
                if case .string(let s) = suite { return .suite(s) }
                return .unknown(text)
            }
            if let bound = facts.defaultsBindings[text] { return bound }
            return .unknown(text)
        }

        static func suiteArgument(_ call: FunctionCallExprSyntax) -> CodeSite.Value? {
            guard let callee = shortText(call.calledExpression), callee == "UserDefaults" || callee == "UserDefaults.init" || callee == "NSUserDefaults",
                let arg = call.arguments.first, arg.label?.text == "suiteName"
            else { return nil }
            return value(arg.expression)
        }

        // MARK: Constants and bindings

        override func visit(_ node: VariableDeclSyntax) -> SyntaxVisitorContinueKind {
            guard !collectingSites else { return .visitChildren }
            for binding in node.bindings {
                guard let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text, let initial = binding.initializer?.value else { continue }
                if node.bindingSpecifier.tokenKind == .keyword(.let), case .string(let s) = Self.value(initial) {
                    let loc = converter.location(for: binding.positionAfterSkippingLeadingTrivia)
                    facts.constants.append(CodeConstant(name: name, value: s, file: file, line: loc.line))
                }
                let stripped = Self.stripped(initial)
                let text = Self.shortText(stripped) ?? ""
                if text == "UserDefaults.standard" { facts.defaultsBindings[name] = .standard }
                else if text == "UserDefaults.msdk()" { facts.defaultsBindings[name] = .msdk }
                else if let call = stripped.as(FunctionCallExprSyntax.self), case .string(let s)? = Self.suiteArgument(call) {
                    facts.defaultsBindings[name] = .suite(s)
                }
            }
            return .visitChildren
        }

        // MARK: Assignments to the helper

        override func visit(_ node: SequenceExprSyntax) -> SyntaxVisitorContinueKind {
            guard collectingSites else { return .visitChildren }
            let elements = Array(node.elements)
            for (i, element) in elements.enumerated() where i > 0 && i + 1 < elements.count {
                // `=`, or a compound assignment (`+=`): the helper's value then depends on what it was.
                let compound = element.as(BinaryOperatorExprSyntax.self).map { $0.operator.text.hasSuffix("=") && !["==", "!=", "<=", ">=", "==="].contains($0.operator.text) } ?? false
                guard element.is(AssignmentExprSyntax.self) || compound else { continue }
                guard let member = Self.stripped(elements[i - 1]).as(MemberAccessExprSyntax.self), let base = member.base else { continue }
                guard let baseText = Self.shortText(Self.stripped(base)), SwiftReader.helperBases.contains(baseText) else { continue }
                // The value is everything right of the operator: one literal, or (`"a" + b`, `c ? "a" : "b"`) built at run time.
                let rest = elements[(i + 1)...]
                let value: CodeSite.Value
                if compound {
                    value = .unreadable(Self.text(elements[i - 1]) + " " + Self.text(element) + " " + rest.map { Self.text($0) }.joined(separator: " "))
                } else if rest.count == 1, let only = rest.first {
                    value = Self.value(only)
                } else {
                    value = .unreadable(SourceReadError.clipped(rest.map { Self.text($0) }.joined(separator: " ")))
                }
                switch member.declName.baseName.text {
                case "appGroupName": add(.groupName, value, at: elements[i - 1])
                case "isAppGroupEnabled", "appGroupEnabled": add(.groupEnabled, value, at: elements[i - 1])
                default: break
                }
            }
            return .visitChildren
        }

        // MARK: Calls

        override func visit(_ node: FunctionCallExprSyntax) -> SyntaxVisitorContinueKind {
            guard collectingSites else { return .visitChildren }
            let args = Array(node.arguments)
            let labels = args.map { $0.label?.text }
            if let suite = Self.suiteArgument(node) {
                add(.defaultsSuite, suite, at: node)
                return .visitChildren
            }
            guard let member = node.calledExpression.as(MemberAccessExprSyntax.self) else { return .visitChildren }
            let name = member.declName.baseName.text
            // Only the calls read below; the receiver's text only when it is short (a chain's is not: linear time).
            guard ["containerURL", "encryptionKey", "initializeSDK", "bool", "set"].contains(name) else { return .visitChildren }
            let base = member.base.flatMap { Self.shortText(Self.stripped($0)) }
            switch (name, labels) {
            case ("containerURL", ["forSecurityApplicationGroupIdentifier"]):
                add(.containerGroup, Self.value(args[0].expression), at: node)
            case ("encryptionKey", ["for"]) where base == "KeyGenerator" || base == "SFSDKKeyGenerator":
                add(.keyLabel, Self.value(args[0].expression), at: node)
            case ("initializeSDK", _) where base?.hasSuffix("Manager") ?? false:
                add(.initializeSDK, .none, at: node)
            case ("bool", ["forKey"]):
                add(.boolRead, .none, at: node, key: Self.value(args[0].expression), defaults: defaults(member.base))
            case ("set", [nil, "forKey"]):
                let v = Self.value(args[0].expression)
                // Only flags: a Bool literal, or a comparison or negation whose result is one.
                let flagLike: Bool = {
                    if v.bool != nil { return true }
                    let t = Self.stripped(args[0].expression)
                    let text = Self.shortText(t) ?? ""
                    return t.is(PrefixOperatorExprSyntax.self) || text.contains("!= nil") || text.contains("== nil")
                }()
                if flagLike { add(.boolWrite, v, at: node, key: Self.value(args[1].expression), defaults: defaults(member.base)) }
            default: break
            }
            return .visitChildren
        }
    }
}
