import ArgumentParser
import Foundation
import SalesforceSDK

@main
struct ExtensionWidget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-widget",
        abstract: "The Recent Contacts widget: never logs in; lists the newest contacts when the app has logged in.",
        discussion: "Exit status: 0 listed, 10 notLoggedIn, 11 misconfigured, 12 keychainUnavailable.")

    @Option(help: "The widget bundle (.appex directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Option(help: "How many contacts to list.") var count: Int = 3
    @Flag(help: "Print one JSON object.") var json = false

    func run() async throws {
        let launch = try ProcessLaunch(bundlePath: bundle, devicePath: device)
        let report = try await RecentContactsWidget.evaluate(launch)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("Recent Contacts — \(report.state.rawValue)")
            print(report.message)
        }
        if report.state.exitCode != 0 { throw ExitCode(report.state.exitCode) }
    }
}
