import Foundation
import Logging

/// What one process (a bundle launched on a device) may see: its private container, the app-group
/// containers its entitlements list, its standard defaults and its keychain access groups.
///
/// This is where iOS's sandbox rules are enforced: an app group that is not in the entitlements
/// has no container (`containerURL` is nil, `groupContainer` throws `notEntitled`).
///
/// Team identity is enforced as iOS's code signing does: a bundle belongs to its team (the
/// `com.apple.developer.team-identifier` it was signed with, else the device's), may use only keychain groups
/// prefixed by that team's id, and an app group belongs to the team that first used it on the device. What a
/// bundle of another team names in its entitlements is refused as if it were not there.
package struct AppSandbox: Sendable {
    package let device: Device
    package let bundle: AppBundle
    private let owners = OwnersCache()

    package init(device: Device, bundle: AppBundle) {
        self.device = device
        self.bundle = bundle
    }

    /// The bundle's team: its signing team, else the device's.
    package var teamID: String { bundle.teamIdentifier ?? device.teamID }

    /// The team an app group belongs to on this device, nil until one uses it.
    package func owner(ofAppGroup groupID: String) -> String? { owners.owners(device)[groupID] }

    /// App groups the entitlements list but another team owns on this device: refused.
    package var appGroupsOfOtherTeams: [(group: String, owner: String)] {
        bundle.entitlements.applicationGroups.compactMap { group in owner(ofAppGroup: group).flatMap { $0 == teamID ? nil : (group, $0) } }
    }

    /// Keychain groups the entitlements list (expanded) that neither carry this team's prefix nor are an app
    /// group of this team: refused, as code signing would refuse them.
    package var keychainGroupsOfOtherTeams: [String] {
        bundle.entitlements.effectiveKeychainAccessGroups(teamID: teamID, bundleID: bundleIdentifier).filter { !isOwnKeychainGroup($0) }
    }

    func isOwnKeychainGroup(_ group: String) -> Bool {
        if group.hasPrefix(teamID + ".") { return true }
        return bundle.entitlements.applicationGroups.contains(group) && owner(ofAppGroup: group).map { $0 == teamID } ?? true
    }

    package var bundleIdentifier: String { bundle.bundleIdentifier }

    /// Refuses a container of this process (or a directory on the way to it) that is a symbolic link: a link
    /// put in place of a container would have the app write its defaults, accounts and stores wherever it
    /// points. Checked at launch.
    package func checkContainers() throws {
        if let existing = device.collidingBundleID(bundleIdentifier) { throw DeviceError.bundleIDCollides(bundleID: bundleIdentifier, existing: existing) }
        let roots = [dataContainer] + bundle.entitlements.applicationGroups.map(device.sharedContainer(groupID:))
        for container in roots {
            let relative = container.path.dropFirst(device.root.path.count).split(separator: "/")
            var path = device.root.path
            for component in relative {
                path += "/" + component
                var info = stat()
                guard lstat(path, &info) == 0 else { break }
                if info.st_mode & S_IFMT == S_IFLNK { throw DeviceError.containerIsLink(path: path) }
            }
        }
    }

    /// `Containers/Data/<bundle id>`.
    package var dataContainer: URL { device.dataContainer(bundleID: bundleIdentifier) }

    /// `UserDefaults.standard`: `Library/Preferences/<bundle id>.plist` in the private container.
    package var standardDefaults: SharedDefaults {
        SharedDefaults(url: device.layout.standardDefaults(bundleID: bundleIdentifier))
    }

    /// True if the entitlements list `groupID` under `com.apple.security.application-groups` and no other team
    /// owns it on this device.
    package func isEntitled(toAppGroup groupID: String) -> Bool {
        guard bundle.entitlements.applicationGroups.contains(groupID) else { return false }
        return owner(ofAppGroup: groupID).map { $0 == teamID } ?? true
    }

    /// Records this bundle's team as the group's owner when no team has used it yet.
    func claim(_ groupID: String) throws {
        guard owner(ofAppGroup: groupID) == nil else { return }
        let team = teamID
        let owner = try SharedDefaults(url: device.layout.appGroupOwners).update(groupID) { value -> String in
            if let existing = value?.stringValue { return existing }
            value = .string(team)
            return team
        }
        owners.set(groupID, owner)
    }

    /// `FileManager.containerURL(forSecurityApplicationGroupIdentifier:)`: nil unless entitled.
    package func containerURL(forSecurityApplicationGroupIdentifier groupID: String) -> URL? {
        try? groupContainer(groupID)
    }

    /// The app group's shared container, created (0700) on first use.
    package func groupContainer(_ groupID: String) throws -> URL {
        if bundle.entitlements.applicationGroups.contains(groupID), let owner = owner(ofAppGroup: groupID), owner != teamID {
            throw AppGroupError.ownedByAnotherTeam(group: groupID, owner: owner, bundleID: bundleIdentifier, team: teamID)
        }
        guard isEntitled(toAppGroup: groupID) else {
            throw AppGroupError.notEntitled(
                group: groupID, bundleID: bundleIdentifier, entitlements: bundle.entitlementsURL.path,
                entitled: bundle.entitlements.applicationGroups)
        }
        try claim(groupID)
        let url = device.sharedContainer(groupID: groupID)
        try SecureFiles.makeDirectory(url)
        return url
    }

    /// `UserDefaults(suiteName:)`. For an entitled app group this is the shared suite in the group container.
    /// For anything else iOS quietly gives a suite private to the process, and so do we
    /// (`Library/Preferences/<name>.plist` in the private container): writes succeed and nobody else sees them.
    package func suite(named name: String) -> SharedDefaults {
        if isEntitled(toAppGroup: name) {
            // Entitled: the group's suite, even if the owner could not be recorded (an unreadable owners file is
            // reported where it is read); a private suite here would hide the app's writes from its extension.
            try? claim(name)
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
    package var ownedDirectories: [URL] {
        ([dataContainer] + bundle.entitlements.applicationGroups.map(device.sharedContainer(groupID:)))
            .filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// A launch's repair of the device's file rules in what it owns (and the device directory and
    /// `device.json` themselves, not the other apps' containers): loose modes back to 0700/0600, and
    /// temp files of writers that died removed. Returns what it changed, for one line on stderr.
    package func restoreFileRules() -> (tightened: [DeviceHygiene.LooseMode], removed: [String]) {
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

    /// The keychain access groups this process may use, `$(AppIdentifierPrefix)` expanded with its team: those
    /// of its own team only (`keychainGroupsOfOtherTeams` are refused).
    package var keychainAccessGroups: [String] {
        bundle.entitlements.effectiveKeychainAccessGroups(teamID: teamID, bundleID: bundleIdentifier).filter(isOwnKeychainGroup)
    }
}

/// The device's app-group owners, read once per sandbox (a launch asks several times).
final class OwnersCache: @unchecked Sendable {
    private let lock = NSLock()
    private var loaded: [String: String]?

    func owners(_ device: Device) -> [String: String] {
        lock.withLock {
            if let loaded { return loaded }
            let read = ((try? SharedDefaults(url: device.layout.appGroupOwners).dictionaryRepresentation()) ?? [:]).compactMapValues(\.stringValue)
            loaded = read
            return read
        }
    }

    func set(_ group: String, _ owner: String) { lock.withLock { loaded?[group] = owner } }
}

package enum AppGroupError: Error, Equatable, CustomStringConvertible, LocalizedError {
    /// The process asked for an app-group container its entitlements do not list.
    case notEntitled(group: String, bundleID: String, entitlements: String, entitled: [String])
    /// The entitlements list the group, but another team used it first on this device.
    case ownedByAnotherTeam(group: String, owner: String, bundleID: String, team: String)

    package var description: String {
        switch self {
        case .notEntitled(let group, let bundleID, let entitlements, let entitled):
            let have = entitled.isEmpty ? "none" : entitled.joined(separator: ", ")
            return "\(bundleID) is not entitled to app group \(group) (it has: \(have)); "
                + "add \(group) to com.apple.security.application-groups in \(entitlements)"
        case .ownedByAnotherTeam(let group, let owner, let bundleID, let team):
            return "\(bundleID) (team \(team)) names app group \(group), which belongs to team \(owner) on this device: a group is shared only within the team that made it; sign \(bundleID) with team \(owner) or use a group of your own"
        }
    }

    package var errorDescription: String? { description }
}
