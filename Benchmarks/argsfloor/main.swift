// The notLoggedIn path's floor: a Swift program that parses the widget's own options with
// swift-argument-parser (which every CLI here uses) and prints one line; nothing else.
import ArgumentParser
import Foundation

@main
struct ArgumentsOnly: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench-args-floor", abstract: "Parses extension-widget's options and prints the bundle; nothing else.")

    @Option(help: "The widget bundle (.appex directory).") var bundle: String
    @Option(help: "The device directory.") var device: String?
    @Option(help: "How many entries to list.") var count: Int?
    @Flag(help: "Print one JSON object.") var json = false
    enum Render: String, ExpressibleByArgument, CaseIterable { case text, html }
    @Option(help: "text or html.") var render: Render = .text
    @Option(help: "A trace file.") var trace: String?
    @Flag(help: "Stay up.") var watch = false

    func run() async throws { print(bundle) }
}
