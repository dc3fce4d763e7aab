import FastJSON
import Foundation
import GRDB
import Hummingbird
import PushNotifications
@preconcurrency import _CryptoExtras

/// Salesforce's push service and APNs, stood in for on loopback (issue "Push").
/// - `POST /__apns/devices` `{"token", "inbox"}`: what APNs learns when a device registers for remote
///   notifications: where to deliver for that token (a device's notification inbox directory). Kept in
///   the org's state, so a restarted `--state` org still delivers.
/// - `POST /__admin/push` `{"username", "title", "body", "fields"?}`: a notification for the user. For
///   each of the user's `MobilePushServiceDevice` records it encrypts `{alertTitle, alertBody, fields…}`
///   with the record's `RsaPublicKey` as the SDK expects (`encrypted`, `secret`, `content`, `aps.alert`
///   with a fallback title) and writes the payload into that token's inbox. A user with no registered
///   device gets nothing, and the answer says so (404 `NO_REGISTERED_DEVICE`).
struct PushGateway {
    let state: OrgState
    static let fallbackTitle = "New notification"

    func register(on router: Router<OrgContext>) {
        router.post("/__apns/devices") { request, _ in try await self.registerDevice(request) }
        router.post("/__admin/push") { request, _ in try await self.push(request) }
    }

    private func registerDevice(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)), let token = body["token"] as? String, !token.isEmpty,
            let inbox = body["inbox"] as? String, inbox.hasPrefix("/")
        else { return HTTP.error(.badRequest, "INVALID_FIELD", "expected {\"token\": \"…\", \"inbox\": \"/absolute/path\"}", fields: ["token", "inbox"]) }
        try await state.database.queue.write { db in try state.database.setMeta(db, "apns:" + token, inbox) }
        return HTTP.json(.ok, ["token": token, "inbox": inbox])
    }

    private func push(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)), let username = body["username"] as? String,
            let title = body["title"] as? String, let text = body["body"] as? String
        else { return HTTP.error(.badRequest, "INVALID_FIELD", "expected {\"username\", \"title\", \"body\", \"fields\"?}", fields: ["username", "title", "body"]) }
        guard let (org, user) = state.definition.orgs.lazy.compactMap({ org in
            org.users.first { $0.username.lowercased() == username.lowercased() }.map { (org, $0) }
        }).first else { return HTTP.error(.notFound, "NOT_FOUND", "no user \(username) in this org") }
        var content: [String: JSON] = ["alertTitle": .string(title), "alertBody": .string(text)]
        for (key, value) in body["fields"] as? [String: Any] ?? [:] { content[key] = JSON(foundation: value) }

        guard let object = state.definition.object("MobilePushServiceDevice") else {
            return HTTP.error(.notFound, "NO_REGISTERED_DEVICE", "this org has no MobilePushServiceDevice object, so no device can be registered")
        }
        let devices = try await state.database.queue.read { db in
            try Row.fetchAll(
                db, sql: "SELECT \"Id\", \"ConnectionToken\", \"RsaPublicKey\", \"CipherName\" FROM \(OrgDatabase.quote(object.table)) WHERE org_id = ? AND \"OwnerId\" = ? AND COALESCE(\"IsDeleted\", 0) = 0",
                arguments: [org.id, user.id])
        }
        guard !devices.isEmpty else {
            return HTTP.error(.notFound, "NO_REGISTERED_DEVICE", "no device is registered for push for \(user.username): nothing was delivered")
        }
        var delivered: [[String: Any]] = []
        var skipped: [[String: Any]] = []
        for device in devices {
            let id: String = device["Id"]
            let token: String = device["ConnectionToken"] ?? ""
            guard (device["CipherName"] as String?) == "RSA_OAEP_SHA256", let keyText: String = device["RsaPublicKey"],
                let der = Data(base64Encoded: keyText), let publicKey = try? _RSA.Encryption.PublicKey(derRepresentation: der)
            else {
                skipped.append(["id": id, "reason": "no RSA_OAEP_SHA256 public key"])
                continue
            }
            guard let inbox = try await state.database.queue.read({ db in try state.database.meta(db, "apns:" + token) }) else {
                skipped.append(["id": id, "reason": "APNs knows no device for this token"])
                continue
            }
            let payload = try PushNotificationEncryption.payload(
                content: content, publicKey: publicKey, fallbackTitle: Self.fallbackTitle, fallbackBody: "",
                extra: [PushNotificationKey.userId: .string(user.id)])
            let file = try Self.deliver(JSON.object(payload).text, into: URL(fileURLWithPath: inbox))
            delivered.append(["id": id, "token": token, "file": file.path])
        }
        return HTTP.json(delivered.isEmpty ? .notFound : .ok, ["delivered": delivered, "skipped": skipped])
    }

    /// Written whole (temp file, then rename), 0600, named so that files sort in delivery order.
    static func deliver(_ text: String, into inbox: URL) throws -> URL {
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let name = String(format: "%015.0f", Date().timeIntervalSince1970 * 1000) + "-" + UUID().uuidString.prefix(8) + ".json"
        let file = inbox.appendingPathComponent(name)
        let temp = inbox.appendingPathComponent("." + name + ".tmp")
        try Data(text.utf8).write(to: temp)
        chmod(temp.path, 0o600)
        guard rename(temp.path, file.path) == 0 else { throw CocoaError(.fileWriteUnknown) }
        return file
    }
}
