import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import CoreEngine
@testable import CoreNetworkEngine
import XCTest


/// The SDK's side of IDP login, in process against a real org on loopback: the URL commands, the SP's
/// pending login per scene, the IDP's code for the SP's connected app got with its own session, and
/// every refusal leaving nothing behind.
final class IdentityProviderTests: XCTestCase {
    var root: URL!
    let keychain = InMemorySecretStore()
    var org: OrgHarness!
    var idp: UserAccountManager!
    var sp: UserAccountManager!

    override func setUp() async throws {
        root = try TestSupport.temporaryDirectory(self)
        for name in ["CompanyLogin.app", "FieldSales.app"] {
            try FileManager.default.copyItem(
                at: TestSupport.packageRoot.appendingPathComponent("Fixtures/IDP/\(name)"), to: root.appendingPathComponent(name))
        }
        org = try await OrgHarness.start()
        idp = try sdk("CompanyLogin.app").userAccountManager
        sp = try sdk("FieldSales.app").userAccountManager
        for manager in [idp!, sp!] { try DeviceApps(device: manager.launch.sandbox.device).install(manager.launch.sandbox.bundle) }
        await idp.loadAccountKey()
        await sp.loadAccountKey()
    }

    override func tearDown() async throws { await org?.stop(); (org, idp, sp) = (nil, nil, nil) }

    func sdk(_ app: String) throws -> SDKManager {
        let launch = try ProcessLaunch(
            bundlePath: root.appendingPathComponent(app).path, devicePath: root.appendingPathComponent("device").path, secretStore: keychain)
        return SDKManager.initializeSDK(.mobileSync, launch: launch, events: SDKEvents())
    }


    func testCommandsRoundTripWithTheSDKsNamesAndKeepPlusSigns() throws {
        let command = IDPCommand(scheme: "CompanyLogin", name: .authRequest, params: ["state": "a+b/c=", "scopes": "web,api", "login_host": "http://127.0.0.1:1"])
        let built = try command.url()
        XCTAssertTrue(built.absoluteString.hasPrefix("companylogin://oauth2/v1.0/authrequest?"), built.absoluteString)
        XCTAssertEqual(IDPCommand(url: built), command)
        XCTAssertNil(IDPCommand(url: URL(string: "companylogin://oauth2/v2.0/authrequest")!))
        XCTAssertNil(IDPCommand(url: URL(string: "companylogin://other/v1.0/authrequest")!))
        XCTAssertNil(IDPCommand(url: URL(string: "companylogin://oauth2/v1.0/unknown")!))
        XCTAssertEqual(command.traceInfo, ["command": "authrequest", "to": "companylogin"])
    }

    /// SP asks, IDP answers with its own session, SP completes: tokens of its own, under its own client id.
    func testSPInitiatedLoginCompletesInTheSceneThatAsked() async throws {
        let idpAlice = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let idpRefresh = try await idp.tokens(idpAlice).refreshToken()

        let request = try await sp.beginIdentityProviderLogin(scene: "right", loginHost: org.baseURL, userHint: nil)
        XCTAssertEqual(request.scheme, "companylogin")
        XCTAssertEqual(request.name, .authRequest)
        let p = request.params
        XCTAssertEqual(p["oauth_client_id"], "3MVG9Acme.FieldSales")
        XCTAssertEqual(p["oauth_redirect_uri"], "fieldsales://oauth/done")
        XCTAssertEqual(p["scopes"], "web,api,refresh_token")
        XCTAssertEqual(p["app_name"], "Field Sales")
        XCTAssertEqual(p["calling_app_url"], "fieldsales://oauth2/v1.0/authresponse")
        XCTAssertEqual(p["scene_id"], "right")
        XCTAssertEqual(p["code_challenge"]?.count, 43)
        // The verifier is in the keychain, not in the pending record.
        let state = try XCTUnwrap(p["state"])
        XCTAssertEqual(try sp.pendingIDPLogins()["right"]?.state, state)
        let defaultsText = try String(contentsOf: sp.launch.sandbox.standardDefaults.url, encoding: .utf8)
        let verifier = try XCTUnwrap(try keychain.search(["service": UserAccountManager.idpVerifierService]).first).secret
        XCTAssertFalse(defaultsText.contains(String(decoding: verifier, as: UTF8.self)))

        let answer = try await idp.answerAuthRequest(request) { accounts, _ in .account(accounts[0]) }
        XCTAssertEqual(answer.name, .authResponse, "\(answer.params)")
        XCTAssertEqual(answer.scheme, "fieldsales")
        XCTAssertEqual(answer.params["state"], state)
        XCTAssertEqual(answer.params["scene_id"], "right")

        let account = try await sp.handleIdentityProviderResponse(from: answer.url())
        XCTAssertEqual(account.username, "alice@acme.test")
        XCTAssertEqual(account.credentials.clientId, "3MVG9Acme.FieldSales")
        XCTAssertEqual(try sp.currentUser()?.username, "alice@acme.test")
        let spRefresh = try await sp.tokens(account).refreshToken()
        let idpRefreshAfter = try await idp.tokens(idpAlice).refreshToken()
        XCTAssertNotNil(spRefresh)
        XCTAssertNotEqual(spRefresh, idpRefresh)
        XCTAssertEqual(idpRefreshAfter, idpRefresh, "the IDP's session is its own and unchanged")
        // One answer per request: the pending login and its verifier are gone; the same answer again is refused.
        XCTAssertNil(try sp.pendingIDPLogins()["right"])
        XCTAssertTrue(try keychain.search(["service": UserAccountManager.idpVerifierService]).isEmpty)
        await assertRefused(try await sp.handleIdentityProviderResponse(from: answer.url()), contains: "no identity provider login is pending in scene right")
    }

    func testAStateThatMatchesNoneOrAnUnknownSceneIsRefusedAndKeepsTheRealLoginPending() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let request = try await sp.beginIdentityProviderLogin(scene: "left", loginHost: org.baseURL, userHint: nil)
        let answer = try await idp.answerAuthRequest(request) { accounts, _ in .account(accounts[0]) }
        var forged = answer
        forged.params["state"] = "forged"
        await assertRefused(try await sp.handleIdentityProviderResponse(from: forged.url()), contains: "state does not match")
        await assertRefused(
            try await sp.handleIdentityProviderResponse(from: answer.url(), with: [UserAccountManager.IDPSceneKey: "nowhere"]),
            contains: "no identity provider login is pending in scene nowhere")
        XCTAssertEqual(try sp.allAccounts(), [])
        // The real answer still completes the login that was pending.
        let account = try await sp.handleIdentityProviderResponse(from: answer.url())
        XCTAssertEqual(account.username, "alice@acme.test")
    }

    func testErrorsEndTheLoginAndKeepNothing() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        // The user cancels in the IDP.
        let request = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        let cancelled = try await idp.answerAuthRequest(request) { _, _ in .cancelled }
        XCTAssertEqual(cancelled.name, .error)
        XCTAssertEqual(cancelled.params["errorCode"], "user_cancelled")
        XCTAssertEqual(cancelled.params["errorReason"], "User cancelled authentication")
        do {
            _ = try await sp.handleIdentityProviderResponse(from: cancelled.url())
            XCTFail("a cancelled login completed")
        } catch SDKError.idpError(let code, _, _) {
            XCTAssertEqual(code, "user_cancelled")
        }
        XCTAssertNil(try sp.pendingIDPLogins()["main"])
        // A connected app that refuses the client: the org's error, passed on by the IDP.
        var rogue = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        rogue.params["oauth_client_id"] = "3MVG9Unknown"
        let refused = try await idp.answerAuthRequest(rogue) { accounts, _ in .account(accounts[0]) }
        XCTAssertEqual(refused.params["errorCode"], "invalid_client_id")
        XCTAssertEqual(refused.params["errorDescription"], "client identifier invalid")
        // A redirect URI the SP's connected app does not have: the org's refusal, and no code, to that scheme.
        var redirect = rogue
        redirect.params["oauth_client_id"] = "3MVG9Acme.FieldSales"
        redirect.params["oauth_redirect_uri"] = "evil://steal"
        let mismatch = try await idp.answerAuthRequest(redirect) { accounts, _ in .account(accounts[0]) }
        XCTAssertEqual(mismatch.params["errorCode"], "redirect_uri_mismatch")
        XCTAssertEqual(mismatch.scheme, "evil")
        XCTAssertNil(mismatch.params["code"])
        // An app that is not an identity provider answers error too.
        let notIDP = try await sp.answerAuthRequest(request) { accounts, _ in .cancelled }
        XCTAssertEqual(notIDP.params["errorCode"], "not_identity_provider")
        XCTAssertEqual(try sp.allAccounts(), [])
        let live = try keychain.search(["service": TokenStore.refreshService]).filter { !$0.secret.isEmpty }
        XCTAssertEqual(live.count, 1, "only the IDP's own session is live")
    }

    func testIDPInitiatedLoginSwitchesToAUserTheSPHasOrAsksBack() async throws {
        let alice = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let initiated = idp.identityProviderInitiated(spScheme: "fieldsales", account: alice)
        XCTAssertEqual(initiated.params["user_hint"], "0055g00000AliceAAA:00D5g00000AcmeeEAA")
        let asked = try await sp.handleIdentityProviderInitiated(initiated, fallbackLoginHost: nil)
        let request = try XCTUnwrap(asked)
        XCTAssertEqual(request.params["user_hint"], "0055g00000AliceAAA:00D5g00000AcmeeEAA")
        let answer = try await idp.answerAuthRequest(request) { accounts, hint in
            .account(try XCTUnwrap(try self.idp.account(matchingHint: try XCTUnwrap(hint))))
        }
        _ = try await sp.handleIdentityProviderResponse(from: answer.url())
        // Again: the SP has alice, so it only makes her current.
        let again = try await sp.handleIdentityProviderInitiated(initiated, fallbackLoginHost: nil)
        XCTAssertNil(again)
        XCTAssertEqual(try sp.currentUser()?.username, "alice@acme.test")
    }

    /// An app that asks in another app's name (its client id and redirect URI, its own calling_app_url) gets
    /// nothing: the answer, code and all, goes to the scheme of the redirect URI the org registered.
    func testTheIDPAnswersOnlyTheRegisteredRedirectSchemeNeverTheCallingAppURL() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        var request = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        request.params["calling_app_url"] = "squatter://oauth2/v1.0/authresponse"
        let answer = try await idp.answerAuthRequest(request) { accounts, _ in .account(accounts[0]) }
        XCTAssertEqual(answer.name, .authResponse)
        XCTAssertEqual(answer.scheme, "fieldsales", "the code goes to the client's registered callback scheme")
        XCTAssertTrue(try answer.url().absoluteString.hasPrefix("fieldsales://"))
        // The cancelled answer too.
        let cancelled = try await idp.answerAuthRequest(request) { _, _ in .cancelled }
        XCTAssertEqual(cancelled.scheme, "fieldsales")
    }

    /// No usable redirect URI: nowhere to answer, one refusal, never a trap in URL building.
    func testARequestWithNoUsableRedirectURIIsRefusedWithoutAnAnswer() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let request = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        for bad in [nil, "", "no-scheme-here", "://x", "1abc://x", "a b://x", "é://x", "\u{0}://"] as [String?] {
            var forged = request
            forged.params["oauth_redirect_uri"] = bad
            forged.params["calling_app_url"] = bad
            await assertRefused(try await idp.answerAuthRequest(forged) { accounts, _ in .account(accounts[0]) }, contains: "no usable oauth_redirect_uri")
        }
        XCTAssertThrowsError(try IDPCommand(scheme: "", name: .error, params: [:]).url())
        XCTAssertThrowsError(try IDPCommand(scheme: "a/b", name: .error, params: [:]).url())
    }

    /// The verifier goes only to the login host the login was started at: an answer naming another host is
    /// refused, and the real login stays pending and completes.
    func testAResponseNamingAnotherLoginHostIsRefusedAndTheLoginStaysPending() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let request = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        let answer = try await idp.answerAuthRequest(request) { accounts, _ in .account(accounts[0]) }
        for rogue in ["http://127.0.0.1:9", "https://login.evil.test", "\(org.baseURL.scheme!)://\(org.baseURL.host!):1"] {
            var forged = answer
            forged.params["login_host"] = rogue
            await assertRefused(try await sp.handleIdentityProviderResponse(from: forged.url()), contains: "names login host")
            XCTAssertNotNil(try sp.pendingIDPLogins()["main"], "the real login is still pending")
            XCTAssertEqual(try keychain.search(["service": UserAccountManager.idpVerifierService]).count, 1)
        }
        let account = try await sp.handleIdentityProviderResponse(from: answer.url())
        XCTAssertEqual(account.username, "alice@acme.test")
    }

    func testAnEmptyCodeWithTheRightStateIsRefusedAndTheLoginStaysPending() async throws {
        _ = try await idp.login(org: org.baseURL, username: "alice@acme.test", password: "alice-pass", passcode: nil)
        let request = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
        let answer = try await idp.answerAuthRequest(request) { accounts, _ in .account(accounts[0]) }
        for code in ["", nil] as [String?] {
            var forged = answer
            forged.params["code"] = code
            await assertRefused(try await sp.handleIdentityProviderResponse(from: forged.url()), contains: "has no code")
            XCTAssertNotNil(try sp.pendingIDPLogins()["main"])
        }
        let account = try await sp.handleIdentityProviderResponse(from: answer.url())
        XCTAssertEqual(account.username, "alice@acme.test")
    }

    /// A login that cannot be sent (no app claims the IDP's scheme, or two do) keeps no pending login and
    /// no verifier item.
    func testALoginThatCannotStartLeavesNothingBehind() async throws {
        let apps = DeviceApps(device: sp.launch.sandbox.device)
        let registry = sp.launch.sandbox.device.root.appendingPathComponent("InstalledApps.plist")
        try FileManager.default.removeItem(at: registry)
        try apps.install(sp.launch.sandbox.bundle)
        do {
            _ = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
            XCTFail("a login started with no identity provider app installed")
        } catch SDKError.idpError(let code, _, _) {
            XCTAssertEqual(code, "idp_not_installed")
        }
        XCTAssertEqual(try sp.pendingIDPLogins(), [:])
        XCTAssertEqual(try keychain.search(["service": UserAccountManager.idpVerifierService]).count, 0)
        // Two apps claim the IDP's scheme: a squatter could get the request.
        try apps.install(idp.launch.sandbox.bundle)
        let twin = root.appendingPathComponent("Twin.app")
        try FileManager.default.copyItem(at: idp.launch.sandbox.bundle.url, to: twin)
        var info = try XCTUnwrap(try PropertyListSerialization.propertyList(from: Data(contentsOf: twin.appendingPathComponent("Info.plist")), format: nil) as? [String: Any])
        info["CFBundleIdentifier"] = "com.acme.twin"
        try PropertyListSerialization.data(fromPropertyList: info, format: .xml, options: 0).write(to: twin.appendingPathComponent("Info.plist"))
        try apps.install(try AppBundle(at: twin))
        do {
            _ = try await sp.beginIdentityProviderLogin(scene: "main", loginHost: org.baseURL, userHint: nil)
            XCTFail("a login started with the IDP's scheme claimed twice")
        } catch let failure as DeviceApps.Failure {
            guard case .schemeClaimedTwice = failure else { return XCTFail("\(failure)") }
        }
        XCTAssertEqual(try sp.pendingIDPLogins(), [:])
        XCTAssertEqual(try keychain.search(["service": UserAccountManager.idpVerifierService]).count, 0)
    }

    func assertRefused<T>(_ body: @autoclosure () async throws -> T, contains text: String, file: StaticString = #filePath, line: UInt = #line) async {
        do {
            _ = try await body()
            XCTFail("not refused", file: file, line: line)
        } catch {
            XCTAssertTrue("\(error)".contains(text), "\(error)", file: file, line: line)
            XCTAssertTrue("\(error)".contains("nothing was kept"), "\(error)", file: file, line: line)
        }
    }
}
