import AppGroup
import Foundation
import SalesforceSDKCommon

/// iOS's side of a notification service extension (issue 37), for the developer's own principal class: the next
/// remote notification in the host app's inbox on the simulated device (taken as `extension-notification` takes
/// it: moved to `delivered/`, shown once however often APNs delivered it), made into a `UNNotificationRequest`
/// as iOS makes one, and handed to a new instance of the class in the process of the extension's bundle. The
/// extension has `budget` seconds (iOS's "about 30 seconds") to call the content handler; then
/// `serviceExtensionTimeWillExpire()` is called, and what the handler gets within `graceAfterExpiry` is shown,
/// else the content as it came. Nothing of the content is written anywhere: it is returned, and printed by
/// `msdk-sim device deliver`; the trace (`APPGROUPSIM_TRACE`) gets steps without it.
package enum NotificationServiceHost {
    /// Apple: "That method has a limited amount of time (about 30 seconds) to perform its task".
    package static let defaultBudget: TimeInterval = 30
    /// How long after `serviceExtensionTimeWillExpire()` the handler may still be called. Apple gives no figure
    /// ("a very short time"); here one second.
    package static let graceAfterExpiry: TimeInterval = 1

    /// How one run of the extension ended.
    package struct Run {
        /// What is shown.
        package var content: UNNotificationContent
        /// The extension called the content handler (in time, or within the grace after expiry).
        package var handled: Bool
        /// The budget ran out first: `serviceExtensionTimeWillExpire()` was called.
        package var expired: Bool
    }

    /// Runs `service` on `request` as iOS does, on a queue of its own (the extension's code may block it, or call
    /// the handler from another thread; the handler's first call counts, as on iOS).
    package static func run(_ service: UNNotificationServiceExtension, request: UNNotificationRequest, budget: TimeInterval) -> Run {
        final class Handled: @unchecked Sendable {
            let lock = NSLock()
            var content: UNNotificationContent?
            let done = DispatchSemaphore(value: 0)
            func set(_ value: UNNotificationContent) {
                let first = lock.withLock { () -> Bool in
                    guard content == nil else { return false }
                    content = value.copy() as? UNNotificationContent ?? value
                    return true
                }
                if first { done.signal() }
            }
            var value: UNNotificationContent? { lock.withLock { content } }
        }
        struct Unchecked<T>: @unchecked Sendable { let value: T }
        let handled = Handled()
        let queue = DispatchQueue(label: "appgroupsim.notification-service")
        let box = Unchecked(value: (service, request))
        queue.async { box.value.0.didReceive(box.value.1) { handled.set($0) } }
        if handled.done.wait(timeout: .now() + max(0, budget)) == .success {
            return Run(content: handled.value!, handled: true, expired: false)
        }
        queue.async { box.value.0.serviceExtensionTimeWillExpire() }
        if handled.done.wait(timeout: .now() + graceAfterExpiry) == .success {
            return Run(content: handled.value!, handled: true, expired: true)
        }
        return Run(content: request.content, handled: false, expired: true)
    }
}

/// A notification as iOS showed it after the app's notification service extension ran
/// (`SimulatedDevice.deliverNotification(to:using:)`, `msdk-sim device deliver`).
public struct DeliveredNotification: @unchecked Sendable {
    public enum State: String, Sendable {
        /// The extension handed content over in time.
        case shown
        /// The budget ran out and the extension handed nothing over: the content as it came is shown.
        case timeExpired
        /// The inbox had nothing to deliver.
        case noNotification
        /// The payload is not a JSON dictionary: nothing is shown; the payload is kept in `delivered/`.
        case unreadable

        /// `msdk-sim device deliver`'s exit status (extension-notification's numbers where the meaning is the same).
        public var exitCode: Int32 {
            switch self {
            case .shown: return 0
            case .noNotification: return 10
            case .unreadable: return 13
            case .timeExpired: return 15
            }
        }
    }

    public var state: State
    /// The app whose notification it is (its display name).
    public var app: String
    public var title: String = ""
    public var subtitle: String = ""
    public var body: String = ""
    public var userInfo: [AnyHashable: Any] = [:]
    /// The extension changed what is shown (title, subtitle, body or userInfo).
    public var changed = false
    /// `serviceExtensionTimeWillExpire()` was called.
    public var expired = false
    /// The payload file, under `delivered/`.
    public var payload: URL?
    public var message: String

    init(state: State, app: String, message: String) {
        self.state = state
        self.app = app
        self.message = message
    }
}

extension NotificationServiceHost {
    /// The next notification of the host app's inbox, through a new `principal`, in the current process
    /// (`SDKProcess.current`: the extension's bundle on a device).
    package static func deliverNext(principal: UNNotificationServiceExtension.Type, budget: TimeInterval = defaultBudget) throws -> DeliveredNotification {
        let process = SDKProcess.current
        let bundle = process.sandbox.bundle
        guard bundle.isNotificationServiceExtension else {
            throw DeliveryError(message: "\(bundle.url.lastPathComponent) is not a notification service extension: its Info.plist NSExtension must have NSExtensionPointIdentifier \(AppBundle.notificationServiceExtensionPoint)")
        }
        let hostURL = bundle.url.deletingLastPathComponent().deletingLastPathComponent()
        guard hostURL.pathExtension == "app", let host = try? AppBundle(at: hostURL) else {
            throw DeliveryError(message: "\(bundle.url.path) is not inside an app's PlugIns/ folder: iOS runs a notification service extension only for the app that carries it")
        }
        let appName = host.displayName ?? hostURL.deletingPathExtension().lastPathComponent
        let taken = try NotificationInbox.takeNext(process.sandbox.device.layout, app: host.bundleIdentifier)
        guard let file = taken.file else {
            var none = DeliveredNotification(state: .noNotification, app: appName,
                message: "no notification was delivered to \(host.bundleIdentifier) (\(process.sandbox.device.layout.notificationInbox(bundleID: host.bundleIdentifier).path) has none to show)")
            if !taken.refused.isEmpty { none.message += "; refused, not regular files: \(taken.refused.joined(separator: ", "))" }
            return none
        }
        SDKProcess.traceStep("notificationReceived", ["payload": file.lastPathComponent, "extension": String(describing: principal)])
        guard let data = try SecureFiles.readRegularFileNoFollow(file),
            let userInfo = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        else {
            var unreadable = DeliveredNotification(state: .unreadable, app: appName, message: "\(file.path) is not a JSON object, so it is no notification payload; it was kept as it came")
            unreadable.payload = file
            return unreadable
        }
        let request = UNNotificationRequest.remote(identifier: file.deletingPathExtension().lastPathComponent, userInfo: userInfo)
        let run = run(principal.init(), request: request, budget: budget)
        var delivered = DeliveredNotification(state: run.handled ? .shown : .timeExpired, app: appName, message: "")
        delivered.title = run.content.title
        delivered.subtitle = run.content.subtitle
        delivered.body = run.content.body
        delivered.userInfo = run.content.userInfo
        delivered.expired = run.expired
        delivered.payload = file
        delivered.changed = run.content.title != request.content.title || run.content.subtitle != request.content.subtitle
            || run.content.body != request.content.body || !sameJSON(run.content.userInfo, request.content.userInfo)
        let name = String(describing: principal)
        switch (run.handled, run.expired) {
        case (true, false): delivered.message = delivered.changed ? "\(name) changed the content" : "\(name) handed the content over unchanged"
        case (true, true): delivered.message = "\(name) ran past its \(format(budget)) s; serviceExtensionTimeWillExpire() was called and it handed over content then"
        case (false, _): delivered.message = "\(name) did not call the content handler within \(format(budget)) s, nor after serviceExtensionTimeWillExpire(): the notification is shown as it came"
        }
        if run.expired { SDKProcess.traceStep("serviceExtensionTimeWillExpire", ["extension": name]) }
        SDKProcess.traceStep("notificationShown", ["handled": String(run.handled), "changed": String(delivered.changed)])
        return delivered
    }

    /// Whether two `userInfo`s hold the same JSON (written with sorted keys); not JSON: different.
    static func sameJSON(_ a: [AnyHashable: Any], _ b: [AnyHashable: Any]) -> Bool {
        func text(_ d: [AnyHashable: Any]) -> Data? {
            var object: [String: Any] = [:]
            for (key, value) in d {
                guard let key = key.base as? String else { return nil }
                object[key] = value
            }
            guard JSONSerialization.isValidJSONObject(object) else { return nil }
            return try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        }
        guard let x = text(a), let y = text(b) else { return false }
        return x == y
    }

    static func format(_ seconds: TimeInterval) -> String {
        seconds == seconds.rounded() ? String(Int(seconds)) : String(seconds)
    }

    package struct DeliveryError: Error, CustomStringConvertible {
        package let message: String
        package var description: String { message }
    }

    /// Keys of a payload that are the SDK's or APNs', not the notification's own fields.
    static let reservedKeys: Set<String> = ["aps", "encrypted", "secret", "content", "alertTitle", "alertBody"]

    /// The notification as a terminal shows it (extension-notification's layout).
    package static func text(_ n: DeliveredNotification) -> String {
        guard n.state != .noNotification else { return "(no notification) \(n.message)" }
        var lines = ["\(n.app) — notification"]
        for line in [n.title, n.subtitle, n.body] where !line.isEmpty { lines.append("  \(line)") }
        for (key, value) in fields(n).sorted(by: { $0.key < $1.key }) { lines.append("  \(key): \(value)") }
        lines.append("  [\(n.state.rawValue), \(n.changed ? "changed" : "as delivered")] \(n.message)")
        return lines.joined(separator: "\n")
    }

    static func fields(_ n: DeliveredNotification) -> [String: String] {
        var out: [String: String] = [:]
        for (key, value) in n.userInfo {
            guard let key = key.base as? String, !reservedKeys.contains(key) else { continue }
            out[key] = value as? String ?? (try? String(decoding: JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys]).dropFirst().dropLast(), as: UTF8.self)) ?? "\(value)"
        }
        return out
    }

    /// One JSON line: what `--json` prints.
    package static func json(_ n: DeliveredNotification) -> String {
        var object: [String: Any] = [
            "state": n.state.rawValue, "app": n.app, "title": n.title, "subtitle": n.subtitle, "body": n.body, "fields": fields(n),
            "changed": n.changed, "expired": n.expired, "message": n.message,
        ]
        object["payload"] = n.payload?.path ?? NSNull()
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// What the executable `msdk-sim import --package` makes of a notification service extension target runs:
    /// `[--json] [--budget SECONDS]`, as the bundle `APPGROUPSIM_BUNDLE` on the device `APPGROUPSIM_DEVICE`.
    /// Exit status: `DeliveredNotification.State.exitCode`; 64 for a bad option, 78 for a bundle that is not a
    /// notification service extension of an app.
    package static func main(principal: UNNotificationServiceExtension.Type, arguments: [String] = Array(CommandLine.arguments.dropFirst())) -> Never {
        var json = false
        var budget = defaultBudget
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": json = true
            case "--budget":
                guard let value = rest.popFirst().flatMap(TimeInterval.init), value >= 0 else {
                    FileHandle.standardError.write(Data("--budget takes a number of seconds (iOS gives about 30)\n".utf8))
                    exit(64)
                }
                budget = value
            default:
                FileHandle.standardError.write(Data("unknown option \(argument): a notification service extension takes [--json] [--budget SECONDS]\n".utf8))
                exit(64)
            }
        }
        do {
            let delivered = try deliverNext(principal: principal, budget: budget)
            print(json ? self.json(delivered) : text(delivered))
            exit(delivered.state.exitCode)
        } catch {
            FileHandle.standardError.write(Data("\(error)\n".utf8))
            exit(78)
        }
    }
}

/// The entry point `msdk-sim import --package` writes into a notification service extension target's `main.swift`
/// (the target becomes an executable, run by `msdk-sim device deliver`): iOS's side, for the target's principal
/// class, on the next notification of its app's inbox. Options `[--json] [--budget SECONDS]`.
public enum AppGroupSimNotificationService {
    public static func main(_ principal: UNNotificationServiceExtension.Type) -> Never { NotificationServiceHost.main(principal: principal) }
}
