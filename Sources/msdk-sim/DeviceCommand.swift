import AppGroup
import ArgumentParser
import CoreEngine
import Diagnostics
import Foundation
import Keychain

/// `msdk-sim device`: the apps installed on a device and the URLs between them, as iOS routes them.
struct DeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Install apps on a device, list them, open a URL at the app that claims its scheme; reboot, unlock and lock it; back it up and restore it to a new device; deliver a notification to your own notification service extension.",
        subcommands: [Install.self, Uninstall.self, Apps.self, OpenURL.self, Reboot.self, Unlock.self, Lock.self, State.self, Backup.self, Restore.self, Deliver.self])

    struct DeviceOption: ParsableArguments {
        @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
        @Flag(name: .customLong("init"), help: "Make --device a device even if it is a directory AppGroupSim did not make.") var initDevice = false

        func apps() throws -> DeviceApps { DeviceApps(device: try resolved()) }
        func resolved() throws -> Device { try Device.resolve(path: device, initialize: initDevice) }

        func setLockState(_ state: DeviceLockState, verb: String) throws {
            let device = try resolved()
            try device.setLockState(state)
            print("\(verb): the device is \(state.rawValue) (\(state.meaning))")
        }
    }

    /// The lock state (issue 36): what the keychain's classes give out, read by every process at each access.
    struct Reboot: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Reboot the device: it is before its first unlock (only items of no protection class can be read) until msdk-sim device unlock.")
        @OptionGroup var device: DeviceOption
        func run() throws { try device.setLockState(.beforeFirstUnlock, verb: "rebooted") }
    }

    struct Unlock: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Unlock the device (the user enters the passcode): every class can be read.")
        @OptionGroup var device: DeviceOption
        func run() throws { try device.setLockState(.unlocked, verb: "unlocked") }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lock the device: afterFirstUnlock items stay readable, whenUnlocked ones do not. A device before its first unlock stays so.")
        @OptionGroup var device: DeviceOption
        func run() throws {
            let resolved = try device.resolved()
            try resolved.lock()
            let state = try resolved.lockState()
            print("locked: the device is \(state.rawValue) (\(state.meaning))")
        }
    }

    struct State: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the device's lock state: beforeFirstUnlock, unlocked or locked.")
        @OptionGroup var device: DeviceOption
        @Flag(help: "Print JSON.") var json = false
        func run() throws {
            let state = try device.resolved().lockState()
            if json { return try printJSON(["state": state.rawValue, "meaning": state.meaning]) }
            print("\(state.rawValue): \(state.meaning)")
        }
    }

    /// An encrypted iOS backup and its restore to a new phone (issue 36): files and their classes, apps, and the
    /// keychain items that are not `…ThisDeviceOnly` (kept in the Secret Service under the backup's id).
    struct Backup: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Back the device up as an encrypted iOS backup does: the containers' files with their protection classes, the installed apps, and the keychain items except the …ThisDeviceOnly classes (those stay in the Secret Service, never in the file).")
        @OptionGroup var device: DeviceOption
        @Option(help: "The backup file to write (a binary property list: plistlib reads its Files list).") var out: String

        func run() throws {
            let summary = try DeviceBackup.backup(try device.resolved(), store: LibsecretStore(), to: URL(fileURLWithPath: out))
            print("backed up \(summary.files) file(s) (\(summary.bytes) bytes) and \(summary.apps.count) app(s) to \(out)")
            print("  keychain: \(summary.keychainItems) item(s) carried (in the Secret Service, backup \(summary.backupID)); \(summary.keychainItemsLeftOut) left behind: their class is …ThisDeviceOnly, which a backup does not carry")
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make a new device (a new id) from a backup, as setting up a new phone from one: its files, apps and the keychain items the backup carried.")
        @Argument(help: "The backup file (msdk-sim device backup --out).") var file: String
        @Option(help: "The new device's directory (must not hold a device).") var device: String

        func run() throws {
            let (restored, summary) = try DeviceBackup.restore(URL(fileURLWithPath: file), to: URL(fileURLWithPath: device), store: LibsecretStore())
            print("restored \(summary.files) file(s) and \(summary.apps.count) app(s) to a new device \(restored.id.uuidString) at \(device)")
            print("  keychain: \(summary.keychainItems) item(s) restored; \(summary.keychainItemsLeftOut) did not come along (…ThisDeviceOnly): the SDK's tokens and keys among them, so its apps find accounts they cannot read")
        }
    }

    /// Issue 37: a developer's own notification service extension, run as iOS runs it.
    struct Deliver: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Run your notification service extension (a target of a package msdk-sim import --package wrote) on the next notification in its app's inbox, as iOS does: a new process, the bundle's identity and entitlements, your class's didReceive(_:withContentHandler:), and iOS's time budget.")
        @OptionGroup var device: DeviceOption
        @Option(help: "The package msdk-sim import --package wrote.") var package: String
        @Option(help: "The notification service extension's Xcode target.") var target: String
        @Option(help: "Seconds the extension has before serviceExtensionTimeWillExpire() (iOS: about 30).") var budget: Double = 30
        @Option(help: "The build folder (swift build --scratch-path); default: the package's .build.") var scratchPath: String?
        @Flag(help: "Run the extension as the last build left it, without swift build (as swift run --skip-build).") var skipBuild = false
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let resolved = try device.resolved()
            let status = try ProjectPackage.deliver(
                package: URL(fileURLWithPath: package), target: target, device: resolved.root, scratch: scratchPath.map { URL(fileURLWithPath: $0) }, skipBuild: skipBuild,
                arguments: (json ? ["--json"] : []) + ["--budget", String(budget)])
            if status != 0 { throw ExitCode(status) }
        }
    }

    struct Install: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Register an app bundle on the device with the URL schemes of its Info.plist CFBundleURLTypes; over an installed app it is an update, which keeps the app's data.")
        @OptionGroup var device: DeviceOption
        @Option(help: "The app bundle (.app directory).") var app: String

        func run() throws {
            let apps = try device.apps()
            let bundle = try AppBundle(at: URL(fileURLWithPath: app))
            let update = (try? apps.app(bundleID: bundle.bundleIdentifier)) != nil
            let installed = try apps.install(bundle)
            print("\(update ? "updated" : "installed") \(installed.bundleIdentifier) (\(installed.schemes.isEmpty ? "no URL scheme" : installed.schemes.map { "\($0):" }.joined(separator: ", ")))\(update ? "; its data is kept" : "")")
        }
    }

    struct Uninstall: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an app as iOS does: its containers and its extensions', its inboxes, and an app group's container with the group's last app. The keychain keeps its items.")
        @OptionGroup var device: DeviceOption
        @Argument(help: "The app's bundle id.") var bundleID: String

        func run() throws {
            let result = try device.apps().uninstall(bundleID: bundleID)
            print("uninstalled \(bundleID): removed \(result.removed.isEmpty ? "nothing on disk" : result.removed.joined(separator: ", "))")
            for (group, why) in result.keptGroups.sorted(by: { $0.key < $1.key }) { print("  kept the container of \(group): \(why)") }
            print("  the keychain keeps the app's items (keychain values outlive an app on iOS); a reinstalled app finds them")
        }
    }

    struct Apps: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the apps installed on the device and their URL schemes.")
        @OptionGroup var device: DeviceOption
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let apps = try device.apps()
            let installed = try apps.apps()
            if json { return try printJSON(installed) }
            if installed.isEmpty { print("(no app installed: msdk-sim device install --app PATH)") }
            for app in installed {
                let running = apps.isRunning(bundleID: app.bundleIdentifier) ? "  (running)" : ""
                print("\(app.bundleIdentifier)  \(app.schemes.map { "\($0):" }.joined(separator: " "))  \(app.path)\(running)")
            }
        }
    }

    struct OpenURL: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "open-url",
            abstract: "Deliver a URL to the app that claims its scheme: to its inbox if it runs (a main-app shell handles it), else launch it once to handle it.",
            discussion: "Exit status: the launched app's, or 0 when the running app got it.")
        @OptionGroup var device: DeviceOption
        @Argument(help: "The URL.") var url: String

        func run() throws {
            guard let target = URL(string: url), target.scheme != nil else { throw DeviceApps.Failure.notAURL(url) }
            let apps = try device.apps()
            var status: Int32 = 0
            let delivery = try apps.open(target) { app, url in
                let process = try DeviceApps.launchMainApp(app, url: url, device: apps.device, trace: nil)
                process.waitUntilExit()
                status = process.terminationStatus
            }
            if case .inbox(let id) = delivery { print("delivered to the running \(id)") }
            if status != 0 { throw ExitCode(status) }
        }
    }
}
