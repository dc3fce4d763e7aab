import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

/// Failure modes of a real Secret Service, each in a process of its own (libsecret keeps one
/// connection per process, so the test process cannot change buses).
final class SecretServiceFailureTests: XCTestCase {
    struct Report: Decodable {
        var availability: String
        var status: Int32
        var message: String?
        var readAfterLock: Int32?
        var readAfterLockMessage: String?
    }

    func probe(_ arguments: [String], environment: [String: String]) throws -> Report {
        let probe = try TestSupport.executable("appgroupsim-probe")
        let result = try TestSupport.run(probe, ["keychain"] + arguments, environment: environment)
        XCTAssertEqual(result.status, 0, result.stderr)
        return try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
    }

    var baseEnvironment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY"] { env[key] = nil }
        return env
    }

    func testNoSessionBusGivesTheClearMessage() throws {
        let report = try probe([], environment: baseEnvironment)
        XCTAssertEqual(report.status, -25291)
        XCTAssertTrue(report.availability.hasPrefix("noSessionBus"), report.availability)
        XCTAssertTrue(report.message?.contains("scripts/with-keyring") ?? false, report.message ?? "")
    }

    func testAStaleBusAddressIsAlsoNoSecretService() throws {
        var env = baseEnvironment
        env["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/appgroupsim-bus"
        let report = try probe([], environment: env)
        XCTAssertEqual(report.status, -25291)
        XCTAssertTrue(report.message?.contains("scripts/with-keyring") ?? false, report.message ?? "")
    }

    func testABusWithoutASecretsProviderIsNoSecretService() throws {
        // A private bus with no service directories, so nothing can be activated as org.freedesktop.secrets.
        // (The receive rule matters: without it the daemon drops replies and libsecret waits 25 s per call.)
        let dir = try TestSupport.temporaryDirectory(self)
        let config = dir.appendingPathComponent("session.conf")
        try """
            <!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
             "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
            <busconfig>
              <type>session</type>
              <listen>unix:tmpdir=\(dir.path)</listen>
              <policy context="default">
                <allow send_destination="*" eavesdrop="true"/>
                <allow eavesdrop="true"/>
                <allow own="*"/>
              </policy>
            </busconfig>
            """.write(to: config, atomically: true, encoding: .utf8)
        let probe = try TestSupport.executable("appgroupsim-probe")
        let result = try TestSupport.run(
            URL(fileURLWithPath: "/usr/bin/dbus-run-session"),
            ["--config-file=\(config.path)", "--", probe.path, "keychain"], environment: baseEnvironment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        XCTAssertTrue(report.availability.hasPrefix("noSecretService"), report.availability)
        XCTAssertEqual(report.status, -25291)
        XCTAssertTrue(report.message?.contains("no Secret Service on the session bus") ?? false, report.message ?? "")
    }

    func testALockedCollectionIsInteractionNotAllowedNotAnEmptyKeychain() throws {
        // A private keyring of its own, which the probe fills and then locks.
        let script = TestSupport.packageRoot.appendingPathComponent("scripts/with-keyring")
        let probe = try TestSupport.executable("appgroupsim-probe")
        let result = try TestSupport.run(script, [probe.path, "keychain", "--write-then-lock"], environment: baseEnvironment)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.status, 0, "ready before the lock")
        XCTAssertEqual(report.availability, "locked")
        XCTAssertEqual(report.readAfterLock, -25308)
        XCTAssertTrue(report.readAfterLockMessage?.contains("locked") ?? false)
    }

    func testAKeyringThatWasNeverUnlockedHasNoDefaultCollection() throws {
        let script = TestSupport.packageRoot.appendingPathComponent("scripts/with-keyring")
        let probe = try TestSupport.executable("appgroupsim-probe")
        var env = baseEnvironment
        env["APPGROUPSIM_KEYRING_LOCKED"] = "1"
        let result = try TestSupport.run(script, [probe.path, "keychain"], environment: env)
        XCTAssertEqual(result.status, 0, result.stderr)
        let report = try JSONDecoder().decode(Report.self, from: Data(result.stdout.utf8))
        XCTAssertEqual(report.availability, "noDefaultCollection")
        XCTAssertEqual(report.status, -25291)
        XCTAssertTrue(report.message?.contains("--unlock") ?? false, report.message ?? "")
    }
}

/// A store whose every call blocks, as libsecret does on a D-Bus peer that accepts and never answers.
final class SilentStore: SecretStore, @unchecked Sendable {
    let never = DispatchSemaphore(value: 0)
    func availability() -> SecretStoreAvailability {
        never.wait()
        return .ready
    }
    func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
        never.wait()
        return []
    }
    func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) { never.wait() }
    func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool {
        never.wait()
        return false
    }
}

final class SecretServiceTimeoutTests: XCTestCase {
    func testASecretServiceThatNeverAnswersEndsInNotAvailableWithTheReasonAndLaterCallsFailAtOnce() async {
        let keychain = KeychainHelper(
            store: SilentStore(), deviceID: "silent", accessGroups: ["SIMTEAM001.silent"], budget: SecretServiceBudget(seconds: 0.3))
        let first = await keychain.status()
        XCTAssertEqual(first.status, .notAvailable)
        XCTAssertTrue(first.error?.message.contains("keychain unavailable (timeout)") ?? false, first.error?.message ?? "")
        // The budget is spent: the next calls do not queue behind the stuck one.
        let read = await keychain.read(service: "svc")
        XCTAssertEqual(read.status, .notAvailable)
        let write = await keychain.write([1], service: "svc")
        XCTAssertEqual(write.status, .notAvailable)
        do {
            _ = try await keychain.items()
            XCTFail("items() went on past the budget")
        } catch {
            XCTAssertEqual(error.status, .notAvailable)
        }
    }
}

/// The in-memory store, 10 ms slower on every call.
final class SlowStore: SecretStore, @unchecked Sendable {
    let inner = InMemorySecretStore()
    func availability() -> SecretStoreAvailability {
        usleep(10_000)
        return inner.availability()
    }
    func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
        usleep(10_000)
        return try inner.search(attributes)
    }
    func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) {
        usleep(10_000)
        try inner.store(attributes, label: label, secret: secret)
    }
    func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool {
        usleep(10_000)
        return try inner.delete(attributes)
    }
}

final class SecretServiceBudgetTests: XCTestCase {
    /// A long-lived process (a shell, --watch) makes many calls; only an unanswered one uses the budget up.
    func testCallsThatAnswerNeverUseTheBudgetUpHoweverManyThereAre() async {
        let keychain = KeychainHelper(
            store: SlowStore(), deviceID: "slow", accessGroups: ["SIMTEAM001.slow"], budget: SecretServiceBudget(seconds: 0.2))
        for n in 0..<15 {
            let written = await keychain.write([UInt8(n)], service: "svc")
            XCTAssertEqual(written.status, .success, "call \(n): \(written.error?.message ?? "")")
        }
        let read = await keychain.read(service: "svc")
        XCTAssertEqual(read.data, [14])
    }
}
