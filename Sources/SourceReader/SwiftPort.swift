import Foundation
import SwiftParser
import SwiftSyntax

/// What `msdk-sim import --package` changes in a Swift file so that it compiles against AppGroupSim's
/// SDK-named modules on Linux (issue 27): `import X.Y` becomes `import X`, imports of UIKit and SwiftUI go.
/// Lines keep their numbers (a removed import leaves a comment), so the compiler's file:line still points
/// at the developer's line.
package enum SwiftPort {
    package struct Change: Sendable, Equatable, CustomStringConvertible {
        package var file: String
        package var line: Int
        package var from: String
        /// nil: removed.
        package var to: String?

        package var description: String { "\(file):\(line): \(from) → \(to ?? "removed")" }
    }

    static let uiModules: Set<String> = ["UIKit", "SwiftUI"]

    /// The rewritten text and each change. A file that does not parse throws, as `SourceReader` does.
    package static func rewriteImports(_ text: String, file: String) throws -> (text: String, changes: [Change]) {
        let edits = try SwiftSource.withTree(text, file: file) { tree, converter in imports(tree, converter, file: file) }
        var bytes = Array(text.utf8)
        for edit in edits.sorted(by: { $0.range.lowerBound > $1.range.lowerBound }) {
            bytes.replaceSubrange(edit.range, with: Array(edit.replacement.utf8))
        }
        return (String(decoding: bytes, as: UTF8.self), edits.map(\.change).sorted { $0.line < $1.line })
    }

    struct Edit: Sendable {
        var range: Range<Int>
        var replacement: String
        var change: Change
    }

    /// Only top-level imports (and those in `#if` at top level): imports stand nowhere else.
    static func imports(_ tree: SourceFileSyntax, _ converter: SourceLocationConverter, file: String) -> [Edit] {
        var edits: [Edit] = []
        final class Imports: SyntaxVisitor {
            var found: [ImportDeclSyntax] = []
            override func visit(_ node: ImportDeclSyntax) -> SyntaxVisitorContinueKind { found.append(node); return .skipChildren }
            override func visit(_ node: CodeBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: MemberBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: ClosureExprSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: AccessorBlockSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
            override func visit(_ node: InitializerClauseSyntax) -> SyntaxVisitorContinueKind { .skipChildren }
        }
        let imports = Imports(viewMode: .sourceAccurate)
        imports.walk(tree)
        for decl in imports.found {
            let path = decl.path.map(\.name.text)
            guard let module = path.first else { continue }
            let start = decl.positionAfterSkippingLeadingTrivia.utf8Offset
            let end = decl.endPositionBeforeTrailingTrivia.utf8Offset
            let line = converter.location(for: decl.positionAfterSkippingLeadingTrivia).line
            let original = decl.trimmedDescription
            if uiModules.contains(module) {
                let replacement = "// \(original) (removed by msdk-sim import: no \(module) on Linux)"
                edits.append(Edit(range: start..<end, replacement: replacement, change: Change(file: file, line: line, from: original, to: nil)))
            } else if path.count > 1 || decl.importKindSpecifier != nil {
                let attributes = decl.attributes.trimmedDescription
                let replacement = (attributes.isEmpty ? "" : attributes + " ") + "import \(module)"
                edits.append(Edit(range: start..<end, replacement: replacement, change: Change(file: file, line: line, from: original, to: replacement)))
            }
        }
        return edits
    }

    /// Types and attributes that make a file UI code, recognised without compiling it.
    static let uiSupertypes: Set<String> = [
        "View", "UIViewController", "UIView", "UIResponder", "UIApplicationDelegate", "UIWindowSceneDelegate", "UISceneDelegate",
        "UIViewRepresentable", "UIViewControllerRepresentable", "Widget", "WidgetBundle", "App", "Scene", "PreviewProvider",
        "UITableViewController", "UICollectionViewController", "UINavigationController", "UIHostingController", "ViewModifier",
    ]

    /// Why the file is UI code (a type that conforms to `View`, an app delegate, `@main`), or nil.
    package static func uiReason(_ text: String, file: String) throws -> String? {
        try SwiftSource.withTree(text, file: file) { tree, _ in uiReason(tree) }
    }

    static func uiReason(_ tree: SourceFileSyntax) -> String? {
        final class Finder: SyntaxVisitor {
            var reason: String?
            func check(_ name: String, _ inheritance: InheritanceClauseSyntax?, _ attributes: AttributeListSyntax) {
                guard reason == nil else { return }
                for attribute in attributes {
                    if let a = attribute.as(AttributeSyntax.self), ["main", "UIApplicationMain"].contains(a.attributeName.trimmedDescription) {
                        reason = "\(name) is an entry point (@\(a.attributeName.trimmedDescription))"
                        return
                    }
                }
                let supertypes = inheritance?.inheritedTypes.map { SwiftReader.Visitor.text($0.type) } ?? []
                if let ui = supertypes.first(where: { SwiftPort.uiSupertypes.contains($0) }) {
                    reason = "\(name) is a \(ui)"
                }
            }
            override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { check(node.name.text, node.inheritanceClause, node.attributes); return .visitChildren }
            override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { check(node.name.text, node.inheritanceClause, node.attributes); return .visitChildren }
            override func visit(_ node: ExtensionDeclSyntax) -> SyntaxVisitorContinueKind { check(SwiftReader.Visitor.text(node.extendedType), node.inheritanceClause, node.attributes); return .visitChildren }
            override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { check(node.name.text, node.inheritanceClause, node.attributes); return .visitChildren }
            override func visit(_ node: MacroExpansionDeclSyntax) -> SyntaxVisitorContinueKind {
                if reason == nil, node.macroName.text == "Preview" { reason = "it has a #Preview" }
                return .visitChildren
            }
        }
        let finder = Finder(viewMode: .sourceAccurate)
        finder.walk(tree)
        return finder.reason ?? uiKitName(tree).map { "it names UIKit's \($0)" }
    }

    /// The first UIKit type a file names (`UIViewController`, `UIColor`: UIKit's prefix, `UI` then a capital), in a
    /// type or an expression, whatever the file's own base classes; names the file declares itself do not count.
    static func uiKitName(_ tree: SourceFileSyntax) -> String? {
        final class Names: SyntaxVisitor {
            var used: [String] = []
            var declared = Set<String>()
            func note(_ name: String) {
                let scalars = Array(name.unicodeScalars)
                if scalars.count > 2, name.hasPrefix("UI"), CharacterSet.uppercaseLetters.contains(scalars[2]) { used.append(name) }
            }
            override func visit(_ node: IdentifierTypeSyntax) -> SyntaxVisitorContinueKind { note(node.name.text); return .visitChildren }
            override func visit(_ node: DeclReferenceExprSyntax) -> SyntaxVisitorContinueKind { note(node.baseName.text); return .visitChildren }
            override func visit(_ node: ClassDeclSyntax) -> SyntaxVisitorContinueKind { declared.insert(node.name.text); return .visitChildren }
            override func visit(_ node: StructDeclSyntax) -> SyntaxVisitorContinueKind { declared.insert(node.name.text); return .visitChildren }
            override func visit(_ node: EnumDeclSyntax) -> SyntaxVisitorContinueKind { declared.insert(node.name.text); return .visitChildren }
            override func visit(_ node: ProtocolDeclSyntax) -> SyntaxVisitorContinueKind { declared.insert(node.name.text); return .visitChildren }
            override func visit(_ node: TypeAliasDeclSyntax) -> SyntaxVisitorContinueKind { declared.insert(node.name.text); return .visitChildren }
        }
        let names = Names(viewMode: .sourceAccurate)
        names.walk(tree)
        return names.used.first { !names.declared.contains($0) }
    }
}
