import Foundation

/// What a developer's code configures for sharing data with its extensions, read from its sources
/// (issue 27): the app group name and flag set on the SDK's data-sharing helper, literal group ids given
/// to the container and defaults APIs, the login-state key read and written, the labels given to the
/// SDK's key generator, and where the SDK is initialised. Each with the file and line it was read at.
/// A value built at run time is kept as `unreadable` with its source text: never guessed.
package struct CodeSite: Sendable, Equatable, Codable {
    package enum Kind: String, Sendable, Codable, CaseIterable {
        /// `DataSharingHelper.shared.appGroupName = …` / `[SFSDKDatasharingHelper sharedInstance].appGroupName`.
        case groupName
        /// `DataSharingHelper.shared.isAppGroupEnabled = …` / `setAppGroupEnabled:`.
        case groupEnabled
        /// `containerURL(forSecurityApplicationGroupIdentifier:)` / `containerURLForSecurityApplicationGroupIdentifier:`.
        case containerGroup
        /// `UserDefaults(suiteName:)` / `initWithSuiteName:`.
        case defaultsSuite
        /// `bool(forKey:)` / `boolForKey:`: a login state (or another flag) read.
        case boolRead
        /// `set(true|false|…, forKey:)` / `setBool:forKey:`: a flag written.
        case boolWrite
        /// `KeyGenerator.encryptionKey(for:)` / `[SFSDKKeyGenerator encryptionKeyFor:error:]`.
        case keyLabel
        /// `…SDKManager.initializeSDK()` / `[… initializeSDK]`.
        case initializeSDK
    }

    package enum Value: Sendable, Equatable, Codable {
        case string(String)
        case bool(Bool)
        /// Built at run time: the expression's source text.
        case unreadable(String)
        /// The call has no value (initializeSDK).
        case none

        package var string: String? { if case .string(let s) = self { return s } else { return nil } }
        package var bool: Bool? { if case .bool(let b) = self { return b } else { return nil } }
    }

    /// Which defaults a flag is read from or written to.
    package enum Defaults: Sendable, Equatable, Codable, CustomStringConvertible {
        case standard
        /// `UserDefaults.msdk()` / `[NSUserDefaults msdkUserDefaults]`: the group suite when app groups are on.
        case msdk
        case suite(String)
        /// A receiver the reader cannot follow (a parameter, a property set elsewhere).
        case unknown(String)

        package var description: String {
            switch self {
            case .standard: return "UserDefaults.standard"
            case .msdk: return "UserDefaults.msdk()"
            case .suite(let s): return "the suite \(s)"
            case .unknown(let text): return "\(text) (not followed)"
            }
        }
    }

    package var kind: Kind
    package var value: Value
    /// For a read or write of a flag: the key (the value is the flag written, or none for a read).
    package var key: Value?
    package var defaults: Defaults?
    /// The file as the caller named it (relative to the project), the 1-based line and column.
    package var file: String
    package var line: Int
    package var column: Int
    /// The function, initializer or method it is in (`init`, `application(_:didFinishLaunchingWithOptions:)`,
    /// `application:didFinishLaunchingWithOptions:`), or nil at file level.
    package var function: String?
    /// The type the function belongs to, when there is one.
    package var type: String?
    /// Its offset in the file: orders two sites of one function.
    package var offset: Int
    /// A constant the value was read through (`encryptionKeyLabel`, defined at file:line).
    package var via: String?

    package var location: String { "\(file):\(line)" }
}

/// A string constant a file defines: `static let label = "…"`, `NSString * const kLabel = @"…"`.
package struct CodeConstant: Sendable, Equatable {
    package var name: String
    package var value: String
    package var file: String
    package var line: Int
}

/// What one file says.
package struct FileFacts: Sendable {
    package var sites: [CodeSite] = []
    package var constants: [CodeConstant] = []
    /// Names that stand for a defaults suite in this file (`let shared = UserDefaults(suiteName: "group.x")`).
    package var defaultsBindings: [String: CodeSite.Defaults] = [:]
}

package enum SourceReadError: Error, Equatable, CustomStringConvertible {
    /// A Swift file that does not parse: where, and the parser's first message.
    case syntax(file: String, line: Int, column: Int, message: String)
    case unreadable(file: String, detail: String)
    /// Past one of the readers' bounds (`SwiftSource`): where, and which bound.
    case tooDeep(file: String, line: Int, what: String)
    /// Larger than the readers read (`SwiftSource.maximumFileSize`).
    case tooLarge(file: String, bytes: Int, limit: Int)

    /// A file past a bound: the compiler may accept it, and it is left unread rather than the whole project refused.
    package var isPastABound: Bool {
        switch self {
        case .tooDeep, .tooLarge: return true
        default: return false
        }
    }

    package var description: String {
        switch self {
        case .syntax(let file, let line, let column, let message):
            return "\(file):\(line):\(column): not Swift the compiler accepts: \(message)"
        case .unreadable(let file, let detail): return "\(file): \(detail)"
        case .tooLarge(let file, let bytes, let limit):
            return "\(file): not read: \(bytes / 1024) KB, past the \(limit / 1024) KB doctor and import read (a generated file?); nothing was concluded from this file"
        case .tooDeep(let file, let line, let what):
            return "\(file):\(line): not read: \(what), past what doctor and import read; the compiler may accept it, but nothing was concluded from this file"
        }
    }

    /// At most 200 characters of something quoted from a file, with `…` where it was cut.
    package static func clipped(_ text: String, limit: Int = 200) -> String {
        text.count <= limit ? text : String(text.prefix(limit)) + "…"
    }
}

/// The facts of several files (one target), with the constants of all of them resolved: a site whose
/// value is a name resolves when exactly one file of the set defines that name as a literal.
package struct TargetFacts: Sendable {
    package var sites: [CodeSite]
    package var files: [String]

    package init(files: [(name: String, facts: FileFacts)]) {
        self.files = files.map(\.name)
        var constants: [String: [CodeConstant]] = [:]
        for (_, facts) in files { for c in facts.constants { constants[c.name, default: []].append(c) } }
        func resolve(_ value: Value?, _ site: inout CodeSite) -> Value? {
            guard case .unreadable(let text)? = value else { return value }
            // `label`, `Self.label`, `RecentContacts.label`, `kLabel`: the last name of a plain reference.
            let name = text.split(separator: ".").last.map(String.init) ?? text
            guard text.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }),
                let defined = constants[name], Set(defined.map(\.value)).count == 1, let first = defined.first
            else { return value }
            site.via = "\(name) (\(first.file):\(first.line))"
            return .string(first.value)
        }
        typealias Value = CodeSite.Value
        sites = files.flatMap { (_, facts) in
            facts.sites.map { site in
                var s = site
                s.value = resolve(site.value, &s) ?? site.value
                if site.key != nil { s.key = resolve(site.key, &s) }
                return s
            }
        }
    }

    package func sites(_ kind: CodeSite.Kind) -> [CodeSite] { sites.filter { $0.kind == kind } }
}
