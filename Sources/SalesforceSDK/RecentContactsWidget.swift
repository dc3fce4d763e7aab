import AppGroup
import Foundation
import Keychain

/// The sample's Recent Contacts widget: it never logs in. It applies its own app-group settings,
/// reads `userLoggedIn` from `msdkUserDefaults`, and only then would bootstrap the SDK.
public enum RecentContactsWidget {
    public enum State: String, Codable, Sendable {
        case listed, notLoggedIn, misconfigured, keychainUnavailable

        /// The exit status of `extension-widget` (DESIGN.md §9).
        public var exitCode: Int32 {
            switch self {
            case .listed: return 0
            case .notLoggedIn: return 10
            case .misconfigured: return 11
            case .keychainUnavailable: return 12
            }
        }
    }

    public struct User: Codable, Sendable, Equatable {
        public var orgId: String
        public var userId: String
        public var username: String
    }

    public struct Contact: Codable, Sendable, Equatable {
        public var Id: String
        public var FirstName: String?
        public var LastName: String?
        public var LastModifiedDate: String?
    }

    /// What `extension-widget --json` prints.
    public struct Report: Codable, Sendable, Equatable {
        public var state: State
        public var user: User?
        public var contacts: [Contact]
        public var message: String
    }

    /// The widget needs the SDK facade and SmartStore to list contacts; until they exist this is what it reports.
    public struct BootstrapUnavailable: Error, CustomStringConvertible {
        public var description: String {
            "the user is logged in, but listing contacts needs SmartStore and the SDK facade, which this build does not have yet"
        }
    }

    /// Runs the widget's launch checks in the order the sample does them.
    public static func evaluate(_ launch: ProcessLaunch) async throws -> Report {
        let sandbox = launch.sandbox
        guard let config = launch.config else {
            return misconfigured("\(sandbox.bundle.url.lastPathComponent) has no \(AppGroupConfig.fileName), so it cannot know the app group; add one with appGroupName and appGroupsEnabled")
        }
        if let host = try hostApp(of: sandbox.bundle) {
            if let hostConfig = try AppGroupConfig.load(from: host), hostConfig.appGroupName != config.appGroupName {
                return misconfigured("the app sets app group \(hostConfig.appGroupName) but the widget sets \(config.appGroupName); use one name in both AppGroupConfig.plist files")
            }
            if let hostGroup = host.entitlements.keychainAccessGroups.first {
                let expanded = Entitlements.expand(hostGroup, teamID: sandbox.device.teamID)
                if !sandbox.keychainAccessGroups.contains(expanded) {
                    return misconfigured("the widget is not entitled to the app's keychain group \(expanded), so it cannot read the tokens; add \(hostGroup) to keychain-access-groups in \(sandbox.bundle.entitlementsURL.lastPathComponent)")
                }
            }
        }
        guard sandbox.isEntitled(toAppGroup: config.appGroupName) else {
            return misconfigured("the widget is not entitled to app group \(config.appGroupName); add it to com.apple.security.application-groups in \(sandbox.bundle.entitlementsURL.lastPathComponent)")
        }
        let defaults = try launch.dataSharing.msdkUserDefaults()
        guard try defaults.bool(forKey: launch.userLogInStatusKey) else {
            let off = try launch.dataSharing.appGroupEnabled() ? "" : " (app groups are off for the widget, so it reads only its own defaults)"
            return Report(state: .notLoggedIn, user: nil, contacts: [], message: "\(launch.userLogInStatusKey) is not set in msdkUserDefaults\(off); log in with main-app")
        }
        let keychain = await launch.keychain.status()
        if let error = keychain.error {
            return Report(state: .keychainUnavailable, user: nil, contacts: [], message: error.message)
        }
        guard try defaults.string(forKey: "LastUserIdentity") != nil else {
            return Report(state: .notLoggedIn, user: nil, contacts: [], message: "\(launch.userLogInStatusKey) is set but there is no current user (a stale flag, e.g. after the last logout); the widget shows nothing")
        }
        throw BootstrapUnavailable()
    }

    /// The `.app` that carries an `.appex` under `PlugIns/`.
    static func hostApp(of bundle: AppBundle) throws -> AppBundle? {
        guard bundle.isExtension else { return nil }
        let host = bundle.url.deletingLastPathComponent().deletingLastPathComponent()
        guard host.pathExtension == "app" else { return nil }
        return try AppBundle(at: host)
    }

    private static func misconfigured(_ message: String) -> Report {
        Report(state: .misconfigured, user: nil, contacts: [], message: message)
    }
}
