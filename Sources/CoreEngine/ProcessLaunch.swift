import AppGroup
import Foundation
import Keychain

/// What every simulated process does first, like an iOS app's launch: find its bundle and device,
/// apply the bundle's `AppGroupConfig.plist` (name, then flag, before `initializeSDK`, as the sample's
/// AppDelegate does), and get a keychain limited to its entitled access groups.
package struct ProcessLaunch: Sendable {
    /// Standard-defaults key where `main-app app-group enable|disable` keeps the app's own choice.
    package static let appGroupsEnabledOverrideKey = "AppGroupSimAppGroupsEnabled"

    package let sandbox: AppSandbox
    package let dataSharing: DataSharingHelper
    package let config: AppGroupConfig?
    package let keychain: KeychainHelper
    /// The defaults file that the device's data protection kept this launch from reading or writing (its
    /// settings then live in memory only); nil when the launch read and wrote them.
    package private(set) var protectedAtLaunch: FileProtectionError?

    /// - Parameter applyConfig: false for tools that only look (`msdk-sim defaults`), so that looking changes nothing.
    /// - Parameter initializeDevice: make `devicePath` a device even when it is a directory AppGroupSim did not
    ///   make (`--init`).
    package init(bundlePath: String, devicePath: String?, applyConfig: Bool = true, secretStore: (any SecretStore)? = nil, initializeDevice: Bool = false)
        throws
    {
        let device = try Device.resolve(path: devicePath, initialize: initializeDevice)
        let bundle = try AppBundle(at: URL(fileURLWithPath: bundlePath))
        sandbox = AppSandbox(device: device, bundle: bundle)
        try sandbox.checkContainers()
        dataSharing = DataSharingHelper(sandbox: sandbox)
        config = try AppGroupConfig.load(from: bundle)
        // The device's lock state is read at each keychain call, so a lock in the middle of a long sync matters.
        keychain = KeychainHelper(
            store: secretStore ?? SecretStores.standard(), deviceID: device.id.uuidString, accessGroups: sandbox.keychainAccessGroups,
            protection: { device.lockStateOrStrictest.keychainState }, accessibility: try KeychainAccessibility.configured(config, bundle: bundle))
        if applyConfig, let protection = try config?.fileProtectionClass(bundle: bundle) {
            FileProtectionPolicy.shared.defaultMode = protection
        }
        if applyConfig, var config {
            do {
                if let kept = try sandbox.standardDefaults.value(forKey: Self.appGroupsEnabledOverrideKey)?.boolValue {
                    config.appGroupsEnabled = kept
                }
                try config.apply(to: dataSharing)
            } catch SharedDefaultsError.protected(let refusal) {
                // Before the first unlock iOS lets no process read or write its defaults: what the target sets at
                // launch then lives in its memory, and each later read of a protected file says so itself.
                dataSharing.keepInMemory(config)
                protectedAtLaunch = refusal
            }
        }
    }

    /// A launch for a process that already has its sandbox, helper and keychain (the SDK-named API's
    /// `SDKProcess`): nothing from `AppGroupConfig.plist` is applied, because the developer's code sets the
    /// group itself, as on iOS.
    package init(sandbox: AppSandbox, dataSharing: DataSharingHelper, keychain: KeychainHelper) throws {
        self.sandbox = sandbox
        self.dataSharing = dataSharing
        self.keychain = keychain
        config = try AppGroupConfig.load(from: sandbox.bundle)
    }

    /// The key the app writes its login state under (`userLoggedIn` unless the bundle says otherwise).
    package var userLogInStatusKey: String { config?.userLogInStatusKey ?? "userLoggedIn" }
}
