import FastJSON
import Foundation
import Hummingbird
@preconcurrency import _CryptoExtras

/// Salesforce's push service and APNs, stood in for on loopback (issue "Push").
/// - `POST /__apns/devices` `{"token", "inbox", "device"}`: what APNs learns when a device registers for remote
///   notifications: where to deliver for that token. The inbox must be `Notifications/<bundle id>/inbox` of
///   the device directory whose `device.json` has the id `device` (a device that exists, made by
///   AppGroupSim, reached through no symbolic link): never an arbitrary path. Kept in the org's state, so a
///   restarted `--state` org still delivers; checked again at each delivery.
/// - `POST /__admin/push` `{"username", "title", "body", "fields"?, "cipher"?}`: a notification for the user.
///   For each of the user's `MobilePushServiceDevice` records it encrypts `{alertTitle, alertBody, fields…}`
///   with the record's `RsaPublicKey` as the SDK expects (`encrypted`, `secret`, `content`, `aps.alert`
///   with a fallback title) and writes the payload into that token's inbox. The secret is encrypted as the
///   record's `CipherName` says (`RSA_OAEP_SHA256`; none: RSA PKCS#1 v1.5, as Salesforce did for the SDKs
///   before 12); `"cipher": "RSA_PKCS1"` or `"RSA_OAEP_SHA256"` overrides it, so that a developer can check
///   the SDK 12's PKCS#1 fallback. A user with no registered
///   device gets nothing, and the answer says so (404 `NO_REGISTERED_DEVICE`).
struct PushGateway {
    let state: OrgState
    static let fallbackTitle = "New notification"

    func register(on router: Router<OrgContext>) {
        router.post("/__apns/devices") { request, _ in try await self.registerDevice(request) }
        router.post("/__admin/push") { request, _ in try await self.push(request) }
    }

    private func registerDevice(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)), let token = body["token"] as? String, !token.isEmpty, token.utf8.count <= 200,
            let inbox = body["inbox"] as? String, let device = body["device"] as? String
        else {
            return HTTP.error(.badRequest, "INVALID_FIELD", "expected {\"token\": \"…\", \"inbox\": \"/DEVICE/Notifications/<bundle id>/inbox\", \"device\": \"<device.json id>\"}",
                fields: ["token", "inbox", "device"])
        }
        do {
            try APNsInbox.check(inbox, device: device, create: true)
        } catch let error as APNsInbox.Refusal {
            return HTTP.error(.badRequest, "INVALID_FIELD", error.message, fields: ["inbox"])
        }
        let record = JSON.object(["inbox": .string(inbox), "device": .string(device)]).text
        try await state.database.store.write { db in try state.database.setMeta(db, "apns:" + token, record) }
        return HTTP.json(.ok, ["token": token, "inbox": inbox])
    }

    private func push(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)), let username = body["username"] as? String,
            let title = body["title"] as? String, let text = body["body"] as? String
        else { return HTTP.error(.badRequest, "INVALID_FIELD", "expected {\"username\", \"title\", \"body\", \"fields\"?}", fields: ["username", "title", "body"]) }
        guard let (org, user) = state.definition.orgs.lazy.compactMap({ org in
            org.users.first { $0.username.lowercased() == username.lowercased() }.map { (org, $0) }
        }).first else { return HTTP.error(.notFound, "NOT_FOUND", "no user \(username) in this org") }
        var forcedCipher: PushEncryption.Cipher?
        if let name = body["cipher"] {
            guard let text = name as? String, let cipher = PushEncryption.Cipher(rawValue: text) else {
                return HTTP.error(.badRequest, "INVALID_FIELD", "cipher must be \"RSA_OAEP_SHA256\" or \"RSA_PKCS1\"", fields: ["cipher"])
            }
            forcedCipher = cipher
        }
        var content: [String: JSON] = ["alertTitle": .string(title), "alertBody": .string(text)]
        for (key, value) in body["fields"] as? [String: Any] ?? [:] { content[key] = JSON(foundation: value) }

        guard let object = state.definition.object("MobilePushServiceDevice") else {
            return HTTP.error(.notFound, "NO_REGISTERED_DEVICE", "this org has no MobilePushServiceDevice object, so no device can be registered")
        }
        let devices = try await state.database.store.read { db in
            try db.fetchAll("SELECT \"Id\", \"ConnectionToken\", \"RsaPublicKey\", \"CipherName\" FROM \(OrgDatabase.quote(object.table)) WHERE org_id = ? AND \"OwnerId\" = ? AND COALESCE(\"IsDeleted\", 0) = 0 ORDER BY \(db.dialect.rowNumber)", [org.id, user.id])
        }
        guard !devices.isEmpty else {
            return HTTP.error(.notFound, "NO_REGISTERED_DEVICE", "no device is registered for push for \(user.username): nothing was delivered")
        }
        var delivered: [[String: Any]] = []
        var skipped: [[String: Any]] = []
        for device in devices {
            let id: String = device["Id"]
            let token: String = device["ConnectionToken"] ?? ""
            let cipherName: String? = device["CipherName"]
            guard let cipher = forcedCipher ?? PushEncryption.Cipher(cipherName: cipherName) else {
                skipped.append(["id": id, "reason": "CipherName \(cipherName ?? "") is not RSA_OAEP_SHA256"])
                continue
            }
            guard let keyText: String = device["RsaPublicKey"], let der = Data(base64Encoded: keyText),
                let publicKey = try? _RSA.Encryption.PublicKey(derRepresentation: der)
            else {
                skipped.append(["id": id, "reason": "no RSA public key (RsaPublicKey)"])
                continue
            }
            guard let stored = try await state.database.store.read({ db in try state.database.meta(db, "apns:" + token) }) else {
                skipped.append(["id": id, "reason": "APNs knows no device for this token"])
                continue
            }
            // Checked again now: the device directory may be gone, or a link put in its place since.
            guard let record = JSON(text: stored)?.objectValue, let inbox = record["inbox"]?.stringValue, let device = record["device"]?.stringValue else {
                skipped.append(["id": id, "reason": "APNs has this token from before devices were checked; the app registers again at its next launch"])
                continue
            }
            do {
                try APNsInbox.check(inbox, device: device, create: true)
            } catch let error as APNsInbox.Refusal {
                skipped.append(["id": id, "reason": error.message])
                continue
            }
            let payload = try PushEncryption.payload(
                content: content, publicKey: publicKey, cipher: cipher, fallbackTitle: Self.fallbackTitle, fallbackBody: "", extra: ["uid": .string(user.id)])
            let file = try Self.deliver(JSON.object(payload).text, into: URL(fileURLWithPath: inbox))
            delivered.append(["id": id, "token": token, "file": file.path, "cipher": cipher.rawValue])
        }
        return HTTP.json(delivered.isEmpty ? .notFound : .ok, ["delivered": delivered, "skipped": skipped])
    }

    /// Payloads delivered by this instance.
    static let deliveries = DeliveryCount()

    final class DeliveryCount: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func next() -> Int { lock.withLock { count += 1; return count } }
    }

    /// Written whole (a new temp file that follows no link, then rename), 0600, named so that files sort in
    /// delivery order.
    static func deliver(_ text: String, into inbox: URL) throws -> URL {
        // The time, then this instance's count: one push to several registrations of a device lands in one
        // millisecond, and a random id alone ordered those payloads at random (an exploration's run was then not a
        // function of its seed: which payload the extension showed last changed from one replay to the next).
        // The random id keeps the names of two instances delivering at once apart.
        let name = String(format: "%015.0f", Date().timeIntervalSince1970 * 1000) + "-" + String(format: "%06d", deliveries.next() % 1_000_000)
            + "-" + UUID().uuidString.prefix(8) + ".json"
        let file = inbox.appendingPathComponent(name)
        let temp = inbox.appendingPathComponent("." + name + ".tmp")
        let fd = open(temp.path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temp.path, file.path) == 0 else {
            unlink(temp.path)
            throw CocoaError(.fileWriteUnknown)
        }
        return file
    }
}

/// Where the stand-in for APNs may write: only `DEVICE/Notifications/<bundle id>/inbox` of a device directory
/// that exists and says (its `device.json`) that it is the device that registered. Every directory on the way
/// is a real directory, not a link, so a registration cannot send writes anywhere else on the machine; the
/// server creates at most the three directories under the device, never the device itself.
enum APNsInbox {
    struct Refusal: Error {
        var message: String
    }

    static func check(_ inbox: String, device: String, create: Bool) throws {
        func refuse(_ why: String) -> Refusal { Refusal(message: "the APNs inbox \(inbox.prefix(300)) is refused: \(why)") }
        guard inbox.hasPrefix("/"), inbox.utf8.count <= 4096 else { throw refuse("it is not an absolute path") }
        let parts = inbox.split(separator: "/", omittingEmptySubsequences: false).dropFirst().map(String.init)
        guard !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else { throw refuse("it is not a plain path (empty, '.' or '..' components)") }
        guard parts.count >= 4, parts[parts.count - 1] == "inbox", parts[parts.count - 3] == "Notifications" else {
            throw refuse("it is not DEVICE/Notifications/<bundle id>/inbox")
        }
        let bundle = parts[parts.count - 2]
        guard bundle.utf8.count <= 255, !bundle.hasPrefix("."),
            bundle.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "." || $0 == "-") })
        else { throw refuse("\(bundle) is not a bundle id") }
        let root = "/" + parts.dropLast(3).joined(separator: "/")
        // The device directory itself: a real directory (no link anywhere on the way), with a device.json of that id.
        guard let real = realpath(root, nil) else { throw refuse("\(root) does not exist; the device registers from its own directory") }
        defer { free(real) }
        guard String(cString: real) == root else { throw refuse("\(root) is reached through a symbolic link") }
        let manifest = root + "/device.json"
        var info = stat()
        guard lstat(manifest, &info) == 0, info.st_mode & S_IFMT == S_IFREG, info.st_size < 65536,
            let data = FileManager.default.contents(atPath: manifest), let id = JSON(data: data)?["id"]?.stringValue
        else { throw refuse("\(root) is not an AppGroupSim device (no device.json)") }
        guard id.lowercased() == device.lowercased() else { throw refuse("\(root) is another device (its device.json has another id)") }
        var path = root
        for component in [parts[parts.count - 3], bundle, "inbox"] {
            path += "/" + component
            if lstat(path, &info) != 0 {
                guard create, errno == ENOENT, mkdir(path, 0o700) == 0 || errno == EEXIST else { throw refuse("\(path) cannot be made") }
                guard lstat(path, &info) == 0 else { throw refuse("\(path) cannot be made") }
            }
            guard info.st_mode & S_IFMT == S_IFDIR else { throw refuse("\(path) is not a directory (a link or a file is there)") }
        }
    }
}
