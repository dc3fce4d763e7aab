import ArgumentParser
import Foundation
import SalesforceSDK

@main
struct ExtensionWidget: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "extension-widget",
        abstract: "The Recent Contacts widget: never logs in; lists the newest contacts when the app has logged in.",
        discussion: "Exit status: 0 listed, 10 notLoggedIn, 11 misconfigured, 12 keychainUnavailable, 13 unreadable (a file it reads is missing or corrupt).")

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

    func run() async throws {
        let events = SDKEvents(traceFile: trace)
        let launch: ProcessLaunch
        do {
            launch = try ProcessLaunch(bundlePath: bundle, devicePath: device)
            events.step("appGroupConfigApplied", ["enabled": String(try launch.dataSharing.appGroupEnabled())])
        } catch {
            let report = RecentContactsWidget.unreadable(error)
            try show(report)
            throw ExitCode(report.state.exitCode)
        }
        var report = await RecentContactsWidget.evaluateReporting(launch, count: count, events: events)
        try show(report)
        guard watch else {
            if report.state.exitCode != 0 { throw ExitCode(report.state.exitCode) }
            return
        }
        // Polling the files' identities costs a few stat calls every 200 ms and sees every writer,
        // whichever process it is; a store write shows in its -wal file.
        var signature = try Self.signature(launch)
        while true {
            try await Task.sleep(nanoseconds: 200_000_000)
            let now = try Self.signature(launch)
            guard now != signature else { continue }
            signature = now
            let next = await RecentContactsWidget.evaluateReporting(launch, count: count, events: events)
            if next != report {
                report = next
                try show(report)
            }
        }
    }

    private func show(_ report: RecentContactsWidget.Report) throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else if render == .html {
            print(WidgetCard.html(report))
        } else {
            print(Self.card(report))
        }
        fflush(nil)
    }

    /// Size and modification time of msdkUserDefaults and of every store file under the SDK root.
    static func signature(_ launch: ProcessLaunch) throws -> [String] {
        var files = [try launch.dataSharing.msdkUserDefaults().url.path]
        let documents = try launch.dataSharing.sdkRootDirectory().appendingPathComponent("Documents")
        if let walker = FileManager.default.enumerator(atPath: documents.path) {
            for case let path as String in walker where path.contains("store.sqlite") {
                files.append(documents.appendingPathComponent(path).path)
            }
        }
        return files.sorted().map { path in
            let a = try? FileManager.default.attributesOfItem(atPath: path)
            return "\(path) \((a?[.size] as? Int) ?? -1) \((a?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)"
        }
    }

    /// The small card a person reads.
    static func card(_ report: RecentContactsWidget.Report) -> String {
        var lines = ["┌─ \(report.title) " + String(repeating: "─", count: max(4, 46 - report.title.count))]
        if let user = report.user { lines.append("│ \(user.username)") }
        switch report.state {
        case .listed:
            for c in report.contacts {
                let name = [c.FirstName, c.LastName].compactMap { $0 }.joined(separator: " ")
                lines.append("│ • \(name.padding(toLength: 26, withPad: " ", startingAt: 0)) \(c.LastModifiedDate?.prefix(16).replacingOccurrences(of: "T", with: " ") ?? "")")
            }
            if report.contacts.isEmpty {
                for record in report.records {
                    lines.append("│ • " + record.filter { $0.key != "Id" }.sorted { $0.key < $1.key }.map(\.value).joined(separator: " · "))
                }
            }
            if report.records.isEmpty { lines.append("│ \(report.message)") }
        default:
            lines.append("│ [\(report.state.rawValue)] \(report.message)")
        }
        lines.append("└" + String(repeating: "─", count: 48))
        return lines.joined(separator: "\n")
    }
}
