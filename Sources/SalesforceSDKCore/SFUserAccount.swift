import Foundation
import Keychain
import CoreEngine
import SalesforceSDKCommon

/// The SDK's `SFUserAccountIdentity` (`NS_SWIFT_NAME(UserAccountIdentity)`): which user, by org and user id.
public final class UserAccountIdentity: NSObject, @unchecked Sendable {
    public let userId: String
    public let orgId: String

    public init(userId: String, orgId: String) {
        self.userId = userId
        self.orgId = orgId
    }

    public static func identity(withUserId userId: String, orgId: String) -> UserAccountIdentity {
        UserAccountIdentity(userId: userId, orgId: orgId)
    }

    public func compare(_ otherIdentity: UserAccountIdentity) -> ComparisonResult {
        let mine = orgId + ":" + userId, theirs = otherIdentity.orgId + ":" + otherIdentity.userId
        return mine == theirs ? .orderedSame : (mine < theirs ? .orderedAscending : .orderedDescending)
    }

    /// `matchesCredentials:` as Swift imports it (the last word repeats the parameter's type).
    public func matches(_ credentials: OAuthCredentials) -> Bool {
        credentials.userId == userId && credentials.organizationId == orgId
    }

    /// The selector's own words, as the earlier face named it.
    public func matchesCredentials(_ credentials: OAuthCredentials) -> Bool { matches(credentials) }

    public override func isEqual(_ object: Any?) -> Bool {
        guard let other = object as? UserAccountIdentity else { return false }
        return other.userId == userId && other.orgId == orgId
    }

    public override var hash: Int { (orgId + ":" + userId).hashValue }

    public override var description: String { "\(orgId)/\(userId)" }

    var engine: UserIdentity { UserIdentity(orgId: orgId, userId: userId) }
}

/// The SDK's `SFOAuthCredentials` (`NS_SWIFT_NAME(OAuthCredentials)`), read from the account file; the two
/// tokens come from the keychain items the session keeps (`com.salesforce.mobilesdk.oauth.*`, read each time,
/// never copied into a file or a log).
public final class OAuthCredentials: NSObject, @unchecked Sendable {
    let engine: Keychain.OAuthCredentials

    init(_ engine: Keychain.OAuthCredentials) { self.engine = engine }

    /// The keychain account of the session's token items (`<clientId>-<random>`).
    public var identifier: String { engine.keychainAccount }
    public var clientId: String? { engine.clientId }
    public var redirectUri: String? { engine.redirectURI }
    /// The login host, as the SDK keeps it (`login.salesforce.com`; here the simulated org's host and port).
    public var domain: String? {
        guard let host = engine.loginHost.host else { return nil }
        return engine.loginHost.port.map { "\(host):\($0)" } ?? host
    }
    public var `protocol`: String? { engine.loginHost.scheme }
    public var organizationId: String? { engine.orgId }
    public var userId: String? { engine.userId }
    public var instanceUrl: URL? { engine.instanceURL }
    public var apiInstanceUrl: URL? { engine.instanceURL }
    public var identityUrl: URL? { engine.identityURL }
    public var apiUrl: URL? { engine.instanceURL }
    /// Communities are not simulated: every session is the internal one.
    public var communityId: String? { nil }
    public var communityUrl: URL? { nil }
    /// Credentials are read from an account file the engine seals (AES-GCM).
    public var isEncrypted: Bool { true }

    /// The scopes the session was granted.
    public var scopes: [String]? { nil }
    /// When the access token was issued: the engine does not keep it (tokens are refreshed on a 401).
    public var issuedAt: Date? { nil }

    public var accessToken: String? { token(SessionTokenItems.accessService) }

    /// Takes the tokens of an OAuth answer (`access_token`, `refresh_token`) into the session's keychain items,
    /// as the SDK's credentials do after a login or a refresh.
    public func updateCredentials(_ params: [AnyHashable: Any]) {
        let keychain = SDKEngine.current.process.keychain
        for (key, service) in [("access_token", SessionTokenItems.accessService), ("refresh_token", SessionTokenItems.refreshService)] {
            guard let token = params[key] as? String else { continue }
            let result = keychain.writeBlocking(Array(token.utf8), service: service, account: engine.keychainAccount)
            if !result.success { SDKProcess.warn("OAuthCredentials could not keep \(key): \(result.error?.message ?? "status \(result.status.rawValue)")") }
        }
    }

    /// The client id a refresh uses (the connected app's).
    public func getClientIdForRefresh() -> String { engine.clientId }

    /// Forgets both tokens: the keychain items are emptied (the account is logged out from then on, as in
    /// the SDK, where `revoke` clears the credentials' tokens; the org is not told: logout does that).
    public func revoke() {
        revokeAccessToken()
        revokeRefreshToken()
    }

    public func revokeAccessToken() { empty(SessionTokenItems.accessService) }

    public func revokeRefreshToken() { empty(SessionTokenItems.refreshService) }

    private func empty(_ service: String) {
        let result = SDKEngine.current.process.keychain.resetBlocking(service: service, account: engine.keychainAccount)
        if !result.success, result.status != .itemNotFound {
            SDKProcess.warn("OAuthCredentials could not clear \(service): \(result.error?.message ?? "status \(result.status.rawValue)")")
        }
    }
    public var refreshToken: String? { token(SessionTokenItems.refreshService) }

    private func token(_ service: String) -> String? {
        let keychain = SDKEngine.current.process.keychain
        let result = keychain.readBlocking(service: service, account: engine.keychainAccount)
        guard let data = result.data, !data.isEmpty else { return nil }
        return String(decoding: data, as: UTF8.self)
    }
}

/// The SDK's `SFIdentityData` (`NS_SWIFT_NAME(IdentityData)`): the identity service's answer, kept with the
/// account. Which key gives which field is the engine's (`IdentityFields`); this face converts types.
public final class IdentityData: NSObject, @unchecked Sendable {
    let fields: CoreEngine.IdentityFields

    init(_ fields: CoreEngine.IdentityFields) { self.fields = fields }

    init(_ account: CoreEngine.UserAccount) {
        fields = account.identityData
    }

    /// `initWithJsonDict:`: the identity service's JSON, as a dictionary.
    public convenience init(jsonDict: [AnyHashable: Any]) {
        let data = (try? JSONSerialization.data(withJSONObject: Dictionary(uniqueKeysWithValues: jsonDict.compactMap { key, value in
            (key.base as? String).map { ($0, value) }
        }))) ?? Data("{}".utf8)
        self.init(CoreEngine.IdentityFields(json: data) ?? CoreEngine.IdentityFields([:]))
    }

    public var dictRepresentation: [AnyHashable: Any] { fields.dictionary.mapValues(\.foundationValue) }
    public var idUrl: URL { fields.idURL ?? URL(string: "about:blank")! }
    public var assertedUser: Bool { fields.bool("asserted_user") ?? false }
    public var userId: String { fields.userId ?? "" }
    public var orgId: String { fields.orgId ?? "" }
    public var username: String { fields.username ?? "" }
    public var nickname: String? { fields.nickname }
    public var displayName: String? { fields.displayName }
    public var email: String { fields.email ?? "" }
    public var firstName: String? { fields.firstName }
    public var lastName: String { fields.lastName ?? "" }
    public var pictureUrl: URL? { fields.pictureURL }
    public var thumbnailUrl: URL? { fields.thumbnailURL }
    public var enterpriseSoapUrl: String? { fields.serviceURL("enterprise") }
    public var metadataSoapUrl: String? { fields.serviceURL("metadata") }
    public var partnerSoapUrl: String? { fields.serviceURL("partner") }
    public var restUrl: String? { fields.serviceURL("rest") }
    public var restSObjectsUrl: String? { fields.serviceURL("sobjects") }
    public var restSearchUrl: String? { fields.serviceURL("search") }
    public var restQueryUrl: String? { fields.serviceURL("query") }
    public var restRecentUrl: String? { fields.serviceURL("recent") }
    public var profileUrl: URL? { fields.serviceURL("profile").flatMap(URL.init(string:)) }
    public var chatterFeedsUrl: String? { fields.serviceURL("feeds") }
    public var chatterGroupsUrl: String? { fields.serviceURL("groups") }
    public var chatterUsersUrl: String? { fields.serviceURL("users") }
    public var chatterFeedItemsUrl: String? { fields.serviceURL("feed_items") }
    public var isActive: Bool { fields.bool("active") ?? false }
    public var userType: String { fields.string("user_type") ?? "" }
    public var language: String { fields.string("language") ?? "" }
    public var locale: String { fields.string("locale") ?? "" }
    public var utcOffset: Int32 { Int32(clamping: fields.int("utcOffset") ?? 0) }
    public var mobilePoliciesConfigured: Bool { fields.mobilePolicy != nil }
    public var mobileAppPinLength: Int32 { Int32(clamping: fields.pinLength ?? 0) }
    public var mobileAppScreenLockTimeout: Int32 { Int32(clamping: fields.screenLockTimeout ?? 0) }
    public var customAttributes: [AnyHashable: Any]? { fields.dictionary["custom_attributes"]?.dictionaryValue?.mapValues(\.foundationValue) }
    public var customPermissions: [AnyHashable: Any]? { fields.dictionary["custom_permissions"]?.dictionaryValue?.mapValues(\.foundationValue) }
    public var lastModifiedDate: Date? { fields.lastModifiedDate }
    public var nativeLogin: Bool { fields.bool("native_login") ?? false }
}

/// The SDK's `SFUserAccount` (`NS_SWIFT_NAME(UserAccount)`): a user whose account file is on the device, in
/// this process's SDK root (the group's when the group is set and enabled).
public final class UserAccount: NSObject, @unchecked Sendable {
    /// `SFUserAccountLoginState`.
    @objc public enum LoginState: UInt, Sendable {
        case notLoggedIn = 0
        case loggedIn
        case loggingOut
    }

    private let lock = NSLock()
    private var engineValue: CoreEngine.UserAccount
    var engine: CoreEngine.UserAccount { lock.withLock { engineValue } }

    init(_ engine: CoreEngine.UserAccount) { engineValue = engine }

    /// An account for these credentials, not saved yet (`UserAccountManager.upsert` writes its file); its
    /// identity data is empty until the identity service is read, as in the SDK.
    public init(credentials: OAuthCredentials) {
        engineValue = CoreEngine.UserAccount(credentials: credentials.engine, username: "", displayName: "", email: "")
    }

    /// An empty account, as `[[SFUserAccount alloc] init]`: no user, no org, no token; its login host and instance
    /// are the SDK's default login host (the SDK leaves the instance unset), so that a request with a base URL of
    /// its own can be prepared for it, as the SDK's tests do.
    public override convenience init() {
        let host = URL(string: "https://login.salesforce.com")!
        self.init(credentials: OAuthCredentials(Keychain.OAuthCredentials(
            clientId: "", redirectURI: "", loginHost: host, instanceURL: host, identityURL: host, orgId: "", userId: "", keychainAccount: "")))
    }

    public var accountIdentity: UserAccountIdentity { UserAccountIdentity(userId: engine.userId, orgId: engine.orgId) }
    public var credentials: OAuthCredentials { OAuthCredentials(engine.credentials) }
    public var idData: IdentityData { IdentityData(engine) }
    public var accessScopes: Set<String>? { engine.accessScopes.isEmpty ? nil : Set(engine.accessScopes) }

    /// Sets a value of the app's own in the account's `customData`; `UserAccountManager.setCustomData(withObject:
    /// key:userAccount:)` (or `upsert`) saves it in the account file, where the app's other processes read it.
    /// Keys are strings and values property-list values (strings, numbers, dates, data, arrays and dictionaries of
    /// them), which is what an `NSCoding` value of the SDK's becomes here; anything else is refused with a warning.
    public func setCustomDataObject(_ object: Any, forKey key: Any) {
        guard let key = key as? String, lock.withLock({ engineValue.setCustomData(object, forKey: key) }) else {
            return SDKProcess.warn("UserAccount: custom data needs a string key and a property-list value; \(type(of: object)) under \(type(of: key)) was not kept")
        }
    }

    public func removeCustomDataObject(forKey key: Any) {
        guard let key = key as? String else { return }
        lock.withLock { _ = engineValue.customData.removeValue(forKey: key) }
    }

    public func customDataObject(forKey key: Any) -> Any? {
        guard let key = key as? String else { return nil }
        return engine.customData[key]?.foundationValue
    }

    /// Logged in while the session's refresh token is in the keychain (how the engine, and `main-app`, decide).
    public var loginState: LoginState { SDKEngine.current.isLoggedIn(engine) ? .loggedIn : .notLoggedIn }
    public var isSessionValid: Bool { loginState == .loggedIn }
    public var isUserDeleted: Bool { false }

    public override func isEqual(_ object: Any?) -> Bool {
        (object as? UserAccount)?.accountIdentity == accountIdentity
    }

    public override var hash: Int { accountIdentity.hash }

    public override var description: String { "UserAccount(\(engine.identity), \(engine.username))" }
}

extension UserAccount {
    /// `SFUserAccountScope`.
    @objc public enum AccountScope: Int, Sendable {
        case global = 0, org, user, community
    }
}

/// The SDK's key for a user at a scope (`-global-`, `<org>`, `<org>-<user>`, `<org>-<user>-<community>`), as app
/// code keys its per-user objects.
public func SFKeyForUserAndScope(_ user: UserAccount?, _ scope: UserAccount.AccountScope) -> String? {
    let credentials = user?.credentials
    return SFKeyForUserIdAndScope(credentials?.userId, credentials?.organizationId, credentials?.communityId, scope)
}

public func SFKeyForUserIdAndScope(_ userId: String?, _ orgId: String?, _ communityId: String?, _ scope: UserAccount.AccountScope) -> String? {
    switch scope {
    case .global: return "-global-"
    case .org: return orgId ?? ""
    case .user: return orgId.flatMap { org in userId.map { "\(org)-\($0)" } } ?? ""
    case .community: return orgId.flatMap { org in userId.map { "\(org)-\($0)-\(communityId ?? "(null)")" } } ?? ""
    }
}
