import AppGroup
import Foundation
import Keychain
import CoreNetworkEngine
import CoreEngine
import SmartStoreEngine

/// `msdk-sim inspect`: a device at a glance, read from the outside (as Xcode's container view
/// would), so it changes nothing: each process's resolved msdkUserDefaults, the accounts and the
/// current user, keychain items by group with values redacted, stores with soups and entry counts,
/// and syncs with their status.
package struct InspectReport: Codable, Sendable {
    package struct Target: Codable, Sendable {
        package var bundleIdentifier: String
        package var appGroupName: String?
        package var appGroupEnabled: Bool
        /// "group <name>" or "standard".
        package var msdkUserDefaults: String
        package var path: String
        /// Key → a short rendering of the value.
        package var keys: [String: String]
        package var currentUser: String?
    }

    package struct Account: Codable, Sendable {
        package var username: String
        package var orgId: String
        package var userId: String
        package var file: String
        /// "encrypted, key in group G" (decrypted only when that key could be read), or why not.
        package var protection: String
        /// The keychain account of the session's token items (`SFOAuthIdentifier`; not a secret), when decrypted.
        package var keychainAccount: String?
        /// The file's data protection class (issue 36).
        package var fileProtection: String = FileProtectionClass.sdkDefault.rawValue
        /// The user's other files in the SDK's library directory (SFDirectoryManager's, e.g.
        /// `internal/viewedContacts.json (412 bytes)`), relative to it, sorted.
        package var libraryFiles: [String] = []
    }

    package struct KeychainItem: Codable, Sendable {
        package var service: String
        package var account: String
        package var value: String
        /// The item's accessibility class (issue 36).
        package var accessible: String = KeychainAccessibility.sdkDefault.rawValue
    }

    package struct Soup: Codable, Sendable {
        package var name: String
        package var entries: Int
    }

    package struct Store: Codable, Sendable {
        package var path: String
        package var soups: [Soup]
        /// Always "unencrypted" here: the SDK's SQLCipher cannot be used on this platform (docs/differences.md).
        package var encryption = "unencrypted (the SDK encrypts with SQLCipher, which AppGroupSim cannot use here)"
        /// The store file's data protection class (issue 36).
        package var fileProtection: String = FileProtectionClass.sdkDefault.rawValue
    }

    package struct Sync: Codable, Sendable {
        package var store: String
        package var id: Int64
        package var name: String?
        package var type: String
        package var soup: String
        package var status: String
        package var progress: Int
    }

    /// Push notifications of one app on the device: its APNs token, each user's registration with the
    /// org (what the app keeps for the DELETE at logout), and the notifications waiting and delivered.
    package struct Push: Codable, Sendable {
        package var app: String
        /// The first 8 hex digits of the simulated APNs token, or nil before the app registered.
        package var deviceToken: String?
        /// `orgId/userId` → "registered as <MobilePushServiceDevice id>" (with "for an older token" when the
        /// token changed since), or "not registered" for an account on the device with no registration.
        package var users: [String: String]
        package var inbox: Int
        package var delivered: Int
    }

    /// WidgetCenter reloads recorded on the device, per app (`WidgetKit/<app>.jsonl`).
    package struct WidgetReloadSummary: Codable, Sendable {
        package var app: String
        package var count: Int
        package var lastKind: String?
        package var lastFrom: String
    }

    package var device: String
    package var deviceID: String
    /// The device's lock state (`msdk-sim device state`), or why it cannot be read.
    package var lockState: String = DeviceLockState.unlocked.rawValue
    /// The backup this device was restored from (`msdk-sim device restore`), nil for a device set up new.
    package var restoredFrom: String?
    package var targets: [Target]
    package var accounts: [Account]
    /// "ready" or what is wrong with the Secret Service.
    package var keychainStatus: String
    /// Access group → items.
    package var keychain: [String: [KeychainItem]]
    package var stores: [Store]
    package var syncs: [Sync]
    package var push: [Push]
    package var widgetReloads: [WidgetReloadSummary] = []
    /// Paths others can read (the device keeps 0700/0600), as `path mode`.
    package var looseModes: [String]
    /// Temp files of writers killed before their rename.
    package var leftoverTempFiles: [String]
}

package enum Inspector {
    package static func inspect(devicePath: String, secretStore: (any SecretStore)? = nil) throws -> InspectReport {
        // Read from the outside, as Xcode's container view: in any lock state, every file.
        try FileProtection.fromOutside { try inspectFromOutside(devicePath: devicePath, secretStore: secretStore) }
    }

    static func inspectFromOutside(devicePath: String, secretStore: (any SecretStore)?) throws -> InspectReport {
        let device = try Device.resolve(path: devicePath)
        let fm = FileManager.default
        let layout = device.layout
        var targets: [InspectReport.Target] = []
        var sdkRoots: [DeviceLayout.SDKRoot] = []
        for id in layout.bundleIDsWithContainers() {
            let standard = SharedDefaults(url: layout.standardDefaults(bundleID: id))
            let name = try standard.string(forKey: DataSharingHelper.appGroupNameKey)
            let suite = name.map { SharedDefaults(url: layout.groupSuite(groupID: $0)) }
            let enabled = try suite?.bool(forKey: DataSharingHelper.appGroupEnabledKey) ?? false
            let msdk = enabled ? suite! : standard
            let values = try msdk.dictionaryRepresentation()
            let identity = values["LastUserIdentity"].flatMap { UserIdentity(plist: $0) }
            var keys = values.mapValues(render)
            if let identity { keys["LastUserIdentity"] = "\(identity) (SFUserAccountIdentity, keyed archive)" }
            targets.append(InspectReport.Target(
                bundleIdentifier: id, appGroupName: name, appGroupEnabled: enabled,
                msdkUserDefaults: enabled ? "group \(name!)" : "standard", path: msdk.url.path,
                keys: keys, currentUser: identity?.description))
            sdkRoots.append(layout.privateSDKRoot(bundleID: id))
            if let name, enabled { sdkRoots.append(layout.groupSDKRoot(groupID: name)) }
        }
        sdkRoots = Array(Set(sdkRoots)).sorted { $0.url.path < $1.url.path }

        let secrets = secretStore ?? LibsecretStore()
        var keychain: [String: [InspectReport.KeychainItem]] = [:]
        var status = "ready"
        // The account key, if the keychain gives it: account files are decrypted only with it.
        var accountKey: (secret: [UInt8], group: String)?
        switch secrets.availability() {
        case .ready:
            do {
                // The SDK's items and its key items (the EC key pair its keys are wrapped with).
                let items = try secrets.search(["device": device.id.uuidString]).filter {
                    [KeychainHelper.creator, KeychainHelper.keyCreator].contains($0.attributes["creator"] ?? "")
                }
                let privateKey = items.first { $0.attributes["service"] == KeychainHelper.ecPrivateKeyTag }?.secret
                for item in items {
                    let a = item.attributes
                    keychain[a["accessGroup"] ?? "?", default: []].append(InspectReport.KeychainItem(
                        service: a["service"] ?? "", account: a["account"] ?? "",
                        value: item.secret.isEmpty ? "(empty)" : "(\(item.secret.count) bytes, redacted)",
                        accessible: KeychainAccessibility.of(a).rawValue))
                    if a["service"] == AccountEncryption.keyService {
                        // Wrapped with the EC key pair, as the SDK writes it; nil when the pair is not on this device.
                        accountKey = unwrappedKey(item.secret, privateKey: privateKey).map { ($0, a["accessGroup"] ?? "?") }
                    }
                }
                for key in keychain.keys { keychain[key]!.sort { ($0.service, $0.account) < ($1.service, $1.account) } }
            } catch {
                status = error.message
            }
        case let other:
            status = KeychainHelper.error(for: other).message
        }

        var accounts: [InspectReport.Account] = []
        var stores: [InspectReport.Store] = []
        var syncs: [InspectReport.Sync] = []
        for root in sdkRoots {
            for file in root.accountFiles() where file.orgId.hasPrefix("00D") {
                guard let data = fm.contents(atPath: file.url.path) else { continue }
                let contents = AccountFileContents.read(data, key: accountKey)
                let userDir = file.url.deletingLastPathComponent()
                var libraryFiles: [String] = []
                if let walker = fm.enumerator(atPath: userDir.path) {
                    for case let path as String in walker where path != DeviceLayout.SDKRoot.accountFileName {
                        var isDir: ObjCBool = false
                        guard fm.fileExists(atPath: userDir.appendingPathComponent(path).path, isDirectory: &isDir), !isDir.boolValue else { continue }
                        let size = (try? fm.attributesOfItem(atPath: userDir.appendingPathComponent(path).path)[.size] as? Int) ?? 0
                        libraryFiles.append("\(path) (\(size) bytes)")
                    }
                }
                accounts.append(InspectReport.Account(
                    username: contents.account?.username ?? "(\(contents.problem ?? "unreadable account file"))", orgId: file.orgId, userId: file.userId,
                    file: file.url.path, protection: contents.protection, keychainAccount: contents.account?.credentials.keychainAccount,
                    fileProtection: FileProtection.effectiveClass(of: file.url).rawValue, libraryFiles: libraryFiles.sorted()))
            }
            for url in root.storeFiles() {
                do {
                    // Read-only: inspecting never creates, migrates or writes a store.
                    let store = try SmartStore(url: url, name: url.deletingLastPathComponent().lastPathComponent, readOnly: true)
                    var soups: [InspectReport.Soup] = []
                    for soup in try store.allSoupNames().sorted() {
                        let n = try store.query(.smart("SELECT count(*) FROM {\(soup)}", pageSize: 1)).first?.arrayValue?.first?.intValue ?? 0
                        soups.append(InspectReport.Soup(name: soup, entries: Int(n)))
                    }
                    stores.append(InspectReport.Store(path: url.path, soups: soups, fileProtection: FileProtection.effectiveClass(of: url).rawValue))
                    if soups.contains(where: { $0.name == "syncs_soup" }) {
                        for row in try store.query(.all(soup: "syncs_soup", orderPath: "_soupEntryId", pageSize: 1000)) {
                            guard let e = row.objectValue else { continue }
                            syncs.append(InspectReport.Sync(
                                store: url.path, id: e["_soupEntryId"]?.intValue ?? 0, name: e["name"]?.stringValue,
                                type: e["type"]?.stringValue ?? "?", soup: e["soupName"]?.stringValue ?? "?",
                                status: e["status"]?.stringValue ?? "?", progress: Int(e["progress"]?.intValue ?? 0)))
                        }
                    }
                } catch {
                    stores.append(InspectReport.Store(path: "\(url.path) (cannot be opened: \(error))", soups: []))
                }
            }
        }

        let lockState: String
        do { lockState = try device.lockState().rawValue } catch { lockState = "\(error)" }
        return InspectReport(
            device: device.root.path, deviceID: device.id.uuidString, lockState: lockState, restoredFrom: device.restoredFrom, targets: targets, accounts: accounts,
            keychainStatus: status, keychain: keychain, stores: stores, syncs: syncs,
            push: try push(layout: layout, accounts: accounts), widgetReloads: widgetReloads(layout),
            looseModes: DeviceHygiene.looseModes(under: [device.root]).map { "\($0.path) \(String($0.mode, radix: 8))" }.sorted(),
            leftoverTempFiles: DeviceHygiene.leftoverTempFiles(under: [device.root]).sorted())
    }

    static func widgetReloads(_ layout: DeviceLayout) -> [InspectReport.WidgetReloadSummary] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: layout.root.appendingPathComponent("WidgetKit").path)) ?? []
        return names.filter { $0.hasSuffix(".jsonl") }.sorted().compactMap { name in
            let app = String(name.dropLast(".jsonl".count))
            let all = WidgetReloads.all(layout, app: app)
            guard let last = all.last else { return nil }
            return InspectReport.WidgetReloadSummary(app: app, count: WidgetReloads.count(layout, app: app), lastKind: last.kind, lastFrom: last.from)
        }
    }

    /// Every app with a push token or a notification folder on the device, and each user's registration.
    static func push(layout: DeviceLayout, accounts: [InspectReport.Account]) throws -> [InspectReport.Push] {
        let fm = FileManager.default
        let notified = Set((try? fm.contentsOfDirectory(atPath: layout.root.appendingPathComponent("Notifications").path)) ?? [])
        var out: [InspectReport.Push] = []
        for id in Set(layout.bundleIDsWithContainers()).union(notified).sorted() {
            let standard = SharedDefaults(url: layout.standardDefaults(bundleID: id))
            let token = try standard.string(forKey: PushNotificationManager.deviceTokenKey)
            let registrations = try standard.value(forKey: PushNotificationManager.registrationsKey)?.dictionaryValue ?? [:]
            guard token != nil || !registrations.isEmpty || notified.contains(id) else { continue }
            var users: [String: String] = [:]
            for (user, entry) in registrations {
                let entry = entry.dictionaryValue ?? [:]
                let stale = entry["token"]?.stringValue != token ? " for an older token (registered again at the next launch)" : ""
                users[user] = "registered as \(entry["id"]?.stringValue ?? "?")\(stale)"
            }
            if token != nil {
                for account in accounts where users["\(account.orgId)/\(account.userId)"] == nil {
                    users["\(account.orgId)/\(account.userId)"] = "not registered (the app retries at its next launch)"
                }
            }
            func count(_ dir: URL) -> Int { NotificationInbox.payloadNames(in: dir).count }
            out.append(InspectReport.Push(
                app: id, deviceToken: token.map { String($0.prefix(8)) + "…" }, users: users,
                inbox: count(layout.notificationInbox(bundleID: id)), delivered: count(layout.deliveredNotifications(bundleID: id))))
        }
        return out
    }

    static func render(_ value: PlistValue) -> String {
        switch value {
        case .bool(let b): return String(b)
        case .int(let i): return String(i)
        case .double(let d): return String(d)
        case .string(let s): return s.count > 60 ? String(s.prefix(57)) + "..." : s
        case .data(let d): return "<\(d.count) bytes>"
        case .date(let d): return ISO8601DateFormatter().string(from: d)
        case .array(let a): return "[\(a.count) items]"
        case .dictionary(let d):
            if let org = d["orgId"]?.stringValue, let user = d["userId"]?.stringValue { return "\(org)/\(user)" }
            return "{\(d.keys.sorted().joined(separator: ", "))}"
        }
    }
}
