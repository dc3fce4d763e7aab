import ArgumentParser
import Foundation
import OrgSimulator

@main
struct SFSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sf-simulator",
        abstract: "A simulated Salesforce org on 127.0.0.1: OAuth, identity, and the REST API subset Mobile Sync uses.",
        discussion: "The first line on stdout is 'listening on http://127.0.0.1:<port>'. SIGTERM stops it cleanly.")

    @Option(help: "Port to listen on (0 picks a free one).") var port: Int = 0
    @Option(help: "The org fixture directory (Fixtures/org).") var data: String
    @Option(help: "Keep the org's changes in this file across restarts.") var state: String?
    @Option(help: "Seconds an access token lives.") var tokenLifetime: Double = 3600

    func run() async throws {
        let simulator = try OrgSimulator(configuration: .init(
            port: port, dataDirectory: URL(fileURLWithPath: data), stateFile: state.map { URL(fileURLWithPath: $0) },
            tokenLifetime: tokenLifetime))
        try await simulator.run { port in
            FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\n".utf8))
        }
    }
}
