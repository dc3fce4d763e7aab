import AppGroup
import Foundation
import SourceReader
import XcodeProject

/// `msdk-sim import --package DIR` (issue 27): the import's bundles, and a SwiftPM package with one library
/// target per app or extension target holding that target's Swift sources, on AppGroupSim's SDK-named
/// products, plus a test target with one real check of the setup. UI files (a `View`, an app delegate,
/// `@main`) are set aside without trying; every other file must compile, and `swift build` runs as part
/// of the import: a file that does not compile without UIKit or SwiftUI is left out with the compiler's
/// first error, and the build runs again.
package enum ProjectPackage {
    package struct Options: Sendable {
        /// The import's options; its `out` is ignored (see `bundlesOut`).
        package var importOptions: ProjectImport.Options
        /// Where the bundles go (--out); nil: DIR/Bundles.
        package var bundlesOut: URL?
        package var package: URL
        /// AppGroupSim's own folder (the package's dependency by path).
        package var appGroupSim: URL
        /// The build folder (`swift build --scratch-path`); nil: DIR/.build.
        package var scratchPath: URL?
        package var build: Bool

        package init(importOptions: ProjectImport.Options, bundlesOut: URL?, package: URL, appGroupSim: URL, scratchPath: URL? = nil, build: Bool = true) {
            self.importOptions = importOptions
            self.bundlesOut = bundlesOut
            self.package = package
            self.appGroupSim = appGroupSim
            self.scratchPath = scratchPath
            self.build = build
        }
    }

    package struct SetAside: Sendable, Codable, Equatable {
        package var file: String
        package var reason: String
    }

    package struct TargetReport: Sendable, Codable {
        package var target: String
        package var module: String
        package var bundle: String
        package var sources: [String] = []
        package var ui: [SetAside] = []
        package var leftOut: [SetAside] = []
        package var changes: [String] = []
        /// For a notification service extension: how it runs (an executable target), or why it does not.
        package var runnable: String?
    }

    package struct Result: Sendable {
        package var imported: ProjectImport.Result
        package var targets: [TargetReport]
        /// nil when the build was not run; else whether the last build succeeded, and its log.
        package var built: Bool?
        package var buildLog: URL?
        package var package: URL
    }

    package enum PackageError: Error, CustomStringConvertible {
        case exists(String)
        case badModuleName(target: String, module: String, why: String)
        case buildFailed(log: String, detail: String)

        package var description: String {
            switch self {
            case .exists(let path): return "\(path) exists and is not an empty directory; give --package a new directory (nothing was written, nothing was deleted)"
            case .badModuleName(let target, let module, let why):
                return "target \(target) would be the package's module \(module), which \(why); rename the target in Xcode, or import without --package (nothing was written)"
            case .buildFailed(let log, let detail): return "the package did not build, and not because of one of its files: \(detail) (the log: \(log)); the package is written, fix and run swift build there"
            }
        }
    }

    static let products = ["SalesforceSDKCommon", "SalesforceSDKCore", "SmartStore", "MobileSync", "Combine", "CryptoKit", "WidgetKit", "UserNotifications"]
    static let reservedModules = Set(products + ["AppGroupSimCombine", "AppGroupSimTesting", "Foundation", "XCTest", "SetupTests", "UIKit", "SwiftUI"])

    package static func run(_ options: Options) throws -> Result {
        let fm = FileManager.default
        let dir = options.package
        var info = stat()
        let exists = lstat(dir.path, &info) == 0
        if exists {
            guard info.st_mode & S_IFMT == S_IFDIR, ((try? fm.contentsOfDirectory(atPath: dir.path)) ?? ["?"]).isEmpty else { throw PackageError.exists(dir.path) }
        }
        let project = try XcodeProject(at: options.importOptions.xcodeproj)
        let staging = dir.deletingLastPathComponent().appendingPathComponent(".\(dir.lastPathComponent).package-\(getpid())")
        try? fm.removeItem(at: staging)
        try fm.createDirectory(at: staging, withIntermediateDirectories: true)
        var succeeded = false
        defer { if !succeeded { try? fm.removeItem(at: staging) } }

        // The bundles: where --out says, else inside the package.
        var importOptions = options.importOptions
        let bundlesInPackage = options.bundlesOut == nil
        importOptions.out = options.bundlesOut ?? staging.appendingPathComponent("Bundles")
        let imported = try ProjectImport.run(importOptions)
        let finalBundle = { (url: URL) -> URL in
            bundlesInPackage ? URL(fileURLWithPath: dir.path + url.path.dropFirst(staging.path.count)) : url
        }

        // Every path is compared and named canonically (`..` collapsed, links resolved): a source that climbs out
        // with `../` and comes back in is the project's file, named by where it really is.
        let rootPath = project.sourceRoot.resolvingSymlinksInPath().standardizedFileURL.path
        let lexicalRoot = project.sourceRoot.standardizedFileURL.path
        var reports: [TargetReport] = []
        var modules = Set<String>()
        var checks: [(module: String, bundle: URL, isApp: Bool, group: String?, flag: Bool?)] = []
        var runnable = Set<String>()
        for app in imported.apps {
            guard let appTarget = project.apps.first(where: { $0.name == app.target }) else { continue }
            let targets = [(appTarget, app.bundle)] + project.embeddedExtensions(of: appTarget).compactMap { t in
                app.extensions.first { $0.target == t.name }.map { (t, $0.bundle) }
            }
            let appCode = try ProjectImport.readCode(project, appTarget)
            for (target, bundle) in targets {
                let module = moduleName(target.name)
                if reservedModules.contains(module) { throw PackageError.badModuleName(target: target.name, module: module, why: "is a module the package already uses") }
                guard modules.insert(module).inserted else { throw PackageError.badModuleName(target: target.name, module: module, why: "another target also becomes") }
                var report = TargetReport(target: target.name, module: module, bundle: finalBundle(bundle).path)
                var names = Set<String>()
                for url in project.sources(of: target) {
                    // A source outside the project's folder (an absolute path, `../`, a link out) is refused as
                    // the bundle import refuses other files, unless --allow-outside; then it goes to Outside/.
                    let resolved = url.resolvingSymlinksInPath().standardizedFileURL.path
                    let inside = resolved.hasPrefix(rootPath + "/")
                    if !inside, FileManager.default.fileExists(atPath: url.path), !importOptions.allowOutside {
                        throw ProjectImport.ImportError.outside(target: target.name, setting: "Compile Sources", path: url.path, resolved: resolved, root: project.sourceRoot.path)
                    }
                    // Named by where the project puts it (`..` collapsed); a file from outside goes to Outside/.
                    let lexical = url.standardizedFileURL.path
                    let name = uniqueName(
                        lexical.hasPrefix(lexicalRoot + "/") ? String(lexical.dropFirst(lexicalRoot.count + 1)) : "Outside/" + url.lastPathComponent, in: &names)
                    switch url.pathExtension.lowercased() {
                    case "swift": break
                    case "m", "mm", "c", "cpp": report.leftOut.append(SetAside(file: name, reason: "Objective-C and C are not compiled in the package (Swift only); doctor reads them")); continue
                    default: continue
                    }
                    let text: String
                    do {
                        guard FileManager.default.fileExists(atPath: url.path) else { throw SourceReadError.unreadable(file: name, detail: "is not on disk") }
                        guard let utf8 = String(data: try SourceReader.readRegularFile(url, name: name), encoding: .utf8) else {
                            throw SourceReadError.unreadable(file: name, detail: "is not UTF-8 text")
                        }
                        text = utf8
                    } catch let e as SourceReadError {
                        // A FIFO, a directory or a device named .swift is named for what it is, never opened.
                        report.leftOut.append(SetAside(file: name, reason: "\(e)"))
                        continue
                    }
                    let uiReason: String?
                    do {
                        uiReason = try SwiftPort.uiReason(text, file: name)
                    } catch let e as SourceReadError where e.isPastABound {
                        // Not read: left out with why (nothing is guessed from it), the rest imported.
                        report.leftOut.append(SetAside(file: name, reason: "\(e)"))
                        try write(text, to: staging.appendingPathComponent("LeftOut/\(module)/\(name)"))
                        continue
                    } catch let e as SourceReadError { throw ProjectImport.ImportError.source(e) }
                    if let reason = uiReason {
                        report.ui.append(SetAside(file: name, reason: reason))
                        try write(text, to: staging.appendingPathComponent("UI/\(module)/\(name)"))
                        continue
                    }
                    let ported: (text: String, changes: [SwiftPort.Change])
                    do { ported = try SwiftPort.rewriteImports(text, file: name) } catch let e as SourceReadError { throw ProjectImport.ImportError.source(e) }
                    report.changes += ported.changes.map(\.description)
                    report.sources.append(name)
                    try write(ported.text, to: staging.appendingPathComponent("Sources/\(module)/\(name)"))
                }
                let code = target.id == appTarget.id ? appCode : try ProjectImport.readCode(project, target)
                let group = code.groupName ?? appCode.groupName ?? imported.apps.first { $0.target == app.target }?.appGroup
                let bundleID = (try? AppBundle(at: bundle))?.bundleIdentifier ?? ""
                // The generated file never takes the name of one of the developer's (a file of theirs named so stays theirs).
                let generated = generatedName(avoiding: names)
                try write(bundleSource(bundle: finalBundle(bundle), bundleIdentifier: bundleID, group: group), to: staging.appendingPathComponent("Sources/\(module)/\(generated)"))
                checks.append((module, finalBundle(bundle), target.kind == .application, group, code.groupEnabled ?? appCode.groupEnabled))
                // A notification service extension becomes an executable that runs its principal class on the next
                // notification of its app's inbox, as iOS does (`msdk-sim device deliver`).
                if let appBundle = try? AppBundle(at: bundle), appBundle.isNotificationServiceExtension {
                    let principal = appBundle.info["NSExtension"]?.dictionaryValue?["NSExtensionPrincipalClass"]?.stringValue
                        .map { String($0.split(separator: ".").last ?? "") } ?? ""
                    if principal.isEmpty || !principal.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                        report.runnable = "not runnable: its Info.plist's NSExtension has no NSExtensionPrincipalClass (MODULE.ClassName) naming a Swift class"
                    } else if names.contains(where: { ($0 as NSString).lastPathComponent == "main.swift" }) {
                        report.runnable = "not runnable: the target has a main.swift of its own, where the import would write the entry point"
                    } else {
                        try write(notificationServiceMain(principal: principal), to: staging.appendingPathComponent("Sources/\(module)/main.swift"))
                        report.runnable = "runs \(principal) on the next notification of its app's inbox: msdk-sim device deliver --target \(target.name)"
                        runnable.insert(module)
                    }
                }
                reports.append(report)
            }
        }
        let swiftVersion = project.apps.first.flatMap { try? project.settings(for: $0, configuration: importOptions.configuration) }?["SWIFT_VERSION"] ?? "5.0"
        try write(manifest(name: packageName(project), modules: reports.map(\.module), executables: runnable, appGroupSim: options.appGroupSim, swift6: swiftVersion.hasPrefix("6")),
            to: staging.appendingPathComponent("Package.swift"))
        try write(setupTest(checks), to: staging.appendingPathComponent("Tests/SetupTests/SetupTests.swift"))
        let report = { (built: Bool?) throws in
            struct File: Encodable { var project: String; var targets: [TargetReport]; var built: Bool? }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            try encoder.encode(File(project: project.projectURL.path, targets: reports, built: built)).write(to: dir.appendingPathComponent("import-package.json"))
        }
        if exists, rmdir(dir.path) != 0 { throw PackageError.exists(dir.path) }
        try fm.moveItem(at: staging, to: dir)
        succeeded = true
        var result = Result(imported: imported, targets: reports, built: nil, buildLog: nil, package: dir)
        if bundlesInPackage {
            result.imported.apps = imported.apps.map { app in
                var a = app
                a.bundle = finalBundle(app.bundle)
                a.extensions = app.extensions.map { ($0.target, finalBundle($0.bundle), $0.bundleIdentifier) }
                return a
            }
            result.imported.report = finalBundle(imported.report)
        }
        guard options.build else {
            try report(nil)
            return result
        }
        // Build; every file the compiler refuses is left out with its first error, all of one build's at once,
        // and the build runs again (a file can fail only because one it used was left out).
        let log = dir.appendingPathComponent("build.log")
        result.buildLog = log
        var logText = ""
        while true {
            let (status, output) = swiftBuild(package: dir, scratch: options.scratchPath)
            logText += output
            try? logText.write(to: log, atomically: true, encoding: .utf8)
            if status == 0, let unbuilt = unbuilt(reports, package: dir, scratch: options.scratchPath) {
                // SwiftPM can answer from a stale build plan in a shared scratch path without compiling.
                result.built = false
                result.targets = reports
                try report(false)
                throw PackageError.buildFailed(log: log.path, detail: unbuilt)
            }
            if status == 0 {
                result.built = true
                break
            }
            let errors = fileErrors(output, package: dir, reports: reports)
            guard !errors.isEmpty else {
                result.built = false
                result.targets = reports
                try report(false)
                let detail = output.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? "exit status \(status)"
                throw PackageError.buildFailed(log: log.path, detail: detail)
            }
            for (module, file, error) in errors {
                guard let index = reports.firstIndex(where: { $0.module == module }) else { continue }
                let from = dir.appendingPathComponent("Sources/\(module)/\(file)")
                let to = dir.appendingPathComponent("LeftOut/\(module)/\(file)")
                try fm.createDirectory(at: to.deletingLastPathComponent(), withIntermediateDirectories: true)
                try fm.moveItem(at: from, to: to)
                reports[index].sources.removeAll { $0 == file }
                reports[index].leftOut.append(SetAside(file: file, reason: error))
            }
        }
        result.targets = reports
        try report(true)
        return result
    }

    /// `Recents Widget` → `Recents_Widget`: a target name as a Swift module name.
    static func moduleName(_ name: String) -> String {
        var out = String(name.map { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") ? $0 : "_" })
        if let f = out.first, f.isNumber { out = "_" + out }
        return out.isEmpty ? "_" : out
    }

    static func packageName(_ project: XcodeProject) -> String { moduleName(project.projectURL.deletingPathExtension().lastPathComponent) }

    /// Writes a new file of the staged package: never through a link, never over a file already there (so the
    /// import never replaces anything, the developer's files included), and never with `..` in its path.
    static func write(_ text: String, to url: URL) throws {
        guard !url.pathComponents.contains(".."), !url.pathComponents.contains(".") else {
            throw ProjectImport.ImportError.badFile(path: url.path, detail: "would be written through '..'; refused")
        }
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let fd = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else {
            throw ProjectImport.ImportError.badFile(path: url.path, detail: "cannot be created (\(String(cString: strerror(errno)))); the import writes only new files")
        }
        defer { close(fd) }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: false)
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// `name`, or `name` with a number before its extension when the target already has a file of that name
    /// (case-insensitive, as a Mac's file system): two outside files of one name both go in.
    static func uniqueName(_ name: String, in names: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        while names.contains(candidate.lowercased()) {
            let url = URL(fileURLWithPath: name)
            let ext = url.pathExtension
            let stem = ext.isEmpty ? name : String(name.dropLast(ext.count + 1))
            candidate = "\(stem)-\(n)" + (ext.isEmpty ? "" : ".\(ext)")
            n += 1
        }
        names.insert(candidate.lowercased())
        return candidate
    }

    /// The generated bundle file's name in a target: `AppGroupSimImport.swift`, unless one of the target's own
    /// files is named so (anywhere in its folders: Swift refuses two files of one name in a module).
    static func generatedName(avoiding names: Set<String>) -> String {
        let taken = Set(names.map { ($0 as NSString).lastPathComponent.lowercased() })
        var name = "AppGroupSimImport.swift"
        var n = 2
        while taken.contains(name.lowercased()) {
            name = "AppGroupSimImport\(n).swift"
            n += 1
        }
        return name
    }

    static func literal(_ s: String) -> String {
        "\"" + s.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    static func bundleSource(bundle: URL, bundleIdentifier: String, group: String?) -> String {
        """
        // Written by msdk-sim import --package: the simulated bundle this target runs as (SDKProcess, AppGroupSimTesting).
        import Foundation

        public enum AppGroupSimImport {
            /// The bundle the import made for this target.
            public static let bundle = URL(fileURLWithPath: \(literal(bundle.path)))
            public static let bundleIdentifier = \(literal(bundleIdentifier))
            /// The app group this target's code names (or the group its targets share).
            public static let appGroup: String? = \(group.map(literal) ?? "nil")
        }

        """
    }

    /// The entry point of a notification service extension's executable.
    static func notificationServiceMain(principal: String) -> String {
        """
        // Written by msdk-sim import --package: iOS's side of this notification service extension. It runs \(principal)
        // on the next notification of its app's inbox, as the bundle APPGROUPSIM_BUNDLE on the device APPGROUPSIM_DEVICE
        // (msdk-sim device deliver sets both). Options: [--json] [--budget SECONDS].
        import UserNotifications

        AppGroupSimNotificationService.main(\(principal).self)

        """
    }

    static func manifest(name: String, modules: [String], executables: Set<String> = [], appGroupSim: URL, swift6: Bool) -> String {
        let products = Self.products.map { "        .product(name: \(literal($0)), package: \"AppGroupSim\")," }.joined(separator: "\n")
        let targets = modules.map { "\(executables.contains($0) ? ".executableTarget" : ".target")(name: \(literal($0)), dependencies: sdk, swiftSettings: settings)," }
            .map { "        " + $0 }.joined(separator: "\n")
        return """
            // swift-tools-version: 6.0
            // Written by msdk-sim import --package from \(name).xcodeproj: one library target per app or extension target (an
            // executable for a notification service extension: msdk-sim device deliver runs it),
            // on AppGroupSim's SDK-named products. UI files are in UI/, files that did not compile in LeftOut/
            // (import-package.json says why). Run the setup check: scripts/with-keyring swift test (in AppGroupSim).
            import PackageDescription

            let sdk: [Target.Dependency] = [
            \(products)
            ]
            // `import Combine` reads AppGroupSim's OpenCombine (Sources/AppGroupSimCombine in AppGroupSim).
            let settings: [SwiftSetting] = [.unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]), .swiftLanguageMode(\(swift6 ? ".v6" : ".v5"))]

            let package = Package(
                name: \(literal(name)),
                platforms: [.macOS(.v14)],
                products: [
            \(modules.map { "        .\(executables.contains($0) ? "executable" : "library")(name: \(literal($0)), targets: [\(literal($0))])," }.joined(separator: "\n"))
                ],
                dependencies: [.package(name: "AppGroupSim", path: \(literal(appGroupSim.path)))],
                targets: [
            \(targets)
                    .testTarget(name: "SetupTests", dependencies: [\(modules.map(literal).joined(separator: ", ")),
                        .product(name: "AppGroupSimTesting", package: "AppGroupSim")] + sdk, swiftSettings: settings),
                ]
            )

            """
    }

    /// The one real check: as the app bundle, the group the code names is reachable (container, suite) and a
    /// keychain item goes to its first keychain group; as each extension, the same container, suite and item.
    static func setupTest(_ checks: [(module: String, bundle: URL, isApp: Bool, group: String?, flag: Bool?)]) -> String {
        let imports = checks.map { "import \($0.module)" }.joined(separator: "\n")
        guard let app = checks.first(where: \.isApp) else { return imports }
        let extensions = checks.filter { !$0.isApp }
        if app.group == nil { return keychainGroupSetupTest(imports: imports, app: app.module, extensions: extensions.map(\.module)) }
        let extLines = extensions.map { ext in
            """
                    try device.run(as: \(ext.module).AppGroupSimImport.bundle) {
                        \(ext.group.map { "DataSharingHelper.shared.appGroupName = \(literal($0))" } ?? "// the code names no group")
                        let container = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
                            "\(ext.module) cannot open the container of \\(group): is it in its com.apple.security.application-groups?")
                        XCTAssertEqual(try? Data(contentsOf: container.appendingPathComponent("msdk-sim-setup-check")), Data(token.utf8), "\(ext.module) reads what the app wrote to the group container")
                        XCTAssertEqual(UserDefaults(suiteName: group)?.string(forKey: "msdk-sim-setup-check"), token, "\(ext.module) reads what the app wrote to the suite \\(group)")
                        let read = KeychainHelper.read(service: "msdk-sim-setup-check", account: nil)
                        XCTAssertEqual(read.data, Data(token.utf8), "\(ext.module) reads the app's keychain item (status \\(read.status)): is the app's first keychain group among its keychain-access-groups?")
                    }
            """
        }.joined(separator: "\n")
        return """
            // Written by msdk-sim import --package: one real check of the setup, as the app bundle and then as each
            // extension bundle, on a simulated device with the real Secret Service (run under AppGroupSim's
            // scripts/with-keyring).
            \(imports)
            import AppGroupSimTesting
            import Foundation
            import SalesforceSDKCore
            import XCTest

            final class SetupTests: XCTestCase {
                func testEveryTargetReachesTheGroupAndTheKeychainGroupTheCodeConfigures() throws {
                    let group = try XCTUnwrap(\(app.module).AppGroupSimImport.appGroup, "the code names no app group, so nothing is shared")
                    let device = try SimulatedDevice()
                    let token = UUID().uuidString
                    try device.run(as: \(app.module).AppGroupSimImport.bundle) {
                        DataSharingHelper.shared.appGroupName = group
                        \(app.flag.map { "DataSharingHelper.shared.isAppGroupEnabled = \($0)" } ?? "// the code never sets isAppGroupEnabled")
                        let container = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group),
                            "the app cannot open the container of \\(group): is it in its com.apple.security.application-groups?")
                        try Data(token.utf8).write(to: container.appendingPathComponent("msdk-sim-setup-check"))
                        let suite = try XCTUnwrap(UserDefaults(suiteName: group))
                        suite.set(token, forKey: "msdk-sim-setup-check")
                        let written = KeychainHelper.write(service: "msdk-sim-setup-check", data: Data(token.utf8), account: nil)
                        XCTAssertTrue(written.success, "the app writes a keychain item to its first keychain group: \\(String(describing: written.error))")
                    }
            \(extLines)
                }
            }

            """
    }

    /// A project whose targets share no app group, only a keychain group (the SDK's encrypted-notification
    /// template: its extension needs only the push key): the check is that keychain group.
    static func keychainGroupSetupTest(imports: String, app: String, extensions: [String]) -> String {
        let extLines = extensions.map { module in
            """
                    try device.run(as: \(module).AppGroupSimImport.bundle) {
                        let read = KeychainHelper.read(service: "msdk-sim-setup-check", account: nil)
                        XCTAssertEqual(read.data, Data(token.utf8), "\(module) reads the app's keychain item (status \\(read.status)): is the app's first keychain group among its keychain-access-groups?")
                    }
            """
        }.joined(separator: "\n")
        return """
            // Written by msdk-sim import --package: one real check of the setup, as the app bundle and then as each
            // extension bundle, on a simulated device with the real Secret Service (run under AppGroupSim's
            // scripts/with-keyring). The targets share no app group, only a keychain group: that is checked.
            \(imports)
            import AppGroupSimTesting
            import Foundation
            import SalesforceSDKCore
            import XCTest

            final class SetupTests: XCTestCase {
                func testEveryTargetReachesTheKeychainGroupOfTheApp() throws {
                    let device = try SimulatedDevice()
                    let token = UUID().uuidString
                    try device.run(as: \(app).AppGroupSimImport.bundle) {
                        let written = KeychainHelper.write(service: "msdk-sim-setup-check", data: Data(token.utf8), account: nil)
                        XCTAssertTrue(written.success, "the app writes a keychain item to its first keychain group: \\(String(describing: written.error))")
                    }
            \(extLines)
                }
            }

            """
    }

    static func swiftBuild(package: URL, scratch: URL?) -> (Int32, String) {
        run(["swift", "build", "--build-tests", "--disable-build-manifest-caching", "--package-path", package.path] + (scratch.map { ["--scratch-path", $0.path] } ?? []))
    }

    /// Each of the package's own sources that `…/Sources/<Module>/<file>:L:C: error: …` names, once, with its
    /// first error, in the order of the output.
    static func fileErrors(_ output: String, package: URL, reports: [TargetReport]) -> [(module: String, file: String, error: String)] {
        let prefix = package.standardizedFileURL.path + "/Sources/"
        var out: [(String, String, String)] = []
        var seen = Set<String>()
        for line in output.split(separator: "\n") where line.contains(": error: ") {
            guard let start = line.range(of: prefix) else { continue }
            let rest = line[start.upperBound...]
            guard let slash = rest.firstIndex(of: "/") else { continue }
            let module = String(rest[..<slash])
            let afterModule = rest[rest.index(after: slash)...]
            guard let errorRange = afterModule.range(of: ": error: ") else { continue }
            let location = afterModule[..<errorRange.lowerBound]
            let parts = location.split(separator: ":")
            guard parts.count >= 3 else { continue }
            let file = parts.dropLast(2).joined(separator: ":")
            guard reports.contains(where: { $0.module == module && $0.sources.contains(file) }), seen.insert(module + "/" + file).inserted else { continue }
            let message = String(afterModule[errorRange.upperBound...].prefix(300))
            out.append((module, file, "\(file):\(parts[parts.count - 2]): \(message)"))
        }
        return out
    }

    /// After a build that said it succeeded: nil when every kept source was compiled into an object file at
    /// least as new as the source; else which was not. With a shared `--scratch-path`, SwiftPM has answered
    /// "Build complete!" for a new package from the previous one's cached plan, compiling nothing.
    static func unbuilt(_ reports: [TargetReport], package: URL, scratch: URL?) -> String? {
        let scratch = scratch ?? package.appendingPathComponent(".build")
        let fm = FileManager.default
        let debug = scratch.appendingPathComponent("debug")
        for report in reports {
            let objects = debug.appendingPathComponent("\(report.module).build")
            for file in report.sources {
                let source = package.appendingPathComponent("Sources/\(report.module)/\(file)")
                let object = objects.appendingPathComponent((file as NSString).lastPathComponent + ".o")
                let sourceDate = (try? fm.attributesOfItem(atPath: source.path)[.modificationDate] as? Date) ?? .distantFuture
                guard let objectDate = (try? fm.attributesOfItem(atPath: object.path)[.modificationDate] as? Date) ?? nil, objectDate >= sourceDate else {
                    return "swift build said it succeeded, but \(report.module)/\(file) was not compiled (no \(object.path) newer than it): "
                        + "the scratch path \(scratch.path) holds another package's build plan; use a new --scratch-path or remove that one's build.db"
                }
            }
        }
        return nil
    }

    package enum DeliverError: Error, CustomStringConvertible {
        case notImported(String)
        case noSuchTarget(target: String, package: String, targets: [String])
        case notRunnable(target: String, why: String)
        case buildFailed(target: String, detail: String, log: String)
        case notBuilt(target: String, executable: String)

        package var description: String {
            switch self {
            case .notImported(let dir): return "\(dir) has no import-package.json: it is not a package msdk-sim import --package wrote; import the project with --package \(dir)"
            case .noSuchTarget(let target, let package, let targets):
                return "the package \(package) has no target \(target) (its targets: \(targets.joined(separator: ", "))); name the notification service extension's Xcode target"
            case .notRunnable(let target, let why): return "target \(target) cannot be delivered to: \(why)"
            case .buildFailed(let target, let detail, let log): return "target \(target) did not build: \(detail) (the log: \(log)); fix it and run msdk-sim device deliver again"
            case .notBuilt(let target, let executable):
                return "target \(target) has not been built (no \(executable)): run msdk-sim device deliver without --skip-build"
            }
        }
    }

    /// `msdk-sim device deliver --package DIR --target NAME`: builds the imported notification service extension's
    /// executable (`swift build --product`), then runs it as the extension's bundle on `device`, on the next
    /// notification of its app's inbox, with `arguments` (`--json`, `--budget`). Its output goes to this process's;
    /// its exit status is returned. `skipBuild` runs what the last build made, as `swift run --skip-build` does (each
    /// `swift build`, even with nothing to compile, plans the whole package graph: about 4 s here).
    package static func deliver(package dir: URL, target: String, device: URL, scratch: URL?, skipBuild: Bool = false, arguments: [String]) throws -> Int32 {
        struct File: Decodable { var targets: [TargetReport] }
        guard let data = FileManager.default.contents(atPath: dir.appendingPathComponent("import-package.json").path) else {
            throw DeliverError.notImported(dir.path)
        }
        let file = try JSONDecoder().decode(File.self, from: data)
        guard let report = file.targets.first(where: { $0.target == target || $0.module == target }) else {
            throw DeliverError.noSuchTarget(target: target, package: dir.path, targets: file.targets.map(\.target))
        }
        // The module names the executable run from the build folder: a Swift module name, never a path.
        guard report.module == moduleName(report.module), !report.module.hasPrefix("_") || report.module.count > 1 else {
            throw DeliverError.notRunnable(target: target, why: "import-package.json names the module \(report.module), which is not a Swift module name the import writes; import the project again")
        }
        guard let bundle = try? AppBundle(at: URL(fileURLWithPath: report.bundle)), bundle.isNotificationServiceExtension else {
            throw DeliverError.notRunnable(target: target, why: "\(report.bundle) is not a notification service extension (NSExtensionPointIdentifier \(AppBundle.notificationServiceExtensionPoint))")
        }
        guard let runnable = report.runnable, runnable.hasPrefix("runs ") else {
            throw DeliverError.notRunnable(target: target, why: report.runnable ?? "the import made no executable of it (an import from before it could); import the project again")
        }
        let scratchArguments = scratch.map { ["--scratch-path", $0.path] } ?? []
        let log = dir.appendingPathComponent("deliver-build.log")
        if !skipBuild {
            let (status, output) = run(["swift", "build", "--disable-build-manifest-caching", "--package-path", dir.path, "--product", report.module] + scratchArguments)
            try? output.write(to: log, atomically: true, encoding: .utf8)
            guard status == 0 else {
                let detail = output.split(separator: "\n").first { $0.contains("error:") }.map(String.init) ?? "exit status \(status)"
                throw DeliverError.buildFailed(target: target, detail: detail, log: log.path)
            }
        }
        let (binStatus, binOutput) = run(["swift", "build", "--package-path", dir.path, "--show-bin-path"] + scratchArguments)
        guard binStatus == 0, let bin = binOutput.split(separator: "\n").last.map(String.init) else {
            throw DeliverError.buildFailed(target: target, detail: "swift build --show-bin-path failed", log: log.path)
        }
        let executable = URL(fileURLWithPath: bin).appendingPathComponent(report.module)
        if skipBuild, !FileManager.default.isExecutableFile(atPath: executable.path) {
            throw DeliverError.notBuilt(target: target, executable: executable.path)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment["APPGROUPSIM_BUNDLE"] = bundle.url.path
        environment["APPGROUPSIM_DEVICE"] = device.path
        process.environment = environment
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    static func run(_ arguments: [String]) -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return (127, "\(arguments[0]) could not be started: \(error)") }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}
