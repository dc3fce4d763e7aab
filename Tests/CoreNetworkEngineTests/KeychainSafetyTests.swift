import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import CoreEngine
@testable import CoreNetworkEngine
import XCTest

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Nothing is deleted that cannot be completed: logout and the launch check with a keychain that
/// cannot be used, revocation at the org, and the tokens of logins that never became accounts.
final class KeychainSafetyTests: FixtureAppTestCase {

    func sdk() throws -> SDKManager {
        let launch = try ProcessLaunch(bundlePath: appURL.path, devicePath: devicePath, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents())
    }

    /// What the org says to a refresh with this token: true when it still accepts it.
    func orgAccepts(_ org: OrgHarness, refreshToken: String) async throws -> Bool {
        var request = URLRequest(url: org.baseURL.appendingPathComponent("services/oauth2/token"))
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        let token = refreshToken.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
        request.httpBody = Data("grant_type=refresh_token&refresh_token=\(token)&client_id=\(OrgHarness.app.clientId)&format=json".utf8)
        let (_, response) = try await URLSession.shared.data(for: request)
        return (response as? HTTPURLResponse)?.statusCode == 200
    }

    func loginAlice(_ sdk: SDKManager, _ org: OrgHarness) async throws -> (UserAccount, String) {
        let alice = try await sdk.userAccountManager.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        _ = try await sdk.userStore(for: alice)
        let refresh = try await sdk.userAccountManager.tokens(alice).refreshToken()
        return (alice, try XCTUnwrap(refresh))
    }

    func testEveryUnusableKeychainStopsTheLaunchWithKeychainUnavailableAndChangesNothing() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        let (alice, _) = try await loginAlice(sdk, org)
        let storeDir = try await sdk.storeManager().userDirectory(for: alice.storeUser)
        let modes: [SecretStoreAvailability] = [
            .noSessionBus(detail: "no bus"), .noSecretService(detail: "no provider"), .noDefaultCollection, .locked,
        ]
        for mode in modes {
            keychain.setAvailability(mode)
            do {
                try await accounts.verifyAtLaunch(recovery: .keepFiles)
                XCTFail("\(mode): the launch went on without a keychain")
            } catch let error as SDKError {
                XCTAssertTrue(error.description.contains("keychain unavailable"), "\(mode): \(error)")
                XCTAssertFalse(error.description.contains("no user is logged in"), "\(mode): \(error)")
            }
            do {
                try await accounts.logout(alice)
                XCTFail("\(mode): logout went on without a keychain")
            } catch let error as SDKError {
                XCTAssertTrue(error.description.contains("keychain unavailable"), "\(mode): \(error)")
            }
            XCTAssertEqual(try accounts.allAccounts().map(\.username), ["alice@acme.test"], "\(mode)")
            XCTAssertEqual(try accounts.currentUser()?.identity, alice.identity, "\(mode)")
            XCTAssertTrue(FileManager.default.fileExists(atPath: storeDir.appendingPathComponent("stores/defaultStore/store.sqlite").path), "\(mode)")
        }
        keychain.setAvailability(.ready)
        let stillLoggedIn = try await accounts.isLoggedIn(alice)
        XCTAssertTrue(stillLoggedIn)
    }

    func testTheSDKsRecoveryWhenAskedForIsComplete() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        let (alice, _) = try await loginAlice(sdk, org)
        let storeDir = try await sdk.storeManager().userDirectory(for: alice.storeUser)
        _ = accounts
        keychain.setAvailability(.noSecretService(detail: "gone"))
        // The next launch (a new process, which has not read the account key).
        let relaunched = try self.sdk().userAccountManager
        let deleted = try await relaunched.verifyAtLaunch(recovery: .sdkDestructive)
        XCTAssertEqual(deleted, [alice.identity.description])
        XCTAssertEqual(try relaunched.allAccounts(), [])
        XCTAssertNil(try launchDefaults().value(forKey: UserAccountManager.lastUserIdentityKey), "LastUserIdentity must go with the account")
        XCTAssertFalse(FileManager.default.fileExists(atPath: storeDir.appendingPathComponent("stores/defaultStore/store.sqlite").path))
    }

    func launchDefaults() throws -> SharedDefaults { try sdk().launch.dataSharing.msdkUserDefaults() }

    func testLogoutRevokesTheSessionAtTheOrg() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let (alice, refresh) = try await loginAlice(sdk, org)
        let acceptedBefore = try await orgAccepts(org, refreshToken: refresh)
        XCTAssertTrue(acceptedBefore, "the baseline: the org accepts the live token")
        let result = try await sdk.userAccountManager.logout(alice)
        XCTAssertNil(result.revokeFailure)
        let acceptedAfter = try await orgAccepts(org, refreshToken: refresh)
        XCTAssertFalse(acceptedAfter, "logout must revoke the refresh token at the org")
    }

    func testALogoutTheOrgCannotHearSaysSoAndStillEmptiesTheTokens() async throws {
        let org = try await OrgHarness.start()
        let sdk = try sdk()
        let (alice, _) = try await loginAlice(sdk, org)
        await org.stop()
        let result = try await sdk.userAccountManager.logout(alice)
        XCTAssertNotNil(result.revokeFailure, "a revoke that never reached the org must be reported")
        let refresh = try await sdk.userAccountManager.tokens(alice).refreshToken()
        XCTAssertNil(refresh)
    }

    /// What a login killed between the token exchange and the account file leaves: the journal entry
    /// and bob's token items, no account. Returns the items' keychain account.
    func interruptedLogin(_ sdk: SDKManager, _ org: OrgHarness) async throws -> String {
        let account = OAuthLogin.newKeychainAccount(OrgHarness.app)
        try sdk.userAccountManager.journal.begin(keychainAccount: account, loginHost: org.baseURL)
        _ = try await OAuthLogin.login(
            loginHost: org.baseURL, app: OrgHarness.app, username: "bob@acme.test", password: "bob-pass", keychain: sdk.launch.keychain,
            keychainAccount: account)
        return account
    }

    func testALoginInterruptedAfterTheTokenExchangeIsRevokedAndRemovedAtTheNextLaunch() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        let account = try await interruptedLogin(sdk, org)
        let stored = try await TokenStore(keychain: sdk.launch.keychain, account: account).refreshToken()
        let refresh = try XCTUnwrap(stored)
        let orphans = try await accounts.orphanedTokenAccounts()
        XCTAssertEqual(orphans, [account])

        let cleaned = try await accounts.cleanUpOrphanedTokens()
        XCTAssertEqual(cleaned.discarded, [account])
        XCTAssertEqual(cleaned.kept, [])
        let left = try await accounts.orphanedTokenAccounts()
        XCTAssertEqual(left, [])
        let items = try await sdk.launch.keychain.items().filter { $0.account == account }
        XCTAssertEqual(items, [], "the items must be removed")
        let accepted = try await orgAccepts(org, refreshToken: refresh)
        XCTAssertFalse(accepted, "the orphan's refresh token must be revoked at the org")
        XCTAssertNil(try accounts.journal.loginHost(keychainAccount: account))
    }

    /// app-lifecycle.sh found this: with app groups turned off, the account file stays under the group's
    /// SDK root, and a check of the current root alone took alice's live tokens for orphans.
    func testTokensOfAnAccountFiledUnderTheOtherSDKRootAreNeverTouched() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let (alice, refresh) = try await loginAlice(sdk, org)
        try sdk.launch.dataSharing.setAppGroupEnabled(false)
        let orphans = try await sdk.userAccountManager.orphanedTokenAccounts()
        XCTAssertEqual(orphans, [], "an account file under the other root still owns its tokens")
        let cleaned = try await sdk.userAccountManager.cleanUpOrphanedTokens()
        XCTAssertEqual(cleaned.discarded, [])
        let still = try await sdk.userAccountManager.tokens(alice).refreshToken()
        XCTAssertEqual(still, refresh)
        let accepted = try await orgAccepts(org, refreshToken: refresh)
        XCTAssertTrue(accepted)
    }

    func testLiveTokensNoLoginJournaledAreReportedButNeverRevoked() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let account = try await interruptedLogin(sdk, org)
        try sdk.userAccountManager.journal.end(keychainAccount: account)
        let orphans = try await sdk.userAccountManager.orphanedTokenAccounts()
        XCTAssertEqual(orphans, [account], "doctor still sees them")
        let cleaned = try await sdk.userAccountManager.cleanUpOrphanedTokens()
        XCTAssertEqual(cleaned.discarded, [], "tokens whose story the app does not know are not its to revoke")
        let left = try await sdk.userAccountManager.orphanedTokenAccounts()
        XCTAssertEqual(left, [account])
    }

    func testLoggingTheSameUserInAgainRevokesAndRemovesTheSessionItReplaces() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let (first, firstRefresh) = try await loginAlice(sdk, org)
        let (second, _) = try await loginAlice(sdk, org)
        XCTAssertNotEqual(first.credentials.keychainAccount, second.credentials.keychainAccount)
        let accepted = try await orgAccepts(org, refreshToken: firstRefresh)
        XCTAssertFalse(accepted, "the replaced session must be revoked at the org")
        let items = try await sdk.launch.keychain.items().filter { $0.account == first.credentials.keychainAccount }
        XCTAssertEqual(items, [])
        let orphans = try await sdk.userAccountManager.orphanedTokenAccounts()
        XCTAssertEqual(orphans, [])
    }

    func testAnOrphanTheOrgCannotRevokeYetIsKeptForTheNextLaunch() async throws {
        let org = try await OrgHarness.start()
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        let account = try await interruptedLogin(sdk, org)
        await org.stop()
        let cleaned = try await accounts.cleanUpOrphanedTokens()
        XCTAssertEqual(cleaned.kept, [account])
        let stillThere = try await accounts.orphanedTokenAccounts()
        XCTAssertEqual(stillThere, [account], "a token the org may still accept is not dropped unrevoked")
    }

    func testAFailedLoginKeepsNoTokenAndNoAccount() async throws {
        let org = try await OrgHarness.start()
        defer { Task { await org.stop() } }
        let sdk = try sdk()
        let accounts = sdk.userAccountManager
        // Globex requires a passcode: without one the login fails after the token exchange.
        do {
            _ = try await accounts.login(org: org.baseURL, username: "carol@globex.test", password: "carol-pass", passcode: nil)
            XCTFail("a login without the required passcode went through")
        } catch {}
        XCTAssertEqual(try accounts.allAccounts(), [])
        let items = try await sdk.launch.keychain.items().filter { $0.service.contains("oauth") }
        XCTAssertEqual(items, [], "the session's token items must be removed")
    }
}
