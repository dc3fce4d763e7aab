import AppGroup
import Foundation
import SourceReader
import XcodeProject

/// What one target's code configures (issue 27), read from its sources as the project lists them.
package struct TargetCode: Sendable {
    package var target: String
    package var isApp: Bool
    package var facts: TargetFacts
    /// Source files listed by the project but not on disk (a project copied without its sources).
    package var missing: [String]
    /// Source files past a reader's bound (too deep, too large): not read, and nothing concluded from them.
    package var unread: [SourceReadError] = []

    /// Whether any source was read: with none, the code says nothing and nothing is concluded from it.
    package var wasRead: Bool { !facts.files.isEmpty }

    package func sites(_ kind: CodeSite.Kind) -> [CodeSite] { facts.sites(kind) }

    /// One literal the code sets, when every site of that kind agrees; nil when none or not all readable.
    func agreed(_ kind: CodeSite.Kind) -> (value: CodeSite.Value, sites: [CodeSite])? {
        let sites = sites(kind)
        guard let first = sites.first, sites.allSatisfy({ $0.value == first.value }), !isUnreadable(first.value) else { return nil }
        return (first.value, sites)
    }

    /// The group this target names in code (the helper's appGroupName), when it is one literal.
    package var groupName: String? { agreed(.groupName)?.value.string }
    package var groupEnabled: Bool? { agreed(.groupEnabled)?.value.bool }
}

func isUnreadable(_ value: CodeSite.Value) -> Bool { if case .unreadable = value { return true } else { return false } }

package enum CodeReading {
    /// Reads every Swift and Objective-C source of the target. A Swift file that does not parse throws
    /// (file:line and the parser's message); files not on disk are listed in `missing`.
    package static func read(project: XcodeProject, target: XcodeProject.Target) throws -> TargetCode {
        let root = project.sourceRoot.path
        let rel = { (url: URL) -> String in url.path.hasPrefix(root + "/") ? String(url.path.dropFirst(root.count + 1)) : url.path }
        var files: [(String, FileFacts)] = []
        var missing: [String] = []
        var unread: [SourceReadError] = []
        for url in project.sources(of: target) where ["swift", "m", "mm"].contains(url.pathExtension.lowercased()) {
            guard FileManager.default.fileExists(atPath: url.path) else { missing.append(rel(url)); continue }
            do {
                files.append((rel(url), try SourceReader.read(fileAt: url, name: rel(url))))
            } catch let error as SourceReadError where error.isPastABound {
                unread.append(error)
            }
        }
        var code = TargetCode(target: target.name, isApp: target.kind == .application, facts: TargetFacts(files: files), missing: missing)
        code.unread = unread
        return code
    }

    /// The order iOS calls an app's (or extension's) entry points in: an initializer first, then
    /// will-, then did-finish-launching, then the scene's connection. Nil: an order the reader cannot know.
    static func launchRank(_ function: String?) -> Int? {
        guard let f = function else { return nil }
        if f == "init" || f.hasPrefix("init(") { return 0 }
        if f.hasPrefix("application(_:willFinishLaunchingWithOptions:") || f == "application:willFinishLaunchingWithOptions:" { return 1 }
        if f.hasPrefix("application(_:didFinishLaunchingWithOptions:") || f == "application:didFinishLaunchingWithOptions:" { return 2 }
        if f.hasPrefix("scene(_:willConnectTo:") || f == "scene:willConnectToSession:options:" { return 3 }
        return nil
    }
}

/// Doctor's findings from the code: each names the target and file:line.
package enum CodeDoctor {
    static let what: [CodeSite.Kind: String] = [
        .groupName: "the app group name (DataSharingHelper appGroupName)", .groupEnabled: "the app-group flag (isAppGroupEnabled)",
        .containerGroup: "the group id given to containerURL(forSecurityApplicationGroupIdentifier:)",
        .defaultsSuite: "the suite name given to UserDefaults(suiteName:)", .keyLabel: "the label given to KeyGenerator.encryptionKey(for:)",
        .boolRead: "the key of a flag read with bool(forKey:)", .boolWrite: "the key of a flag written with set(_:forKey:)",
    ]

    /// - Parameter entitled: each target's application groups, from its entitlements (the configuration doctor checks).
    package static func findings(app: TargetCode, extensions: [TargetCode], entitled: [String: [String]], entitlementsFile: [String: String]) -> [Finding] {
        var out: [Finding] = []
        let all = [app] + extensions
        // Values doctor cannot read: said once each, never guessed.
        for code in all {
            for site in code.facts.sites {
                let value = site.kind == .boolRead || site.kind == .boolWrite ? site.key : site.value
                guard let value, case .unreadable(let text) = value, let what = what[site.kind] else { continue }
                out.append(Finding("code-value-unreadable", .warning,
                    "\(site.location) (target \(code.target)): \(what) is `\(visible(SourceReadError.clipped(text)))`, built at run time; doctor could not read that value and does not guess it, so the checks that need it were not made",
                    fix: "use a string literal, or a `let` constant set to one, so that doctor and import can read it; or check the value at \(site.location) by hand"))
            }
        }
        // Files past a reader's bound: doctor never says "consistent" about code it did not read.
        for code in all {
            for error in code.unread {
                out.append(Finding("code-not-read", .warning,
                    "target \(code.target): \(error)",
                    fix: "doctor and import read files up to their bounds; if this file configures the app group, the login-state key or a key label, check it by hand"))
            }
        }
        // Groups named in code that the target is not entitled to.
        for code in all {
            let groups = entitled[code.target] ?? []
            var said = Set<String>()
            for site in code.sites(.groupName) + code.sites(.containerGroup) + code.sites(.defaultsSuite) {
                guard let group = site.value.string, !groups.contains(group) else { continue }
                // An extension naming another group than the app's is app-group-names-differ (one mistake, one finding).
                if !code.isApp, site.kind == .groupName, let appGroup = app.groupName, appGroup != group { continue }
                guard said.insert(group).inserted else { continue }
                let file = entitlementsFile[code.target] ?? "its entitlements"
                out.append(Finding("code-group-not-entitled", .error,
                    "\(site.location) (target \(code.target)) names app group \(visible(group)), but \(code.target) is entitled to \(groups.isEmpty ? "no app group" : groups.map(visible).joined(separator: ", ")) (\(file)): on a device the container is nil and the suite is private to \(code.target), so nothing is shared",
                    fix: groups.isEmpty
                        ? "add \(visible(group)) to com.apple.security.application-groups in \(file)"
                        : "use \(visible(groups[0])) at \(site.location), or add \(visible(group)) to com.apple.security.application-groups in \(file)"))
            }
        }
        // The SDK initialised before the group is named (evidence: SalesforceSDKManager, SFUserAccountManager, SFDirectoryManager).
        for code in all {
            let inits = code.sites(.initializeSDK)
            let settings = code.sites(.groupName) + code.sites(.groupEnabled)
            guard let firstInit = inits.min(by: { order($0, $1) }), let firstSetting = settings.min(by: { order($0, $1) }) else { continue }
            guard order(firstInit, firstSetting) else { continue }
            out.append(Finding("app-group-set-after-sdk-init", .warning,
                "target \(code.target) calls initializeSDK() at \(firstInit.location) (in \(firstInit.function ?? "file scope")) before it names the app group at \(firstSetting.location) (in \(firstSetting.function ?? "file scope")). The SDK reads the group once per process when it starts: initializeSDK() creates SFUserAccountManager (SalesforceSDKManager counts its users), whose init migrates the defaults to the group, and SFDirectoryManager moves the files, each with the group as it is then. On the first launch after app groups are turned on (an update), the accounts and files stay in \(code.target)'s own container until the next launch, and the extension finds no user",
                fix: "set DataSharingHelper.shared.appGroupName and isAppGroupEnabled before initializeSDK() (at the start of \(firstInit.function ?? "the same function"), \(firstInit.location))"))
        }
        // The login state: the key and the defaults the app writes it to, against what each extension reads.
        let writes = app.sites(.boolWrite).filter { $0.key?.string != nil }
        for ext in extensions {
            for read in ext.sites(.boolRead) {
                guard let key = read.key?.string, !writes.isEmpty else { continue }
                let sameKey = writes.filter { $0.key?.string == key }
                if sameKey.isEmpty {
                    let keys = Array(Set(writes.compactMap { $0.key?.string })).sorted()
                    out.append(Finding("login-state-keys-differ", .error,
                        "target \(ext.target) reads the login state from key \(visible(key)) (\(read.location)), but target \(app.target) writes \(keys.map(visible).joined(separator: ", ")) (\(writes.map(\.location).joined(separator: ", "))): the extension never sees the user logged in",
                        fix: "read \(visible(keys[0])) at \(read.location), or write \(visible(key)) in \(app.target); one key in both targets"))
                    continue
                }
                let extDefaults = resolved(read.defaults, code: ext)
                for write in sameKey {
                    let appDefaults = resolved(write.defaults, code: app)
                    let problem: String?
                    switch (appDefaults, extDefaults) {
                    case (.standard, _): problem = "\(app.target) writes it to its own UserDefaults.standard, which no extension can read"
                    case (_, .standard): problem = "\(ext.target) reads its own UserDefaults.standard, where the app never writes"
                    case (.suite(let a), .suite(let e)) where a != e: problem = "\(app.target) writes it to the suite \(a) and \(ext.target) reads the suite \(e)"
                    default: problem = nil
                    }
                    if let problem {
                        out.append(Finding("login-state-written-elsewhere", .error,
                            "the login state \(key): \(problem) (\(write.location), \(read.location)); the extension never sees the user logged in",
                            fix: "write and read \(key) in the group suite: UserDefaults(suiteName: \"\(app.groupName ?? ext.groupName ?? "<group>")\") in both targets (or UserDefaults.msdk() with app groups on)"))
                    }
                }
            }
        }
        // Key labels: an extension decrypting under a label the app never encrypts with gets a new, different key.
        let appLabels = Set(app.sites(.keyLabel).compactMap { $0.value.string })
        for ext in extensions where !appLabels.isEmpty {
            for site in ext.sites(.keyLabel) {
                guard let label = site.value.string, !appLabels.contains(label) else { continue }
                out.append(Finding("key-labels-differ", .error,
                    "target \(ext.target) asks KeyGenerator for the key labelled \(visible(label)) (\(site.location)), but target \(app.target) encrypts with \(appLabels.sorted().map(visible).joined(separator: ", ")) (\(app.sites(.keyLabel).map(\.location).joined(separator: ", "))): KeyGenerator makes a new key for the new label, and every decryption fails",
                    fix: "use one label in both targets, e.g. a constant \(appLabels.sorted()[0]) in a file both targets compile"))
            }
        }
        return out
    }

    /// Whether `a` runs before `b` at launch: the same function by position, else by the order iOS calls them.
    static func order(_ a: CodeSite, _ b: CodeSite) -> Bool {
        if a.file == b.file, a.function == b.function, a.type == b.type { return a.offset < b.offset }
        guard let ra = CodeReading.launchRank(a.function), let rb = CodeReading.launchRank(b.function) else { return false }
        return ra < rb
    }

    /// `UserDefaults.msdk()` is the group suite when the target turns app groups on, the standard defaults otherwise.
    static func resolved(_ defaults: CodeSite.Defaults?, code: TargetCode) -> CodeSite.Defaults? {
        guard let defaults else { return nil }
        if case .msdk = defaults {
            if let name = code.groupName { return .suite(name) }
            return nil
        }
        if case .unknown = defaults { return nil }
        return defaults
    }
}
