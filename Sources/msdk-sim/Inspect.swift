import ArgumentParser
import Diagnostics
import Foundation

struct Inspect: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a device at a glance: msdkUserDefaults per process, accounts, keychain items (redacted), stores, syncs.",
        discussion: "Reads the device from the outside and changes nothing.")

    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let report = try Inspector.inspect(devicePath: device ?? ProcessInfo.processInfo.environment["APPGROUPSIM_DEVICE"] ?? "")
        if json { return try printJSON(report) }
        print("device \(report.device) (id \(report.deviceID)), \(report.lockState)\(report.restoredFrom.map { ", restored from backup \($0)" } ?? "")")
        print("\nprocesses and their msdkUserDefaults")
        for t in report.targets {
            print("  \(t.bundleIdentifier): app group \(t.appGroupName ?? "(none)") \(t.appGroupEnabled ? "on" : "off") -> \(t.msdkUserDefaults)")
            for key in t.keys.keys.sorted() { print("      \(key) = \(t.keys[key]!)") }
        }
        print("\naccounts")
        if report.accounts.isEmpty { print("  (none)") }
        let current = Set(report.targets.compactMap(\.currentUser))
        for a in report.accounts {
            print("  \(current.contains("\(a.orgId)/\(a.userId)") ? "*" : " ") \(a.username)  \(a.orgId)/\(a.userId)  \(a.file)")
            print("      \(a.protection); file \(a.fileProtection)")
            for file in a.libraryFiles { print("      library: \(file)") }
        }
        print("\nkeychain (\(report.keychainStatus))")
        if report.keychain.isEmpty { print("  (no items)") }
        for group in report.keychain.keys.sorted() {
            print("  \(group)")
            for item in report.keychain[group]! {
                print("      \(item.service)  account \(item.account.isEmpty ? "(none)" : item.account)  \(item.value)  \(item.accessible)")
            }
        }
        print("\nstores")
        if report.stores.isEmpty { print("  (none)") }
        for s in report.stores {
            print("  \(s.path)  [\(s.encryption); file \(s.fileProtection)]")
            for soup in s.soups { print("      \(soup.name): \(soup.entries) entries") }
        }
        print("\nsyncs")
        if report.syncs.isEmpty { print("  (none)") }
        for s in report.syncs { print("  #\(s.id) \(s.name ?? "(unnamed)")  \(s.type) -> \(s.soup)  \(s.status) \(s.progress)%") }
        print("\npush notifications")
        if report.push.isEmpty { print("  (none)") }
        for p in report.push {
            print("  \(p.app): APNs token \(p.deviceToken ?? "(none yet)"), \(p.inbox) waiting, \(p.delivered) delivered")
            for user in p.users.keys.sorted() { print("      \(user): \(p.users[user]!)") }
        }
        print("\nwidget reloads (WidgetCenter)")
        if report.widgetReloads.isEmpty { print("  (none)") }
        for r in report.widgetReloads {
            print("  \(r.app): \(r.count) reload(s), last \(r.lastKind ?? "all timelines") from \(r.lastFrom)")
        }
        print("\nfiles")
        print("  modes: \(report.looseModes.isEmpty ? "private (directories 0700, files 0600)" : "\(report.looseModes.count) path(s) others can read, e.g. \(report.looseModes[0])")")
        if !report.leftoverTempFiles.isEmpty { print("  \(report.leftoverTempFiles.count) temp file(s) of killed writers, e.g. \(report.leftoverTempFiles[0])") }
    }
}
