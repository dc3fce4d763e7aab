import AppGroup
import FastJSON
import Foundation
import Keychain
import CoreEngine

/// The SDK's `PushNotificationManager`: registers the device for the current user's Salesforce
/// notifications after a login (and at a later launch when the device token changed or an earlier
/// registration failed), and unregisters it at logout. The registration is a `MobilePushServiceDevice`
/// record (`ConnectionToken`, `ServiceType` "Apple", `ApplicationBundle`, `RsaPublicKey`, `CipherName`
/// "RSA_OAEP_SHA256"); its id is kept per user (in the app's standard defaults) for the DELETE.
/// A registration that fails never fails the login: it is reported and retried at the next launch.
package final class PushNotificationManager: Sendable {
    /// Where the app keeps its simulated APNs device token (standard defaults).
    package static let deviceTokenKey = "APNSDeviceToken"
    /// The id of the device `deviceTokenKey`'s token was made on.
    package static let deviceTokenDeviceKey = "APNSDeviceTokenDevice"
    /// Where the app keeps each user's registration (`orgId/userId` → `{id, token}`), in its standard defaults.
    package static let registrationsKey = "MobilePushServiceDevices"

    package let launch: ProcessLaunch
    package let events: SDKEvents

    package init(launch: ProcessLaunch, events: SDKEvents) {
        self.launch = launch
        self.events = events
    }

    /// The device's APNs token for this app: 32 random bytes as 64 hex digits, made at the first
    /// registration for remote notifications and kept on the device (the app's standard defaults), with the id of
    /// the device it was made on. APNs gives a new token on another device: a token that came along in a backup
    /// restored to a new phone is not this phone's, so a new one is made (and `registerIfNeeded` registers again,
    /// as the SDK does when `didRegisterForRemoteNotificationsWithDeviceToken` brings a new token).
    package func deviceToken() throws -> String {
        let defaults = launch.sandbox.standardDefaults
        let device = launch.sandbox.device.id.uuidString
        if let existing = try defaults.string(forKey: Self.deviceTokenKey), !existing.isEmpty {
            let madeOn = try defaults.string(forKey: Self.deviceTokenDeviceKey)
            if madeOn == device { return existing }
            if madeOn == nil {  // kept before the device was recorded with it: this device's
                try defaults.set(.string(device), forKey: Self.deviceTokenDeviceKey)
                return existing
            }
        }
        var generator = SystemRandomNumberGenerator()
        let made = (0..<32).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
        try defaults.set(.string(made), forKey: Self.deviceTokenKey)
        try defaults.set(.string(device), forKey: Self.deviceTokenDeviceKey)
        return made
    }

    /// What the org answered for a user's device: the record id and the token it was made for.
    package struct Registration: Sendable, Equatable {
        package var id: String
        package var token: String
    }

    package func registration(for account: UserAccount) throws -> Registration? {
        guard let entry = try launch.sandbox.standardDefaults.value(forKey: Self.registrationsKey)?.dictionaryValue?[Self.key(account)]?.dictionaryValue,
            let id = entry["id"]?.stringValue, let token = entry["token"]?.stringValue
        else { return nil }
        return Registration(id: id, token: token)
    }

    package enum Outcome: Sendable, Equatable {
        case registered(id: String)
        case alreadyRegistered(id: String)
        case unregistered(id: String)
        case nothingToUnregister
        /// Logged and kept for the next launch; the login or logout went on.
        case failed(String)
    }

    /// Registers the account's device unless it is registered with the current token.
    @discardableResult
    package func registerIfNeeded(_ account: UserAccount) async -> Outcome {
        do {
            let token = try deviceToken()
            if let existing = try registration(for: account), existing.token == token { return .alreadyRegistered(id: existing.id) }
            try await announceToAPNs(token, via: account.credentials.loginHost)
            let key = try await PushKeyStore.privateKey(launch.keychain, create: true)
            let body: JSON = [
                "ConnectionToken": .string(token), "ServiceType": "Apple", "ApplicationBundle": .string(launch.sandbox.bundleIdentifier),
                "RsaPublicKey": .string(PushKey.publicKeyText(key)), "CipherName": "RSA_OAEP_SHA256",
            ]
            let path = "/services/data/\(RestClient.apiVersion)/sobjects/MobilePushServiceDevice"
            events.step("pushRegistering", ["user": account.identity.description, "request": "POST \(path)"])
            let response = try await client(account).send(.json("POST", path, value: body))
            guard let id = try response.value()["id"]?.stringValue else { throw RestError.malformedResponse("no id in the MobilePushServiceDevice answer") }
            try save(Registration(id: id, token: token), for: account)
            events.step("pushRegistered", ["user": account.identity.description, "id": id, "request": "POST \(path)"])
            return .registered(id: id)
        } catch {
            events.step("pushRegistrationFailed", ["user": account.identity.description, "reason": "\(error)"])
            return .failed("\(error)")
        }
    }

    /// At logout, before the session is revoked: DELETE the device's record. A failure is reported; the
    /// logout goes on (the SDK does not wait either).
    @discardableResult
    package func unregister(_ account: UserAccount) async -> Outcome {
        do {
            guard let existing = try registration(for: account) else { return .nothingToUnregister }
            let path = "/services/data/\(RestClient.apiVersion)/sobjects/MobilePushServiceDevice/\(existing.id)"
            _ = try await client(account).send(RestRequest(method: "DELETE", path: path))
            try save(nil, for: account)
            events.step("pushUnregistered", ["user": account.identity.description, "id": existing.id, "request": "DELETE \(path)"])
            return .unregistered(id: existing.id)
        } catch {
            try? save(nil, for: account)
            events.step("pushUnregistrationFailed", ["user": account.identity.description, "reason": "\(error)"])
            return .failed("\(error)")
        }
    }

    /// What iOS's registration for remote notifications does with APNs: APNs learns where this token's
    /// notifications go (this app's inbox on this device). sf-simulator stands in for APNs too.
    /// The stand-in for APNs takes registrations only with sf-simulator's admin token (it is no part of the
    /// org's API), which the device has from `APPGROUPSIM_ADMIN_TOKEN`; and only for this device's own inbox,
    /// named with the device's id.
    func announceToAPNs(_ token: String, via host: URL) async throws {
        guard let admin = ProcessInfo.processInfo.environment[Self.adminTokenVariable], !admin.isEmpty else {
            throw PushRegistrationError("APNs (sf-simulator) takes a device's registration only with its admin token: set \(Self.adminTokenVariable) to the 'admin token:' line sf-simulator printed at start")
        }
        let inbox = launch.sandbox.device.layout.notificationInbox(bundleID: launch.sandbox.bundleIdentifier)
        do {
            try await HTTPClient.post(
                host.appendingPathComponent("__apns/devices"), contentType: "application/json",
                body: Data(JSON.object(["token": .string(token), "inbox": .string(inbox.path), "device": .string(launch.sandbox.device.id.uuidString)]).text.utf8),
                headers: ["X-AppGroupSim-Admin-Token": admin])
        } catch RestError.http(status: 401, _) {
            throw PushRegistrationError("APNs (sf-simulator) refused the admin token in \(Self.adminTokenVariable): it is not the one this sf-simulator printed at start")
        }
    }

    /// Where the device (the OS, which registers with APNs on an app's behalf) finds sf-simulator's admin token.
    package static let adminTokenVariable = "APPGROUPSIM_ADMIN_TOKEN"

    private func client(_ account: UserAccount) -> RestClient {
        RestClient(credentials: account.credentials, tokens: TokenStore(keychain: launch.keychain, account: account.credentials.keychainAccount))
    }

    private static func key(_ account: UserAccount) -> String { "\(account.orgId)/\(account.userId)" }

    private func save(_ registration: Registration?, for account: UserAccount) throws {
        try launch.sandbox.standardDefaults.update(Self.registrationsKey) { value in
            var all = value?.dictionaryValue ?? [:]
            all[Self.key(account)] = registration.map { .dictionary(["id": .string($0.id), "token": .string($0.token)]) }
            value = all.isEmpty ? nil : .dictionary(all)
        }
    }
}

struct PushRegistrationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
