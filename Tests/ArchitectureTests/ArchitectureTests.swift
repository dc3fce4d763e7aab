import Foundation
import XCTest

/// docs/architecture.md is the module map (issue 35): this test holds it to Package.swift and to the sources.
final class ArchitectureTests: XCTestCase {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Modules that come with the toolchain: importing them needs no declaration.
    static let system: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationEssentials", "FoundationXML", "Glibc", "Musl", "Darwin", "Dispatch",
        "XCTest", "_Concurrency", "Synchronization", "CoreFoundation", "os", "Testing",
    ]
    static let faces = ["SalesforceSDKCommon": 0, "SalesforceSDKCore": 1, "SmartStore": 2, "MobileSync": 3]
    static let engines = ["CoreEngine": 1, "CoreNetworkEngine": 1, "SmartStoreEngine": 2, "MobileSyncEngine": 3]
    static let client: Set<String> = Set(faces.keys).union(engines.keys).union(["AppGroup", "Keychain", "CSecret", "MobileApp", "AppExtensions"])

    struct Target { var name: String; var type: String; var path: String?; var dependencies: Set<String> }

    /// Package.swift as SwiftPM reads it.
    static func package() throws -> [Target] {
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("architecture-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["swift", "package", "--package-path", root.path, "--scratch-path", scratch.path, "dump-package"]
        let out = Pipe()
        process.standardOutput = out
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let json = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let targets = json["targets"] as? [[String: Any]]
        else { throw XCTSkip("unreachable") }
        return targets.map { t in
            let deps = (t["dependencies"] as? [[String: Any]] ?? []).compactMap { dep -> String? in
                for kind in ["byName", "target", "product"] { if let v = dep[kind] as? [Any], let name = v.first as? String { return name } }
                return nil
            }
            return Target(name: t["name"] as! String, type: t["type"] as! String, path: t["path"] as? String, dependencies: Set(deps))
        }
    }

    /// docs/architecture.md's table: module -> (layer, may import).
    static func map() throws -> [String: (layer: String, imports: Set<String>)] {
        let text = try String(contentsOf: root.appendingPathComponent("docs/architecture.md"), encoding: .utf8)
        var rows: [String: (String, Set<String>)] = [:]
        for line in text.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard cells.count >= 6 else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            let imports = cells[4].split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "` ")) }.filter { !$0.isEmpty }
            XCTAssertNil(rows[name], "\(name) is twice in docs/architecture.md")
            rows[name] = (cells[2], Set(imports))
        }
        return rows
    }

    /// Every module a Swift file imports (`import X`, `@testable import X`, `import struct X.Y`, …).
    static func imports(of file: URL) throws -> Set<String> {
        let text = try String(contentsOf: file, encoding: .utf8)
        var found: Set<String> = []
        let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
        var inString = false
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            // A multi-line string literal (generated code, a test's input) imports nothing.
            let quotes = raw.components(separatedBy: "\"\"\"").count - 1
            defer { if quotes % 2 == 1 { inString.toggle() } }
            if inString || quotes > 0 { continue }
            var words = raw.trimmingCharacters(in: .whitespaces).split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "package", "internal", "private", "fileprivate"].contains(first) { words.removeFirst() }
            guard words.first == "import", words.count >= 2 else { continue }
            var module = words[1]
            if kinds.contains(module), words.count >= 3 { module = words[2] }
            found.insert(String(module.split(separator: ".").first ?? ""))
        }
        return found
    }

    static func swiftFiles(of target: Target) -> [URL] {
        let folder = root.appendingPathComponent(target.path ?? (target.type == "test" ? "Tests/\(target.name)" : "Sources/\(target.name)"))
        guard let walk = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil) else { return [] }
        return walk.compactMap { $0 as? URL }.filter { $0.pathExtension == "swift" }
    }

    func testTheMapIsPackageSwift() throws {
        let targets = try Self.package().filter { $0.type != "test" }
        let map = try Self.map()
        XCTAssertEqual(Set(map.keys), Set(targets.map(\.name)), "docs/architecture.md lists exactly the package's modules (tests aside)")
        for target in targets {
            guard let row = map[target.name] else { continue }
            XCTAssertEqual(row.imports, target.dependencies, "\(target.name): docs/architecture.md's 'May import' and Package.swift's dependencies differ")
        }
    }

    func testEveryImportIsDeclared() throws {
        for target in try Self.package() where target.type != "system" {
            for file in Self.swiftFiles(of: target) {
                for module in try Self.imports(of: file) where !Self.system.contains(module) && module != target.name {
                    XCTAssertTrue(target.dependencies.contains(module),
                        "\(file.path.replacingOccurrences(of: Self.root.path + "/", with: "")) imports \(module), which \(target.name) does not declare in Package.swift")
                }
            }
        }
    }

    func testTheOrderOfTheLayers() throws {
        for target in try Self.package() {
            let deps = target.dependencies
            if let level = Self.faces[target.name] {
                for dep in deps {
                    if let face = Self.faces[dep] { XCTAssertLessThan(face, level, "\(target.name) imports the later face \(dep)") }
                    if let engine = Self.engines[dep] { XCTAssertLessThanOrEqual(engine, level, "\(target.name) imports the later engine \(dep)") }
                }
            }
            if let level = Self.engines[target.name] {
                for dep in deps {
                    XCTAssertNil(Self.faces[dep], "the engine \(target.name) imports the face \(dep)")
                    if let engine = Self.engines[dep] {
                        XCTAssertTrue(engine < level || (target.name == "CoreNetworkEngine" && dep == "CoreEngine"), "the engine \(target.name) imports \(dep), not before it")
                    }
                }
            }
            if target.name.hasPrefix("OrgSimulator"), target.type != "test" {
                XCTAssertTrue(deps.isDisjoint(with: Self.client), "the org \(target.name) imports the client's \(deps.intersection(Self.client))")
            }
        }
    }

    func testCoreEngineLinksNoNetworking() throws {
        let core = try XCTUnwrap(try Self.package().first { $0.name == "CoreEngine" })
        XCTAssertFalse(core.dependencies.contains("CoreNetworkEngine"))
        for file in Self.swiftFiles(of: core) {
            XCTAssertFalse(try Self.imports(of: file).contains("FoundationNetworking"), "\(file.lastPathComponent) imports FoundationNetworking")
        }
    }

    /// A face translates: it never reaches the network or the file system itself, and never re-exports an engine.
    func testFacesTranslateOnly() throws {
        let faceModules = Set(Self.faces.keys).union(["WidgetKit", "CryptoKit", "AppGroupSimCombine"])
        for target in try Self.package() where faceModules.contains(target.name) {
            for file in Self.swiftFiles(of: target) {
                let name = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { line -> Substring in
                    guard let comment = line.range(of: "//") else { return line }
                    return line[..<comment.lowerBound]
                }
                for (number, line) in code.enumerated() {
                    // A session, made or shared (`URLSession(`, `URLSession.shared`); naming a task type is not a call.
                    XCTAssertFalse(line.contains("URLSession(") || line.contains("URLSession."), "\(name):\(number + 1) calls URLSession: the engine's HTTP path is the one path")
                    XCTAssertFalse(line.contains("FileManager.default") || line.contains("FileManager()"),
                        "\(name):\(number + 1) uses FileManager: the device's files are the engine's")
                    if line.contains("@_exported import") {
                        let module = line.split(separator: " ").last.map(String.init) ?? ""
                        XCTAssertNil(Self.engines[module], "\(name):\(number + 1) re-exports the engine \(module)")
                    }
                }
            }
        }
    }

    /// Foundation's property-list reader crashes the process on some damaged binary lists (scripts/fuzz found one):
    /// outside bytes reach it only through `PlistValue.foundationPropertyList`, which walks a binary list first.
    func testOnlyOneHomeHandsBytesToFoundationsPlistReader() throws {
        let home = "Sources/AppGroup/PlistValue.swift"
        var seenInHome = false
        for target in try Self.package() {
            for file in Self.swiftFiles(of: target) {
                let name = file.path.replacingOccurrences(of: Self.root.path + "/", with: "")
                guard name.hasPrefix("Sources/") else { continue }  // tests and benchmarks read their own files
                let code = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").map { line -> Substring in
                    guard let comment = line.range(of: "//") else { return line }
                    return line[..<comment.lowerBound]
                }
                for (number, line) in code.enumerated() where line.contains("PropertyListSerialization.propertyList(") {
                    if name == home { seenInHome = true; continue }
                    XCTFail("\(name):\(number + 1) hands bytes to PropertyListSerialization: call PlistValue.foundationPropertyList(from:)")
                }
            }
        }
        XCTAssertTrue(seenInHome, "the one home, \(home), no longer reads with Foundation: move this rule with it")
    }
}
