import AppGroup
import Foundation
import Keychain

/// `UserAccount.plist` before encryption, with the keys `SFUserAccount encodeWithCoder:` writes:
/// `accessScopes`, `credentials` (the `SFOAuth…` keys of `SFOAuthCredentials`), `idData` (the identity
/// service's answer), `customData`, `accessRestrictions` and `notificationTypes`. No token is in it:
/// tokens are keychain items under `SFOAuthIdentifier`.
///
/// Difference, on purpose: the SDK archives objects with `NSKeyedArchiver` (a graph of `$objects`);
/// here the same keys are a plain property-list dictionary. The file on disk is sealed either way, so
/// only this code reads the inside.
extension UserAccount {
    static let credentialsArchiveVersion = "1.0.3"

    /// The identity service's answer as the SDK keeps it (`idData`): the rest of the answer, with the account's
    /// own fields written over it (the screen-lock policy only when there is one).
    package var identityData: IdentityFields {
        var idData = identityFields.dictionary
        for (key, value) in ["user_id": userId, "organization_id": orgId, "username": username, "display_name": displayName, "email": email] {
            idData[key] = .string(value)
        }
        if let pin = screenLockPinLength {
            idData["mobile_policy"] = .dictionary(["pin_length": .int(pin), "screen_lock": .int(screenLockTimeoutMinutes ?? 0)])
        }
        return IdentityFields(idData)
    }

    var sdkArchive: PlistValue {
        var credentialsDict: [String: PlistValue] = [
            "SFOAuthClusterImplementation": "SFOAuthKeychainCredentials",
            "SFOAuthIdentifier": .string(credentials.keychainAccount),
            "SFOAuthDomain": .string(Self.domain(credentials.loginHost)),
            "SFOAuthProtocol": .string(credentials.loginHost.scheme ?? "https"),
            "SFOAuthClientId": .string(credentials.clientId),
            "SFOAuthRedirectUri": .string(credentials.redirectURI),
            "SFOAuthOrganizationId": .string(credentials.orgId),
            "SFOAuthIdentityUrl": .string(credentials.identityURL.absoluteString),
            "SFOAuthInstanceUrl": .string(credentials.instanceURL.absoluteString),
            "SFOAuthArchiveVersion": .string(Self.credentialsArchiveVersion),
            "SFOAuthEncrypted": true,
        ]
        if !accessScopes.isEmpty { credentialsDict["SFOAuthScopes"] = .array(accessScopes.map(PlistValue.string)) }
        // The whole answer of the identity service, as the SDK archives `SFIdentityData`; the fields the
        // engine itself decides by (who, and the screen-lock policy) are written over it.
        return .dictionary([
            "accessScopes": .array(accessScopes.map(PlistValue.string)),
            "credentials": .dictionary(credentialsDict),
            "idData": .dictionary(identityData.dictionary),
            "customData": .dictionary(customData),
            "accessRestrictions": .int(0),
            "notificationTypes": .array([]),
        ])
    }

    /// Reads the SDK's keys; nil when a key the account cannot do without is missing.
    init?(sdkArchive plist: PlistValue) {
        guard let root = plist.dictionaryValue, let c = root["credentials"]?.dictionaryValue, let id = root["idData"]?.dictionaryValue,
            let keychainAccount = c["SFOAuthIdentifier"]?.stringValue, let clientId = c["SFOAuthClientId"]?.stringValue,
            let domain = c["SFOAuthDomain"]?.stringValue,
            let loginHost = URL(string: "\(c["SFOAuthProtocol"]?.stringValue ?? "https")://\(domain)"),
            let identityURL = c["SFOAuthIdentityUrl"]?.stringValue.flatMap(URL.init(string:)),
            let instanceURL = c["SFOAuthInstanceUrl"]?.stringValue.flatMap(URL.init(string:)),
            let orgId = c["SFOAuthOrganizationId"]?.stringValue ?? id["organization_id"]?.stringValue,
            // The SDK takes the user id from the identity URL's last component.
            let userId = id["user_id"]?.stringValue ?? identityURL.pathComponents.last,
            // They name the account's folders: a file that names `..` is not an account (SalesforceIdentifier).
            SalesforceIdentifier.isValid(orgId, .organization), SalesforceIdentifier.isValid(userId, .user)
        else { return nil }
        let credentials = OAuthCredentials(
            clientId: clientId, redirectURI: c["SFOAuthRedirectUri"]?.stringValue ?? "", loginHost: loginHost, instanceURL: instanceURL,
            identityURL: identityURL, orgId: orgId, userId: userId, keychainAccount: keychainAccount)
        let policy = id["mobile_policy"]?.dictionaryValue
        let pin = policy?["pin_length"]?.intValue
        self.init(
            credentials: credentials, username: id["username"]?.stringValue ?? "", displayName: id["display_name"]?.stringValue ?? "",
            email: id["email"]?.stringValue ?? "", screenLockPinLength: pin, screenLockTimeoutMinutes: pin == nil ? nil : policy?["screen_lock"]?.intValue)
        accessScopes = root["accessScopes"]?.arrayValue?.compactMap(\.stringValue) ?? []
        identityFields = IdentityFields(id).withoutAccountKeys
        customData = root["customData"]?.dictionaryValue ?? [:]
    }

    /// `SFOAuthDomain`: the login host's host, with its port when it has one.
    static func domain(_ url: URL) -> String {
        guard let host = url.host else { return url.absoluteString }
        return url.port.map { "\(host):\($0)" } ?? host
    }
}

/// `LastUserIdentity` as the SDK writes it: `NSKeyedArchiver` data (secure coding) of an
/// `SFUserAccountIdentity` with `userIdKey` and `orgIdKey`, under the key `LastUserIdentity`. A
/// dictionary `{orgId, userId}` (what builds before this one wrote) is still read.
///
/// The archive is built here, object table and all, in the keyed archiver's XML form (references as
/// `{CF$UID: n}`), which `NSKeyedUnarchiver` reads as it reads the binary form the SDK writes:
/// Foundation on Linux names an archived class by its Swift name and ignores `setClassName`, and a
/// statically linked Foundation does not read back the binary form's UIDs, so neither is relied on. A
/// binary archive (as the SDK writes it) is still read where Foundation can.
enum LastUserIdentityArchive {
    static let className = "SFUserAccountIdentity"

    static func uid(_ n: Int) -> PlistValue { .dictionary(["CF$UID": .int(n)]) }

    static func encode(_ identity: UserIdentity) -> Data {
        let archive: [String: PlistValue] = [
            "$archiver": "NSKeyedArchiver",
            "$version": 100000,
            "$top": .dictionary([UserAccountManager.lastUserIdentityKey: uid(1)]),
            "$objects": .array([
                "$null",
                .dictionary(["$class": uid(4), "userIdKey": uid(2), "orgIdKey": uid(3)]),
                .string(identity.userId),
                .string(identity.orgId),
                .dictionary(["$classname": .string(className), "$classes": [.string(className), "NSObject"]]),
            ]),
        ]
        // Only fails on values that cannot be in a plist; these are strings and integers.
        guard let xml = try? PlistValue.propertyListData(archive) else { preconditionFailure("a keyed archive of two strings could not be written") }
        return xml
    }

    /// The identity `LastUserIdentity` names; nil when there is none, or when its ids are not an org id and a
    /// user id (they name folders: see `SalesforceIdentifier`), which reads as no current user.
    static func decode(_ value: PlistValue?) -> UserIdentity? {
        guard let identity = decodeUnchecked(value), SalesforceIdentifier.isValid(identity.orgId, .organization),
            SalesforceIdentifier.isValid(identity.userId, .user)
        else { return nil }
        return identity
    }

    private static func decodeUnchecked(_ value: PlistValue?) -> UserIdentity? {
        switch value {
        case .data(let data):
            guard let archive = xmlArchive(data), let objects = archive["$objects"]?.arrayValue,
                let top = reference(archive["$top"]?.dictionaryValue?[UserAccountManager.lastUserIdentityKey], in: objects)?.dictionaryValue,
                reference(top["$class"], in: objects)?.dictionaryValue?["$classname"]?.stringValue == className,
                let user = reference(top["userIdKey"], in: objects)?.stringValue,
                let org = reference(top["orgIdKey"], in: objects)?.stringValue
            else { return nil }
            return UserIdentity(orgId: org, userId: user)
        case .dictionary(let d):
            guard let org = d["orgId"]?.stringValue, let user = d["userId"]?.stringValue else { return nil }
            return UserIdentity(orgId: org, userId: user)
        default:
            return nil
        }
    }

    /// The archive as XML, where each UID is a `{CF$UID: n}` dictionary our reader keeps; a binary archive
    /// is converted by Foundation first (after the structural check that keeps it from crashing).
    private static func xmlArchive(_ data: Data) -> [String: PlistValue]? {
        if data.starts(with: Array("bplist".utf8)) {
            guard let object = try? PlistValue.foundationPropertyList(from: data, keyedArchive: true),
                let xml = try? PropertyListSerialization.data(fromPropertyList: object, format: .xml, options: 0)
            else { return nil }
            return PlistValue.dictionary(propertyList: xml)
        }
        return PlistValue.dictionary(propertyList: data)
    }

    private static func reference(_ value: PlistValue?, in objects: [PlistValue]) -> PlistValue? {
        guard let n = value?.dictionaryValue?["CF$UID"]?.intValue, objects.indices.contains(n) else { return nil }
        return objects[n]
    }
}
