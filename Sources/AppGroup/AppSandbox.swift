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
        SharedDefaults(url: dataContainer.appendingPathComponent("Library/Preferences/\(bundleIdentifier).plist"))
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
            let url = device.sharedContainer(groupID: name).appendingPathComponent("Library/Preferences/\(name).plist")
            return SharedDefaults(url: url)
        }
        if name.hasPrefix("group.") {
            Logger(label: "AppGroup").debug(
                "suite is private: not entitled to app group",
                metadata: ["suite": "\(name)", "bundle": "\(bundleIdentifier)"])
        }
        return SharedDefaults(url: dataContainer.appendingPathComponent("Library/Preferences/\(name).plist"))
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
