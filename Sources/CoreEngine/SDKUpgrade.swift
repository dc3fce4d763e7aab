import AppGroup
import Foundation
import Keychain

/// The SDK's `SFSDKSalesforceSDKUpgradeManager`, run by every process when its SDK manager is made (the app, a
/// background launch, the widget): the last SDK version that ran is kept in `msdkUserDefaults`; an older one
/// (or none) runs the steps of the versions since, then the current version is kept. The 9.2.1 steps need the
/// keychain and the files: the SDK's items are saved again as afterFirstUnlockThisDeviceOnly (unless the app sets
/// its own class), and SDK files of class `complete` are given the default class. When the device does not let
/// a step run (a widget launched first while the phone is locked, PR #3454), the upgrade stops without keeping
/// the version, so that it runs again at the next launch. The 9.2.0 folder move and the 10.1.1 passcode upgrade
/// have nothing to do here (AppGroupSim never had the older layouts) and are not reproduced.
package enum SDKUpgrade {
    /// `kSalesforceSDKManagerVersionKey`.
    package static let versionKey = "com.salesforce.mobilesdk.salesforcesdkmanager.version"
    /// The SDK version this simulator reproduces (what the SDK reads from its bundle's `CFBundleShortVersionString`).
    package static let currentVersion = "13.1.0"
    /// The version whose steps need the keychain and protected data.
    static let protectionStepsVersion = "9.2.1"

    package enum Outcome: Equatable, Sendable {
        /// The last version is the current one: nothing to do.
        case upToDate
        /// The steps ran and the current version is kept.
        case upgraded(from: String?, steps: [String])
        /// A step could not run in the device's state: nothing kept, it runs again at the next launch.
        case aborted(from: String?, reason: String)
        /// msdkUserDefaults could not be read (before the first unlock): nothing ran; the launch reports the file.
        case notRead(reason: String)
    }

    /// Whether `version` is older than `other`, compared as the SDK does (`NSNumericSearch`: number by number).
    package static func isOlder(_ version: String, than other: String) -> Bool {
        let a = version.split(separator: ".").map { Int($0) ?? 0 }
        let b = other.split(separator: ".").map { Int($0) ?? 0 }
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            if x != y { return x < y }
        }
        return false
    }

    /// Runs the upgrade for this process. `appSetsAccessibility`: the app gives its items a class itself
    /// (`KeychainHelper.setAccessibleAttribute`, `keychainAccessibility` in `AppGroupConfig.plist`), so the SDK's
    /// step leaves the classes alone.
    @discardableResult
    package static func run(_ launch: ProcessLaunch, events: SDKEvents, appSetsAccessibility: Bool) async -> Outcome {
        let defaults: SharedDefaults
        let last: String?
        do {
            defaults = try launch.dataSharing.msdkUserDefaults()
            last = try defaults.string(forKey: versionKey)
        } catch {
            // msdkUserDefaults cannot be read (before the first unlock): the SDK would find no version and try the
            // steps, which need the same protected data; it aborts, and so does this.
            events.step("sdkUpgradeSkipped", ["reason": "msdkUserDefaults cannot be read"])
            return .notRead(reason: "\(error)")
        }
        if last == currentVersion { return .upToDate }
        var steps: [String] = []
        if last == nil || isOlder(last!, than: protectionStepsVersion) {
            if !appSetsAccessibility {
                let result = await launch.keychain.setAccessibility(.afterFirstUnlockThisDeviceOnly)
                if result.status == .interactionNotAllowed {
                    return abort(last, "the keychain items cannot be given afterFirstUnlockThisDeviceOnly now: \(result.error?.message ?? "errSecInteractionNotAllowed")", events)
                }
                if result.success { steps.append("keychainAccessibility") }
            }
            let complete = filesWithCompleteProtection(launch)
            if !complete.isEmpty {
                if !LockStateObservation.isProtectedDataAvailable(launch.sandbox.device) {
                    return abort(last, "\(complete.count) SDK file(s) have complete protection and protected data is not available (the device is \(launch.sandbox.device.lockStateOrStrictest.rawValue))", events)
                }
                for file in complete { try? FileProtection.set(FileProtectionPolicy.shared.protection(for: file), on: file) }
                steps.append("fileProtection(\(complete.count))")
            }
        }
        do {
            try defaults.set(.string(currentVersion), forKey: versionKey)
        } catch {
            return abort(last, "the version cannot be kept in msdkUserDefaults (\(error))", events)
        }
        events.step("sdkUpgraded", ["from": last ?? "", "to": currentVersion, "steps": steps.joined(separator: ",")])
        return .upgraded(from: last, steps: steps)
    }

    private static func abort(_ last: String?, _ reason: String, _ events: SDKEvents) -> Outcome {
        events.step("sdkUpgradeSkipped", ["from": last ?? "", "reason": reason])
        return .aborted(from: last, reason: reason)
    }

    /// The SDK's `filesWithCompleteProtection`: under its library and documents folders, the org-scoped entries
    /// (`00D…`) and the global stores (`stores`, `key_value_stores`), every file or folder of class `complete`.
    package static func filesWithCompleteProtection(_ launch: ProcessLaunch) -> [URL] {
        guard let root = try? launch.dataSharing.sdkRoot() else { return [] }
        var out: [URL] = []
        let fm = FileManager.default
        for directory in Set([root.library, root.documents]) {
            for entry in ((try? fm.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
            where entry.hasPrefix("00D") || entry == "stores" || entry == "key_value_stores" {
                let top = directory.appendingPathComponent(entry)
                var paths = [top]
                if let walker = fm.enumerator(at: top, includingPropertiesForKeys: nil) {
                    for case let url as URL in walker { paths.append(url) }
                }
                out += paths.filter { FileProtection.storedClass(of: $0) == .complete }
            }
        }
        return out
    }
}
