// SalesforceSDKCore's API as an app's data layer uses it, against a simulated device and org
// (AppGroupSimTesting): REST through the session's tokens, the directories the SDK gives a user, the
// notification blocks, revoking tokens, logout. Each check is of the files, items and answers the binaries see.
import AppGroupSimTesting
import Foundation
import MobileSync
import XCTest

final class SalesforceSDKCoreTests: XCTestCase {
    func testRestDirectoriesBlocksAndLogoutAsTheApp() async throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        let org = try await device.startOrg(definition: packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")

        try device.run(as: appURL) {
            DataSharingHelper.shared.appGroupName = group
            DataSharingHelper.shared.isAppGroupEnabled = true
            let user = try XCTUnwrap(UserAccountManager.shared.currentUserAccount)
            XCTAssertEqual(user.loginState, .loggedIn)
            XCTAssertNotNil(user.credentials.accessToken, "the session's token, from the keychain")

            // REST with the SDK's request builders and blocks, over a real socket to the org.
            let client = RestClient.shared
            let done = DispatchSemaphore(value: 0)
            let answer = Box<[String: Any]>()
            client.send(client.request(forQuery: "SELECT Id, LastName FROM Contact ORDER BY LastName LIMIT 2", apiVersion: nil), failureBlock: { _, error, _ in
                XCTFail("query failed: \(String(describing: error))")
                done.signal()
            }, successBlock: { response, _ in
                answer.value = response as? [String: Any]
                done.signal()
            })
            XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
            XCTAssertEqual((answer.value?["records"] as? [Any])?.count, 2)

            // The user's directories are in the group's SDK root, where the widget (with the group) finds them.
            let library = try XCTUnwrap(SFDirectoryManager.shared().directoryOfCurrentUser(forType: .libraryDirectory, components: ["recents"]))
            XCTAssertTrue(library.contains("/Shared/AppGroup/") || library.contains(group), library)
            XCTAssertTrue(library.hasSuffix("/\(user.accountIdentity.orgId)/\(user.accountIdentity.userId)/internal/recents"), library)
            try SFDirectoryManager.ensureDirectoryExists(library)
            var isDirectory: ObjCBool = false
            XCTAssertTrue(FileManager.default.fileExists(atPath: library, isDirectory: &isDirectory) && isDirectory.boolValue)

            // A revoked access token is refreshed by the next request (the refresh token is still there).
            user.credentials.revokeAccessToken()
            XCTAssertNil(user.credentials.accessToken)
            let again = DispatchSemaphore(value: 0)
            let refreshed = Box<Bool>()
            client.send(client.request(forLimits: nil), failureBlock: { _, _, _ in again.signal() }, successBlock: { _, _ in
                refreshed.value = true
                again.signal()
            })
            XCTAssertEqual(again.wait(timeout: .now() + 30), .success)
            XCTAssertEqual(refreshed.value, true, "a request after revokeAccessToken gets a new access token")
            XCTAssertNotNil(user.credentials.accessToken)

            // Logout in the SDK's order: the logout block runs, the current user is gone, the tokens are emptied.
            let loggedOut = Box<Bool>()
            AuthHelper.registerBlock(forLogoutNotifications: { loggedOut.value = true })
            UserAccountManager.shared.logout()
            XCTAssertEqual(loggedOut.value, true)
            XCTAssertNil(UserAccountManager.shared.currentUserAccount)
            XCTAssertEqual(user.loginState, .notLoggedIn)
        }
    }

    func testTheDirtyRecordsASyncUpWouldSend() throws {
        let device = try SimulatedDevice(keychain: .inMemory)
        try device.run(as: appURL) {
            let store = SmartStore.sharedGlobal(withName: "dirty")
            _ = store.registerSoup(withName: "contacts", withIndexPaths: ["Id", kSyncTargetLocal])
            store.upsert(entries: [["Id": "003A", kSyncTargetLocal: false], ["Id": "local_1", kSyncTargetLocal: true], ["Id": "003B", kSyncTargetLocal: true]],
                         forSoupNamed: "contacts")
            let rows = try XCTUnwrap(try? store.query("SELECT {contacts:Id} FROM {contacts} WHERE {contacts:__local__} = 1 ORDER BY {contacts:Id}").get() as? [[String]])
            XCTAssertEqual(rows, [["003B"], ["local_1"]], "the SDK's local flag, queryable")
            let target = SoqlSyncDownTarget.newSyncTarget("SELECT Id, LastName FROM Contact")
            XCTAssertEqual(target.getLatestModificationTimeStamp([["LastModifiedDate": "2026-10-31T22:44:38.221+0000"], ["LastModifiedDate": "2026-10-31T17:44:42.322+0000"]]),
                           1_793_486_678_221)
        }
    }
}

final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
