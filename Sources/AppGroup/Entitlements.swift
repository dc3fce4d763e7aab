import Foundation

/// A target's `.entitlements` file: the app groups and keychain groups it may open.
package struct Entitlements: Sendable, Equatable {
    package static let applicationGroupsKey = "com.apple.security.application-groups"
    package static let keychainAccessGroupsKey = "keychain-access-groups"

    /// `com.apple.security.application-groups`.
    package var applicationGroups: [String]
    /// `keychain-access-groups`, as written (with `$(AppIdentifierPrefix)` unexpanded).
    package var keychainAccessGroups: [String]
    /// Every key of the file.
    package var raw: [String: PlistValue]

    package init(applicationGroups: [String] = [], keychainAccessGroups: [String] = [], raw: [String: PlistValue] = [:]) {
        self.applicationGroups = applicationGroups
        self.keychainAccessGroups = keychainAccessGroups
        self.raw = raw
    }

    package init(plist: [String: PlistValue], path: String) throws {
        func strings(_ key: String) throws -> [String] {
            guard let value = plist[key] else { return [] }
            guard let array = value.arrayValue else {
                throw BundleError.invalidValue(path: path, key: key, expected: "an array of strings")
            }
            return try array.map {
                guard let s = $0.stringValue else {
                    throw BundleError.invalidValue(path: path, key: key, expected: "an array of strings")
                }
                return s
            }
        }
        let groups = try strings(Self.applicationGroupsKey)
        // An app group names a directory on the device: it must be a reverse-DNS name, as iOS requires.
        for group in groups {
            if let problem = BundleIdentifier.problem(group) {
                throw BundleError.invalidValue(path: path, key: Self.applicationGroupsKey, expected: "reverse-DNS group names like group.com.acme.app; \"\(group.prefix(80))\" \(problem)")
            }
        }
        self.init(
            applicationGroups: groups,
            keychainAccessGroups: try strings(Self.keychainAccessGroupsKey),
            raw: plist)
    }

    /// Replaces Xcode's build variables the way code signing does: `$(AppIdentifierPrefix)` and
    /// `$(TeamIdentifierPrefix)` become `<team id>.`. Other variables are left as written.
    package static func expand(_ value: String, teamID: String) -> String {
        // The standard library's `replacing`: Foundation's replacingOccurrences goes through NSString and
        // costs a launch about 0.3 ms more here.
        value.replacing("$(AppIdentifierPrefix)", with: teamID + ".").replacing("$(TeamIdentifierPrefix)", with: teamID + ".")
    }

    /// The keychain access groups a process of this target may use, in iOS's order: the
    /// `keychain-access-groups` entries (expanded), then the application identifier
    /// (`<team>.<bundle id>`), then the app groups. A write with no group goes to the first.
    package func effectiveKeychainAccessGroups(teamID: String, bundleID: String) -> [String] {
        var groups = keychainAccessGroups.map { Self.expand($0, teamID: teamID) }
        groups.append("\(teamID).\(bundleID)")
        groups.append(contentsOf: applicationGroups)
        var seen = Set<String>()
        return groups.filter { seen.insert($0).inserted }
    }
}
