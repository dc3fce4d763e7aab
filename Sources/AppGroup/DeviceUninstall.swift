import Foundation

/// Uninstalling an app, as iOS does (issue 36): its containers and its extensions' (`<bundle id>.*`), its URL and
/// notification inboxes and its registration go; an app group's container goes with the group's last app; the
/// keychain keeps every item (keychain values outlive the app on iOS, as `SalesforceSDKManager.m` says).
extension DeviceApps {
    package struct Uninstalled: Sendable, Equatable {
        package var removed: [String]
        /// Group containers kept because another app on the device uses (or may use) the group.
        package var keptGroups: [String: String]
    }

    package enum UninstallFailure: Error, Equatable, CustomStringConvertible, LocalizedError {
        case notOnDevice(String)
        case running(String)

        package var description: String {
            switch self {
            case .notOnDevice(let id):
                return "\(id) is neither installed nor has a container on this device (msdk-sim device apps lists the installed apps); nothing was removed"
            case .running(let id):
                return "\(id) is running on this device: quit it first (iOS ends an app before it removes it); nothing was removed"
            }
        }

        package var errorDescription: String? { description }
    }

    /// Removes the app `bundleID`. A group container is removed only when no other app on the device may use the
    /// group: another installed app whose entitlements list it keeps it, and so does any other container whose
    /// app is not installed here (its entitlements are unknown), so nothing of another app is ever deleted.
    package func uninstall(bundleID: String) throws -> Uninstalled {
        let layout = device.layout
        let containerIDs = ((try? FileManager.default.contentsOfDirectory(atPath: layout.dataContainers.path)) ?? []).filter { !$0.hasPrefix(".") }
        let installed = try apps()
        let registered = installed.first { $0.bundleIdentifier == bundleID }
        guard registered != nil || containerIDs.contains(bundleID) else { throw UninstallFailure.notOnDevice(bundleID) }
        // Its extensions are the ones its bundle carries, by their exact ids: another app's id may also start with
        // this one's (com.acme.app.lite), and an app whose bundle is unknown here takes only its own container.
        let registeredBundle = registered.flatMap { try? AppBundle(at: URL(fileURLWithPath: $0.path)) }
        let extensionIDs = Set(((try? registeredBundle?.plugIns()) ?? []).map(\.bundleIdentifier))
        let own = containerIDs.filter { $0 == bundleID || extensionIDs.contains($0) }
        for id in own where isRunning(bundleID: id) { throw UninstallFailure.running(id) }

        // The groups the app and its extensions use: from its bundle when it is installed, else from nothing.
        var groups: Set<String> = []
        if let bundle = registeredBundle {
            groups.formUnion(bundle.entitlements.applicationGroups)
            for ext in (try? bundle.plugIns()) ?? [] { groups.formUnion(ext.entitlements.applicationGroups) }
        }
        var kept: [String: String] = [:]
        for other in installed where other.bundleIdentifier != bundleID {
            guard let bundle = try? AppBundle(at: URL(fileURLWithPath: other.path)) else { continue }
            var used = Set(bundle.entitlements.applicationGroups)
            for ext in (try? bundle.plugIns()) ?? [] { used.formUnion(ext.entitlements.applicationGroups) }
            for group in groups.intersection(used) where kept[group] == nil { kept[group] = "\(other.bundleIdentifier) uses it" }
        }
        let unknown = containerIDs.filter { id in !own.contains(id) && !installed.contains { id == $0.bundleIdentifier || id.hasPrefix($0.bundleIdentifier + ".") } }
        if let first = unknown.first {
            for group in groups where kept[group] == nil { kept[group] = "\(first) has a container here and is not installed, so its groups are unknown" }
        }

        var removed: [String] = []
        for id in own {
            try SecureFiles.removeTree(layout.dataContainer(bundleID: id), inside: layout.dataContainers, depth: 1)
            removed.append("Containers/Data/\(id)")
        }
        let shared = device.root.appendingPathComponent("Containers/Shared/AppGroup")
        for group in groups.sorted() where kept[group] == nil {
            let container = layout.sharedContainer(groupID: group)
            guard FileManager.default.fileExists(atPath: container.path) else { continue }
            try SecureFiles.removeTree(container, inside: shared, depth: 1)
            removed.append("Containers/Shared/AppGroup/\(group)")
        }
        for folder in ["URLs", "Notifications"] {
            let base = device.root.appendingPathComponent(folder)
            for id in ((try? FileManager.default.contentsOfDirectory(atPath: base.path)) ?? []) where id == bundleID || extensionIDs.contains(id) {
                try SecureFiles.removeTree(base.appendingPathComponent(id), inside: base, depth: 1)
                removed.append("\(folder)/\(id)")
            }
        }
        if registered != nil { try registry.removeObject(forKey: bundleID) }
        return Uninstalled(removed: removed, keptGroups: kept)
    }
}
