import AppExtensions
import ArgumentParser
import SchedulePoints
import Foundation
import CoreEngine

@main
struct ExtensionNotification: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-notification",
        abstract: "The app's notification service extension: shows the next delivered notification, decrypted with the app's push key from the shared keychain group.",
        discussion: """
            Without --payload it takes the oldest payload from the app's inbox on the device (DEVICE/Notifications/<app bundle id>/inbox/, \
            where sf-simulator's push gateway delivers) and keeps it, as it came, in delivered/. It never writes the decrypted content.
            Exit status: 0 shown (decrypted, or not encrypted and shown as it came), 10 no notification, 11 misconfigured (not entitled \
            to the push key's keychain group, or no key: the fallback alert is shown), 12 keychainUnavailable, 13 unreadable (the payload \
            cannot be read or decrypted: the fallback alert is shown), 14 notLoggedIn (the payload's uid names a user who is not \
            logged in on this device: the fallback alert is shown, nothing is decrypted). Inbox entries that are not regular files \
            are refused by name and left; a payload byte-identical to one shown before is not shown again.
            """)

    @Option(help: "The extension bundle (.appex directory inside the app's PlugIns/).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Option(help: "Show this payload file (JSON, as APNs delivers it) instead of the next one in the inbox; it is left where it is.")
    var payload: String?
    @Flag(help: "Print one JSON object.") var json = false
    @Option(help: "Write the launch steps as JSON lines to this file.") var trace: String?

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
        let report: NotificationService.Report
        do {
            let launch = try ProcessLaunch(bundlePath: bundle, devicePath: device)
            if let payload {
                report = await NotificationService.handle(launch, payload: URL(fileURLWithPath: payload), events: events)
            } else {
                report = await NotificationService.handleNext(launch, events: events)
            }
        } catch {
            report = NotificationService.Report(state: .unreadable, app: "", message: "\(error)", payload: payload)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(NotificationService.text(report))
        }
        fflush(nil)
        if report.state.exitCode != 0 { throw ExitCode(report.state.exitCode) }
    }
}
