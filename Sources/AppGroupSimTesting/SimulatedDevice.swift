import AppGroup
import CoreEngine
import CoreNetworkEngine
import Foundation
import Keychain
import MobileApp
import OrgSimulator
import SalesforceSDKCommon
import UserNotifications
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where a test's keychain items go: the real Secret Service (libsecret, as the binaries; run the tests
/// under `scripts/with-keyring`), or an in-memory one that lives as long as the device object.
public enum SimulatedKeychain: Sendable {
    case secretService
    case inMemory
}

/// A simulated device for a test of a developer's own code (issue 26): a device directory, an org in this
/// process on 127.0.0.1, a user logged in by the app as `main-app login` does, and closures run as one
/// bundle, then another, against the same files, the same way the binaries and `inspect` see them.
///
/// ```swift
/// let device = try SimulatedDevice()
/// let org = try await device.startOrg(definition: orgDirectory)
/// try await device.logIn(app: appURL, org: org, username: "alice@acme.test", password: "alice-pass")
/// let names = try device.run(as: widgetURL) { /* the extension's code, with the SDK's API */ }
/// ```
public final class SimulatedDevice: @unchecked Sendable {
    /// The device directory (`APPGROUPSIM_DEVICE` for a process run as one of its bundles).
    public let url: URL
    let secretStore: (any SecretStore)?
    private let removeOnDeinit: Bool
    /// The backup files `backup()` wrote (in the temporary directory): removed with this object.
    private var backupFiles: [URL] = []
    private let backupLock = NSLock()

    /// - Parameter url: the device directory, made if missing; nil: a new temporary one, removed with this object.
    public init(at url: URL? = nil, keychain: SimulatedKeychain = .secretService) throws {
        if let url {
            self.url = url
            removeOnDeinit = false
        } else {
            self.url = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-device-\(UUID().uuidString)")
            removeOnDeinit = true
            TemporaryDevices.add(self.url)
        }
        _ = try Device.open(at: self.url, initialize: true)
        secretStore = keychain == .inMemory ? InMemorySecretStore() : nil
    }

    /// A device made by a restore: its directory is removed with this object, its keychain is the one the
    /// backup's device used.
    init(restored url: URL, secretStore: (any SecretStore)?) {
        self.url = url
        self.secretStore = secretStore
        removeOnDeinit = true
        TemporaryDevices.add(url)
    }

    deinit {
        if removeOnDeinit {
            try? FileManager.default.removeItem(at: url)
            TemporaryDevices.remove(url)
        }
        for file in backupFiles { try? FileManager.default.removeItem(at: file) }
    }

    /// Starts an org from a definition directory (`org.json`, `records/`, as `sf-simulator --data`) on a free
    /// port of 127.0.0.1, in this process. Stop it with `SimulatedOrg.stop()`.
    public func startOrg(definition directory: URL) async throws -> SimulatedOrg {
        try await SimulatedOrg.start(definition: directory)
    }

    /// Logs a user in as the app (`.app`), as `main-app login` does: the account file, the tokens in the
    /// keychain group, `LastUserIdentity` and the app's `userLoggedIn`. The app's bundle settings
    /// (`AppGroupConfig.plist`) apply, as at the app's launch. `passcode`: the screen lock's, when the org's
    /// connected app has a screen-lock policy (`main-app login --passcode`).
    public func logIn(app: URL, org: SimulatedOrg, username: String, password: String, passcode: String? = nil) async throws {
        let session = try await AppSession.start(
            AppLaunchOptions(bundle: app.path, device: url.path, org: org.url.absoluteString, passcode: passcode, secretStore: secretStore))
        _ = try await session.login(username: username, password: password)
    }

    /// The device's lock state (issue 36), as `msdk-sim device state` prints it: `beforeFirstUnlock`, `unlocked` or
    /// `locked`. Every process reads it at each keychain access.
    public var lockState: String {
        get throws { try Device.open(at: url).lockState().rawValue }
    }

    /// Locks the device, as the user pressing the side button: `afterFirstUnlock` items stay readable,
    /// `whenUnlocked` ones do not. A device before its first unlock stays so.
    public func lock() throws { try Device.open(at: url).lock() }

    /// Unlocks the device (the user enters the passcode): every class can be read.
    public func unlock() throws { try Device.open(at: url).setLockState(.unlocked) }

    /// Reboots the device: before its first unlock, only items of no protection class can be read, until `unlock()`.
    public func reboot() throws { try Device.open(at: url).setLockState(.beforeFirstUnlock) }

    /// Uninstalls the app as iOS does (`msdk-sim device uninstall`): its containers and its extensions', and an app
    /// group's container with the group's last app; the keychain keeps the app's items.
    public func uninstall(_ bundleIdentifier: String) throws {
        _ = try DeviceApps(device: Device.open(at: url)).uninstall(bundleID: bundleIdentifier)
    }

    /// Backs the device up as an encrypted iOS backup does (`msdk-sim device backup`): the containers' files with
    /// their protection classes, the installed apps, and the keychain items that are not `…ThisDeviceOnly` (kept
    /// in the keychain under the backup's id, never in the file). The device must be unlocked. The backup's file is
    /// removed with this device.
    public func backup() throws -> SimulatedDeviceBackup {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-backup-\(UUID().uuidString).backup")
        backupLock.withLock { backupFiles.append(file) }
        let summary = try DeviceBackup.backup(try Device.open(at: url), store: secretStore ?? LibsecretStore(), to: file)
        return SimulatedDeviceBackup(file: file, keychainItems: summary.keychainItems, keychainItemsLeftOut: summary.keychainItemsLeftOut)
    }

    /// A new phone set up from `backup` (`msdk-sim device restore`): a new device id, the backup's files and apps,
    /// and the keychain items it carried; the SDK's own items (afterFirstUnlockThisDeviceOnly) are not among them,
    /// so its apps find accounts they cannot read. It shares this device's keychain.
    public func restore(_ backup: SimulatedDeviceBackup) throws -> SimulatedDevice {
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-device-\(UUID().uuidString)")
        _ = try DeviceBackup.restore(backup.file, to: target, store: secretStore ?? LibsecretStore())
        return SimulatedDevice(restored: target, secretStore: secretStore)
    }

    /// Runs `body` as the bundle (`.app` or `.appex`) on this device: the SDK's singletons
    /// (`UserAccountManager.shared`, `DataSharingHelper.shared`, shared stores and sync managers) are made
    /// again for it, and again after.
    public func run<T>(as bundle: URL, _ body: () throws -> T) throws -> T {
        try SDKProcess.run(as: bundle, device: url, secretStore: secretStore, body)
    }

    /// Delivers the next notification in the app's inbox (the org's `push`) to the app's notification service
    /// extension (`extension`, an `.appex` in the app's PlugIns/) as iOS does: a new instance of `principal` (the
    /// developer's `UNNotificationServiceExtension` subclass), run as that bundle, with `budget` seconds to call
    /// the content handler before `serviceExtensionTimeWillExpire()`. What `msdk-sim device deliver` does in a
    /// process of its own.
    public func deliverNotification(
        to extension: URL, using principal: UNNotificationServiceExtension.Type, budget: TimeInterval = 30
    ) throws -> DeliveredNotification {
        try run(as: `extension`) { try NotificationServiceHost.deliverNext(principal: principal, budget: budget) }
    }
}

/// An org in this process, on a free port of 127.0.0.1 (the same server as `sf-simulator`).
public final class SimulatedOrg: @unchecked Sendable {
    public let url: URL
    private let org: EmbeddedOrg

    private init(org: EmbeddedOrg) {
        self.org = org
        url = URL(string: org.url)!
    }

    static func start(definition: URL) async throws -> SimulatedOrg {
        let token = ProcessInfo.processInfo.environment["APPGROUPSIM_ADMIN_TOKEN"] ?? "appgroupsim-testing-\(UUID().uuidString)"
        let org = try await EmbeddedOrg.start(.init(port: 0, dataDirectory: definition, adminToken: token))
        // A device registering for push reads the org's admin token here, as the apps do.
        setenv("APPGROUPSIM_ADMIN_TOKEN", token, 1)
        return SimulatedOrg(org: org)
    }

    /// The org pushes a notification to every device where `username` registered for push (its
    /// `POST /__admin/push`): encrypted as each device's `CipherName` says, or as `cipher` forces
    /// (`"RSA_OAEP_SHA256"`, or `"RSA_PKCS1"`, what Salesforce sent before the SDK 12). Returns how many devices got it.
    @discardableResult
    public func push(username: String, title: String, body: String, fields: [String: String] = [:], cipher: String? = nil) async throws -> Int {
        var request = URLRequest(url: url.appendingPathComponent("__admin/push"))
        request.httpMethod = "POST"
        request.setValue(ProcessInfo.processInfo.environment["APPGROUPSIM_ADMIN_TOKEN"] ?? "", forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        var json: [String: Any] = ["username": username, "title": title, "body": body, "fields": fields]
        if let cipher { json["cipher"] = cipher }
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        let answer = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        guard (response as? HTTPURLResponse)?.statusCode == 200, let delivered = answer?["delivered"] as? [Any] else {
            throw PushFailed(description: "the org delivered no notification to \(username): \(String(decoding: data, as: UTF8.self))")
        }
        return delivered.count
    }

    /// Switches the org's faults at run time (its `POST /__admin/faults`, what `msdk-sim explore`'s org steps send):
    /// `offline` true answers every API request `503 SERVER_UNAVAILABLE`, false answers again; `expireTokens` expires
    /// every access token (the apps refresh them with their refresh tokens).
    public func fault(offline: Bool? = nil, expireTokens: Bool = false) async throws {
        var json: [String: Any] = [:]
        if let offline { json["errorRate"] = offline ? 1 : 0 }
        if expireTokens { json["expireTokens"] = true }
        var request = URLRequest(url: url.appendingPathComponent("__admin/faults"))
        request.httpMethod = "POST"
        request.setValue(ProcessInfo.processInfo.environment["APPGROUPSIM_ADMIN_TOKEN"] ?? "", forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: json)
        let (data, response) = try await URLSession.shared.data(for: request)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else {
            throw PushFailed(description: "the org refused the faults \(json): \(String(decoding: data, as: UTF8.self))")
        }
    }

    /// The SDK's `test_credentials.json` for `username` of this org, logged in with the connected app of `app`'s
    /// `bootconfig.plist` (the SDK's keys: `test_client_id`, `test_redirect_uri`, `test_login_domain`,
    /// `refresh_token`, `access_token`, `instance_url`, `identity_url`, `username`), for
    /// `TestSetupUtils.populateAuthCredentials(from:)` as the SDK's own tests use it. It holds a live refresh
    /// token: keep it in memory, never in a file or a log (the session is this org's alone).
    public func testCredentials(app: URL, username: String, password: String) async throws -> String {
        let boot = try BootConfig.load(from: try AppBundle(at: app))
        let keychain = KeychainHelper(store: InMemorySecretStore(), deviceID: "test-credentials", accessGroups: ["AppGroupSim.testCredentials"])
        let credentials = try await OAuthLogin.login(
            loginHost: url, app: OAuthLogin.App(clientId: boot.consumerKey, redirectURI: boot.redirectURI, scopes: boot.scopes),
            username: username, password: password, keychain: keychain)
        let tokens = TokenStore(keychain: keychain, account: credentials.keychainAccount)
        guard let refresh = try await tokens.refreshToken() else { throw PushFailed(description: "the login kept no refresh token") }
        let json: [String: String] = [
            "test_client_id": credentials.clientId, "test_redirect_uri": credentials.redirectURI, "test_login_domain": url.absoluteString,
            "refresh_token": refresh, "access_token": try await tokens.accessToken() ?? "", "instance_url": credentials.instanceURL.absoluteString,
            "identity_url": credentials.identityURL.absoluteString, "username": username,
        ]
        return String(decoding: try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys]), as: UTF8.self)
    }

    public struct PushFailed: Error, CustomStringConvertible {
        public let description: String
    }

    public func stop() async {
        await org.stop()
    }
}

/// A backup of a `SimulatedDevice` (`SimulatedDevice.backup()`): the file, and what the keychain gave it.
public struct SimulatedDeviceBackup: Sendable {
    /// The backup file (a binary property list; its `Files` list names each file and its class).
    public let file: URL
    /// Keychain items the backup carries.
    public let keychainItems: Int
    /// Keychain items left behind: their class is `…ThisDeviceOnly`.
    public let keychainItemsLeftOut: Int
}

/// The temporary device folders of the devices alive in this process, removed when it exits. A device kept in a
/// static (a test class's `setUp()` makes it once, as the SDK's own tests make their session) is never
/// deinitialized: the process ends first, and each test run left its folder in the temporary directory.
enum TemporaryDevices {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var folders: Set<URL> = []
    nonisolated(unsafe) private static var registered = false

    static func add(_ url: URL) {
        lock.withLock {
            folders.insert(url)
            if !registered {
                registered = true
                atexit { TemporaryDevices.removeAll() }
            }
        }
    }

    static func remove(_ url: URL) { _ = lock.withLock { folders.remove(url) } }

    private static func removeAll() {
        for url in lock.withLock({ folders }) { try? FileManager.default.removeItem(at: url) }
    }
}
