// The SDK's URLSessionTaskRetryPolicyTests (libs/SalesforceSDKCore/SalesforceSDKCoreTests/URLSessionTask+RetryPolicyTests.swift
// at aea9bf3), rewritten against the SDK-named SalesforceSDKCore: the SDK's test evaluates its internal policy on a
// mock task; here real URLSessionTasks get real answers from a simulated org (a 401 from the REST API, a 403
// `Bad_OAuth_Token` from the userinfo URL and from the identity URL, a 200) and `shouldRetry` is asked of them,
// with the biometric lock off and on. The mock manager is the SDK test's, without `presentOptInDialog` (UIKit).
import AppGroupSimTesting
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import SalesforceSDKCore
import XCTest

final class MockBiometricAuthenticationManager: BiometricAuthenticationManager {
    var enabled: Bool
    var locked: Bool
    init(enabled: Bool, locked: Bool) {
        self.enabled = enabled
        self.locked = locked
    }
    func lock() { locked = true }
    func biometricOptIn(optIn: Bool) {
        locked = optIn
        enabled = optIn
    }
    func hasBiometricOptedIn() -> Bool { enabled }
    func enableNativeBiometricLoginButton(enabled: Bool) {
        self.enabled = enabled
        locked = enabled
    }
}

final class URLSessionTaskRetryPolicyTests: XCTestCase {
    nonisolated(unsafe) static var org: SimulatedOrg?

    override class func setUp() {
        super.setUp()
        let started = RestClientTests.blocking { () -> SimulatedOrg in
            try await SimulatedDevice(keychain: .inMemory).startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        }
        guard case .success(let org) = started else { fatalError("no org: \(started)") }
        Self.org = org
    }

    override class func tearDown() {
        if let org { _ = RestClientTests.blocking { await org.stop() } }
        super.tearDown()
    }

    /// A finished task for a GET of `path` with a token the org does not know, and the body it got.
    private func finished(_ path: String) throws -> (URLSessionTask, Data?) {
        var request = URLRequest(url: try XCTUnwrap(Self.org).url.appendingPathComponent(path))
        request.setValue("Bearer not-a-token", forHTTPHeaderField: "Authorization")
        let done = expectation(description: path)
        let box = Box<Data>()
        let task = URLSession.shared.dataTask(with: request) { data, _, _ in
            box.value = data
            done.fulfill()
        }
        task.resume()
        wait(for: [done], timeout: 10)
        return (task, box.value)
    }

    func testShouldRetryWith401AndUnlockedNotLocked() throws {
        let (task, data) = try finished("services/data/v66.0/sobjects")
        XCTAssertEqual((task.response as? HTTPURLResponse)?.statusCode, 401)
        XCTAssertTrue(task.shouldRetry(with: data, biometricAuthManager: MockBiometricAuthenticationManager(enabled: false, locked: false)))
        XCTAssertTrue(task.shouldRetry(with: data), "the default manager is never locked")
        XCTAssertFalse(task.shouldRetry(with: data, biometricAuthManager: MockBiometricAuthenticationManager(enabled: true, locked: true)))
    }

    func testShouldRetryWith403BadOAuthTokenOnAnOAuthPathUnlessLocked() throws {
        let (task, data) = try finished("services/oauth2/userinfo")
        XCTAssertEqual((task.response as? HTTPURLResponse)?.statusCode, 403)
        XCTAssertEqual(data.map { String(decoding: $0, as: UTF8.self) }, "Bad_OAuth_Token", "Salesforce's body, whole")
        let manager = MockBiometricAuthenticationManager(enabled: false, locked: false)
        XCTAssertTrue(task.shouldRetry(with: data, biometricAuthManager: manager))
        manager.lock()
        XCTAssertFalse(task.shouldRetry(with: data, biometricAuthManager: manager))
        XCTAssertFalse(task.shouldRetry(with: Data("SomeOtherError".utf8), biometricAuthManager: MockBiometricAuthenticationManager(enabled: false, locked: false)))
    }

    func testShouldNotRetryWith403NonOAuthPathOrAnotherStatus() throws {
        let (identity, body) = try finished("id/00D5g00000AcmeeEAA/0055g00000AliceAAA")
        XCTAssertEqual((identity.response as? HTTPURLResponse)?.statusCode, 403)
        XCTAssertFalse(identity.shouldRetry(with: body, biometricAuthManager: MockBiometricAuthenticationManager(enabled: false, locked: false)), "not an OAuth path")
        let (login, page) = try finished("services/oauth2/authorize")
        XCTAssertNotEqual((login.response as? HTTPURLResponse)?.statusCode, 401)
        XCTAssertFalse(login.shouldRetry(with: page, biometricAuthManager: MockBiometricAuthenticationManager(enabled: false, locked: false)))
    }
}
