import AppGroup
import Foundation
import CoreEngine
import SalesforceSDKCommon

/// The SDK's `SFUserAccountManager` (`NS_SWIFT_NAME(UserAccountManager)`), reading side: the accounts whose
/// files are in this process's SDK root, and the current user (`LastUserIdentity` in `msdkUserDefaults`).
/// A user logged in with `main-app login` is `currentUserAccount` in a process run as the app or as an
/// extension that set the group, as on iOS. Logging in needs the SDK's login screen, which is UI: the
/// simulator's apps do it (`main-app login`, the test helper).
public final class UserAccountManager: NSObject, @unchecked Sendable {
    public static let didChangeUser = Notification.Name("SFUserAccountManagerDidChangeUserNotification")
    public static let didChangeUserData = Notification.Name("SFUserAccountManagerDidChangeUserDataNotification")
    public static let didFinishUserInit = Notification.Name("SFUserAccountManagerDidFinishUserInitNotification")
    public static let willLogoutUser = Notification.Name("SFNotificationUserWillLogout")
    public static let didLogoutUser = Notification.Name("SFNotificationUserDidLogout")
    public static let willSwitchUser = Notification.Name("SFNotificationUserWillSwitch")
    public static let didSwitchUser = Notification.Name("SFNotificationUserDidSwitch")
    public static let didLogoutOrg = Notification.Name("SFNotificationOrgDidLogout")
    public static let didRefreshToken = Notification.Name("SFNotificationOAuthUserDidRefreshToken")
    public static let willLogInUser = Notification.Name("SFNotificationUserWillLogIn")
    public static let didLogInUser = Notification.Name("SFNotificationUserDidLogIn")
    public static let didChangeLoginHost = Notification.Name("SFNotificationDidChangeLoginHost")
    public static let userInfoAccountKey = "account"
    public static let changeSetKey = "change"
    public static let userInfoUserKey = "user"
    public static let userInfoLogoutReasonKey = "logoutReason"
    public static let userInfoCredentialsKey = "credentials"
    public static let userInfoAuthenticationTypeKey = "authType"
    public static let userInfoAdditionalOptionsKey = "options"
    public static let userInfoSfUserInfoKey = "sfuserInfo"
    public static let userInfoFromUserKey = "fromUser"
    public static let userInfoToUserKey = "toUser"

    private static let instance = PerProcess { UserAccountManager() }

    /// `sharedInstance`: one per process identity.
    public static var shared: UserAccountManager { instance.value() }

    var engine: SDKEngine { SDKEngine.current }
    let delegates = DelegateList()

    /// The user `LastUserIdentity` names, when its account file is in this process's SDK root; nil before a
    /// login, and in an extension that has not set the group (its own SDK root has no accounts). Setting
    /// it writes `LastUserIdentity` and posts `didChangeUser`, as the SDK does.
    public var currentUserAccount: UserAccount? {
        get {
            attempt("read the current user", nil) { try engine.loadedAccounts().currentUser().map(UserAccount.init) }
        }
        set {
            attempt("set the current user", ()) {
                // The engine posts the did-change-user notification (on NotificationCenter too), as the SDK.
                try engine.loadedAccounts().setCurrentUser(newValue?.engine)
            }
        }
    }

    public var currentUserAccountIdentity: UserAccountIdentity? { currentUserAccount?.accountIdentity }

    /// Forgets what this process holds about accounts (the account key it read), changing nothing on disk: the
    /// next read starts again from the files and the keychain.
    public func clearAllAccountState() { SDKEngine.reset() }

    /// Reads the account files again; the SDK's loading is done at each read here, so this only reports
    /// whether they can be read.
    public func loadAllUserAccounts() throws {
        do { _ = try engine.loadedAccounts().allAccounts() } catch { throw Self.nsError(error) }
    }

    public func userAccounts() -> [UserAccount]? {
        attempt("read the accounts", nil) { try engine.loadedAccounts().allAccounts().map(UserAccount.init) }
    }

    public func userIdentities() -> [UserAccountIdentity]? { userAccounts()?.map(\.accountIdentity) }

    public func userAccount(for userIdentity: UserAccountIdentity) -> UserAccount? {
        attempt("read an account", nil) { try engine.loadedAccounts().account(userIdentity.engine).map(UserAccount.init) }
    }

    public func userAccounts(forOrg orgId: String) -> [UserAccount] {
        (userAccounts() ?? []).filter { $0.engine.orgId == orgId }
    }

    public func userAccounts(forDomain domain: String) -> [UserAccount] {
        (userAccounts() ?? []).filter { $0.credentials.domain == domain }
    }

    public func userAccounts(at instanceURL: URL) -> [UserAccount] {
        (userAccounts() ?? []).filter { $0.engine.credentials.instanceURL.host == instanceURL.host }
    }

    /// No anonymous (community guest) users are simulated.
    public var isCurrentUserAnonymous: Bool { false }

    public var appDisplayName: String { SalesforceManager.appName }

    /// The login host of the bundle's `bootconfig.plist` (the simulated org's URL).
    public var loginHost: String { (try? CoreEngine.BootConfig.load(from: engine.launch.sandbox.bundle).loginHost?.absoluteString) ?? "" }

    /// The scopes the bundle's `bootconfig.plist` asks for.
    public var scopes: Set<String> { Set((try? CoreEngine.BootConfig.load(from: engine.launch.sandbox.bundle).scopes) ?? []) }

    /// The app's connected app, from its bundle's `bootconfig.plist`.
    public var oauthClientID: String { (try? CoreEngine.BootConfig.load(from: engine.launch.sandbox.bundle).consumerKey) ?? "" }
    public var oauthCompletionURL: String { (try? CoreEngine.BootConfig.load(from: engine.launch.sandbox.bundle).redirectURI) ?? "" }

    /// The SDK's error for a failed account read, with the engine's message (which names the file).
    static func nsError(_ error: any Error) -> NSError {
        NSError(domain: "com.salesforce.UserAccountManager", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(error)"])
    }

    private func attempt<T>(_ what: String, _ fallback: T, _ body: () throws -> T) -> T {
        do { return try body() } catch {
            engine.warn("UserAccountManager could not \(what): \(error)")
            return fallback
        }
    }
}

/// The SDK's `SFDirectoryManager`: per-user and global directories in this process's SDK root (the group's
/// when the group is set and enabled, so an extension that set it finds the app's files), laid out as the
/// SDK lays them out (`DeviceLayout.SDKRoot`): the one layout the stores, the accounts, `inspect` and
/// `doctor` share.
public final class SFDirectoryManager: NSObject, @unchecked Sendable {
    public static let defaultCommunityName = "internal"
    private static let sharedInstance = SFDirectoryManager()

    public static func shared() -> SFDirectoryManager { sharedInstance }

    /// Creates the directory if it is missing; an error when a file is in the way.
    public static func ensureDirectoryExists(_ directory: String?) throws {
        guard let directory else { throw NSError(domain: "com.salesforce.directorymanager", code: 101, userInfo: [NSLocalizedDescriptionKey: "no directory"]) }
        do { try SecureFiles.ensureDirectory(directory) } catch {
            switch error {
            case .fileInTheWay:
                throw NSError(domain: "com.salesforce.directorymanager", code: 100, userInfo: [NSLocalizedDescriptionKey: "File exists at path and is not a directory"])
            case .cannotCreate(_, let reason):
                throw NSError(domain: "com.salesforce.directorymanager", code: 102, userInfo: [NSLocalizedDescriptionKey: reason])
            }
        }
    }

    public static func safeString(forDiskRepresentation candidate: String) -> String { DeviceLayout.safePathComponent(candidate) }

    public func directory(forOrg orgId: String?, user userId: String?, community communityId: String?, type: FileManager.SearchPathDirectory, components: [Any]?) -> String? {
        let root: DeviceLayout.SDKRoot
        do { root = try SDKEngine.current.launch.dataSharing.sdkRoot() } catch {
            SDKEngine.current.warn("SFDirectoryManager has no directory: \(error)")
            return nil
        }
        let kind: DeviceLayout.SDKRoot.DirectoryType
        switch type {
        case .libraryDirectory: kind = .library
        case .documentDirectory: kind = .documents
        case .cachesDirectory: kind = .caches
        case .applicationSupportDirectory: kind = .applicationSupport
        default: kind = .other
        }
        return root.directory(kind, orgId: orgId, userId: userId, communityId: communityId, components: (components ?? []).map { "\($0)" }).path
    }

    public func directory(forUser user: UserAccount?, type: FileManager.SearchPathDirectory, components: [Any]?) -> String? {
        guard let user else { return globalDirectory(ofType: type, components: components) }
        return directory(forOrg: user.engine.orgId, user: user.engine.userId, community: Self.defaultCommunityName, type: type, components: components)
    }

    /// `SFUserAccountScope`.
    @objc public enum UserAccountScope: Int, Sendable {
        case global, org, user, community
    }

    public func directory(forUser user: UserAccount, scope: UserAccountScope, type: FileManager.SearchPathDirectory, components: [Any]?) -> String? {
        switch scope {
        case .global: return globalDirectory(ofType: type, components: components)
        case .org: return directory(forOrg: user.engine.orgId, user: nil, community: nil, type: type, components: components)
        case .user: return directory(forOrg: user.engine.orgId, user: user.engine.userId, community: nil, type: type, components: components)
        case .community: return directory(forUser: user, type: type, components: components)
        }
    }

    /// The current user's directory; with no current user, the global one (as the SDK).
    public func directoryOfCurrentUser(forType type: FileManager.SearchPathDirectory, components: [Any]?) -> String? {
        directory(forUser: UserAccountManager.shared.currentUserAccount, type: type, components: components)
    }

    public func globalDirectory(ofType type: FileManager.SearchPathDirectory, components: [Any]?) -> String? {
        directory(forOrg: nil, user: nil, community: nil, type: type, components: components)
    }
}
