import ArgumentParser
import Diagnostics
import Foundation

struct Import: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Build simulated app bundles from an Xcode project: apps, their embedded extensions, Info.plists, entitlements and the SDK's config files.",
        discussion: """
            Reads project.pbxproj, each target's Info.plist and entitlements, and bootconfig.plist, userstore.json, usersyncs.json, \
            LoginViewConfig.plist and WidgetConfig.plist among its resources; nothing else is opened. Writes DIR/<App>.app/PlugIns/<Ext>.appex \
            and DIR/import-report.json (where each value came from). DIR must be new or an empty directory; on any error nothing is written \
            and nothing is deleted. Files the project references from outside its folder are refused unless --allow-outside; links are \
            copied as their content.
            """)

    @Option(help: "The .xcodeproj folder (or its project.pbxproj).") var xcodeproj: String
    @Option(help: "The build configuration whose settings are used.") var configuration: String = "Debug"
    @Option(help: "The directory to write the bundles to (new or empty).") var out: String
    @Option(help: "Sign with this team when the project sets no DEVELOPMENT_TEAM.") var team: String?
    @Flag(help: "Copy files the project references from outside its folder (absolute paths, ../, links out) instead of refusing them; the notes name each one.")
    var allowOutside = false

    func run() async throws {
        let result: ProjectImport.Result
        do {
            result = try ProjectImport.run(.init(
                xcodeproj: URL(fileURLWithPath: xcodeproj), configuration: configuration, out: URL(fileURLWithPath: out), team: team,
                allowOutside: allowOutside))
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
        let apps = result.apps.filter { $0.consumerKey != nil && $0.redirectURI != nil }
        if !apps.isEmpty {
            print("To log in to sf-simulator, register the connected app of the bootconfig.plist (or add it to connectedApps in orgs.json):")
            print("  sf-simulator --data Fixtures/org " + apps.map { "--connected-app '\($0.consumerKey!)=\($0.redirectURI!)'" }.joined(separator: " "))
        }
    }
}
