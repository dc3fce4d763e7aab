// A developer's own code, written with the SDK's API only, run as the app and then as its widget on one
// simulated device (AppGroupSimTesting): the contract the Mobile SDK's app-group sharing depends on.
import AppGroupSimTesting
import Combine
import Foundation
import MobileSync
import XCTest

let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
let appURL = packageRoot.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app")
let widgetURL = appURL.appendingPathComponent("PlugIns/RecentContacts.appex")
let group = "group.com.salesforce.mobilesdk.MobileSyncExplorer"

/// The widget's side, as the sample's extension writes it: the group first, then the login check, then the SDK.
func widgetNewestContacts() -> [String]? {
    DataSharingHelper.shared.appGroupName = group
    guard UserDefaults.msdk().bool(forKey: "userLoggedIn") else { return nil }
    MobileSyncSDKManager.initializeSDK()
    guard let user = UserAccountManager.shared.currentUserAccount,
          let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user),
          let spec = QuerySpec.buildSmartQuerySpec(
              smartSql: "SELECT {contacts:_soup} FROM {contacts} ORDER BY {contacts:_soupLastModifiedDate} DESC, {contacts:_soupEntryId} DESC", pageSize: 3),
          let rows = try? store.query(using: spec, startingFromPageIndex: 0) as? [[Any]]
    else { return [] }
    return rows.compactMap { ($0.first as? [String: Any])?["LastName"] as? String }
}

final class AppAndExtensionTests: XCTestCase {
    func testTheAppSyncsAndTheWidgetListsTheNewestThreeThroughTheGroup() async throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }

        // Before any login the widget's check stops it, as on a device.
        XCTAssertNil(try device.run(as: widgetURL) { widgetNewestContacts() })

        try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")

        // The app's data layer: the user store from userstore.json, then the configured sync down.
        let synced = try device.run(as: appURL) { () throws -> Int in
            MobileSyncSDKManager.initializeSDK()
            let user = try XCTUnwrap(UserAccountManager.shared.currentUserAccount)
            XCTAssertEqual(user.idData.username, "alice@acme.test")
            MobileSyncSDKManager.shared.setupUserStoreFromDefaultConfig()
            MobileSyncSDKManager.shared.setupUserSyncsFromDefaultConfig()
            let manager = SyncManager.sharedInstance(forUserAccount: user)
            XCTAssertTrue(manager.hasSync(forName: "syncDownContacts"))
            let done = DispatchSemaphore(value: 0)
            let outcome = Outcome()
            manager.reSyncWithoutUpdates(named: "syncDownContacts") { result in
                outcome.set(result)
                done.signal()
            }
            XCTAssertEqual(done.wait(timeout: .now() + 60), .success, "the sync down finished")
            let state = try XCTUnwrap(outcome.state, "sync down failed: \(String(describing: outcome.failure))")
            XCTAssertTrue(state.isDone())
            let store = try XCTUnwrap(SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user))
            return try store.count(using: QuerySpec.buildAllQuerySpec(soupName: "contacts", orderPath: "Id", order: .ascending, pageSize: 10)).intValue
        }
        XCTAssertGreaterThan(synced, 3)

        // The widget, as its own bundle: the group's store, the app's user, the newest three.
        let names = try XCTUnwrap(try device.run(as: widgetURL) { widgetNewestContacts() })
        XCTAssertEqual(names.count, 3)

        // An extension that has not set the group (the notification service, entitled to it) sees no user,
        // no login state and no store: the field failure. Once it sets the name, it sees the app's user.
        try device.run(as: appURL.appendingPathComponent("PlugIns/NotificationService.appex")) {
            XCTAssertNil(DataSharingHelper.shared.appGroupName)
            XCTAssertNil(UserAccountManager.shared.currentUserAccount)
            XCTAssertNil(SmartStore.shared(withName: SmartStore.defaultStoreName))
            XCTAssertFalse(UserDefaults.msdk().bool(forKey: "userLoggedIn"))
            DataSharingHelper.shared.appGroupName = group
            XCTAssertEqual(UserAccountManager.shared.currentUserAccount?.idData.username, "alice@acme.test")
        }
    }

    func testAnAppDataLayerPublishesWhatItSavesThroughCombine() async throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")
        let published = try device.run(as: appURL) { () -> [Int] in
            let user = UserAccountManager.shared.currentUserAccount!
            let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user)!
            _ = store.registerSoup(withName: "notes", withIndexPaths: ["title"])
            var counts: [Int] = []
            var cancellables = Set<AnyCancellable>()
            for title in ["a", "b"] {
                store.upsert(entries: [["title": title]], forSoupNamed: "notes")
                store.publisher(for: "select count(*) from {notes}")
                    .sink(receiveCompletion: { _ in }, receiveValue: { rows in counts.append(((rows as? [[Any]])?.first?.first as? Int) ?? -1) })
                    .store(in: &cancellables)
            }
            return counts
        }
        XCTAssertEqual(published, [1, 2])
    }
}

final class Outcome: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<SyncState, MobileSyncError>?
    func set(_ value: Result<SyncState, MobileSyncError>) { lock.withLock { result = value } }
    var state: SyncState? { lock.withLock { try? result?.get() } }
    var failure: MobileSyncError? {
        lock.withLock { if case .failure(let error) = result { return error } else { return nil } }
    }
}
