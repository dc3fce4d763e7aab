import AppGroup
import Keychain

extension DeviceLockState {
    /// The device's state as the keychain's classes see it.
    package var keychainState: KeychainProtectionState { KeychainProtectionState(unlocked: isUnlocked, unlockedSinceBoot: unlockedSinceBoot) }
}

extension KeychainAccessibility {
    /// The class a bundle's `AppGroupConfig.plist` names (`keychainAccessibility`), or the SDK's default.
    package static func configured(_ config: AppGroupConfig?, bundle: AppBundle) throws -> KeychainAccessibility {
        guard let name = config?.keychainAccessibility else { return .sdkDefault }
        guard let accessibility = KeychainAccessibility(rawValue: name) else {
            throw BundleError.invalidValue(
                path: bundle.resourceURL(AppGroupConfig.fileName).path, key: "keychainAccessibility",
                expected: "one of \(allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return accessibility
    }
}
