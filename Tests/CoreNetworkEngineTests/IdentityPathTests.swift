import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
@testable import CoreNetworkEngine
import SmartStoreEngine
import XCTest

@testable import CoreEngine

/// Ids from outside never become paths unchecked (issue 34, item 1): the org's identity URL, an account
/// file and `LastUserIdentity` name folders, and every recursive delete stays inside the folder it cleans.
final class IdentityPathTests: FixtureAppTestCase {

    func sdk() throws -> SDKManager {
        let launch = try ProcessLaunch(bundlePath: appURL.path, devicePath: devicePath, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents())
    }

    /// The fixture org with bob's user id replaced: a rogue org whose identity URL names that id.
    func rogueOrg(bobId: String) throws -> URL {
        let dir = root.appendingPathComponent("rogue-org")
        try FileManager.default.copyItem(at: OrgHarness.fixtureDirectory, to: dir)
        let orgs = dir.appendingPathComponent("orgs.json")
        let text = try String(contentsOf: orgs, encoding: .utf8).replacingOccurrences(of: "\"0055g00000BobbbAAA\"", with: "\"\(bobId)\"")
        try text.write(to: orgs, atomically: true, encoding: .utf8)
        return dir
    }

    func testARogueOrgsIdentityThatIsNotAUserIdIsRefusedAtLoginAndNothingIsTouched() async throws {
        for bobId in ["..", ".", "0055g00000BobbbAA/", "0015g00000BobbbAAA", "005..", "0055g00000Bob%2e%2e"] {
            let org = try await OrgHarness.start(dataDirectory: try rogueOrg(bobId: bobId))
            let sdk = try sdk()
            let accounts = sdk.userAccountManager
            let alice = try await accounts.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
            _ = try await sdk.userStore(for: alice)
            let library = try sdk.launch.dataSharing.sdkRoot().library
            let before = try TestSupport.treeHash(library)
            do {
                let bob = try await accounts.login(org: org.baseURL, username: "bob@acme.test", password: "bob-pass", passcode: nil)
                // Before the rule, bob was logged in as `..` and his logout removed the whole library, alice's account in it.
                _ = try? await accounts.logout(bob)
                XCTFail("\(bobId): a user id that is not one was logged in")
            } catch {
                XCTAssertTrue("\(error)".contains("is not a Salesforce user id"), "\(bobId): \(error)")
                XCTAssertTrue("\(error)".contains("login refused"), "\(bobId): \(error)")
            }
            XCTAssertEqual(try TestSupport.treeHash(library), before, "\(bobId): a refused login changed the library")
            XCTAssertEqual(try accounts.allAccounts().map(\.username), ["alice@acme.test"], bobId)
            XCTAssertEqual(try accounts.currentUser()?.identity, alice.identity, bobId)
            _ = try await accounts.logout(alice)
            await org.stop()
            try FileManager.default.removeItem(at: root.appendingPathComponent("rogue-org"))
            try FileManager.default.removeItem(atPath: devicePath)
        }
    }

    func testTheIdentityURLsIdsMustBeAnOrgIdAndAUserId() throws {
        let ok = try OAuthLogin.identityIds(URL(string: "https://login.test/id/00D5g00000AcmeeEAA/0055g00000AliceAAA")!)
        XCTAssertEqual(ok.orgId, "00D5g00000AcmeeEAA")
        XCTAssertEqual(ok.userId, "0055g00000AliceAAA")
        XCTAssertNoThrow(try OAuthLogin.identityIds(URL(string: "https://login.test/id/00D5g00000Acmee/0055g00000Alice")!), "15-character ids")
        for bad in [
            "https://login.test/id/00D5g00000AcmeeEAA/..", "https://login.test/id/../0055g00000AliceAAA", "https://login.test/id/00D5g00000AcmeeEAA/",
            "https://login.test/id/00D5g00000AcmeeEAA/.", "https://login.test/id/0055g00000AliceAAA/00D5g00000AcmeeEAA",
            "https://login.test/id/00D5g00000AcmeeEAA/0055g00000Alic%C3%A9A", "https://login.test/id/00D5g00000AcmeeEAA/0055g00000AliceAAAA",
            "https://login.test/id/00D5g00000AcmeeEAA", "https://login.test/00D5g00000AcmeeEAA/0055g00000AliceAAA",
        ] {
            XCTAssertThrowsError(try OAuthLogin.identityIds(URL(string: bad)!), bad)
        }
    }

    func testAnAccountFileOrLastUserIdentityNamingDotDotIsNotAnAccount() throws {
        let archive = { (org: String, user: String) -> PlistValue in .data(LastUserIdentityArchive.encode(UserIdentity(orgId: org, userId: user))) }
        XCTAssertEqual(UserIdentity(plist: archive("00D5g00000AcmeeEAA", "0055g00000AliceAAA"))?.userId, "0055g00000AliceAAA")
        XCTAssertNil(UserIdentity(plist: archive("00D5g00000AcmeeEAA", "..")))
        XCTAssertNil(UserIdentity(plist: archive("..", "0055g00000AliceAAA")))
        XCTAssertNil(UserIdentity(plist: .dictionary(["orgId": "00D5g00000AcmeeEAA", "userId": ""])))
        let credentials = OAuthCredentials(
            clientId: "c", redirectURI: "r", loginHost: URL(string: "https://login.test")!, instanceURL: URL(string: "https://i.test")!,
            identityURL: URL(string: "https://login.test/id/00D5g00000AcmeeEAA/0055g00000AliceAAA")!, orgId: "00D5g00000AcmeeEAA",
            userId: "0055g00000AliceAAA", keychainAccount: "c-1")
        var account = UserAccount(credentials: credentials, username: "alice@acme.test", displayName: "Alice", email: "a@acme.test")
        XCTAssertNotNil(UserAccount(sdkArchive: account.sdkArchive))
        account.credentials.userId = ".."
        XCTAssertNil(UserAccount(sdkArchive: account.sdkArchive), "an account file naming .. is refused as not an account")
    }

    func testAPathComponentFromAnIdNeverNamesTheFolderOrItsParent() {
        XCTAssertEqual(DeviceLayout.safePathComponent(".."), "_..")
        XCTAssertEqual(DeviceLayout.safePathComponent("."), "_.")
        XCTAssertEqual(DeviceLayout.safePathComponent(""), "_")
        XCTAssertEqual(DeviceLayout.safePathComponent("a/b:c@d"), "a_b_c_d")
        let root = DeviceLayout.SDKRoot(URL(fileURLWithPath: "/tmp/x"))
        XCTAssertEqual(root.accountDirectory(orgId: "..", userId: "..").path, "/tmp/x/Library/_../_..")
    }

    func testARecursiveDeleteStaysInsideItsFolderAndNeverTakesAParent() throws {
        let fm = FileManager.default
        let library = root.appendingPathComponent("Library")
        let alice = library.appendingPathComponent("00D5g00000AcmeeEAA/0055g00000AliceAAA")
        let bob = library.appendingPathComponent("00D5g00000AcmeeEAA/0055g00000BobbbAAA")
        for dir in [alice, bob] {
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data("x".utf8).write(to: dir.appendingPathComponent("UserAccount.plist"))
        }
        let outside = root.appendingPathComponent("outside")
        try fm.createDirectory(at: outside, withIntermediateDirectories: true)
        try Data("keep".utf8).write(to: outside.appendingPathComponent("keep"))
        for (target, why) in [
            (library, "the folder itself"), (library.appendingPathComponent("00D5g00000AcmeeEAA"), "the parent of both users"),
            (library.appendingPathComponent("00D5g00000AcmeeEAA/.."), "a climb"), (library.appendingPathComponent("00D5g00000AcmeeEAA/0055g00000AliceAAA/x"), "too deep"),
            (library.appendingPathComponent("../outside/x"), "outside"),
        ] {
            XCTAssertThrowsError(try SecureFiles.removeTree(target, inside: library, depth: 2), why) { error in
                XCTAssertTrue("\(error)".contains("nothing was deleted"), "\(why): \(error)")
            }
        }
        // A user's folder that is a link to elsewhere is not followed.
        let link = library.appendingPathComponent("00D5g00000AcmeeEAA/0055g00000EveeeAAA")
        try fm.createSymbolicLink(at: link, withDestinationURL: outside)
        XCTAssertThrowsError(try SecureFiles.removeTree(link, inside: library, depth: 2))
        XCTAssertTrue(fm.fileExists(atPath: outside.appendingPathComponent("keep").path))
        XCTAssertTrue(fm.fileExists(atPath: alice.appendingPathComponent("UserAccount.plist").path))

        try SecureFiles.removeTree(bob, inside: library, depth: 2)
        XCTAssertFalse(fm.fileExists(atPath: bob.path))
        XCTAssertTrue(fm.fileExists(atPath: alice.appendingPathComponent("UserAccount.plist").path), "only bob's folder went")
        XCTAssertNoThrow(try SecureFiles.removeTree(bob, inside: library, depth: 2), "nothing there: nothing to do")
    }
}
