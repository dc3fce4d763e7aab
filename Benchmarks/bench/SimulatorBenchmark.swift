import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// sf-simulator under load: rounds of 200 concurrent queries over 20 keep-alive connections, against
// the release binary started as its own process. Baseline: the same 200 queries one at a time.

private let queriesPerRound = 200
private let connections = 20

private final class Counts: @unchecked Sendable {
    private let lock = NSLock()
    var ok = 0, failed = 0
    func add(_ success: Bool) { lock.withLock { if success { ok += 1 } else { failed += 1 } } }
}

private func get(_ session: URLSession, _ request: URLRequest) async -> Bool {
    await withCheckedContinuation { continuation in
        session.dataTask(with: request) { data, response, error in
            let status = (response as? HTTPURLResponse)?.statusCode ?? 0
            continuation.resume(returning: error == nil && status == 200 && (data?.count ?? 0) > 0)
        }.resume()
    }
}

let fixtureOrgDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Fixtures/org")

/// The release sf-simulator on an ephemeral port, stopped when the returned process is terminated.
/// Its admin token is `benchAdminToken`, also in this process's APPGROUPSIM_ADMIN_TOKEN (the apps it launches
/// register for push with it).
func startSimulator(data: URL, state: URL? = nil) throws -> (Process, URL) {
    let tokenFile = FileManager.default.temporaryDirectory.appendingPathComponent("bench-admin-token-\(getpid())")
    if !FileManager.default.fileExists(atPath: tokenFile.path) {
        FileManager.default.createFile(atPath: tokenFile.path, contents: Data(benchAdminToken.utf8), attributes: [.posixPermissions: 0o600])
    }
    setenv("APPGROUPSIM_ADMIN_TOKEN", benchAdminToken, 1)
    let process = Process()
    process.executableURL = binDir.appendingPathComponent("sf-simulator")
    process.arguments = ["--port", "0", "--data", data.path, "--admin-token-file", tokenFile.path] + (state.map { ["--state", $0.path] } ?? [])
    let out = Pipe()
    process.standardOutput = out
    try process.run()
    let firstLine = String(decoding: out.fileHandleForReading.availableData, as: UTF8.self).split(separator: "\n").first.map(String.init) ?? ""
    guard let base = firstLine.split(separator: " ").last.map({ $0.trimmingCharacters(in: .whitespacesAndNewlines) }),
        let url = URL(string: base)
    else { throw CocoaError(.fileReadCorruptFile) }
    return (process, url)
}

let benchAdminToken = "bench-admin-token-" + UUID().uuidString

/// A copy of the org fixture with Acme grown to `contacts` contacts, for the benchmarks that need a big org.
func grownFixture(in work: URL, contacts: Int) throws -> URL {
    var fixture = try JSONSerialization.jsonObject(with: Data(contentsOf: fixtureOrgDirectory.appendingPathComponent("orgs.json"))) as! [String: Any]
    var orgs = fixture["orgs"] as! [[String: Any]]
    orgs[0]["contactCount"] = contacts
    fixture["orgs"] = orgs
    let data = work.appendingPathComponent("org")
    try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
    try JSONSerialization.data(withJSONObject: fixture).write(to: data.appendingPathComponent("orgs.json"))
    return data
}

/// Logs alice in; the tokens stay in an in-memory keychain.
func benchLogin(_ url: URL) async throws -> RestClient {
    let keychain = KeychainHelper(store: InMemorySecretStore(), deviceID: "bench", accessGroups: ["bench"])
    let credentials = try await OAuthLogin.login(
        loginHost: url, app: .init(clientId: "3MVG9AppGroupSim.MobileSyncExplorer.Sample", redirectURI: "testsfdc:///mobilesdk/detect/oauth/done", scopes: ["api"]),
        username: "alice@acme.test", password: "alice-pass", keychain: keychain)
    return RestClient(credentials: credentials, tokens: TokenStore(keychain: keychain, account: credentials.keychainAccount))
}

func runSimulatorBenchmark() async throws {
    let (process, url) = try startSimulator(data: fixtureOrgDirectory)
    defer { process.terminate(); process.waitUntilExit() }
    let client = try await benchLogin(url)
    guard let token = try await client.tokens.accessToken() else { return }

    var components = URLComponents(url: url.appendingPathComponent("services/data/v66.0/query"), resolvingAgainstBaseURL: false)!
    components.queryItems = [URLQueryItem(name: "q", value: "SELECT Id, FirstName, LastName, LastModifiedDate FROM Contact ORDER BY LastModifiedDate DESC LIMIT 200")]
    var authorized = URLRequest(url: components.url!)
    authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let request = authorized

    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = connections
    let session = URLSession(configuration: configuration)
    for _ in 0..<20 { _ = await get(session, request) }

    var sequential: [Double] = [], concurrent: [Double] = []
    let counts = Counts()
    for _ in 0..<5 {
        var t0 = Date()
        for _ in 0..<queriesPerRound { counts.add(await get(session, request)) }
        sequential.append(Double(queriesPerRound) / Date().timeIntervalSince(t0))
        t0 = Date()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<queriesPerRound { group.addTask { counts.add(await get(session, request)) } }
        }
        concurrent.append(Double(queriesPerRound) / Date().timeIntervalSince(t0))
    }
    print("sf-simulator: queries of 200 contacts (\(queriesPerRound) per round, 5 rounds, medians), release binary on loopback")
    print(String(format: "  baseline  one at a time:                           %6.0f requests/s", median(sequential)))
    print(String(format: "  measured  200 concurrent over %d connections:      %6.0f requests/s   ratio %.2fx", connections, median(concurrent), median(concurrent) / median(sequential)))
    print("  answers: \(counts.ok) ok, \(counts.failed) failed")
}
