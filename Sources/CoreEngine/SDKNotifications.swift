import Foundation

/// The SDK's notification names, so a trace reads like the SDK's own life cycle.
package enum SDKNotification: String, Sendable, Codable {
    case userWillLogIn = "SFNotificationUserWillLogIn"
    case userDidLogIn = "SFNotificationUserDidLogIn"
    case userWillLogout = "SFNotificationUserWillLogout"
    case userDidLogout = "SFNotificationUserDidLogout"
    case orgDidLogout = "SFNotificationOrgDidLogout"
    case userWillSwitch = "SFNotificationUserWillSwitch"
    case userDidSwitch = "SFNotificationUserDidSwitch"
    case didChangeCurrentUser = "SFUserAccountManagerDidChangeUserNotification"
    case didRefreshToken = "SFNotificationOAuthUserDidRefreshToken"
}

/// Observers of SDK notifications, and the `--trace` file: JSON lines of launch steps and notifications.
package final class SDKEvents: @unchecked Sendable {
    package typealias Observer = @Sendable (SDKNotification, [String: String]) -> Void

    private let lock = NSLock()
    private var observers: [(SDKNotification?, Observer)] = []
    private let trace: FileHandle?

    /// - Parameter append: add to the file instead of starting it afresh (an app launched by another
    ///   process to handle a URL writes into its launcher's trace).
    package init(traceFile: String? = nil, append: Bool = false) {
        if let traceFile {
            if !append || !FileManager.default.fileExists(atPath: traceFile) {
                _ = FileManager.default.createFile(atPath: traceFile, contents: nil, attributes: [.posixPermissions: 0o600])
            }
            // O_APPEND, one write per line: the app and the apps it launches can share one trace.
            let fd = open(traceFile, O_WRONLY | O_APPEND | O_CLOEXEC)
            trace = fd >= 0 ? FileHandle(fileDescriptor: fd, closeOnDealloc: true) : nil
        } else {
            trace = nil
        }
    }

    /// Calls `observer` for `name` (or every notification when nil).
    package func observe(_ name: SDKNotification?, _ observer: @escaping Observer) {
        lock.withLock { observers.append((name, observer)) }
    }

    package func post(_ name: SDKNotification, _ info: [String: String] = [:]) {
        record(["notification": name.rawValue], info)
        let matching = lock.withLock { observers.filter { $0.0 == nil || $0.0 == name }.map(\.1) }
        for observer in matching { observer(name, info) }
    }

    /// A launch-flow step, for the trace only.
    package func step(_ name: String, _ info: [String: String] = [:]) {
        record(["step": name], info)
    }

    private func record(_ head: [String: String], _ info: [String: String]) {
        guard let trace else { return }
        var object: [String: Any] = head
        object["time"] = ISO8601DateFormatter().string(from: Date())
        if !info.isEmpty { object["info"] = info }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        lock.withLock {
            trace.write(data + Data("\n".utf8))
        }
    }
}
