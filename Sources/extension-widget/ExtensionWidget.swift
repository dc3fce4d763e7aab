import ArgumentParser
import SchedulePoints
import Foundation
import AppExtensions
import CoreEngine

@main
struct ExtensionWidget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-widget",
        abstract: "The Recent Contacts widget: never logs in; lists the newest contacts when the app has logged in.",
        discussion: "Exit status: 0 listed, 10 notLoggedIn, 11 misconfigured, 12 keychainUnavailable, 13 unreadable (a file it reads is missing or corrupt), 14 dataProtected (a file it reads is of a data protection class the device's lock state does not open).")

    @Option(help: "The widget bundle (.appex directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Option(help: "How many entries to list (default: the widget's WidgetConfig.plist, or 3).") var count: Int?
    @Flag(help: "Print one JSON object.") var json = false
    enum Render: String, ExpressibleByArgument, CaseIterable { case text, html }
    @Option(help: "How to show the widget without --json: text (a card for the terminal) or html (a page to open in a browser).")
    var render: Render = .text
    @Option(help: "Write the launch steps and SDK notifications as JSON lines to this file.") var trace: String?
    @Flag(help: "Stay up and show the widget again whenever msdkUserDefaults or the store changes (JSON: one object per line).")
    var watch = false

    /// Under `msdk-sim explore` the process may first be the executable's fork server (`ForkServer`): it serves
    /// before anything else runs, and each process forked from it goes on from here with its own arguments.
    static func main() async {
        // Done once in a fork server: the parser finding its commands' types and its options' protocols, and `print`'s.
        ForkServer.serveIfAsked {
            _ = try? parseAsRoot(["--help"])
            _ = (try? parseAsRoot(["--bundle", "/", "--device", "/", "--json"])) as? AsyncParsableCommand
            ForkServer.warmUpPrinting()
        }
        await main(nil)
    }

    func run() async throws {
        let events = SDKEvents(traceFile: trace)
        let launch: ProcessLaunch
        do {
            launch = try ProcessLaunch(bundlePath: bundle, devicePath: device)
            events.step("appGroupConfigApplied", ["enabled": String(try launch.dataSharing.appGroupEnabled())])
        } catch {
            let report = AppWidget.unreadable(error)
            try show(report)
            throw ExitCode(report.state.exitCode)
        }
        if watch {
            try await AppWidget.watch(launch, count: count, events: events) { try show($0) }
        }
        let report = await AppWidget.evaluateReporting(launch, count: count, events: events)
        try show(report)
        if report.state.exitCode != 0 { throw ExitCode(report.state.exitCode) }
    }

    private func show(_ report: AppWidget.Report) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else if render == .html {
            print(WidgetCard.html(report))
        } else {
            print(WidgetCard.text(report))
        }
        fflush(nil)
    }
}
