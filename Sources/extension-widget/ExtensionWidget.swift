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
    @Option(help: "Write the launch steps and SDK notifications as JSON lines to this file.") var trace: String?

    func run() async throws {
        let events = SDKEvents(traceFile: trace)
        let launch = try ProcessLaunch(bundlePath: bundle, devicePath: device)
        events.step("appGroupConfigApplied", ["enabled": String(try launch.dataSharing.appGroupEnabled())])
        let report = try await RecentContactsWidget.evaluate(launch, count: count, events: events)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(Self.card(report))
        }
        if report.state.exitCode != 0 { throw ExitCode(report.state.exitCode) }
    }

    /// The small card a person reads.
    static func card(_ report: RecentContactsWidget.Report) -> String {
        var lines = ["┌─ Recent Contacts " + String(repeating: "─", count: 30)]
        if let user = report.user { lines.append("│ \(user.username)") }
        switch report.state {
        case .listed:
            for c in report.contacts {
                let name = [c.FirstName, c.LastName].compactMap { $0 }.joined(separator: " ")
                lines.append("│ • \(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(c.LastModifiedDate?.prefix(16).replacingOccurrences(of: "T", with: " ") ?? "")")
            }
            if report.contacts.isEmpty { lines.append("│ \(report.message)") }
        default:
            lines.append("│ [\(report.state.rawValue)] \(report.message)")
        }
        lines.append("└" + String(repeating: "─", count: 48))
        return lines.joined(separator: "\n")
    }
}
