import Foundation

package enum XcodeProjectError: Error, Equatable, CustomStringConvertible {
    case notFound(path: String)
    case parse(file: String, line: Int, column: Int, message: String)
    case malformed(file: String, detail: String)
    case unknownProductType(file: String, target: String, productType: String)
    case noConfiguration(file: String, name: String, available: [String])

    package var description: String {
        switch self {
        case .notFound(let path): return "\(path) does not exist; pass the .xcodeproj folder (or its project.pbxproj)"
        case .parse(let file, let line, let column, let message):
            return "\(file):\(line):\(column): not a project file Xcode could read: \(message); open the project in Xcode once to rewrite it, or restore it from version control"
        case .malformed(let file, let detail): return "\(file): \(detail)"
        case .unknownProductType(let file, let target, let type):
            return "\(file): target \(target) has the product type \(type), which this importer does not know; only apps and app extensions are imported"
        case .noConfiguration(let file, let name, let available):
            return "\(file): no build configuration named \(name); the project has \(available.joined(separator: ", "))"
        }
    }
}

/// A `.xcodeproj`: its native targets, build configurations and settings, file references and the
/// extensions each app embeds, read from `project.pbxproj`.
package struct XcodeProject: Sendable {
    package let projectURL: URL
    package let pbxprojURL: URL
    /// `SRCROOT`: the folder that holds the `.xcodeproj`.
    package let sourceRoot: URL
    let objects: [String: [String: PBXValue]]
    let root: [String: PBXValue]
    package let targets: [Target]
    let parents: [String: String]

    package enum ProductKind: String, Sendable { case application, appExtension, other }

    package struct Target: Sendable, Equatable {
        package let id: String
        package let name: String
        package let productType: String
        package let kind: ProductKind
        let configurationListID: String?
        let buildPhaseIDs: [String]
        let dependencyIDs: [String]
        let productReferenceID: String?
        let synchronizedGroupIDs: [String]
    }

    static let knownProductTypes: [String: ProductKind] = [
        "com.apple.product-type.application": .application,
        "com.apple.product-type.application.messages": .application,
        "com.apple.product-type.app-extension": .appExtension,
        "com.apple.product-type.extensionkit-extension": .appExtension,
        "com.apple.product-type.app-extension.messages": .appExtension,
        "com.apple.product-type.app-extension.messages-sticker-pack": .appExtension,
        "com.apple.product-type.framework": .other, "com.apple.product-type.framework.static": .other,
        "com.apple.product-type.library.static": .other, "com.apple.product-type.library.dynamic": .other,
        "com.apple.product-type.bundle": .other, "com.apple.product-type.bundle.unit-test": .other,
        "com.apple.product-type.bundle.ui-testing": .other, "com.apple.product-type.tool": .other,
        "com.apple.product-type.application.watchapp2": .other, "com.apple.product-type.application.watchapp2-container": .other,
        "com.apple.product-type.watchkit2-extension": .other, "com.apple.product-type.xpc-service": .other,
        "com.apple.product-type.application.on-demand-install-capable": .application,
    ]

    /// Reads `PATH` (the `.xcodeproj` folder or its `project.pbxproj`).
    package init(at path: URL) throws {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDir) else { throw XcodeProjectError.notFound(path: path.path) }
        pbxprojURL = isDir.boolValue ? path.appendingPathComponent("project.pbxproj") : path
        projectURL = isDir.boolValue ? path : path.deletingLastPathComponent()
        sourceRoot = projectURL.deletingLastPathComponent()
        let file = pbxprojURL.path
        guard let data = FileManager.default.contents(atPath: file) else { throw XcodeProjectError.notFound(path: file) }
        let plist: PBXValue
        do {
            plist = try PBXParser.parse(data)
        } catch {
            throw XcodeProjectError.parse(file: file, line: error.line, column: error.column, message: error.message)
        }
        guard let objectsValue = plist["objects"]?.dictionary, let rootID = plist["rootObject"]?.string,
            let root = objectsValue[rootID]?.dictionary, root["isa"]?.string == "PBXProject"
        else {
            throw XcodeProjectError.malformed(file: file, detail: "no 'objects' with a PBXProject 'rootObject': this is a property list, not an Xcode project")
        }
        var objects: [String: [String: PBXValue]] = [:]
        for (id, value) in objectsValue { if let d = value.dictionary { objects[id] = d } }
        self.objects = objects
        self.root = root
        var parents: [String: String] = [:]
        for (id, object) in objects where ["PBXGroup", "PBXVariantGroup", "XCVersionGroup", "PBXFileSystemSynchronizedRootGroup"].contains(object["isa"]?.string ?? "") {
            for child in object["children"]?.array ?? [] { if let c = child.string { parents[c] = id } }
        }
        // A group that contains itself, directly or through others, has no place on disk: refused by name here,
        // so that no walk up the tree can loop; and the tree is no deeper than `maxGroupDepth`.
        for start in parents.keys {
            var seen: [String] = [start]
            var id = start
            while let parent = parents[id] {
                if let loop = seen.firstIndex(of: parent) {
                    let names = (seen[loop...] + [parent]).map { objects[$0]?["name"]?.string ?? objects[$0]?["path"]?.string ?? $0 }
                    throw XcodeProjectError.malformed(file: file, detail: "the group tree has a cycle (\(names.joined(separator: " contains ")))")
                }
                seen.append(parent)
                guard seen.count <= Self.maxGroupDepth else {
                    throw XcodeProjectError.malformed(file: file, detail: "groups nest deeper than \(Self.maxGroupDepth) levels")
                }
                id = parent
            }
        }
        self.parents = parents
        var targets: [Target] = []
        for idValue in root["targets"]?.array ?? [] {
            guard let id = idValue.string, let t = objects[id] else { continue }
            guard t["isa"]?.string == "PBXNativeTarget" else { continue }
            let name = t["name"]?.string ?? id
            let type = t["productType"]?.string ?? ""
            guard let kind = Self.knownProductTypes[type] else {
                throw XcodeProjectError.unknownProductType(file: file, target: name, productType: type.isEmpty ? "(none)" : type)
            }
            targets.append(Target(
                id: id, name: name, productType: type, kind: kind, configurationListID: t["buildConfigurationList"]?.string,
                buildPhaseIDs: (t["buildPhases"]?.array ?? []).compactMap(\.string),
                dependencyIDs: (t["dependencies"]?.array ?? []).compactMap(\.string).compactMap { objects[$0]?["target"]?.string },
                productReferenceID: t["productReference"]?.string,
                synchronizedGroupIDs: (t["fileSystemSynchronizedGroups"]?.array ?? []).compactMap(\.string)))
        }
        self.targets = targets
    }

    package var apps: [Target] { targets.filter { $0.kind == .application } }
    package var appExtensions: [Target] { targets.filter { $0.kind == .appExtension } }

    // MARK: Build settings

    func configurations(_ listID: String?) -> [String: [String: PBXValue]] {
        configurationObjects(listID).mapValues { $0["buildSettings"]?.dictionary ?? [:] }
    }

    func configurationObjects(_ listID: String?) -> [String: [String: PBXValue]] {
        guard let listID, let list = objects[listID] else { return [:] }
        var out: [String: [String: PBXValue]] = [:]
        for id in (list["buildConfigurations"]?.array ?? []).compactMap(\.string) {
            guard let c = objects[id], let name = c["name"]?.string else { continue }
            out[name] = c
        }
        return out
    }

    /// The settings of a configuration's base `.xcconfig` (`KEY = VALUE` lines, `//` comments,
    /// `#include "other.xcconfig"`), or none when it has no base file or the file is not on disk.
    func xcconfigSettings(_ configuration: [String: PBXValue]?) -> [String: PBXValue] {
        guard let ref = configuration?["baseConfigurationReference"]?.string, let url = path(of: ref) else { return [:] }
        var out: [String: PBXValue] = [:]
        Self.readXcconfig(url, into: &out, depth: 0)
        return out
    }

    static func readXcconfig(_ url: URL, into out: inout [String: PBXValue], depth: Int) {
        guard depth < 8, let text = try? String(contentsOf: url, encoding: .utf8) else { return }
        for raw in text.split(whereSeparator: \.isNewline) {
            var line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#include") {
                let name = line.drop { $0 != "\"" }.dropFirst().prefix { $0 != "\"" }
                if !name.isEmpty { readXcconfig(url.deletingLastPathComponent().appendingPathComponent(String(name)), into: &out, depth: depth + 1) }
                continue
            }
            if let comment = line.range(of: "//") { line = String(line[..<comment.lowerBound]) }
            // The `=` after a condition's `]`, not the one inside it (KEY[sdk=iphoneos*] = VALUE).
            let searchFrom = line.firstIndex(of: "]").map { line.index(after: $0) } ?? line.startIndex
            guard let eq = line[searchFrom...].firstIndex(of: "=") else { continue }
            var key = line[..<eq].trimmingCharacters(in: .whitespaces)
            // Conditional settings (KEY[sdk=iphoneos*]) apply to the device build this simulates.
            if let bracket = key.firstIndex(of: "[") { key = String(key[..<bracket]) }
            let value = line[line.index(after: eq)...].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: ";"))
            if !key.isEmpty { out[key] = .string(value) }
        }
    }

    /// The project's configuration names (Debug, Release, …).
    package var configurationNames: [String] {
        guard let listID = root["buildConfigurationList"]?.string, let list = objects[listID] else { return [] }
        return (list["buildConfigurations"]?.array ?? []).compactMap { $0.string.flatMap { objects[$0]?["name"]?.string } }
    }

    /// The target's settings for `configuration`: Xcode's defaults, then the project level, then the
    /// target level, `$(inherited)` standing for the level below.
    package func settings(for target: Target, configuration: String) throws -> BuildSettings {
        let names = configurationNames
        guard names.contains(configuration) else {
            throw XcodeProjectError.noConfiguration(file: pbxprojURL.path, name: configuration, available: names)
        }
        var values: [String: String] = [
            "SRCROOT": sourceRoot.path, "PROJECT_DIR": sourceRoot.path, "SOURCE_ROOT": sourceRoot.path,
            "PROJECT_NAME": projectURL.deletingPathExtension().lastPathComponent, "TARGET_NAME": target.name, "CONFIGURATION": configuration,
            "PRODUCT_NAME": "$(TARGET_NAME)", "DEVELOPMENT_LANGUAGE": "en", "PRODUCT_MODULE_NAME": "$(PRODUCT_NAME:c99extidentifier)",
            "EXECUTABLE_NAME": "$(PRODUCT_NAME)", "WRAPPER_EXTENSION": target.kind == .appExtension ? "appex" : "app",
        ]
        var origins: [String: String] = [:]
        let projectConfig = configurationObjects(root["buildConfigurationList"]?.string)[configuration]
        let targetConfig = configurationObjects(target.configurationListID)[configuration]
        // Xcode's order: defaults, the project's .xcconfig, the project, the target's .xcconfig, the target.
        for (level, settings) in [("project .xcconfig", xcconfigSettings(projectConfig)),
                                  ("project", projectConfig?["buildSettings"]?.dictionary ?? [:]),
                                  ("target \(target.name) .xcconfig", xcconfigSettings(targetConfig)),
                                  ("target \(target.name)", targetConfig?["buildSettings"]?.dictionary ?? [:])] {
            for (key, raw) in settings {
                let text: String
                switch raw {
                case .string(let s): text = s
                case .array(let a): text = a.compactMap(\.string).joined(separator: " ")
                default: continue
                }
                let below = values[key] ?? ""
                values[key] = text.replacingOccurrences(of: "$(inherited)", with: below).replacingOccurrences(of: "${inherited}", with: below)
                    .trimmingCharacters(in: .whitespaces)
                origins[key] = "\(level), \(configuration)"
            }
        }
        if let team = values["DEVELOPMENT_TEAM"], !team.isEmpty {
            values["AppIdentifierPrefix"] = team + "."
            values["TeamIdentifierPrefix"] = team + "."
        }
        return BuildSettings(values: values, origins: origins)
    }

    // MARK: Files

    /// How deep groups may nest (the loader refuses deeper trees, and cycles).
    package static let maxGroupDepth = 256

    /// Where a file reference or group is on disk; nil for products and SDK files. Walks up the group tree
    /// without recursion (the loader has refused cycles and trees deeper than `maxGroupDepth`).
    package func path(of id: String) -> URL? {
        var chain: [String?] = []
        var current = id
        var base = sourceRoot
        while true {
            guard let object = objects[current], chain.count <= Self.maxGroupDepth else { return nil }
            let path = object["path"]?.string
            switch object["sourceTree"]?.string ?? "<group>" {
            case "<absolute>":
                guard let path else { return nil }
                base = URL(fileURLWithPath: path)
            case "SOURCE_ROOT":
                base = path.map { sourceRoot.appendingPathComponent($0) } ?? sourceRoot
            case "<group>":
                chain.append(path)
                if let parent = parents[current] {
                    current = parent
                    continue
                }
                return chain.reversed().reduce(sourceRoot) { url, component in component.map { url.appendingPathComponent($0) } ?? url }
            default:
                return nil
            }
            return chain.reversed().reduce(base) { url, component in component.map { url.appendingPathComponent($0) } ?? url }
        }
    }

    func files(ofPhase id: String) -> [(buildFile: String, fileRef: String)] {
        (objects[id]?["files"]?.array ?? []).compactMap(\.string).compactMap { buildFile in
            objects[buildFile]?["fileRef"]?.string.map { (buildFile, $0) }
        }
    }

    /// The app extensions an app embeds: its "Embed App Extensions" copy phase (destination PlugIns),
    /// then its dependencies that are extensions.
    package func embeddedExtensions(of app: Target) -> [Target] {
        var out: [Target] = []
        for phase in app.buildPhaseIDs where objects[phase]?["isa"]?.string == "PBXCopyFilesBuildPhase" && objects[phase]?["dstSubfolderSpec"]?.string == "13" {
            for (_, ref) in files(ofPhase: phase) {
                if let ext = appExtensions.first(where: { $0.productReferenceID == ref }), !out.contains(ext) { out.append(ext) }
            }
        }
        for dep in app.dependencyIDs {
            if let ext = appExtensions.first(where: { $0.id == dep }), !out.contains(ext) { out.append(ext) }
        }
        return out
    }

    /// The target's source files (its Compile Sources phase, and the Swift and Objective-C files of its
    /// synchronized folders), in the project's order; with whether each is on disk.
    package func sources(of target: Target) -> [URL] {
        var out: [URL] = []
        var seen = Set<String>()
        for phase in target.buildPhaseIDs where objects[phase]?["isa"]?.string == "PBXSourcesBuildPhase" {
            for (_, ref) in files(ofPhase: phase) {
                if let url = path(of: ref), seen.insert(url.standardizedFileURL.path).inserted { out.append(url) }
            }
        }
        for group in target.synchronizedGroupIDs {
            guard let folder = path(of: group), let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            var found: [URL] = []
            for case let url as URL in walker where ["swift", "m", "mm"].contains(url.pathExtension) { found.append(url) }
            for url in found.sorted(by: { $0.path < $1.path }) where seen.insert(url.standardizedFileURL.path).inserted { out.append(url) }
        }
        return out
    }

    /// The target's resources by file name (the Copy Bundle Resources phase, and the folders of a
    /// synchronized group), only those on disk.
    package func resources(of target: Target) -> [String: URL] {
        var out: [String: URL] = [:]
        for phase in target.buildPhaseIDs where objects[phase]?["isa"]?.string == "PBXResourcesBuildPhase" {
            for (_, ref) in files(ofPhase: phase) {
                let ids = objects[ref]?["isa"]?.string == "PBXVariantGroup" ? (objects[ref]?["children"]?.array ?? []).compactMap(\.string) : [ref]
                for id in ids {
                    if let url = path(of: id) { out[url.lastPathComponent] = url }
                }
            }
        }
        for group in target.synchronizedGroupIDs {
            guard let folder = path(of: group), let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { continue }
            for case let url as URL in walker where out[url.lastPathComponent] == nil { out[url.lastPathComponent] = url }
        }
        return out
    }
}

/// A target's resolved build settings, with where each came from.
package struct BuildSettings: Sendable {
    package var values: [String: String]
    /// "project, Debug" or "target App, Release" for every setting the project file sets.
    package var origins: [String: String]

    package subscript(_ key: String) -> String? {
        guard let raw = values[key] else { return nil }
        let expanded = expand(raw)
        return expanded.isEmpty ? nil : expanded
    }

    /// Expands `$(VAR)`, `${VAR}` and the modifiers `:rfc1034identifier`, `:c99extidentifier`,
    /// `:identifier`, `:lower`, `:upper`. An unknown variable is empty, as in Xcode; one this target
    /// does not define is reported in `unresolved`.
    package func expand(_ text: String) -> String {
        var unresolved: [String] = []
        return expand(text, depth: 0, unresolved: &unresolved)
    }

    package func unresolved(in text: String) -> [String] {
        var unresolved: [String] = []
        _ = expand(text, depth: 0, unresolved: &unresolved)
        return unresolved
    }

    func expand(_ text: String, depth: Int, unresolved: inout [String]) -> String {
        guard text.contains("$") else { return text }
        // A setting that names itself, directly or not, ends empty instead of looping.
        guard depth < 16 else { return "" }
        var out = ""
        var rest = Substring(text)
        while let dollar = rest.firstIndex(of: "$") {
            out += rest[..<dollar]
            let after = rest.index(after: dollar)
            guard after < rest.endIndex, rest[after] == "(" || rest[after] == "{" else {
                out.append("$")
                rest = rest[after...]
                continue
            }
            let close: Character = rest[after] == "(" ? ")" : "}"
            guard let end = rest[after...].firstIndex(of: close) else {
                out += rest[dollar...]
                rest = ""
                break
            }
            let inner = rest[rest.index(after: after)..<end]
            let parts = inner.split(separator: ":", maxSplits: 1).map(String.init)
            let name = parts.first ?? ""
            var value: String
            if let raw = values[name] {
                value = expand(raw, depth: depth + 1, unresolved: &unresolved)
            } else {
                unresolved.append(name)
                value = ""
            }
            if parts.count == 2 {
                for modifier in parts[1].split(separator: ",") {
                    switch modifier {
                    case "rfc1034identifier": value = String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == ".") ? $0 : "-" })
                    case "c99extidentifier", "identifier":
                        value = String(value.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
                        if let f = value.first, f.isNumber { value = "_" + value }
                    case "lower": value = value.lowercased()
                    case "upper": value = value.uppercased()
                    default: break
                    }
                }
            }
            out += value
            rest = rest[rest.index(after: end)...]
        }
        return out + rest
    }
}
