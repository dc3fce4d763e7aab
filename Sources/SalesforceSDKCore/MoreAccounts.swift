import Foundation
import CoreEngine
import SalesforceSDKCommon

/// The SDK's `SFSDKAppConfig` (`NS_SWIFT_NAME(BootConfig)`): a connected app's settings, the bundle's
/// `bootconfig.plist` (`CoreEngine.AppConfigRules` holds the rules; this translates).
public final class BootConfig: NSObject, @unchecked Sendable {
    /// `SFSDKAppConfigErrorCode`.
    public enum ErrorCode: Int, Sendable {
        case noConsumerKey = 966
        case noRedirectURI = 967
    }

    /// `SFSDKAppConfigErrorDomain`.
    public static let errorDomain = AppConfigRules.errorDomain
    /// `SFSDKDefaultNativeAppConfigFilePath`.
    public static let defaultFilePath = AppConfigRules.defaultFilePath

    /// The settings as the SDK keeps them; the properties read and write it.
    public var configDict: NSMutableDictionary

    /// `initWithDict:`.
    public init?(_ configDict: [AnyHashable: Any]?) {
        var strings: [String: Any] = [:]
        for (key, value) in configDict ?? [:] { if let key = key.base as? String { strings[key] = value } }
        self.configDict = NSMutableDictionary(dictionary: AppConfigRules.normalized(strings))
        super.init()
    }

    /// `initWithConfigFile:`: a path under the main bundle's resources (the process's bundle); nil when the file
    /// does not exist or is not a property list.
    public convenience init?(_ configFile: String) {
        let resources = SDKProcess.bundleURL ?? URL(fileURLWithPath: Bundle.main.resourcePath ?? Bundle.main.bundlePath)
        guard let contents = AppConfigRules.contents(ofConfigFile: configFile, resources: resources) else { return nil }
        self.init(contents)
    }

    public override convenience init() { self.init(nil as [AnyHashable: Any]?)! }

    convenience init(_ engine: CoreEngine.BootConfig) {
        self.init([
            "remoteAccessConsumerKey": engine.consumerKey, "oauthRedirectURI": engine.redirectURI, "oauthScopes": engine.scopes,
            "shouldAuthenticate": engine.shouldAuthenticate,
        ] as [AnyHashable: Any])!
    }

    private var dictionary: [String: Any] {
        var out: [String: Any] = [:]
        for (key, value) in configDict { if let key = key as? String { out[key] = value } }
        return out
    }

    public var remoteAccessConsumerKey: String {
        get { configDict["remoteAccessConsumerKey"] as? String ?? "" }
        set { configDict["remoteAccessConsumerKey"] = newValue }
    }

    public var oauthRedirectURI: String {
        get { configDict["oauthRedirectURI"] as? String ?? "" }
        set { configDict["oauthRedirectURI"] = newValue }
    }

    public var oauthScopes: Set<String> {
        get { AppConfigRules.scopes(dictionary) }
        set { configDict["oauthScopes"] = Array(newValue) }
    }

    /// `shouldAuthenticate` (`NS_SWIFT_NAME(shouldAuthenticateOnFirstLaunch)`).
    public var shouldAuthenticateOnFirstLaunch: Bool {
        get { (configDict["shouldAuthenticate"] as? Bool) ?? ((configDict["shouldAuthenticate"] as? NSNumber)?.boolValue ?? false) }
        set { configDict["shouldAuthenticate"] = newValue }
    }

    /// The name this project used before: the same value.
    public var shouldAuthenticate: Bool { shouldAuthenticateOnFirstLaunch }

    /// `validate:`: errors of `BootConfig.errorDomain`, with the SDK's codes and messages.
    public func validate() throws {
        do throws(AppConfigRules.Failure) {
            try AppConfigRules.validate(dictionary)
        } catch {
            throw NSError(domain: Self.errorDomain, code: error.rawValue, userInfo: [NSLocalizedDescriptionKey: error.message])
        }
    }

    /// `+fromDefaultConfigFile`: `/bootconfig.plist` of the main bundle.
    public class func fromDefaultConfigFile() -> BootConfig? { fromConfigFile(defaultFilePath) }

    /// `+fromConfigFile:`.
    public class func fromConfigFile(_ configFilePath: String) -> BootConfig? { BootConfig(configFilePath) }

    public override var description: String { "<BootConfig: data: \(configDict)>" }
}

extension SalesforceManager {
    /// The bundle's `bootconfig.plist`; nil when it has none or it cannot be read (one line says why).
    public var bootConfig: BootConfig? {
        do { return BootConfig(try CoreEngine.BootConfig.load(from: SDKEngine.current.launch.sandbox.bundle)) } catch {
            SDKProcess.warn("bootconfig.plist: \(error)")
            return nil
        }
    }
}

/// `SFUserAccountManagerDelegate`: told before and after the current user changes through `switchToUserAccount`.
public protocol UserAccountManagerDelegate: AnyObject {
    func userAccountManager(accountManager: UserAccountManager, willSwitchFrom fromUser: UserAccount?, to toUser: UserAccount?)
    func userAccountManager(accountManager: UserAccountManager, didSwitchFrom fromUser: UserAccount?, to toUser: UserAccount?)
}

extension UserAccountManagerDelegate {
    public func userAccountManager(accountManager: UserAccountManager, willSwitchFrom fromUser: UserAccount?, to toUser: UserAccount?) {}
    public func userAccountManager(accountManager: UserAccountManager, didSwitchFrom fromUser: UserAccount?, to toUser: UserAccount?) {}
}

extension UserAccountManager {
    public func addDelegate(_ delegate: UserAccountManagerDelegate) { delegates.add(delegate) }
    public func removeDelegate(_ delegate: UserAccountManagerDelegate) { delegates.remove(delegate) }

    /// Writes the account's file (sealed with the account key, which is made if no entitled group has one).
    public func upsert(_ userAccount: UserAccount) throws {
        let accounts = engine.loadedAccounts()
        do {
            try SDKProcess.blocking { try await accounts.ensureAccountKey() }
            try accounts.files.save(userAccount.engine)
        } catch { throw Self.nsError(error) }
    }

    /// `setObjectForUserCustomData:forKey:andUser:`: sets the value in the account's custom data and saves the
    /// account file; a save that fails is a warning, as the SDK ignores it.
    public func setCustomData(withObject object: Any, key: String, userAccount: UserAccount) {
        userAccount.setCustomDataObject(object, forKey: key)
        do { try upsert(userAccount) } catch { SDKProcess.warn("UserAccountManager could not save the account's custom data: \(error)") }
    }

    /// An account for the credentials, saved (the SDK adds it to its accounts).
    public func createUserAccount(with credentials: OAuthCredentials) -> UserAccount {
        let account = UserAccount(credentials: credentials)
        do { try upsert(account) } catch { SDKProcess.warn("UserAccountManager could not save the account: \(error)") }
        return account
    }

    /// Deletes the account's file (not its tokens: logout does that).
    public func delete(_ userAccount: UserAccount) throws {
        do { try engine.loadedAccounts().files.delete(userAccount.engine.identity) } catch { throw Self.nsError(error) }
    }
}

/// Weak references to the delegates, as the SDK keeps them.
final class DelegateList: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [WeakDelegate] = []

    func add(_ delegate: UserAccountManagerDelegate) { lock.withLock { items.append(WeakDelegate(delegate)) } }
    func remove(_ delegate: UserAccountManagerDelegate) { lock.withLock { items.removeAll { $0.value === delegate || $0.value == nil } } }
    var all: [UserAccountManagerDelegate] { lock.withLock { items.compactMap(\.value) } }
}

private final class WeakDelegate {
    weak var value: UserAccountManagerDelegate?
    init(_ value: UserAccountManagerDelegate) { self.value = value }
}

extension PushNotificationManager {
    /// The public half of the device's push key (PEM, the `RsaPublicKey` the org encrypts notifications with);
    /// nil before the key exists (the first registration makes it).
    public func getRSAPublicKey() -> String? {
        let keychain = SDKEngine.current.launch.keychain
        return try? SDKProcess.blocking { PushKey.publicKeyText(try await PushKeyStore.privateKey(keychain, create: false)) }
    }
}
