import Foundation
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax

package enum SourceReader {
    /// Reads a Swift (`.swift`) or Objective-C (`.m`, `.mm`) file; other files say nothing.
    package static func read(fileAt url: URL, name: String) throws -> FileFacts {
        let ext = url.pathExtension.lowercased()
        guard ["swift", "m", "mm"].contains(ext) else { return FileFacts() }
        let data: Data
        do { data = try Data(contentsOf: url) } catch {
            throw SourceReadError.unreadable(file: name, detail: "cannot be read (\((error as NSError).localizedDescription))")
        }
        guard let text = String(data: data, encoding: .utf8) else {
            throw SourceReadError.unreadable(file: name, detail: "is not UTF-8 text")
        }
        return ext == "swift" ? try SwiftReader.read(text, file: name) : ObjCReader.read(text, file: name)
    }
}

/// Reads a Swift file with SwiftSyntax: the sites of `CodeSite.Kind`, the file's string constants and its
/// names bound to a defaults suite. A file with a syntax error is refused with the parser's first message.
enum SwiftReader {
    static func read(_ text: String, file: String) throws -> FileFacts {
        let tree = Parser.parse(source: text)
        let converter = SourceLocationConverter(fileName: file, tree: tree)
        if tree.hasError {
            let diagnostics = ParseDiagnosticsGenerator.diagnostics(for: tree)
            if let first = diagnostics.first {
                let loc = first.location(converter: converter)
                throw SourceReadError.syntax(file: file, line: loc.line, column: loc.column, message: first.message)
            }
            throw SourceReadError.syntax(file: file, line: 1, column: 1, message: "the file does not parse")
        }
        // Two passes: names and constants first (a property may be declared below its use), then the sites.
        let visitor = Visitor(file: file, converter: converter)
        visitor.walk(tree)
        visitor.collectingSites = true
        visitor.walk(tree)
        return visitor.facts
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
                    else if let e = n.as(ExtensionDeclSyntax.self) { type = e.extendedType.trimmedDescription }
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

        static func value(_ expr: ExprSyntax) -> CodeSite.Value {
            let e = stripped(expr)
            if let s = e.as(StringLiteralExprSyntax.self) {
                var out = ""
                for segment in s.segments {
                    guard let plain = segment.as(StringSegmentSyntax.self) else { return .unreadable(e.trimmedDescription) }
                    out += plain.content.text
                }
                return .string(out)
            }
            if let b = e.as(BooleanLiteralExprSyntax.self) { return .bool(b.literal.tokenKind == .keyword(.true)) }
            return .unreadable(e.trimmedDescription)
        }

        /// `UserDefaults.standard`, `UserDefaults.msdk()`, `UserDefaults(suiteName: "…")`, or a name bound to one.
        func defaults(_ expr: ExprSyntax?) -> CodeSite.Defaults {
            guard let expr else { return .unknown("(none)") }
            let e = Self.stripped(expr)
            let text = e.trimmedDescription
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
            let callee = call.calledExpression.trimmedDescription
            guard callee == "UserDefaults" || callee == "UserDefaults.init" || callee == "NSUserDefaults",
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
                let text = stripped.trimmedDescription
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
            for (i, element) in elements.enumerated() where element.is(AssignmentExprSyntax.self) && i > 0 && i + 1 < elements.count {
                guard let member = Self.stripped(elements[i - 1]).as(MemberAccessExprSyntax.self), let base = member.base else { continue }
                guard SwiftReader.helperBases.contains(Self.stripped(base).trimmedDescription) else { continue }
                switch member.declName.baseName.text {
                case "appGroupName": add(.groupName, Self.value(elements[i + 1]), at: elements[i - 1])
                case "isAppGroupEnabled", "appGroupEnabled": add(.groupEnabled, Self.value(elements[i + 1]), at: elements[i - 1])
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
            let base = member.base.map { Self.stripped($0).trimmedDescription }
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
                    return t.is(PrefixOperatorExprSyntax.self) || t.trimmedDescription.contains("!= nil") || t.trimmedDescription.contains("== nil")
                }()
                if flagLike { add(.boolWrite, v, at: node, key: Self.value(args[1].expression), defaults: defaults(member.base)) }
            default: break
            }
            return .visitChildren
        }
    }
}
