import Foundation
import Logging

/// What one process (a bundle launched on a device) may see: its private container, the app-group
/// containers its entitlements list, its standard defaults and its keychain access groups.
///
/// This is where iOS's sandbox rules are enforced: an app group that is not in the entitlements
/// has no container (`containerURL` is nil, `groupContainer` throws `notEntitled`).
public struct AppSandbox: Sendable {
    public let device: Device
    public let bundle: AppBundle

    public init(device: Device, bundle: AppBundle) {
        self.device = device
        self.bundle = bundle
    }

    public var bundleIdentifier: String { bundle.bundleIdentifier }

    /// `Containers/Data/<bundle id>`.
    public var dataContainer: URL { device.dataContainer(bundleID: bundleIdentifier) }

    /// `UserDefaults.standard`: `Library/Preferences/<bundle id>.plist` in the private container.
    public var standardDefaults: SharedDefaults {
        SharedDefaults(url: device.layout.standardDefaults(bundleID: bundleIdentifier))
    }

    /// True if the entitlements list `groupID` under `com.apple.security.application-groups`.
    public func isEntitled(toAppGroup groupID: String) -> Bool {
        bundle.entitlements.applicationGroups.contains(groupID)
    }

    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`: nil unless entitled.
    public func containerURL(forSecurityApplicationGroupIdentifier groupID: String) -> URL? {
        try? groupContainer(groupID)
    }

    /// The app group's shared container, created (0700) on first use.
    public func groupContainer(_ groupID: String) throws -> URL {
        guard isEntitled(toAppGroup: groupID) else {
            throw AppGroupError.notEntitled(
                group: groupID, bundleID: bundleIdentifier, entitlements: bundle.entitlementsURL.path,
                entitled: bundle.entitlements.applicationGroups)
        }
        let url = device.sharedContainer(groupID: groupID)
        try SecureFiles.makeDirectory(url)
        return url
    }

    /// `UserDefaults(suiteName:)`. For an entitled app group this is the shared suite in the group container.
    /// For anything else iOS quietly gives a suite private to the process, and so do we
    /// (`Library/Preferences/<name>.plist` in the private container): writes succeed and nobody else sees them.
    public func suite(named name: String) -> SharedDefaults {
        if isEntitled(toAppGroup: name) {
            return SharedDefaults(url: device.layout.groupSuite(groupID: name))
        }
        if name.hasPrefix("group.") {
            Logger(label: "AppGroup").debug(
                "suite is private: not entitled to app group",
                metadata: ["suite": "\(name)", "bundle": "\(bundleIdentifier)"])
        }
        return SharedDefaults(url: device.layout.privateSuite(name, bundleID: bundleIdentifier))
    }

    /// What this process owns on the device: its private container and the app-group containers it is
    /// entitled to (those that exist).
    public var ownedDirectories: [URL] {
        ([dataContainer] + bundle.entitlements.applicationGroups.map(device.sharedContainer(groupID:)))
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// A launch's repair of the device's file rules in what it owns (and the device directory and
    /// `device.json` themselves, not the other apps' containers): loose modes back to 0700/0600, and
    /// temp files of writers that died removed. Returns what it changed, for one line on stderr.
    public func restoreFileRules() -> (tightened: [DeviceHygiene.LooseMode], removed: [String]) {
        let roots = ownedDirectories
        // The device directory, its manifest and the directories on the way to what the process owns.
        var top = [device.root, device.layout.manifest]
        for dir in roots {
            var parent = dir.deletingLastPathComponent()
            while parent.path.count > device.root.path.count, parent.path.hasPrefix(device.root.path) {
                top.append(parent)
                parent = parent.deletingLastPathComponent()
            }
        }
        let tightened = DeviceHygiene.tighten(under: top, recursive: false) + DeviceHygiene.tighten(under: roots)
        let topFiles = ((try? FileManager.default.contentsOfDirectory(atPath: device.root.path)) ?? []).map(device.root.appendingPathComponent)
        let removed = DeviceHygiene.removeLeftoverTempFiles(under: topFiles, recursive: false)
            + DeviceHygiene.removeLeftoverTempFiles(under: roots)
        return (tightened, removed)
    }

    /// The keychain access groups this process may use, `$(AppIdentifierPrefix)` expanded with the device's team.
    public var keychainAccessGroups: [String] {
        bundle.entitlements.effectiveKeychainAccessGroups(teamID: device.teamID, bundleID: bundleIdentifier)
    }
}

public enum AppGroupError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The process asked for an app-group container its entitlements do not list.
    case notEntitled(group: String, bundleID: String, entitlements: String, entitled: [String])

    public var description: String {
        switch self {
        case .notEntitled(let group, let bundleID, let entitlements, let entitled):
            let have = entitled.isEmpty ? "none" : entitled.joined(separator: ", ")
            return "\(bundleID) is not entitled to app group \(group) (it has: \(have)); "
                + "add \(group) to com.apple.security.application-groups in \(entitlements)"
        }
    }

    public var errorDescription: String? { description }
}
