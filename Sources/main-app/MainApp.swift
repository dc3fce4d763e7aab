import AppGroup
import ArgumentParser
import Foundation
import SalesforceSDK

/// The MobileSyncExplorer app. Every launch applies the bundle's app-group settings before anything
/// else, as the sample's AppDelegate does before `initializeSDK`.
@main
struct MainApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "main-app",
        abstract: "The simulated Mobile SDK app (MobileSyncExplorer).",
        discussion: "Login, sync and contacts arrive with the SDK facade; this build has the platform commands.",
        subcommands: [AppGroupCommand.self, Status.self])

    @Option(help: "The app bundle (.app directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?

    func launch() throws -> ProcessLaunch {
        try ProcessLaunch(bundlePath: bundle, devicePath: device)
    }
}

struct AppGroupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-group",
        abstract: "Turn app groups on or off for this app (runs DataSharingHelper's migration; kept for later launches).")

    enum Action: String, ExpressibleByArgument, CaseIterable { case enable, disable }

    @ParentCommand var app: MainApp
    @Argument(help: "enable or disable.") var action: Action

    func run() throws {
        let launch = try app.launch()
        let enabled = action == .enable
        guard try launch.dataSharing.appGroupName() != nil else {
            throw Failure("the bundle has no AppGroupConfig.plist with an appGroupName; add one to \(app.bundle)")
        }
        try launch.dataSharing.setAppGroupEnabled(enabled)
        try launch.sandbox.standardDefaults.set(.bool(enabled), forKey: ProcessLaunch.appGroupsEnabledOverrideKey)
        print("app groups \(enabled ? "enabled" : "disabled"); msdkUserDefaults: \(try launch.dataSharing.msdkUserDefaults().url.path)")
    }
}

struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The app's app-group state and login flag.")

    @ParentCommand var app: MainApp
    @Flag(help: "Print JSON.") var json = false

    struct Report: Codable {
        var bundleIdentifier: String
        var device: String
        var appGroupName: String?
        var appGroupEnabled: Bool
        var msdkUserDefaults: String
        var userLoggedIn: Bool
        var currentUser: String?
        var keychainAccessGroups: [String]
    }

    func run() throws {
        let launch = try app.launch()
        let msdk = try launch.dataSharing.msdkUserDefaults()
        let report = Report(
            bundleIdentifier: launch.sandbox.bundleIdentifier,
            device: launch.sandbox.device.root.path,
            appGroupName: try launch.dataSharing.appGroupName(),
            appGroupEnabled: try launch.dataSharing.appGroupEnabled(),
            msdkUserDefaults: msdk.url.path,
            userLoggedIn: try msdk.bool(forKey: launch.userLogInStatusKey),
            currentUser: try msdk.string(forKey: "LastUserIdentity"),
            keychainAccessGroups: launch.sandbox.keychainAccessGroups)
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("app:               \(report.bundleIdentifier)")
            print("device:            \(report.device)")
            print("app group:         \(report.appGroupName ?? "(none)") (\(report.appGroupEnabled ? "enabled" : "disabled"))")
            print("msdkUserDefaults:  \(report.msdkUserDefaults)")
            print("userLoggedIn:      \(report.userLoggedIn)")
            print("current user:      \(report.currentUser ?? "(none)")")
            print("keychain groups:   \(report.keychainAccessGroups.joined(separator: ", "))")
        }
    }
}

/// A failure that is not about the arguments: one line on stderr, exit status 1.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
