import AppGroupSimTesting
import Foundation
import XCTest

/// The package's app and widget, explored on a simulated device under the developer's own invariant (run under
/// `scripts/with-keyring`: the actors are processes on the real Secret Service).
final class ExploreSnapshotTests: XCTestCase {
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let repository = packageRoot.deletingLastPathComponent().deletingLastPathComponent()
    static let app = repository.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app")
    static let widget = app.appendingPathComponent("PlugIns/RecentContacts.appex")
    /// The package's executables, built beside this test bundle.
    static let products = Bundle.main.executableURL!.deletingLastPathComponent()

    /// The developer's invariant: the widget's header counts the names it lists.
    static let headerCountsTheList = DeviceInvariant("widget-header-counts-its-list") { outcome, _ in
        guard outcome.actor == "widget", outcome.exitStatus == 0 else { return nil }
        let lines = outcome.output.split(separator: "\n")
        guard let header = lines.first(where: { $0.hasPrefix("header: ") }),
              let count = Int(header.dropFirst("header: ".count).split(separator: " ").first ?? "")
        else { return nil }
        let listed = lines.filter { $0.hasPrefix("- ") }.count
        return count == listed ? nil : "the widget's header says \(count) contact(s) and it lists \(listed)"
    }

    /// Seed 1 first breaks it in run 57 (a run is a function of its seed); 80 leaves room for a change of the SDK's
    /// points before the snapshot's writes.
    func exploration(fixed: Bool, runs: Int = 80, leaky: Bool = false) -> DeviceExploration {
        let environment = fixed ? ["WIDGET_SNAPSHOT_ONE_WRITE": "1"] : [:]
        let actors = [
            ExploredActor("app", bundle: Self.app, executable: Self.products.appendingPathComponent("snapshot-app"),
                          actions: ["add": ["add"], "clear": ["clear"]].merging(leaky ? ["debug-session": ["debug-session"]] : [:]) { a, _ in a },
                          environment: environment),
            ExploredActor("widget", bundle: Self.widget, executable: Self.products.appendingPathComponent("snapshot-widget"),
                          actions: ["draw": []], environment: environment),
        ]
        let exploration = DeviceExploration(
            org: Self.repository.appendingPathComponent("Fixtures/org"), actors: actors, invariants: [Self.headerCountsTheList]
        ) { device, org in
            try await device.logIn(app: Self.app, org: org, username: "alice@acme.test", password: "alice-pass")
        }
        exploration.runs = runs
        exploration.steps = 16
        exploration.seed = 1
        exploration.shrinkBudget = 40
        // The app and the widget here never reach the org: its offline and expired-token steps would only dilute.
        exploration.orgEvents = false
        return exploration
    }

    func testExploringFindsTheSnapshotTornBetweenItsTwoWrites() async throws {
        let exploration = exploration(fixed: false)
        let report = try await exploration.explore()
        let violation = try XCTUnwrap(report.violations.first { $0.invariant == "widget-header-counts-its-list" },
                                      "not found in \(report.runs) runs; broken: \(report.violations.map(\.invariant))")
        print("found in run \(violation.run) (seed \(violation.seed)): \(violation.message)")
        print("shrunk \(violation.stepsBeforeShrinking) -> \(violation.steps.count) steps, replayed \(violation.replayed)/\(violation.replays):")
        violation.narrative.forEach { print("  \($0)") }
        XCTAssertEqual(report.violations.map(\.invariant), ["widget-header-counts-its-list"], "nothing else breaks")
        XCTAssertLessThanOrEqual(violation.steps.count, 10)
        XCTAssertEqual(violation.replayed, violation.replays, "the shrunk schedule breaks it every time")
        // The widget drew between the app's two writes: the app stands at its second write when the widget runs.
        XCTAssertTrue(violation.steps.contains(ExplorationStep("widget", "draw")))
        let again = try await exploration.replay(violation.steps)
        XCTAssertEqual(again.brokenInvariants, ["widget-header-counts-its-list"])
    }

    /// The org's steps reach the org in the test's process (this package's actors never call it, so they are off
    /// while exploring; a replayed schedule may still name them).
    func testTheOrgStepsReachTheOrg() async throws {
        let run = try await exploration(fixed: true).replay([
            ExplorationStep("org", "offline"), ExplorationStep("app", "add"), ExplorationStep("app", "finish"),
            ExplorationStep("org", "expire-tokens"),
        ])
        XCTAssertEqual(run.brokenInvariants, [])
        let text = run.narrative.joined(separator: "\n")
        XCTAssertTrue(text.contains("every API request is answered 503"), text)
        XCTAssertTrue(text.contains("exit 0: published 1 contact(s)"), text)
        XCTAssertTrue(text.contains("every access token expired"), text)
        XCTAssertTrue(text.contains("end  org: answers again"), "the run's end brings the org back: \(text)")
    }

    /// The built-in secret-exposed: the app's planted debugging aid prints the session's token (found when the
    /// launch ends) and leaves it in the group's defaults (found in the device's files at the run's end).
    func testATokenInTheOutputOrInAFileIsSecretExposed() async throws {
        let run = try await exploration(fixed: true, leaky: true).replay([ExplorationStep("app", "debug-session")])
        XCTAssertEqual(run.brokenInvariants, ["secret-exposed", "secret-exposed"], run.narrative.joined(separator: "\n"))
        let text = run.narrative.joined(separator: "\n")
        XCTAssertTrue(text.contains("a token of the keychain is in the output of app (debug-session)"), text)
        XCTAssertTrue(text.contains("a token of the keychain is written in"), text)
        XCTAssertTrue(text.contains("Library/Preferences/group."), text)
        // What the explorer prints of the launch's output names no token.
        XCTAssertTrue(text.contains("session of alice@acme.test: <token>"), text)
        XCTAssertNil(text.range(of: #"00D[0-9A-Za-z]{15}!"#, options: .regularExpression), "a token (ORGID!…) in what the explorer printed")
        // Without the aid, the same app breaks nothing.
        let clean = try await exploration(fixed: true, leaky: true).replay([ExplorationStep("app", "add")])
        XCTAssertEqual(clean.brokenInvariants, [], clean.narrative.joined(separator: "\n"))
    }

    /// The device's life among the steps (`installEvents`): a reinstall takes the app's and the group's containers
    /// and keeps the keychain; a restore moves the run to a new phone with the files; a backup is taken unlocked.
    func testReinstallAndRestoreAreStepsOfTheDevice() async throws {
        let exploration = exploration(fixed: true)
        exploration.installEvents = true
        let reinstalled = try await exploration.replay([
            ExplorationStep("app", "add"), ExplorationStep("app", "finish"), ExplorationStep("widget", "draw"), ExplorationStep("widget", "finish"),
            ExplorationStep("device", "reinstall"), ExplorationStep("widget", "draw"), ExplorationStep("widget", "finish"),
            ExplorationStep("app", "add"), ExplorationStep("app", "finish"),
        ])
        XCTAssertEqual(reinstalled.brokenInvariants, [], reinstalled.narrative.joined(separator: "\n"))
        let lines = reinstalled.narrative
        XCTAssertTrue(lines[3].hasSuffix("exit 0: - Snapshot 1"), lines[3])
        XCTAssertTrue(lines[4].contains("deleted and installed again: removed 4 container(s), the keychain kept"), lines[4])
        XCTAssertTrue(lines[6].hasSuffix("exit 0: not logged in"), "the group's defaults went with the app: \(lines[6])")
        XCTAssertTrue(lines[8].hasSuffix("exit 2"), "no user: the account file went with the app's container: \(lines[8])")

        let restored = try await exploration.replay([
            ExplorationStep("app", "add"), ExplorationStep("app", "finish"), ExplorationStep("device", "restore"),
            ExplorationStep("widget", "draw"), ExplorationStep("widget", "finish"), ExplorationStep("device", "lock"), ExplorationStep("device", "restore"),
        ])
        XCTAssertEqual(restored.brokenInvariants, [], restored.narrative.joined(separator: "\n"))
        XCTAssertTrue(restored.narrative[2].contains("restored to a new phone: "), restored.narrative[2])
        XCTAssertTrue(restored.narrative[4].hasSuffix("exit 0: - Snapshot 1"), "the group's files came along: \(restored.narrative[4])")
        XCTAssertTrue(restored.narrative[6].hasSuffix("skipped: a backup is taken unlocked, and the device is locked"), restored.narrative[6])

        // Without installEvents the same steps are no steps.
        let off = try await self.exploration(fixed: true).replay([ExplorationStep("device", "reinstall")])
        XCTAssertTrue(off.narrative[0].hasSuffix("skipped: no device action reinstall"), off.narrative[0])
    }

    /// `needingAUser`: an action that needs a user is not offered while nobody is logged in (here after a
    /// reinstall took the account file), as an app with nobody logged in shows only its login screen. The same
    /// seed without it launches the app's `add` with no user (exit 2), which the invariant reports.
    func testAnActionNeedingAUserWaitsForOne() async throws {
        // The app's action found no user (exit 2) and no account is on the device: it ran with nobody logged in.
        // (After a restore to a new phone the account file is there and its key is not: the app finds no user, but
        // someone is logged in as far as the device's files say, and the action is offered.)
        let addedWithNobody = DeviceInvariant("app-action-with-nobody-logged-in") { outcome, device in
            guard outcome.actor == "app", outcome.exitStatus == 2 else { return nil }
            let files = FileManager.default.enumerator(atPath: device.url.path)?.compactMap { $0 as? String } ?? []
            return files.contains { $0.hasSuffix("/UserAccount.plist") } ? nil : "app \(outcome.action) ran with nobody logged in: \(outcome.errorOutput)"
        }
        func exploration(needingAUser: Set<String>) -> DeviceExploration {
            let actors = [
                ExploredActor("app", bundle: Self.app, executable: Self.products.appendingPathComponent("snapshot-app"),
                              actions: ["add": ["add"], "clear": ["clear"]], environment: ["WIDGET_SNAPSHOT_ONE_WRITE": "1"], needingAUser: needingAUser),
            ]
            let exploration = DeviceExploration(org: Self.repository.appendingPathComponent("Fixtures/org"), actors: actors, invariants: [addedWithNobody]) { device, org in
                try await device.logIn(app: Self.app, org: org, username: "alice@acme.test", password: "alice-pass")
            }
            exploration.runs = 12
            exploration.steps = 12
            exploration.seed = 1
            exploration.shrinkBudget = 20
            exploration.replays = 1
            exploration.installEvents = true
            exploration.orgEvents = false
            return exploration
        }
        let without = try await exploration(needingAUser: []).explore()
        XCTAssertEqual(without.violations.map(\.invariant), ["app-action-with-nobody-logged-in"], "without the rule the app's add runs after a reinstall")
        let with = try await exploration(needingAUser: ["add", "clear"]).explore()
        XCTAssertEqual(with.violations.map(\.invariant), [], with.violations.first?.narrative.joined(separator: "\n") ?? "")

        // An action named that the actor does not have is refused before anything runs.
        do {
            _ = try await exploration(needingAUser: ["sync"]).explore()
            XCTFail("needingAUser named an action the actor does not have")
        } catch {
            XCTAssertTrue("\(error)".contains("needingAUser names sync, which is not among its actions (add, clear)"), "\(error)")
        }
    }

    func testTheFixBreaksNothing() async throws {
        // The same seed and runs that break the planted bug (run 57 of 80), with the fix.
        let report = try await exploration(fixed: true).explore()
        XCTAssertEqual(report.violations.map(\.invariant), [], report.violations.first?.narrative.joined(separator: "\n") ?? "")
        XCTAssertEqual(report.runs, 80)
        XCTAssertGreaterThan(report.distinctSchedules, 70)
    }
}
