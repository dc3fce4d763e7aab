import AppGroup
import CoreEngine
import CoreNetworkEngine
import Foundation
import SalesforceSDKCommon

/// The SDK's `SFSDKTestCredentialsData`: the fields of a `test_credentials.json` (the SDK's format, as its
/// `build/test_credentials.json` holds them, or `SimulatedOrg.testCredentials(…)` gives them for a simulated org).
public final class SFSDKTestCredentialsData: NSObject, @unchecked Sendable {
    private let dict: [AnyHashable: Any]

    public init(dict credentialsDict: [AnyHashable: Any]) {
        dict = credentialsDict
        super.init()
    }

    private func value(_ key: String) -> String { dict[key] as? String ?? "" }

    public var accessToken: String { value("access_token") }
    public var refreshToken: String { value("refresh_token") }
    public var identityUrl: String { value("identity_url") }
    public var instanceUrl: String { value("instance_url") }
    public var apiInstanceUrl: String { value("api_instance_url") }
    public var clientId: String { value("test_client_id") }
    public var redirectUri: String { value("test_redirect_uri") }
    public var loginHost: String { value("test_login_domain") }
    public var communityUrl: String { value("community_url") }
    public var username: String { value("username") }
    public var displayName: String { value("display_name") }

    /// Never the tokens: a test's output must not show them.
    public override var description: String { "SFSDKTestCredentialsData(\(username) at \(instanceUrl), client \(clientId))" }
}

/// The SDK's `TestSetupUtils` (public in its umbrella header): a test's session from saved credentials. As in
/// the SDK, `populateAuthCredentials…` reads and checks them, and `synchronousAuthRefresh()` makes the user:
/// here the engine's login steps after a refresh grant (the keychain, the account file, the current user).
/// A file or string without the fields the SDK asserts on stops the process with one line naming them, where
/// the SDK's `NSAssert` stops the test.
public final class TestSetupUtils: NSObject, @unchecked Sendable {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var populated: SFSDKTestCredentialsData?

    /// `ui_test_credentials.json` beside the test class: the UI tests' login entries.
    public class func populateUILoginInfoFromConfigFile(for testClass: AnyClass) -> [Any] {
        guard let url = resource("ui_test_credentials.json", for: testClass), let data = try? Data(contentsOf: url),
            let entries = try? JSONSerialization.jsonObject(with: data) as? [Any]
        else { SDKProcess.fail("TestSetupUtils: ui_test_credentials.json not found or not a JSON array beside \(testClass); add it to the test target's resources") }
        return entries
    }

    /// `test_credentials.json` beside the test class (its bundle, or the SwiftPM resource bundles beside the
    /// test binary), read, checked, and kept for `synchronousAuthRefresh()`; the SDK is initialised first.
    @discardableResult
    public class func populateAuthCredentialsFromConfigFile(for testClass: AnyClass) -> SFSDKTestCredentialsData {
        guard let url = resource("test_credentials.json", for: testClass), let data = try? Data(contentsOf: url) else {
            SDKProcess.fail("TestSetupUtils: test_credentials.json not found beside \(testClass); add it to the test target's resources (SimulatedOrg.testCredentials gives one for a simulated org)")
        }
        return populateAuthCredentials(from: String(decoding: data, as: UTF8.self), initializeSdk: true)
    }

    @discardableResult
    public class func populateAuthCredentials(from testCredentialsJsonString: String) -> SFSDKTestCredentialsData {
        populateAuthCredentials(from: testCredentialsJsonString, initializeSdk: true)
    }

    /// The SDK's checks: the refresh token, client id, redirect URI, login domain, identity and instance URLs
    /// are given, and the refresh token is not the template's `__INSERT_TOKEN_HERE__`.
    @discardableResult
    public class func populateAuthCredentials(from testCredentialsJsonString: String, initializeSdk: Bool) -> SFSDKTestCredentialsData {
        guard let dict = (try? JSONSerialization.jsonObject(with: Data(testCredentialsJsonString.utf8))) as? [AnyHashable: Any] else {
            SDKProcess.fail("TestSetupUtils: the test credentials are not a JSON object")
        }
        let data = SFSDKTestCredentialsData(dict: dict)
        let required = [("refresh_token", data.refreshToken), ("test_client_id", data.clientId), ("test_redirect_uri", data.redirectUri),
                        ("test_login_domain", data.loginHost), ("identity_url", data.identityUrl), ("instance_url", data.instanceUrl)]
        let missing = required.filter { $0.1.isEmpty }.map(\.0)
        if !missing.isEmpty { SDKProcess.fail("TestSetupUtils: config credentials are missing \(missing.joined(separator: ", "))") }
        if data.refreshToken == "__INSERT_TOKEN_HERE__" {
            SDKProcess.fail("TestSetupUtils: you need to obtain credentials for your test org and replace test_credentials.json")
        }
        if initializeSdk { SalesforceManager.initializeSDK() }
        lock.withLock { populated = data }
        return data
    }

    public class func synchronousAuthRefresh() { synchronousAuthRefresh(withUserDidLoginNotification: false) }

    /// Makes the session of the populated credentials the current user. The engine posts the SDK's
    /// `SFNotificationUserDidLogIn` with every login, so it is posted whatever `postUserDidLogIn` says.
    public class func synchronousAuthRefresh(withUserDidLoginNotification postUserDidLogIn: Bool) {
        guard let data = lock.withLock({ populated }) else {
            SDKProcess.fail("TestSetupUtils: call populateAuthCredentialsFromConfigFile(for:) before synchronousAuthRefresh()")
        }
        guard let login = CoreEngine.BootConfig.loginHostURL(data.loginHost), let instance = URL(string: data.instanceUrl), let identity = URL(string: data.identityUrl) else {
            SDKProcess.fail("TestSetupUtils: test_login_domain, instance_url and identity_url must be URLs")
        }
        let accounts = SDKEngine.current.loadedAccounts()
        let app = OAuthLogin.App(clientId: data.clientId, redirectURI: data.redirectUri, scopes: ["web", "api"])
        let refresh = data.refreshToken, access = data.accessToken.isEmpty ? nil : data.accessToken
        do {
            _ = try SDKProcess.blocking {
                try await accounts.logIn(refreshToken: refresh, accessToken: access, app: app, loginHost: login, instanceURL: instance, identityURL: identity)
            }
        } catch {
            SDKProcess.fail("TestSetupUtils: after auth attempt, expected the session to load: \(error)")
        }
    }

    /// The resource beside the test class (the engine's `TestResources`).
    static func resource(_ name: String, for testClass: AnyClass) -> URL? {
        let bundle = Bundle(for: testClass)
        return TestResources.url(named: name, bundleURL: bundle.bundleURL, resourceURL: bundle.resourceURL)
    }
}
