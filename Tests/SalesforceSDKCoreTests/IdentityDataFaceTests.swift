import AppGroupSimTestSupport
import AppGroupSimTesting
import Foundation
import SalesforceSDKCore
import XCTest

/// `IdentityData` (the SDK's `SFIdentityData`): the identity service's whole answer is kept with the account, read
/// with the SDK's keys, and is there again in the next process, which reads the account file. And the account's
/// custom data, which the app saves and its widget reads.
final class IdentityDataFaceTests: FixtureAppTestCase {
    var app: URL { appURL }
    var widget: URL { widgetURL }

    func testTheWholeAnswerIsKeptAndReadAfterARelaunch() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        // `run(as:)` makes the SDK's singletons again: the account comes from its file, not from the login.
        let read = try device.run(as: app) { () -> [String?] in
            guard let id = UserAccountManager.shared.currentUserAccount?.idData else { return [] }
            XCTAssertTrue(id.isActive)
            XCTAssertTrue(id.assertedUser)
            XCTAssertFalse(id.mobilePoliciesConfigured, "Acme's app has no screen-lock policy")
            XCTAssertEqual(id.idUrl.lastPathComponent, id.userId)
            XCTAssertEqual(id.dictRepresentation["user_id"] as? String, id.userId)
            XCTAssertNil(id.dictRepresentation["access_token"])
            return [id.username, id.nickname, id.firstName, id.lastName, id.restUrl, id.restQueryUrl, id.userType, id.language]
        }
        let base = org.url.absoluteString
        XCTAssertEqual(read, ["alice@acme.test", "alice", "Alice", "Archer", "\(base)/services/data/v{version}/",
                              "\(base)/services/data/v{version}/query/", "STANDARD", "en_US"])
    }

    func testTheScreenLockPolicyIsReadFromTheAnswer() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        // Globex's connected app asks for a passcode of 4 digits.
        try await device.logIn(app: app, org: org, username: "carol@globex.test", password: "carol-pass", passcode: "1234")
        let policy = try device.run(as: app) { () -> [Int32] in
            guard let id = UserAccountManager.shared.currentUserAccount?.idData, id.mobilePoliciesConfigured else { return [] }
            return [id.mobileAppPinLength, id.mobileAppScreenLockTimeout]
        }
        XCTAssertEqual(policy, [4, 1])
    }

    /// `initWithJsonDict:` with a Salesforce-shaped answer: nested `urls` and `photos`, a `null`, a custom
    /// attribute, and the SDK's date format (a fractional-second date does not match it, as in the SDK).
    func testInitFromJSONDictionary() {
        let json: [AnyHashable: Any] = [
            "id": "https://login.salesforce.com/id/00Dxx0000000001AAA/005xx0000000001AAA", "user_id": "005xx0000000001AAA",
            "organization_id": "00Dxx0000000001AAA", "username": "u@x.test", "display_name": NSNull(), "first_name": "Ada",
            "photos": ["picture": "https://x.test/p", "thumbnail": "https://x.test/t"], "urls": ["rest": "https://x.test/r/", "feed_items": "https://x.test/f"],
            "active": true, "utcOffset": -28_800_000, "mobile_policy": ["pin_length": 6, "screen_lock": 10],
            "custom_attributes": ["Region": "EMEA"], "last_modified_date": "2024-03-01T10:00:00+0000",
        ]
        let id = IdentityData(jsonDict: json)
        XCTAssertEqual(id.userId, "005xx0000000001AAA")
        XCTAssertNil(id.displayName, "null is no value")
        XCTAssertEqual(id.firstName, "Ada")
        XCTAssertEqual(id.pictureUrl?.absoluteString, "https://x.test/p")
        XCTAssertEqual(id.thumbnailUrl?.absoluteString, "https://x.test/t")
        XCTAssertEqual(id.restUrl, "https://x.test/r/")
        XCTAssertEqual(id.chatterFeedItemsUrl, "https://x.test/f")
        XCTAssertNil(id.restSearchUrl)
        XCTAssertTrue(id.isActive)
        XCTAssertEqual(id.utcOffset, -28_800_000)
        XCTAssertEqual(id.mobileAppPinLength, 6)
        XCTAssertEqual(id.mobileAppScreenLockTimeout, 10)
        XCTAssertEqual(id.customAttributes?["Region"] as? String, "EMEA")
        XCTAssertEqual(id.lastModifiedDate, Date(timeIntervalSince1970: 1_709_287_200))
        XCTAssertNil(IdentityData(jsonDict: ["last_modified_date": "2024-03-01T10:00:00.000+0000"]).lastModifiedDate)
        XCTAssertFalse(IdentityData(jsonDict: [:]).mobilePoliciesConfigured)
    }

    func testCustomDataSavedByTheAppIsReadByItsWidget() async throws {
        let device = try SimulatedDevice(at: root.appendingPathComponent("device"), keychain: .inMemory)
        let org = try await device.startOrg(definition: TestSupport.packageRoot.appendingPathComponent("Fixtures/org"))
        defer { Task { await org.stop() } }
        try await device.logIn(app: app, org: org, username: "alice@acme.test", password: "alice-pass")
        try device.run(as: app) {
            let user = try XCTUnwrap(UserAccountManager.shared.currentUserAccount)
            UserAccountManager.shared.setCustomData(withObject: ["region": "EMEA", "seats": 3] as [String: Any], key: "team", userAccount: user)
            user.setCustomDataObject("not saved", forKey: "draft")
            XCTAssertEqual(user.customDataObject(forKey: "draft") as? String, "not saved", "set on the instance")
            user.setCustomDataObject(NSObject(), forKey: "refused")
            XCTAssertNil(user.customDataObject(forKey: "refused"), "not a property-list value")
            user.removeCustomDataObject(forKey: "draft")
            XCTAssertNil(user.customDataObject(forKey: "draft"))
        }
        let again = try device.run(as: app) { () -> String? in
            (UserAccountManager.shared.currentUserAccount?.customDataObject(forKey: "team") as? [String: Any])?["region"] as? String
        }
        XCTAssertEqual(again, "EMEA", "read from the account file by the app's next process")
                // The widget's side, as the sample's extension writes it: the group first, then the SDK.
        let team = try device.run(as: widget) { () -> [String: Any]? in
            DataSharingHelper.shared.appGroupName = "group.com.salesforce.mobilesdk.MobileSyncExplorer"
            SalesforceManager.initializeSDK()
            return UserAccountManager.shared.currentUserAccount?.customDataObject(forKey: "team") as? [String: Any]
        }
        XCTAssertEqual(team?["region"] as? String, "EMEA")
        XCTAssertEqual(team?["seats"] as? Int, 3)
    }
}
