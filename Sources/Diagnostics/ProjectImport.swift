import AppGroup
import Foundation
import SourceReader
import XcodeProject

/// `msdk-sim import`: simulated bundles (DESIGN.md §2) from a developer's Xcode project. Reads
/// `project.pbxproj`, each target's Info.plist and entitlements, the SDK's config files among its
/// resources, and its Swift and Objective-C sources for what they configure (`SourceReader`: the app
/// group, its flag, the login-state key), which `AppGroupConfig.plist` records; assets and other projects
/// are never opened. Everything is written to a temporary folder first, so a failure leaves nothing behind.
package enum ProjectImport {
    package struct Options: Sendable {
        package var xcodeproj: URL
        package var configuration: String
        package var out: URL
        /// Signs with this team when the project sets none (an explicit choice, never a guess).
        package var team: String?
        /// Copy files the project references from outside its folder (absolute paths, `../`, links out);
        /// without it they are refused. Either way the report names each one.
        package var allowOutside: Bool

        package init(xcodeproj: URL, configuration: String = "Debug", out: URL, team: String? = nil, allowOutside: Bool = false) {
            self.xcodeproj = xcodeproj
            self.configuration = configuration
            self.out = out
            self.team = team
            self.allowOutside = allowOutside
        }
    }

    package struct ImportedApp: Sendable {
        package var target: String
        package var bundle: URL
        package var bundleIdentifier: String
        package var extensions: [(target: String, bundle: URL, bundleIdentifier: String)]
        package var consumerKey: String?
        package var redirectURI: String?
        package var appGroup: String?
    }

    package struct Result: Sendable {
        package var apps: [ImportedApp]
        /// What the user should confirm or know (the app-group flag lives in code, an extension in no app…).
        package var notes: [String]
        package var report: URL
    }

    package enum ImportError: Error, CustomStringConvertible {
        case outNotEmpty(String)
        case outNotADirectory(String)
        case badName(target: String, setting: String, value: String, problem: String)
        case outside(target: String, setting: String, path: String, resolved: String, root: String)
        case missingFile(target: String, setting: String, path: String)
        case noTeam(target: String, configuration: String)
        case badFile(path: String, detail: String)
        case noApps(String)
        case source(SourceReadError)

        package var description: String {
            switch self {
            case .outNotEmpty(let path): return "\(path) is not empty; give --out a new or empty directory (nothing was written)"
            case .outNotADirectory(let path): return "\(path) exists and is not a directory; give --out a new or empty directory (nothing was written, nothing was deleted)"
            case .badName(let target, let setting, let value, let problem):
                return "\(setting) of target \(target) is \"\(value.prefix(80))\", which \(problem): it names a folder or file of the import, so it must stay one plain name (nothing was written)"
            case .outside(let target, let setting, let path, let resolved, let root):
                return "\(path) (\(setting) of target \(target)) is outside the project's folder \(root)\(resolved == path ? "" : " (it resolves to \(resolved))"); the import reads only the project's own files: move it into the project, or pass --allow-outside to copy it anyway (nothing was written)"
            case .missingFile(let target, let setting, let path):
                return "\(path) does not exist (\(setting) of target \(target)); the import reads it. Fix the setting or restore the file (nothing was written)"
            case .noTeam(let target, let configuration):
                return "target \(target) has no DEVELOPMENT_TEAM in \(configuration), so $(AppIdentifierPrefix) cannot be resolved; set the team in Xcode (Signing & Capabilities) or pass --team TEAMID (nothing was written)"
            case .badFile(let path, let detail): return "\(path): \(detail) (nothing was written)"
            case .noApps(let path): return "\(path) has no application target; only apps and their extensions are imported"
            case .source(let error): return "\(error); fix the file (it must build in Xcode too) and import again (nothing was written)"
            }
        }
    }

    static let sdkResources = ["bootconfig.plist", "userstore.json", "usersyncs.json", "globalstore.json", "globalsyncs.json", "LoginViewConfig.plist"]
    static let extensionResources = ["WidgetConfig.plist"]

    /// One written file and where its values came from.
    struct Provenance: Encodable {
        var file: String
        var from: [String: String]
    }

    package static func run(_ options: Options) throws -> Result {
        let project = try XcodeProject(at: options.xcodeproj)
        let fm = FileManager.default
        // --out: new, or an empty real directory. A file or a link there is refused, and nothing is deleted.
        var outInfo = stat()
        let outExists = lstat(options.out.path, &outInfo) == 0
        if outExists {
            guard outInfo.st_mode & S_IFMT == S_IFDIR else { throw ImportError.outNotADirectory(options.out.path) }
            guard ((try? fm.contentsOfDirectory(atPath: options.out.path)) ?? ["?"]).isEmpty else { throw ImportError.outNotEmpty(options.out.path) }
        }
        guard !project.apps.isEmpty else { throw ImportError.noApps(project.pbxprojURL.path) }
        let staging = options.out.deletingLastPathComponent().appendingPathComponent(".\(options.out.lastPathComponent).import-\(getpid())")
        try? fm.removeItem(at: staging)
        try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        var succeeded = false
        defer { if !succeeded { try? fm.removeItem(at: staging) } }

        var provenance: [Provenance] = []
        var apps: [ImportedApp] = []
        var notes: [String] = []
        let relative = { (url: URL) -> String in
            url.path.hasPrefix(project.sourceRoot.path + "/") ? String(url.path.dropFirst(project.sourceRoot.path.count + 1)) : url.path
        }
        let context = Context(options: options, project: project, staging: staging, relative: relative)
        var embedded = Set<String>()
        for app in project.apps {
            let settings = try project.settings(for: app, configuration: options.configuration)
            let appBundle = staging.appendingPathComponent(try plainName(settings["PRODUCT_NAME"] ?? app.name, target: app.name) + ".app")
            let written = try writeBundle(target: app, settings: settings, context: context, at: appBundle, resources: sdkResources, provenance: &provenance, notes: &notes)
            var imported = ImportedApp(target: app.name, bundle: written.url, bundleIdentifier: written.bundleIdentifier, extensions: [])
            var groupSets: [Set<String>] = [Set(written.groups)]
            for ext in project.embeddedExtensions(of: app) {
                embedded.insert(ext.id)
                let extSettings = try project.settings(for: ext, configuration: options.configuration)
                let extBundle = appBundle.appendingPathComponent("PlugIns").appendingPathComponent(try plainName(extSettings["PRODUCT_NAME"] ?? ext.name, target: ext.name) + ".appex")
                let w = try writeBundle(target: ext, settings: extSettings, context: context, at: extBundle, resources: extensionResources, provenance: &provenance, notes: &notes)
                imported.extensions.append((ext.name, w.url, w.bundleIdentifier))
                groupSets.append(Set(w.groups))
            }
            // The app-group name, flag and login-state key: what each target's code sets (issue 27), read
            // with SwiftSyntax and the Objective-C tokenizer. Where no source is on disk, or a value is built at
            // run time, the group the targets share is taken instead, and the notes say so.
            let shared = groupSets.dropFirst().reduce(groupSets[0]) { $0.intersection($1) }.sorted()
            let entitledGroup = shared.first ?? written.groups.first
            let appCode = try readCode(project, app)
            var extCodes: [TargetCode] = []
            for ext in project.embeddedExtensions(of: app) { extCodes.append(try readCode(project, ext)) }
            for code in [appCode] + extCodes {
                for error in code.unread { notes.append("\(code.target): \(error): AppGroupConfig.plist does not use it; confirm what it sets.") }
            }
            let appGroup = appCode.groupName ?? entitledGroup
            imported.appGroup = appGroup
            let bundles = [(appBundle, appCode)] + zip(imported.extensions.map(\.bundle), extCodes).map { ($0, $1) }
            for (bundle, code) in bundles {
                let isApp = bundle == appBundle
                let url = bundle.appendingPathComponent("AppGroupConfig.plist")
                guard code.wasRead else {
                    // Nothing to read: the group the targets share, enabled, and a note to confirm.
                    var config: [String: Any] = ["appGroupName": entitledGroup ?? "", "userLogInStatusKey": "userLoggedIn"]
                    var from = [
                        "appGroupName": entitledGroup.map { "the application group the targets' entitlements share: \($0)" } ?? "none: no target is entitled to an app group",
                        "userLogInStatusKey": "the SDK's default key, userLoggedIn; confirm if the app sets another",
                    ]
                    if isApp {
                        config["appGroupsEnabled"] = entitledGroup != nil
                        from["appGroupsEnabled"] = "assumed \(entitledGroup != nil ? "YES" : "NO"): the app sets it in code (SalesforceSDKManager's appGroupsEnabled); confirm"
                    }
                    try writePlist(config, to: url)
                    provenance.append(Provenance(file: context.outPath(url), from: from))
                    if isApp || appCode.wasRead {
                        let missing = code.missing.isEmpty ? "it lists no Swift or Objective-C source" : "its sources are not on disk (\(code.missing.prefix(3).joined(separator: ", "))\(code.missing.count > 3 ? ", …" : ""))"
                        notes.append("\(code.target): AppGroupConfig.plist names \(entitledGroup ?? "no group")\(isApp ? " and enables app groups" : ""), from the entitlements: the code was not read because \(missing): confirm that the \(isApp ? "app" : "extension") sets appGroupName to \(entitledGroup ?? "the group")\(isApp ? " and appGroupsEnabled to YES before initializing the SDK" : "").")
                    }
                    continue
                }
                // An extension whose code never names the group has no config: it never sets the name.
                if !isApp, code.sites(.groupName).isEmpty {
                    notes.append("\(code.target): its code never sets DataSharingHelper.shared.appGroupName, so it has no AppGroupConfig.plist (read: \(code.facts.files.joined(separator: ", "))).")
                    continue
                }
                var config: [String: Any] = [:]
                var from: [String: String] = [:]
                let nameSites = code.sites(.groupName)
                if let name = code.groupName {
                    config["appGroupName"] = name
                    from["appGroupName"] = nameSites.map { $0.location + ($0.via.map { " via \($0)" } ?? "") }.joined(separator: ", ")
                } else if nameSites.isEmpty {
                    config["appGroupName"] = entitledGroup ?? ""
                    from["appGroupName"] = "the code never sets DataSharingHelper.shared.appGroupName; the group the entitlements share, for reference"
                } else {
                    config["appGroupName"] = entitledGroup ?? ""
                    from["appGroupName"] = "could not read: \(nameSites.map { "\($0.location) sets `\($0.value)`" }.joined(separator: ", ")); the group the entitlements share instead"
                    notes.append("\(code.target): could not read the app group name its code sets (\(nameSites.map(\.location).joined(separator: ", "))): it is built at run time or set to different values. AppGroupConfig.plist names \(entitledGroup ?? "no group"), from the entitlements: confirm.")
                }
                let flagSites = code.sites(.groupEnabled)
                if let flag = code.groupEnabled {
                    config["appGroupsEnabled"] = flag
                    from["appGroupsEnabled"] = flagSites.map(\.location).joined(separator: ", ")
                } else if flagSites.isEmpty {
                    if isApp {
                        // The SDK's default: off until the app turns it on.
                        config["appGroupsEnabled"] = false
                        from["appGroupsEnabled"] = "the code never sets isAppGroupEnabled: the SDK's default, NO"
                    }
                } else {
                    if isApp { config["appGroupsEnabled"] = entitledGroup != nil }
                    from["appGroupsEnabled"] = "could not read: \(flagSites.map { "\($0.location) sets `\($0.value)`" }.joined(separator: ", "))"
                    notes.append("\(code.target): could not read the app-group flag its code sets (\(flagSites.map(\.location).joined(separator: ", "))).\(isApp ? " AppGroupConfig.plist assumes \(entitledGroup != nil ? "YES" : "NO"): confirm." : "")")
                }
                // The login-state key: the flag the app writes, the one the extension reads (one literal each).
                let keySites = isApp ? code.sites(.boolWrite) : code.sites(.boolRead)
                let keys = Set(keySites.compactMap { $0.key?.string })
                if keys.count == 1, let key = keys.first {
                    config["userLogInStatusKey"] = key
                    from["userLogInStatusKey"] = keySites.filter { $0.key?.string == key }.map(\.location).joined(separator: ", ")
                } else {
                    config["userLogInStatusKey"] = "userLoggedIn"
                    from["userLogInStatusKey"] = keys.isEmpty
                        ? "the code \(isApp ? "writes" : "reads") no flag with a literal key: the sample's key, userLoggedIn"
                        : "the code \(isApp ? "writes" : "reads") several flags (\(keys.sorted().joined(separator: ", "))): the sample's key, userLoggedIn; confirm"
                }
                try writePlist(config, to: url)
                provenance.append(Provenance(file: context.outPath(url), from: from))
            }
            if appGroup == nil {
                notes.append("\(app.name): no app group is shared by the app and its extensions; app groups are off in AppGroupConfig.plist.")
            }
            if let boot = try? PlistValue.foundationPropertyList(from: Data(contentsOf: appBundle.appendingPathComponent("bootconfig.plist"))) as? [String: Any] {
                imported.consumerKey = boot["remoteAccessConsumerKey"] as? String
                imported.redirectURI = boot["oauthRedirectURI"] as? String
            } else {
                notes.append("\(app.name): no bootconfig.plist among its resources; the app cannot log in until one is added to the target.")
            }
            apps.append(imported)
        }
        for ext in project.appExtensions where !embedded.contains(ext.id) {
            notes.append("\(ext.name) is an app extension that no app embeds; it was not imported. Add it to an app's Embed App Extensions phase.")
        }
        let reportURL = staging.appendingPathComponent("import-report.json")
        struct Report: Encodable {
            var project: String
            var configuration: String
            var files: [Provenance]
            var notes: [String]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        try encoder.encode(Report(project: project.projectURL.path, configuration: options.configuration, files: provenance, notes: notes)).write(to: reportURL)
        // Only the empty directory checked above is replaced: rmdir never removes anything in it.
        if outExists, rmdir(options.out.path) != 0 { throw ImportError.outNotEmpty(options.out.path) }
        try fm.moveItem(at: staging, to: options.out)
        succeeded = true
        let rebase = { (url: URL) in URL(fileURLWithPath: url.path.replacingOccurrences(of: staging.path, with: options.out.path)) }
        return Result(
            apps: apps.map { app in
                var a = app
                a.bundle = rebase(app.bundle)
                a.extensions = app.extensions.map { ($0.target, rebase($0.bundle), $0.bundleIdentifier) }
                return a
            }, notes: notes, report: options.out.appendingPathComponent("import-report.json"))
    }

    static func readCode(_ project: XcodeProject, _ target: XcodeProject.Target) throws -> TargetCode {
        do { return try CodeReading.read(project: project, target: target) } catch let error as SourceReadError { throw ImportError.source(error) }
    }

    struct Written {
        var url: URL
        var bundleIdentifier: String
        var groups: [String]
    }

    /// What every bundle of one import shares.
    struct Context {
        var options: Options
        var project: XcodeProject
        var staging: URL
        var relative: (URL) -> String

        /// Where a file written under the staging folder will be once the import is done.
        func outPath(_ url: URL) -> String {
            url.path.hasPrefix(staging.path) ? options.out.path + url.path.dropFirst(staging.path.count) : url.path
        }

        /// A file the project references: inside the project's folder (links resolved), or refused unless
        /// `allowOutside`; each outside one is named in the notes either way.
        func checkInside(_ url: URL, target: String, setting: String, notes: inout [String]) throws {
            let root = project.sourceRoot.resolvingSymlinksInPath().path
            let resolved = url.resolvingSymlinksInPath().path
            guard resolved != root, !resolved.hasPrefix(root + "/") else { return }
            guard options.allowOutside else {
                throw ImportError.outside(target: target, setting: setting, path: url.path, resolved: resolved, root: project.sourceRoot.path)
            }
            notes.append("\(target): \(url.path) (\(setting)) is outside the project's folder\(resolved == url.path ? "" : " (it resolves to \(resolved))"); copied because of --allow-outside")
        }
    }

    /// A product name as a folder name: one plain path component.
    static func plainName(_ name: String, target: String) throws -> String {
        let problem: String?
        if name.isEmpty || name.trimmingCharacters(in: .whitespaces).isEmpty { problem = "is empty" }
        else if name.contains("/") { problem = "contains '/'" }
        else if name.contains("..") { problem = "contains '..'" }
        else if name.unicodeScalars.contains(where: { $0.value < 0x20 }) { problem = "contains a control character" }
        else if name.utf8.count > 200 { problem = "is longer than 200 bytes" }
        else { problem = nil }
        if let problem { throw ImportError.badName(target: target, setting: "PRODUCT_NAME", value: name, problem: problem) }
        return name
    }

    static func writeBundle(
        target: XcodeProject.Target, settings: BuildSettings, context: Context, at bundle: URL, resources: [String], provenance: inout [Provenance],
        notes: inout [String]
    ) throws -> Written {
        let options = context.options, project = context.project, relative = context.relative
        let fm = FileManager.default
        try fm.createDirectory(at: bundle, withIntermediateDirectories: true)
        var settings = settings
        guard let team = settings["DEVELOPMENT_TEAM"] ?? options.team else { throw ImportError.noTeam(target: target.name, configuration: options.configuration) }
        let teamOrigin = settings["DEVELOPMENT_TEAM"] != nil ? "DEVELOPMENT_TEAM (\(settings.origins["DEVELOPMENT_TEAM"] ?? "project"))" : "--team"
        settings.values["DEVELOPMENT_TEAM"] = team
        settings.values["AppIdentifierPrefix"] = team + "."
        settings.values["TeamIdentifierPrefix"] = team + "."
        settings.values["PRODUCT_BUNDLE_PACKAGE_TYPE"] = settings.values["PRODUCT_BUNDLE_PACKAGE_TYPE"] ?? (target.kind == .appExtension ? "XPC!" : "APPL")
        func origin(_ key: String) -> String { "\(key) (\(settings.origins[key] ?? "Xcode's default"))" }
        func resolve(_ setting: String) -> URL? {
            guard let value = settings[setting] else { return nil }
            return value.hasPrefix("/") ? URL(fileURLWithPath: value) : project.sourceRoot.appendingPathComponent(value)
        }
        let outPath = context.outPath

        // Info.plist: the file with $(…) expanded, or Xcode's generated one from INFOPLIST_KEY_* settings.
        var info: [String: Any] = [:]
        var infoFrom: [String: String] = [:]
        if let url = resolve("INFOPLIST_FILE") {
            guard fm.fileExists(atPath: url.path) else { throw ImportError.missingFile(target: target.name, setting: "INFOPLIST_FILE", path: url.path) }
            try context.checkInside(url, target: target.name, setting: "INFOPLIST_FILE", notes: &notes)
            info = try readPlist(url)
            for (key, value) in info {
                let expanded = expandValue(value, settings)
                info[key] = expanded
                let vars = variables(in: value)
                infoFrom[key] = relative(url) + (vars.isEmpty ? "" : ", expanded with " + vars.map(origin).joined(separator: ", "))
            }
        }
        // Xcode's generated Info.plist (GENERATE_INFOPLIST_FILE = YES, or no file at all): the INFOPLIST_KEY_*
        // settings, then the keys Xcode always writes. Merged with a file, the file's value is kept where both
        // set a key, and the report says so.
        if settings["GENERATE_INFOPLIST_FILE"] == "YES" || resolve("INFOPLIST_FILE") == nil {
            var generated: [(key: String, value: Any, from: String)] = []
            for (key, value) in settings.values.sorted(by: { $0.key < $1.key }) where key.hasPrefix("INFOPLIST_KEY_") {
                generated.append((String(key.dropFirst("INFOPLIST_KEY_".count)), infoPlistValue(settings.expand(value)), origin(key)))
            }
            let always: [(String, String)] = [
                ("CFBundleExecutable", "EXECUTABLE_NAME"), ("CFBundlePackageType", "PRODUCT_BUNDLE_PACKAGE_TYPE"),
                ("CFBundleShortVersionString", "MARKETING_VERSION"), ("CFBundleVersion", "CURRENT_PROJECT_VERSION"),
                ("CFBundleDevelopmentRegion", "DEVELOPMENT_LANGUAGE"),
            ]
            for (key, setting) in always {
                let value = settings[setting] ?? (setting == "EXECUTABLE_NAME" ? settings["PRODUCT_NAME"] : nil)
                if let value { generated.append((key, value, origin(settings[setting] != nil ? setting : "PRODUCT_NAME"))) }
            }
            generated.append(("CFBundleInfoDictionaryVersion", "6.0", "Xcode's generated Info.plist"))
            for item in generated {
                if let kept = info[item.key] {
                    if "\(kept)" != "\(item.value)" {
                        infoFrom[item.key] = (infoFrom[item.key] ?? "the Info.plist file") + "; \(item.from) also sets it, to \(item.value): the file's value is kept"
                    }
                    continue
                }
                info[item.key] = item.value
                infoFrom[item.key] = item.from
            }
        }
        guard let bundleID = settings["PRODUCT_BUNDLE_IDENTIFIER"] ?? (info["CFBundleIdentifier"] as? String), !bundleID.isEmpty, !bundleID.contains("$") else {
            throw ImportError.badFile(path: project.pbxprojURL.path, detail: "target \(target.name) has no PRODUCT_BUNDLE_IDENTIFIER in \(options.configuration)")
        }
        if let problem = BundleIdentifier.problem(bundleID) {
            throw ImportError.badName(target: target.name, setting: "PRODUCT_BUNDLE_IDENTIFIER", value: bundleID, problem: problem)
        }
        if info["CFBundleIdentifier"] == nil || (info["CFBundleIdentifier"] as? String)?.isEmpty == true {
            info["CFBundleIdentifier"] = bundleID
            infoFrom["CFBundleIdentifier"] = origin("PRODUCT_BUNDLE_IDENTIFIER")
        }
        if info["CFBundleName"] == nil, let name = settings["PRODUCT_NAME"] {
            info["CFBundleName"] = name
            infoFrom["CFBundleName"] = origin("PRODUCT_NAME")
        }
        let infoURL = bundle.appendingPathComponent("Info.plist")
        try writePlist(info, to: infoURL)
        provenance.append(Provenance(file: outPath(infoURL), from: infoFrom))

        // Entitlements, signed as Xcode would: prefixes expanded with the team, the team identifier added.
        var entitlements: [String: Any] = [:]
        var entFrom: [String: String] = [:]
        let entName = try plainName(settings["PRODUCT_NAME"] ?? target.name, target: target.name).replacingOccurrences(of: " ", with: "") + ".entitlements"
        if let url = resolve("CODE_SIGN_ENTITLEMENTS") {
            guard fm.fileExists(atPath: url.path) else { throw ImportError.missingFile(target: target.name, setting: "CODE_SIGN_ENTITLEMENTS", path: url.path) }
            try context.checkInside(url, target: target.name, setting: "CODE_SIGN_ENTITLEMENTS", notes: &notes)
            for (key, value) in try readPlist(url) {
                entitlements[key] = expandValue(value, settings)
                let vars = variables(in: value)
                entFrom[key] = relative(url) + (vars.isEmpty ? "" : ", expanded with " + vars.map { $0 == "AppIdentifierPrefix" || $0 == "TeamIdentifierPrefix" ? "\($0) = \(team). from \(teamOrigin)" : origin($0) }.joined(separator: ", "))
            }
        }
        entitlements["com.apple.developer.team-identifier"] = team
        entFrom["com.apple.developer.team-identifier"] = "signing: \(teamOrigin)"
        let entURL = bundle.appendingPathComponent(entName)
        try writePlist(entitlements, to: entURL)
        provenance.append(Provenance(file: outPath(entURL), from: entFrom))

        // The SDK's files among the target's resources, copied as they are.
        let available = project.resources(of: target)
        for name in resources {
            guard let source = available[name] else { continue }
            guard fm.fileExists(atPath: source.path) else { throw ImportError.missingFile(target: target.name, setting: "Copy Bundle Resources", path: source.path) }
            try context.checkInside(source, target: target.name, setting: "Copy Bundle Resources", notes: &notes)
            let dest = bundle.appendingPathComponent(name)
            // Its content, never a link: a link in the bundle would point back into (or out of) the project.
            var info = stat()
            guard stat(source.path, &info) == 0, info.st_mode & S_IFMT == S_IFREG, let data = fm.contents(atPath: source.resolvingSymlinksInPath().path) else {
                throw ImportError.badFile(path: source.path, detail: "cannot be read (a resource must be a regular file)")
            }
            guard fm.createFile(atPath: dest.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw ImportError.badFile(path: dest.path, detail: "cannot be written")
            }
            provenance.append(Provenance(file: outPath(dest), from: ["*": "copied from \(relative(source)) (a resource of target \(target.name))"]))
        }
        let groups = (entitlements["com.apple.security.application-groups"] as? [Any] ?? []).compactMap { $0 as? String }
        return Written(url: bundle, bundleIdentifier: bundleID, groups: groups)
    }

    static func readPlist(_ url: URL) throws -> [String: Any] {
        guard let data = FileManager.default.contents(atPath: url.path) else { throw ImportError.badFile(path: url.path, detail: "cannot be read") }
        do {
            guard let dict = try PlistValue.foundationPropertyList(from: data) as? [String: Any] else {
                throw ImportError.badFile(path: url.path, detail: "is not a property list dictionary")
            }
            return dict
        } catch let error as ImportError {
            throw error
        } catch {
            throw ImportError.badFile(path: url.path, detail: "is not a valid property list (\((error as NSError).userInfo["NSDebugDescription"] as? String ?? "\(error)"))")
        }
    }

    static func writePlist(_ value: [String: Any], to url: URL) throws {
        let data = try PropertyListSerialization.data(fromPropertyList: value, format: .xml, options: 0)
        try data.write(to: url, options: .atomic)
        chmod(url.path, 0o600)
    }

    /// A generated Info.plist value from its build setting's text: `YES`/`NO` are booleans, as Xcode writes them.
    static func infoPlistValue(_ text: String) -> Any {
        switch text {
        case "YES": return true
        case "NO": return false
        default: return text
        }
    }

    static func expandValue(_ value: Any, _ settings: BuildSettings) -> Any {
        switch value {
        case let s as String: return settings.expand(s)
        case let a as [Any]: return a.map { expandValue($0, settings) }
        case let d as [String: Any]: return d.mapValues { expandValue($0, settings) }
        default: return value
        }
    }

    /// The build settings a value names.
    static func variables(in value: Any) -> [String] {
        switch value {
        case let s as String:
            var names: [String] = []
            var rest = Substring(s)
            while let start = rest.range(of: "$(") ?? rest.range(of: "${") {
                let close: Character = rest[start].hasSuffix("(") ? ")" : "}"
                guard let end = rest[start.upperBound...].firstIndex(of: close) else { break }
                names.append(String(rest[start.upperBound..<end].split(separator: ":").first ?? ""))
                rest = rest[rest.index(after: end)...]
            }
            return names
        case let a as [Any]: return a.flatMap(variables)
        case let d as [String: Any]: return d.values.flatMap(variables)
        default: return []
        }
    }
}
