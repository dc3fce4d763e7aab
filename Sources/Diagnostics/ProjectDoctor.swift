import AppGroup
import Foundation
import SourceReader
import XcodeProject

/// `msdk-sim doctor --xcodeproj`: the bundle doctor's findings in the project's own terms (target,
/// configuration, build setting, path relative to the project), and the findings only a project
/// shows: an entitlements file no configuration uses, entitlements that differ between
/// configurations, an extension id outside its app's, an extension no app embeds, a missing
/// `NSExtensionPointIdentifier`, and no team.
package enum ProjectDoctor {
    package static func examine(xcodeproj: URL, configuration: String) async -> [Finding] {
        let project: XcodeProject
        do { project = try XcodeProject(at: xcodeproj) } catch {
            return [Finding("project-unreadable", .error, "\(error)", fix: "fix the file at the line named, or restore it from version control")]
        }
        var findings: [Finding] = []
        let rel = { (path: String) -> String in
            path.hasPrefix(project.sourceRoot.path + "/") ? String(path.dropFirst(project.sourceRoot.path.count + 1)) : path
        }
        func entitlementsPath(_ target: XcodeProject.Target, _ config: String) -> String? {
            guard let settings = try? project.settings(for: target, configuration: config), let value = settings["CODE_SIGN_ENTITLEMENTS"] else { return nil }
            return value.hasPrefix("/") ? value : project.sourceRoot.appendingPathComponent(value).path
        }
        func groups(_ path: String?) -> [String: [String]] {
            guard let path, let data = FileManager.default.contents(atPath: path),
                let plist = try? PlistValue.foundationPropertyList(from: data) as? [String: Any]
            else { return [:] }
            return [
                "application groups": (plist["com.apple.security.application-groups"] as? [Any] ?? []).compactMap { $0 as? String }.sorted(),
                "keychain groups": (plist["keychain-access-groups"] as? [Any] ?? []).compactMap { $0 as? String }.sorted(),
            ]
        }

        // Findings only a project shows.
        let targets = project.apps + project.appExtensions
        var referenced = Set<String>()
        for target in targets {
            for config in project.configurationNames { if let p = entitlementsPath(target, config) { referenced.insert(URL(fileURLWithPath: p).standardizedFileURL.path) } }
            if let settings = try? project.settings(for: target, configuration: configuration), settings["DEVELOPMENT_TEAM"] == nil {
                findings.append(Finding("no-team", .error,
                    "target \(target.name) (\(configuration)) has no DEVELOPMENT_TEAM, so $(AppIdentifierPrefix) in its keychain groups cannot be resolved and its groups cannot be shared",
                    fix: "choose a team for \(target.name) in Xcode (Signing & Capabilities), which sets DEVELOPMENT_TEAM"))
            }
            let perConfig = project.configurationNames.map { ($0, groups(entitlementsPath(target, $0))) }
            for (config, value) in perConfig.dropFirst() where value != perConfig[0].1 {
                findings.append(Finding("entitlements-differ-by-configuration", .error,
                    "target \(target.name) is entitled to \(describe(perConfig[0].1)) in \(perConfig[0].0) but to \(describe(value)) in \(config): one configuration's build will not share data with the other's extension",
                    fix: "use one entitlements file for every configuration (CODE_SIGN_ENTITLEMENTS of \(target.name)), or the same groups in each"))
            }
        }
        if let walker = FileManager.default.enumerator(at: project.sourceRoot, includingPropertiesForKeys: nil) {
            for case let url as URL in walker {
                if url.pathExtension == "xcodeproj" || url.lastPathComponent.hasPrefix(".") || url.lastPathComponent == "Pods" { walker.skipDescendants(); continue }
                if url.pathExtension == "entitlements", !referenced.contains(url.standardizedFileURL.path) {
                    findings.append(Finding("entitlements-unreferenced", .warning,
                        "\(rel(url.path)) is on disk but no target's CODE_SIGN_ENTITLEMENTS names it in any configuration; edits to it change nothing",
                        fix: "set CODE_SIGN_ENTITLEMENTS of the target it belongs to to \(rel(url.path)), or delete the file"))
                }
            }
        }
        var embedded = Set<String>()
        for app in project.apps {
            let appID = (try? project.settings(for: app, configuration: configuration))?["PRODUCT_BUNDLE_IDENTIFIER"] ?? ""
            for ext in project.embeddedExtensions(of: app) {
                embedded.insert(ext.id)
                let settings = try? project.settings(for: ext, configuration: configuration)
                let extID = settings?["PRODUCT_BUNDLE_IDENTIFIER"] ?? ""
                if !appID.isEmpty, !extID.hasPrefix(appID + ".") {
                    findings.append(Finding("extension-bundle-id-prefix", .error,
                        "target \(ext.name) (\(configuration)) has PRODUCT_BUNDLE_IDENTIFIER \(extID), which is not under its app's \(appID); iOS refuses to install the app",
                        fix: "set PRODUCT_BUNDLE_IDENTIFIER of \(ext.name) to \(appID).\(ext.name)"))
                }
                if let infoPath = settings?["INFOPLIST_FILE"] {
                    let url = infoPath.hasPrefix("/") ? URL(fileURLWithPath: infoPath) : project.sourceRoot.appendingPathComponent(infoPath)
                    let info = (try? PlistValue.foundationPropertyList(from: Data(contentsOf: url))) as? [String: Any]
                    let point = (info?["NSExtension"] as? [String: Any])?["NSExtensionPointIdentifier"] as? String
                    if info != nil, point == nil || point!.isEmpty {
                        findings.append(Finding("extension-point-missing", .error,
                            "\(rel(url.path)) (INFOPLIST_FILE of \(ext.name)) has no NSExtension › NSExtensionPointIdentifier, so iOS does not know what kind of extension it is",
                            fix: "add NSExtension with NSExtensionPointIdentifier (com.apple.widgetkit-extension for a widget) to \(rel(url.path))"))
                    }
                }
            }
        }
        for ext in project.appExtensions where !embedded.contains(ext.id) {
            findings.append(Finding("extension-not-embedded", .warning,
                "target \(ext.name) is an app extension that no app embeds (no Embed App Extensions phase or dependency names it); it never ships",
                fix: "add \(ext.name) to the app's Embed Foundation Extensions phase (General › Frameworks, Libraries… or the target's Build Phases)"))
        }

        // Today's findings, on the bundles the import makes, told in the project's terms.
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("msdk-doctor-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let imported: ProjectImport.Result
        do {
            imported = try ProjectImport.run(.init(xcodeproj: xcodeproj, configuration: configuration, out: work, team: findings.contains { $0.id == "no-team" } ? "NOTEAM0000" : nil))
        } catch ProjectImport.ImportError.source(let error) {
            findings.append(Finding("code-unparseable", .error, "\(error)",
                fix: "fix the file at the line named (it must build in Xcode too); doctor reads the code for the app group, its flag, the login-state key and key labels"))
            return findings
        } catch {
            findings.append(Finding("project-import-failed", .error, "\(error)", fix: "fix what the message names; the other checks need the app's Info.plist and entitlements"))
            return findings
        }
        for app in imported.apps {
            // What the code configures (issue 27): its own findings, and the words for AppGroupConfig.plist below.
            var codes: [String: TargetCode] = [:]
            if let appTarget = project.apps.first(where: { $0.name == app.target }) {
                for target in [appTarget] + project.embeddedExtensions(of: appTarget) {
                    do { codes[target.name] = try CodeReading.read(project: project, target: target) } catch {
                        findings.append(Finding("code-unparseable", .error, "target \(target.name): \(error)",
                            fix: "fix the file at the line named (it must build in Xcode too); doctor reads the code for the app group, its flag, the login-state key and key labels"))
                    }
                }
            }
            if let appCode = codes[app.target], appCode.wasRead || !appCode.unread.isEmpty {
                var entitled: [String: [String]] = [:]
                var entitlementsFile: [String: String] = [:]
                for (target, bundle) in [(app.target, app.bundle)] + app.extensions.map({ ($0.target, $0.bundle) }) {
                    entitled[target] = (try? AppBundle(at: bundle))?.entitlements.applicationGroups ?? []
                    if let t = project.targets.first(where: { $0.name == target }), let settings = try? project.settings(for: t, configuration: configuration) {
                        entitlementsFile[target] = settings["CODE_SIGN_ENTITLEMENTS"].map { "\(rel($0)), CODE_SIGN_ENTITLEMENTS of \(target)" }
                    }
                }
                findings += CodeDoctor.findings(app: appCode, extensions: app.extensions.compactMap { codes[$0.target] }.filter { $0.wasRead || !$0.unread.isEmpty },
                    entitled: entitled, entitlementsFile: entitlementsFile)
            }
            var terms: [(String, String)] = []
            func add(_ target: String, bundle: URL) {
                let settings = project.targets.first { $0.name == target }.flatMap { try? project.settings(for: $0, configuration: configuration) }
                let entitlements = settings?["CODE_SIGN_ENTITLEMENTS"] ?? "(no CODE_SIGN_ENTITLEMENTS)"
                let info = settings?["INFOPLIST_FILE"] ?? "(generated Info.plist)"
                if let ent = try? FileManager.default.contentsOfDirectory(atPath: bundle.path).first(where: { $0.hasSuffix(".entitlements") }) {
                    terms.append((bundle.lastPathComponent + "/" + ent, "\(rel(entitlements)) (CODE_SIGN_ENTITLEMENTS of target \(target), \(configuration))"))
                    terms.append((ent, "\(rel(entitlements)) (CODE_SIGN_ENTITLEMENTS of target \(target), \(configuration))"))
                }
                if let code = codes[target], code.wasRead {
                    // The bundle doctor's words for AppGroupConfig.plist, in the code's terms.
                    let b = bundle.lastPathComponent
                    let names = code.sites(.groupName).map(\.location).joined(separator: ", ")
                    let flags = code.sites(.groupEnabled).map(\.location).joined(separator: ", ")
                    let read = code.facts.files.joined(separator: ", ")
                    terms.append(("\(b) has no AppGroupConfig.plist", "target \(target)'s code never sets DataSharingHelper.shared.appGroupName (read: \(read))"))
                    terms.append(("add AppGroupConfig.plist to \(b) with appGroupName ", "in target \(target)'s code, set DataSharingHelper.shared.appGroupName = "))
                    terms.append(("remove appGroupsEnabled from \(b)/AppGroupConfig.plist", "remove the isAppGroupEnabled assignment at \(flags) (target \(target))"))
                    terms.append(("\(b) sets appGroupsEnabled", "target \(target) sets isAppGroupEnabled (\(flags)) to"))
                    if !names.isEmpty {
                        terms.append(("and \(b) sets ", "and target \(target) (\(names)) sets "))
                        terms.append(("in \(b)/AppGroupConfig.plist", "at \(names) (target \(target))"))
                        terms.append(("set appGroupName to", "set DataSharingHelper.shared.appGroupName to"))
                    }
                    if target == app.target, !names.isEmpty { terms.append(("the app sets app group", "the app (\(names)) sets app group")) }
                    let sites = code.sites(.groupName) + code.sites(.groupEnabled)
                    let said = sites.isEmpty ? "never sets DataSharingHelper.shared.appGroupName (read: \(code.facts.files.joined(separator: ", ")))" : "sets at \(sites.map(\.location).joined(separator: ", "))"
                    terms.append((bundle.lastPathComponent + "/AppGroupConfig.plist", "the appGroupName/appGroupsEnabled that target \(target)'s code \(said)"))
                } else {
                    terms.append((bundle.lastPathComponent + "/AppGroupConfig.plist", "the appGroupName/appGroupsEnabled that target \(target) sets in code"))
                }
                terms.append((bundle.lastPathComponent + "/Info.plist", "\(rel(info)) (INFOPLIST_FILE of target \(target))"))
                terms.append((bundle.lastPathComponent, "target \(target)"))
            }
            add(app.target, bundle: app.bundle)
            for ext in app.extensions { add(ext.target, bundle: ext.bundle) }
            for finding in await Doctor.examine(app: app.bundle.path) {
                var f = finding
                for (from, to) in terms {
                    f.message = f.message.replacingOccurrences(of: from, with: to)
                    f.fix = f.fix.replacingOccurrences(of: from, with: to)
                }
                findings.append(f)
            }
        }
        return findings
    }

    static func describe(_ groups: [String: [String]]) -> String {
        groups.sorted { $0.key < $1.key }.map { "\($0.key) [\($0.value.joined(separator: ", "))]" }.joined(separator: " and ")
    }
}
