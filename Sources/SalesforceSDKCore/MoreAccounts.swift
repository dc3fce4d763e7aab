import Foundation
import CoreEngine
import SalesforceSDKCommon

/// The SDK's `SFSDKAppConfig` (`NS_SWIFT_NAME(BootConfig)`): the bundle's `bootconfig.plist`.
public final class BootConfig: NSObject, @unchecked Sendable {
    let engine: CoreEngine.BootConfig

    init(_ engine: CoreEngine.BootConfig) { self.engine = engine }

    public var remoteAccessConsumerKey: String { engine.consumerKey }
    public var oauthRedirectURI: String { engine.redirectURI }
    public var oauthScopes: Set<String> { Set(engine.scopes) }
    public var shouldAuthenticate: Bool { engine.shouldAuthenticate }
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
