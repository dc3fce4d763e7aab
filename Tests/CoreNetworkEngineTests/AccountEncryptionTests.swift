import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

@testable import CoreNetworkEngine
@testable import CoreEngine

/// UserAccount.plist as the SDK keeps it: the SDK's keys, sealed with AES-256-GCM under a key kept in
/// the app's keychain group; LastUserIdentity as a keyed archive; older files read and sealed; damaged
/// files and other keys named and kept unless the SDK's recovery is asked for.
final class AccountEncryptionTests: FixtureAppTestCase {

    /// A new process of `bundle` (its own account manager, which has not read the key yet).
    func manager(_ bundle: URL? = nil) throws -> UserAccountManager {
        let launch = try ProcessLaunch(bundlePath: (bundle ?? appURL).path, devicePath: devicePath, secretStore: keychain)
        return UserAccountManager(launch: launch, events: SDKEvents())
    }

    let alice = UserAccount(
        credentials: OAuthCredentials(
            clientId: "3MVG9AppGroupSim.MobileSyncExplorer.Sample", redirectURI: "testsfdc:///mobilesdk/detect/oauth/done",
            loginHost: URL(string: "http://127.0.0.1:8443")!, instanceURL: URL(string: "http://127.0.0.1:8443")!,
            identityURL: URL(string: "http://127.0.0.1:8443/id/00D5g00000AcmeeEAA/0055g00000AliceAAA")!,
            orgId: "00D5g00000AcmeeEAA", userId: "0055g00000AliceAAA", keychainAccount: "3MVG9AppGroupSim.MobileSyncExplorer.Sample-abc"),
        username: "alice@acme.test", displayName: "Alice Archer", email: "alice@acme.test", screenLockPinLength: 4, screenLockTimeoutMinutes: 15)

    func saveAlice(_ accounts: UserAccountManager) async throws -> URL {
        try await accounts.ensureAccountKey()
        try accounts.files.save(alice)
        try accounts.setCurrentUser(alice)
        return try accounts.launch.dataSharing.sdkRoot().accountFile(orgId: alice.orgId, userId: alice.userId)
    }

    func keyItem() throws -> SecretStoreItem {
        try XCTUnwrap(try keychain.search(["service": AccountEncryption.keyService]).first)
    }

    func testTheFileIsSealedWithTheKeyInTheAppsGroupAndHoldsTheSDKsKeys() async throws {
        let app = try manager()
        let file = try await saveAlice(app)
        let sealed = try Data(contentsOf: file)
        XCTAssertFalse(AccountEncryption.isPlainPropertyList(sealed))
        XCTAssertNil(PlistValue.dictionary(propertyList: sealed), "not readable as a property list")
        XCTAssertFalse(String(decoding: sealed, as: UTF8.self).contains("alice"), "nothing in clear")
        let key = try keyItem()
        XCTAssertEqual(key.attributes["accessGroup"], "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer", "the app's first keychain group")
        // Wrapped as the SDK writes it: ECIES (X9.63 SHA-256, AES-GCM) to the EC key pair, whose private half opens it.
        XCTAssertEqual(key.secret.count, 113)
        let privateHalf = try XCTUnwrap(try keychain.search(["service": KeychainHelper.ecPrivateKeyTag]).first)
        XCTAssertEqual(privateHalf.attributes["accessible"], "afterFirstUnlockThisDeviceOnly")
        XCTAssertNotEqual(privateHalf.attributes["creator"], KeychainHelper.creator, "a key item: setAccessibleAttribute and removeAll leave it alone")
        let raw = try XCTUnwrap(unwrappedKey(key.secret, privateKey: privateHalf.secret))
        XCTAssertNil(unwrappedKey(key.secret, privateKey: Array(repeating: 7, count: 32)), "another pair does not open it")
        let plain = try AccountEncryption.open(sealed, with: AccountKey(bytes: raw).symmetric)
        let dict = try XCTUnwrap(PlistValue.dictionary(propertyList: plain))
        XCTAssertEqual(Set(dict.keys), ["accessScopes", "credentials", "idData", "customData", "accessRestrictions", "notificationTypes"])
        let credentials = try XCTUnwrap(dict["credentials"]?.dictionaryValue)
        XCTAssertEqual(credentials["SFOAuthIdentifier"], "3MVG9AppGroupSim.MobileSyncExplorer.Sample-abc")
        XCTAssertEqual(credentials["SFOAuthDomain"], "127.0.0.1:8443")
        XCTAssertEqual(credentials["SFOAuthOrganizationId"], "00D5g00000AcmeeEAA")
        XCTAssertEqual(dict["idData"]?.dictionaryValue?["mobile_policy"]?.dictionaryValue?["pin_length"], 4)
        // Every field comes back, in a new process.
        let relaunched = try manager()
        await relaunched.loadAccountKey()
        XCTAssertEqual(try relaunched.allAccounts(), [alice])
        XCTAssertEqual(try relaunched.currentUser(), alice)
    }

    func testEachSealIsFreshAndAChangedByteIsRefused() throws {
        let key = AccountKey(bytes: Array(repeating: 7, count: 32))
        let a = try AccountEncryption.seal(Data("same".utf8), with: key.symmetric)
        let b = try AccountEncryption.seal(Data("same".utf8), with: key.symmetric)
        XCTAssertNotEqual(a, b, "a new nonce each time")
        XCTAssertEqual(a.count, 12 + 4 + 16)
        var changed = a
        changed[14] ^= 1
        XCTAssertThrowsError(try AccountEncryption.open(changed, with: key.symmetric))
        XCTAssertThrowsError(try AccountEncryption.open(a.prefix(20), with: key.symmetric)) {
            XCTAssertTrue("\($0)".contains("truncated"), "\($0)")
        }
        XCTAssertEqual("\(key)", "AccountKey(256 bits)", "a key never prints its bytes")
    }

    func testLastUserIdentityIsTheSDKsKeyedArchiveAndTheOlderDictionaryStillReads() throws {
        let identity = UserIdentity(orgId: "00D5g00000AcmeeEAA", userId: "0055g00000AliceAAA")
        guard case .data(let data) = identity.plist else { return XCTFail("LastUserIdentity is not data: \(identity.plist)") }
        XCTAssertTrue(data.starts(with: Array("<?xml".utf8)), "the keyed archiver's XML form")
        let object = try XCTUnwrap(try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any])
        XCTAssertEqual(object["$archiver"] as? String, "NSKeyedArchiver")
        let objects = try XCTUnwrap(object["$objects"] as? [Any])
        XCTAssertTrue(objects.contains { ($0 as? [String: Any])?["$classname"] as? String == "SFUserAccountIdentity" })
        XCTAssertEqual(UserIdentity(plist: identity.plist), identity)
        // Foundation's own keyed unarchiver reads it as an SFUserAccountIdentity.
        let unarchiver = try NSKeyedUnarchiver(forReadingFrom: data)
        unarchiver.requiresSecureCoding = false
        unarchiver.setClass(IdentityProbe.self, forClassName: "SFUserAccountIdentity")
        let probe = try XCTUnwrap(unarchiver.decodeObject(forKey: "LastUserIdentity") as? IdentityProbe)
        XCTAssertEqual(probe.userId, "0055g00000AliceAAA")
        XCTAssertEqual(probe.orgId, "00D5g00000AcmeeEAA")
        // The binary form the SDK writes (Foundation turns the XML's CF$UID references into UIDs) reads too.
        let binary = try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0)
        XCTAssertTrue(binary.starts(with: Array("bplist00".utf8)))
        XCTAssertEqual(UserIdentity(plist: .data(binary)), identity)
        XCTAssertEqual(
            UserIdentity(plist: .dictionary(["orgId": "00D5g00000AcmeeEAA", "userId": "0055g00000AliceAAA"])),
            UserIdentity(orgId: "00D5g00000AcmeeEAA", userId: "0055g00000AliceAAA"))
        for junk: PlistValue in [.data(Data("bplist00garbage".utf8)), .data(Data()), .string("0051"), .data(Data(repeating: 0xFF, count: 40))] {
            XCTAssertNil(UserIdentity(plist: junk), "\(junk)")
        }
    }

    /// A file that a build before encryption wrote (a plain plist of our older keys) is read, and sealed
    /// at the app's next launch with nothing lost.
    func testAnAccountFileWrittenBeforeEncryptionIsReadAndSealedAtTheNextLaunch() async throws {
        let app = try manager()
        let file = try app.launch.dataSharing.sdkRoot().accountFile(orgId: alice.orgId, userId: alice.userId)
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .xml
        try SecureFiles.writeAtomically(try encoder.encode(alice), to: file)
        try app.launch.dataSharing.msdkUserDefaults().set(.dictionary(["orgId": "00D5g00000AcmeeEAA", "userId": "0055g00000AliceAAA"]), forKey: "LastUserIdentity")
        var older = alice
        older.accessScopes = []
        XCTAssertEqual(try app.allAccounts(), [older], "read as it is, before any key exists")
        try await app.verifyAtLaunch(recovery: .keepFiles)
        XCTAssertFalse(AccountEncryption.isPlainPropertyList(try Data(contentsOf: file)), "sealed at launch")
        let relaunched = try manager()
        await relaunched.loadAccountKey()
        XCTAssertEqual(try relaunched.allAccounts(), [older])
        XCTAssertEqual(try relaunched.currentUser(), older, "the older LastUserIdentity still names her")
    }

    func testAFileSealedWithAnotherKeyIsNamedAndKeptUnlessTheSDKsRecoveryIsAskedFor() async throws {
        let file = try await saveAlice(try manager())
        // Another key in the item (a keychain restored from elsewhere): the file no longer opens.
        let item = try keyItem()
        try keychain.store(item.attributes, label: "other", secret: Array(repeating: 1, count: 32))
        let before = try Data(contentsOf: file)
        let kept = try manager()
        try await kept.verifyAtLaunch(recovery: .keepFiles)
        XCTAssertThrowsError(try kept.allAccounts()) { error in
            guard case SDKError.accountUndecryptable(let path, let group, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file.path)
            XCTAssertEqual(group, "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer")
            XCTAssertTrue("\(error)".contains("--sdk-recovery"), "\(error)")
        }
        XCTAssertEqual(try Data(contentsOf: file), before, "kept as it was")

        let deleted = try await manager().verifyAtLaunch(recovery: .sdkDestructive)
        XCTAssertEqual(deleted, [alice.identity.description])
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path))
        XCTAssertNil(try manager().launch.dataSharing.msdkUserDefaults().value(forKey: "LastUserIdentity"))
    }

    func testAKeyItemThatIsNotAKeyIsRefusedOrRegeneratedByTheSDKsRecovery() async throws {
        let file = try await saveAlice(try manager())
        try keychain.store(try keyItem().attributes, label: "short", secret: [1, 2, 3])
        let app = try manager()
        await app.loadAccountKey()
        XCTAssertThrowsError(try app.allAccounts()) { error in
            guard case SDKError.accountKeyUnreadable(let path, _, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, file.path)
        }
        XCTAssertEqual(try keyItem().secret, [1, 2, 3], "nothing replaced without the recovery")
        let recovering = try manager()
        try await recovering.verifyAtLaunch(recovery: .sdkDestructive)
        XCTAssertEqual(try keyItem().secret.count, 113, "the SDK makes a new key (wrapped)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: file.path), "and then cannot read the account sealed with the old one")
    }

    /// A second process reads the account through the keychain group; without the group it cannot, and
    /// says so with the keychain's status: -25300 in its own groups, -34018 naming the app's group.
    func testAnExtensionReadsTheAccountThroughTheGroupAndFailsWithTheSDKsStatusWithoutIt() async throws {
        _ = try await saveAlice(try manager())
        let widget = try manager(widgetURL)
        guard case .loaded(_, let group) = await widget.loadAccountKey() else { return XCTFail("the widget could not read the key") }
        XCTAssertEqual(group, "SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer")
        XCTAssertEqual(try widget.currentUser()?.username, "alice@acme.test")

        try Run.editPlist(widgetURL.appendingPathComponent("RecentContacts.entitlements")) {
            $0["keychain-access-groups"] = ["$(AppIdentifierPrefix)com.salesforce.mobilesdk.RecentContacts"]
        }
        let outside = try manager(widgetURL)
        guard case .missing = await outside.loadAccountKey() else { return XCTFail("the key was found outside the group") }
        XCTAssertThrowsError(try outside.currentUser()) { error in
            guard case SDKError.accountKeyMissing = error else { return XCTFail("\(error)") }
            XCTAssertTrue("\(error)".contains("-25300"), "\(error)")
            XCTAssertTrue("\(error)".contains("keychain-access-groups"), "\(error)")
        }
        let named = await outside.launch.keychain.read(service: AccountEncryption.keyService, accessGroup: group)
        XCTAssertEqual(named.status, .missingEntitlement, "-34018: the app's group named explicitly")
    }
}

/// Stands in for the SDK's class when Foundation unarchives LastUserIdentity.
final class IdentityProbe: NSObject, NSCoding {
    let userId: String?
    let orgId: String?
    func encode(with coder: NSCoder) {}
    init?(coder: NSCoder) {
        userId = coder.decodeObject(forKey: "userIdKey") as? String
        orgId = coder.decodeObject(forKey: "orgIdKey") as? String
    }
}

private enum Run {
    static func editPlist(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
        var dict = try PropertyListSerialization.propertyList(from: Data(contentsOf: url), format: nil) as? [String: Any] ?? [:]
        change(&dict)
        try PropertyListSerialization.data(fromPropertyList: dict, format: .xml, options: 0).write(to: url)
    }
}
