import ArgumentParser
import Diagnostics
import Foundation

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Build simulated app bundles from an Xcode project (and, with --package, a SwiftPM package of its code).",
        discussion: """
            Reads project.pbxproj, each target's Info.plist and entitlements, bootconfig.plist, userstore.json, usersyncs.json, \
            LoginViewConfig.plist and WidgetConfig.plist among its resources, and its Swift and Objective-C sources for what they \
            configure (the app group, its flag, the login-state key), which AppGroupConfig.plist records. Writes \
            DIR/<App>.app/PlugIns/<Ext>.appex and DIR/import-report.json (where each value came from). DIR must be new or an empty \
            directory; on any error nothing is written and nothing is deleted. Files the project references from outside its folder are \
            refused unless --allow-outside; links are copied as their content.

            With --package PKG: also a SwiftPM package, one library target per app or extension target with its Swift sources on \
            AppGroupSim's SDK-named products (import X.Y becomes import X; UIKit and SwiftUI imports go), and a test target that \
            checks the setup as each bundle. UI files are set aside in PKG/UI; swift build runs, and a file that does not compile \
            is moved to PKG/LeftOut with the compiler's first error. The bundles go to --out, or PKG/Bundles.
            """)

    @Option(help: "The .xcodeproj folder (or its project.pbxproj).") var xcodeproj: String
    @Option(help: "The build configuration whose settings are used.") var configuration: String = "Debug"
    @Option(help: "The directory to write the bundles to (new or empty); with --package, default PKG/Bundles.") var out: String?
    @Option(help: "Also write a SwiftPM package of the targets' Swift code to this directory (new or empty), and build it.") var package: String?
    @Option(help: "With --package: swift build's --scratch-path (default PKG/.build); one may be shared by several packages.") var scratchPath: String?
    @Option(help: "With --package: AppGroupSim's folder, which the package depends on (default: the one this msdk-sim was built in).") var appgroupsim: String?
    @Flag(help: "With --package: write the package without building it.") var noBuild = false
    @Option(help: "Sign with this team when the project sets no DEVELOPMENT_TEAM.") var team: String?
    @Flag(help: "Copy files the project references from outside its folder (absolute paths, ../, links out) instead of refusing them; the notes name each one.")
    var allowOutside = false

    func validate() throws {
        if package == nil, out == nil { throw ValidationError("give --out DIR (and/or --package PKG)") }
        if package == nil, scratchPath != nil || appgroupsim != nil || noBuild { throw ValidationError("--scratch-path, --appgroupsim and --no-build go with --package") }
    }

    func run() async throws {
        let options = ProjectImport.Options(
            xcodeproj: URL(fileURLWithPath: xcodeproj), configuration: configuration, out: URL(fileURLWithPath: out ?? ""), team: team,
            allowOutside: allowOutside)
        var result: ProjectImport.Result
        var packaged: ProjectPackage.Result?
        do {
            if let package {
                guard let root = appgroupsim.map({ URL(fileURLWithPath: $0) }) ?? Self.appGroupSimRoot() else {
                    throw ValidationError("cannot tell where AppGroupSim is (this msdk-sim is not in its .build); pass --appgroupsim DIR")
                }
                let p = try ProjectPackage.run(.init(
                    importOptions: options, bundlesOut: out.map { URL(fileURLWithPath: $0) }, package: URL(fileURLWithPath: package),
                    appGroupSim: root, scratchPath: scratchPath.map { URL(fileURLWithPath: $0) }, build: !noBuild))
                packaged = p
                result = p.imported
            } else {
                result = try ProjectImport.run(options)
            }
        } catch {
            FileHandle.standardError.write(Data("msdk-sim import: \(error)\n".utf8))
            throw ExitCode(1)
        }
        for app in result.apps {
            print("\(app.target) (\(configuration)) → \(app.bundle.path)   \(app.bundleIdentifier)")
            for ext in app.extensions { print("  \(ext.target) → \(ext.bundle.path)   \(ext.bundleIdentifier)") }
        }
        print("report: \(result.report.path)")
        for note in result.notes { print("note: \(note)") }
        if let packaged {
            print("package: \(packaged.package.path)")
            for t in packaged.targets {
                print("  target \(t.module) (from \(t.target)): \(t.sources.count) Swift file(s)")
                for c in t.changes { print("    changed \(c)") }
                for u in t.ui { print("    UI, set aside: \(u.file) (\(u.reason))") }
                for l in t.leftOut { print("    left out: \(l.reason.hasPrefix(l.file + ":") ? l.reason : "\(l.file): \(l.reason)")") }
                if let runnable = t.runnable { print("    notification service extension: \(runnable)") }
            }
            switch packaged.built {
            case true?:
                // A scratch path shared by several packages needs its build plan made anew (SwiftPM reuses a cached one).
                let scratch = scratchPath.map { " --disable-build-manifest-caching --scratch-path \($0)" } ?? ""
                print("swift build: built, with the test target SetupTests (run it from AppGroupSim's folder: scripts/with-keyring swift test --package-path \(packaged.package.path)\(scratch))")
            case false?: print("swift build: failed (\(packaged.buildLog?.path ?? ""))")
            case nil: print("swift build: not run (--no-build)")
            }
        }
        let apps = result.apps.filter { $0.consumerKey != nil && $0.redirectURI != nil }
        if !apps.isEmpty {
            print("To log in to sf-simulator, register the connected app of the bootconfig.plist (or add it to connectedApps in orgs.json):")
            print("  sf-simulator --data Fixtures/org " + apps.map { "--connected-app '\($0.consumerKey!)=\($0.redirectURI!)'" }.joined(separator: " "))
        }
    }

    /// The AppGroupSim folder this executable was built in: the first parent of it with AppGroupSim's Package.swift.
    static func appGroupSimRoot() -> URL? {
        if let env = ProcessInfo.processInfo.environment["APPGROUPSIM_ROOT"] { return URL(fileURLWithPath: env) }
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        if let exe = Bundle.main.executableURL { dir = exe.resolvingSymlinksInPath().deletingLastPathComponent() }
        while dir.path != "/" {
            let manifest = dir.appendingPathComponent("Package.swift")
            if let text = try? String(contentsOf: manifest, encoding: .utf8), text.contains("name: \"AppGroupSim\"") { return dir }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }
}
