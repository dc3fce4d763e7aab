import Foundation
import Keychain
import OrgSimulator
import OrgSimulatorPostgres
import CoreEngine
import CoreNetworkEngine
import XCTest

/// A real sf-simulator on an ephemeral port of 127.0.0.1, in this process.
package final class OrgHarness: @unchecked Sendable {
    let org: EmbeddedOrg
    package let baseURL: URL
    var simulator: OrgSimulator { org.simulator }

    package static var fixtureDirectory: URL { TestSupport.packageRoot.appendingPathComponent("Fixtures/org") }
    package static let app = OAuthLogin.App(
        clientId: "3MVG9AppGroupSim.MobileSyncExplorer.Sample", redirectURI: "testsfdc:///mobilesdk/detect/oauth/done",
        scopes: ["web", "api"])

    private init(org: EmbeddedOrg) {
        self.org = org
        baseURL = URL(string: org.url)!
    }

    package static func start(stateFile: URL? = nil, faults: FaultSettings = FaultSettings(), tokenLifetime: TimeInterval = 3600, dataDirectory: URL? = nil,
                             connectedApps: [OrgDefinition.ConnectedApp] = [], csv: [CSVSource] = [], recordLockTimeout: TimeInterval = 10
    ) async throws
        -> OrgHarness
    {
        // Without a state file, a new PostgreSQL database when APPGROUPSIM_TEST_POSTGRES names a server
        // (scripts/integration/org-postgres.sh runs the org's tests so), else SQLite in memory.
        let store = stateFile == nil ? try PostgresSupport.testStore(recordLockTimeout: recordLockTimeout) : nil
        let org = try await EmbeddedOrg.start(.init(
            port: 0, dataDirectory: dataDirectory ?? fixtureDirectory, stateFile: stateFile, tokenLifetime: tokenLifetime, faults: faults,
            connectedApps: connectedApps, csv: csv, adminToken: testAdminToken, store: store, recordLockTimeout: recordLockTimeout))
        // Every harness has the same token, in the variable the SDK's push registration reads (as a device would).
        setenv("APPGROUPSIM_ADMIN_TOKEN", testAdminToken, 1)
        return OrgHarness(org: org)
    }

    /// The admin token of every harness in a test process (a test may also start one with another).
    package static let testAdminToken = "test-admin-token-" + UUID().uuidString

    /// What `/__admin/*` and `/__apns/*` require.
    package var adminToken: String { simulator.adminToken }

    package func stop() async {
        await org.stop()
    }

    /// A keychain of its own per test (the in-memory double).
    package static func keychain() -> KeychainHelper {
        KeychainHelper(store: InMemorySecretStore(), deviceID: "test", accessGroups: ["SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer"])
    }

    package func login(_ username: String = "alice@acme.test", _ password: String = "alice-pass", keychain: KeychainHelper? = nil) async throws
        -> RestClient
    {
        let keychain = keychain ?? Self.keychain()
        let credentials = try await OAuthLogin.login(loginHost: baseURL, app: Self.app, username: username, password: password, keychain: keychain)
        return RestClient(credentials: credentials, tokens: TokenStore(keychain: keychain, account: credentials.keychainAccount), timeout: 10)
    }

    /// POST /__admin/faults.
    package func admin(_ body: [String: Any]) async throws -> [String: Any] {
        var request = URLRequest(url: baseURL.appendingPathComponent("__admin/faults"))
        request.setValue(adminToken, forHTTPHeaderField: OrgSimulator.adminTokenHeader)
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await raw(request)
        return (try JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
    }

    /// A plain request, redirects not followed.
    package func raw(_ request: URLRequest) async throws -> (Data, HTTPURLResponse) {
        try await withCheckedThrowingContinuation { continuation in
            let session = URLSession(configuration: .ephemeral, delegate: NoRedirects(), delegateQueue: nil)
            session.dataTask(with: request) { data, response, error in
                if let error { return continuation.resume(throwing: error) }
                continuation.resume(returning: (data ?? Data(), response as! HTTPURLResponse))
            }.resume()
            // Freed (with its sockets) once the request is answered; a session is otherwise kept for the run.
            session.finishTasksAndInvalidate()
        }
    }
}

final class NoRedirects: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

#if canImport(FoundationNetworking)
@preconcurrency import FoundationNetworking
#endif

/// The `RestError` a body throws, or nil when it succeeds (or throws something else).
package func restError(_ body: () async throws -> Void) async -> RestError? {
    do {
        try await body()
        return nil
    } catch {
        return error as? RestError
    }
}
