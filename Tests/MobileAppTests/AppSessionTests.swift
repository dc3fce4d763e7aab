import AppExtensions
import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import MobileApp

/// The app layer in-process: one session of the sample app against the in-process org, with the
/// keychain double. The binaries drive the same code (scripts/integration/end-to-end.sh, app-lifecycle.sh).
final class AppSessionTests: FixtureAppTestCase {

    func options(_ org: OrgHarness) -> AppLaunchOptions {
        AppLaunchOptions(bundle: appURL.path, device: devicePath, org: org.baseURL.absoluteString, secretStore: keychain)
    }

    func flag() throws -> Bool {
        let launch = try ProcessLaunch(bundlePath: appURL.path, devicePath: devicePath, applyConfig: false, secretStore: keychain)
        return try launch.dataSharing.msdkUserDefaults().bool(forKey: "userLoggedIn")
    }

    final class Lines: @unchecked Sendable {
        private let lock = NSLock()
        private var all: [String] = []
        func add(_ line: String) { lock.withLock { all.append(line) } }
        var text: [String] { lock.withLock { all } }
        func clear() { lock.withLock { all.removeAll() } }
    }

    /// The sample's writer runs on current-user changes only; the last logout clears the current user
    /// without one, so the flag stays true (SDK-BEHAVIOURS.md, logout order) and the widget says so.
    func testTheSessionWritesUserLoggedInOnEveryCurrentUserChangeAndTheLastLogoutLeavesItStale() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        do {
            let session = try await AppSession.start(options(org))
            XCTAssertFalse(try flag())
            _ = try await session.login(username: "alice@acme.test", password: "alice-pass")
            XCTAssertTrue(try flag(), "login sets the flag the widget reads")
            _ = try await session.login(username: "bob@acme.test", password: "bob-pass")
            let out = try await session.logoutCurrentUser()
            XCTAssertEqual(out.account.username, "bob@acme.test")
            XCTAssertEqual(out.next, "switched to alice@acme.test")
            XCTAssertTrue(try flag(), "one account is left and current")
            _ = try await session.logoutCurrentUser()
            XCTAssertTrue(try flag(), "no account left, but the last logout is no current-user change: the flag is stale")
        }
        // A second launch while the first holds the device's instance lock would wait; the first is gone now.
        let again = try await AppSession.start(options(org))
        let report = try await StatusReport(again)
        XCTAssertNil(report.currentUser)
        XCTAssertTrue(report.userLoggedIn, "the stale flag, as the sample leaves it")
        let widget = try await AppWidget.evaluate(try ProcessLaunch(bundlePath: widgetURL.path, devicePath: devicePath, secretStore: keychain))
        XCTAssertEqual(widget.state, .notLoggedIn)
        XCTAssertTrue(widget.message.contains("stale flag"), widget.message)
        XCTAssertEqual(report.keychain, "ready")
        XCTAssertEqual(report.appGroupName, "group.com.salesforce.mobilesdk.MobileSyncExplorer")
    }

    /// A login killed after its account was saved but before the device was registered for notifications: the
    /// next launch registers it, whatever that launch shows. `main-app status` is such a launch when the keychain
    /// can be used (it discards an interrupted login's tokens as every launch does); it registered nothing.
    func testTheStatusLaunchRegistersTheDeviceALoginLeftUnregistered() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        do {
            let session = try await AppSession.start(options(org))
            _ = try await session.login(username: "alice@acme.test", password: "alice-pass")
            // As if killed before the registration: the app keeps none.
            try session.launch.sandbox.standardDefaults.removeObject(forKey: PushNotificationManager.registrationsKey)
        }
        let again = try await AppSession.start(options(org), unlock: false, requireKeychain: false)
        let report = try await StatusReport(again)
        XCTAssertEqual(report.currentUser, "alice@acme.test")
        let account = try XCTUnwrap(try again.accounts.currentUser())
        let push = PushNotificationManager(launch: again.launch, events: SDKEvents())
        let registration = try XCTUnwrap(try push.registration(for: account), "the status launch did not register the device")
        XCTAssertEqual(registration.token, try push.deviceToken())
    }

    func testSyncsRunInFileOrderAndANameThatIsNotThereListsTheNames() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let session = try await AppSession.start(options(org))
        _ = try await session.login(username: "alice@acme.test", password: "alice-pass")
        let outcomes = try await session.runConfiguredSyncs()
        XCTAssertEqual(outcomes.map(\.type), [.syncUp, .syncDown], "the sample's usersyncs.json: sync up, then sync down")
        XCTAssertEqual(outcomes.last?.status, .done)
        XCTAssertEqual(outcomes.last?.count, 1000, "Acme's 1,000 contacts")
        XCTAssertTrue(outcomes.last!.description.hasPrefix("sync down: DONE, 1000 record(s) fetched"), outcomes.last!.description)
        do {
            _ = try await session.runConfiguredSyncs(only: "nope")
            XCTFail("an unknown sync name ran")
        } catch let error as AppError {
            XCTAssertTrue(error.description.contains("no sync named nope"), error.description)
            XCTAssertTrue(error.description.contains("syncDownContacts"), "names the syncs there are: \(error.description)")
        }
    }

    func testRecordsOfASoupAreEditedLocallyAndAnUnknownSoupNamesTheSoups() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let session = try await AppSession.start(options(org))
        _ = try await session.login(username: "alice@acme.test", password: "alice-pass")
        let editor = try await RecordEditor(session, soup: "contacts")
        let saved = try editor.add(try RecordEditor.values(json: #"{"LastName": "Zed", "Age": 3}"#, set: ["FirstName=Ann"]))
        let id = try XCTUnwrap(saved["Id"]?.stringValue)
        try editor.edit(id: id, changes: ["Title": .string("CTO")])
        let newest = try XCTUnwrap(editor.list().first)
        XCTAssertEqual(newest["Id"]?.stringValue, id, "newest first")
        XCTAssertEqual(newest["Title"]?.stringValue, "CTO")
        XCTAssertEqual(newest["__local__"]?.boolValue, true)
        XCTAssertTrue(RecordEditor.line(newest).hasPrefix("* \(id)  "), RecordEditor.line(newest))
        try editor.delete(id: id)
        XCTAssertEqual(try editor.list().first?["__locally_deleted__"]?.boolValue, true)

        do {
            _ = try await RecordEditor(session, soup: "accounts")
            XCTFail("a soup that is not in the store was edited")
        } catch let error as AppError {
            XCTAssertTrue(error.description.contains("no soup accounts"), error.description)
            XCTAssertTrue(error.description.contains("contacts"), error.description)
        }
        XCTAssertThrowsError(try RecordEditor.values(json: "[1]", set: []))
        XCTAssertThrowsError(try RecordEditor.values(json: nil, set: ["=x"]))
    }

    /// The shell's list screen and the widget show the same entries in the same order: one query, read
    /// from the widget's WidgetConfig.plist (here changed from the sample's to last names A→Z, 2 of them).
    func testTheShellsListScreenAndTheWidgetUseOneQuery() async throws {
        let config: [String: Any] = ["title": "By Name", "soup": "contacts", "fields": ["FirstName", "LastName"], "orderPath": "LastName", "ascending": true, "count": 2]
        try PropertyListSerialization.data(fromPropertyList: config, format: .xml, options: 0).write(to: widgetURL.appendingPathComponent("WidgetConfig.plist"))
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let session = try await AppSession.start(options(org))
        let lines = Lines()
        let prompts = AppShell.Prompts(
            login: { _, host in AuthHelper.LoginEntry(loginHost: host, username: "alice@acme.test", password: "alice-pass", passcode: nil) },
            passcode: { _ in nil })
        let shell = AppShell(session: session, prompts: prompts) { lines.add($0) }
        shell.open("left", announce: false)
        shell.open("right", announce: false)
        XCTAssertEqual(shell.rootOf("left"), "LaunchScreen (login deferred)")
        try await shell.run(["login-if-required"])
        XCTAssertEqual(shell.rootOf("left"), "ContactsList(alice@acme.test)")
        XCTAssertEqual(shell.rootOf("right"), "ContactsList(alice@acme.test)")
        try await shell.run(["sync"])
        lines.clear()
        try await shell.run(["show"])
        let shown = lines.text.filter { $0.hasPrefix("    ") }.map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertEqual(shown.count, 4, "two scenes, two entries each: \(lines.text)")

        let widget = try await AppWidget.evaluate(try ProcessLaunch(bundlePath: widgetURL.path, devicePath: devicePath, secretStore: keychain))
        XCTAssertEqual(widget.state, .listed, widget.message)
        XCTAssertEqual(widget.title, "By Name")
        let names = widget.contacts.map { [$0.FirstName, $0.LastName].compactMap { $0 }.joined(separator: " ") }
        XCTAssertEqual(names.count, 2)
        XCTAssertEqual(Array(shown.prefix(2)), names, "the shell shows what the widget shows, in its order")
        XCTAssertLessThanOrEqual(widget.contacts[0].LastName ?? "", widget.contacts[1].LastName ?? "", "ascending by LastName")

        do {
            try await shell.run(["bogus"])
            XCTFail("an unknown command ran")
        } catch {
            XCTAssertTrue("\(error)".contains("unknown command"), "\(error)")
        }
    }
}
