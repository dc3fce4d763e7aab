import ArgumentParser
import Foundation
import OrgSimulator
import OrgSimulatorPostgres

@main
struct SFSimulator: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sf-simulator",
        abstract: "A simulated Salesforce org on 127.0.0.1: OAuth, identity, and the REST API subset Mobile Sync uses.",
        discussion: """
            The first line on stdout is 'listening on http://127.0.0.1:<port>', the second 'admin token: <token>': the token that \
            /__admin/* (faults, push) and /__apns/* (the stand-in for APNs) require in the X-AppGroupSim-Admin-Token header. Apps \
            registering for push read it from APPGROUPSIM_ADMIN_TOKEN. SIGTERM stops it cleanly.
            """)

    @Option(help: "Port to listen on (0 picks a free one).") var port: Int = 0
    @Option(help: "The org fixture directory (Fixtures/org).") var data: String
    @Option(help: ArgumentHelp(
        "Keep the org's changes across restarts: in a SQLite FILE (one sf-simulator at a time), or in PostgreSQL, postgres://USER@HOST:PORT/DATABASE, shared by any number of sf-simulators (the password from PGPASSWORD, or USER:PASSWORD@; a HOST that is a percent-encoded directory, %2Fvar%2Frun%2Fpostgresql, is the server's Unix-domain socket there).",
        valueName: "FILE|URL"))
    var state: String?
    @Option(help: "Connections to PostgreSQL this instance keeps open at most (with --state postgres://…).") var poolSize: Int = 8
    @Option(help: ArgumentHelp(
        "The URL clients reach the org at, when it is not this instance's own (instances behind one front, as scripts/fleet starts them): token responses give it as instance_url.",
        valueName: "URL"))
    var publicURL: String?
    @Option(help: "Seconds an access token lives.") var tokenLifetime: Double = 3600
    @Option(help: "Seconds a write waits for a record another transaction locked before it fails with UNABLE_TO_LOCK_ROW (Salesforce's: 10).")
    var recordLockTimeout: Double = 10
    @Option(help: "Fault: milliseconds added to every API request.") var latencyMs: Int = 0
    @Option(help: "Fault: share (0-1) of API requests answered 503.") var errorRate: Double = 0
    @Flag(help: "Fault: truncate JSON bodies.") var malformedBodies = false
    @Option(help: "Seed of the fault randomness, to replay a run.") var seed: UInt64 = 1
    @Option(name: .customLong("connected-app"), help: ArgumentHelp(
        "Add a connected app at start: CONSUMER_KEY=REDIRECT_URI (repeatable), so an imported app can log in.", valueName: "KEY=URI"))
    var connectedApps: [String] = []
    @Option(name: .customLong("csv"), help: ArgumentHelp(
        "Load records into a new org from a CSV whose header is field API names (sf data query --result-format csv): [ORG:]OBJECT=FILE (repeatable).",
        valueName: "[ORG:]OBJECT=FILE"))
    var csv: [String] = []
    @Option(help: ArgumentHelp(
        "Read the admin token from this file, or write a new one there (mode 0600) when it does not exist, so scripts and apps can read it.",
        valueName: "FILE"))
    var adminTokenFile: String?

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be from 0 to 65535 (0 picks a free port)") }
        guard (1...64).contains(poolSize) else { throw ValidationError("--pool-size must be from 1 to 64") }
        if let publicURL {
            guard let url = URL(string: publicURL), ["http", "https"].contains(url.scheme ?? ""), url.host != nil, url.path.isEmpty || url.path == "/" else {
                throw ValidationError("--public-url \(publicURL): expected http://HOST:PORT, without a path")
            }
        }
        guard tokenLifetime > 0, tokenLifetime <= 31_536_000 else {
            throw ValidationError("--token-lifetime must be more than 0 and at most 31536000 seconds")
        }
        guard recordLockTimeout >= 0.05, recordLockTimeout <= 600 else {
            throw ValidationError("--record-lock-timeout must be from 0.05 to 600 seconds (Salesforce's is 10)")
        }
        guard (0...60_000).contains(latencyMs) else { throw ValidationError("--latency-ms must be from 0 to 60000") }
        guard errorRate >= 0, errorRate <= 1 else { throw ValidationError("--error-rate must be from 0 to 1 (a share of requests)") }
        for app in connectedApps {
            let parts = app.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, !parts[0].isEmpty, parts[1].contains(":") else {
                throw ValidationError("--connected-app \(app): expected CONSUMER_KEY=REDIRECT_URI, e.g. 3MVG9MyApp=myapp://oauth/done")
            }
        }
        for item in csv where CSVSource(argument: item) == nil {
            throw ValidationError("--csv \(item): expected [ORG:]OBJECT=FILE, e.g. Account=accounts.csv or Acme:Contact=contacts.csv")
        }
    }

    /// The token in `--admin-token-file`, or nil (a new one is made and written there).
    func adminTokenFromFile() throws -> String? {
        guard let adminTokenFile else { return nil }
        if let data = FileManager.default.contents(atPath: adminTokenFile) {
            let token = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard token.utf8.count >= 16, !token.contains(where: \.isWhitespace) else {
                throw ValidationError("--admin-token-file \(adminTokenFile) holds no usable token (at least 16 characters, no spaces); remove it to have a new one made")
            }
            return token
        }
        return nil
    }

    func run() async throws {
        let fileToken = try adminTokenFromFile()
        let simulator: OrgSimulator
        do {
            // A URL is PostgreSQL; anything else is a SQLite file.
            let store: (any SQLStore)? = try state.flatMap { $0.contains("://") ? try PostgresSupport.store(url: $0, poolSize: poolSize, recordLockTimeout: recordLockTimeout) : nil }
            simulator = try OrgSimulator(configuration: makeConfiguration(fileToken: fileToken, store: store))
        } catch OrgSimulatorError.unreachable(let message), OrgSimulatorError.badURL(let message), OrgSimulatorError.definitionDiffers(let message) {
            // EX_USAGE-like 64, one line: a CI runner's script can tell "no database" from a crash.
            FileHandle.standardError.write(Data("sf-simulator: \(message)\n".utf8))
            throw ExitCode(64)
        }
        if let adminTokenFile, fileToken == nil {
            let fd = open(adminTokenFile, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
            guard fd >= 0 else { throw ValidationError("--admin-token-file \(adminTokenFile) cannot be created (\(String(cString: strerror(errno))))") }
            let bytes = Array((simulator.adminToken + "\n").utf8)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        try await simulator.run { port in
            FileHandle.standardOutput.write(Data("listening on http://127.0.0.1:\(port)\nadmin token: \(simulator.adminToken)\n".utf8))
        }
    }

    func makeConfiguration(fileToken: String?, store: (any SQLStore)?) -> OrgSimulator.Configuration {
        .init(
            port: port, dataDirectory: URL(fileURLWithPath: data), stateFile: store == nil ? state.map { URL(fileURLWithPath: $0) } : nil,
            tokenLifetime: tokenLifetime,
            faults: FaultSettings(latencyMs: latencyMs, errorRate: errorRate, malformedBodies: malformedBodies, seed: seed),
            connectedApps: connectedApps.map { app in
                let parts = app.split(separator: "=", maxSplits: 1).map(String.init)
                return OrgDefinition.ConnectedApp(consumerKey: parts[0], redirectURIs: [parts[1]], scopes: ["api", "web", "refresh_token", "id", "openid"])
            },
            csv: csv.compactMap(CSVSource.init(argument:)), adminToken: fileToken, store: store,
            publicURL: publicURL.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }, recordLockTimeout: recordLockTimeout)
    }
}
