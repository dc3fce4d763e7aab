/// What a device's lock state lets the keychain give out, in the two facts iOS's classes depend on.
package struct KeychainProtectionState: Sendable, Equatable, CustomStringConvertible {
    /// The device is unlocked now.
    package var unlocked: Bool
    /// The device has been unlocked once since it booted.
    package var unlockedSinceBoot: Bool

    package init(unlocked: Bool, unlockedSinceBoot: Bool) {
        self.unlocked = unlocked
        self.unlockedSinceBoot = unlockedSinceBoot || unlocked
    }

    package static let unlocked = KeychainProtectionState(unlocked: true, unlockedSinceBoot: true)
    package static let locked = KeychainProtectionState(unlocked: false, unlockedSinceBoot: true)
    package static let beforeFirstUnlock = KeychainProtectionState(unlocked: false, unlockedSinceBoot: false)

    package var description: String { unlocked ? "unlocked" : unlockedSinceBoot ? "locked" : "before its first unlock" }
}

/// An item's accessibility class (`kSecAttrAccessible…`), as the SDK's `KeychainItemAccessibility` names them.
/// Kept as the attribute `accessible` of the Secret Service item, so `secret-tool search` shows it. An item made
/// before classes were kept has none, and counts as the SDK's default.
package enum KeychainAccessibility: String, CaseIterable, Sendable {
    case whenUnlocked, whenUnlockedThisDeviceOnly, afterFirstUnlock, afterFirstUnlockThisDeviceOnly, whenPasscodeSetThisDeviceOnly

    /// The SDK's default since 9.2.1 (`KeychainHelper`'s `accessibilityAttribute`), the fix for users logged out
    /// by a background launch while the phone was locked.
    package static let sdkDefault = KeychainAccessibility.afterFirstUnlockThisDeviceOnly
    /// The Secret Service attribute that holds the class.
    package static let attribute = "accessible"

    /// Whether a backup carries items of this class to another device (an encrypted backup leaves the
    /// `…ThisDeviceOnly` classes behind).
    package var thisDeviceOnly: Bool { rawValue.hasSuffix("ThisDeviceOnly") }

    /// iOS's rule: `whenUnlocked…` and `whenPasscodeSet…` only while unlocked (the device here always has a
    /// passcode); `afterFirstUnlock…` from the first unlock after a boot until the next boot.
    package func isAvailable(_ state: KeychainProtectionState) -> Bool {
        switch self {
        case .whenUnlocked, .whenUnlockedThisDeviceOnly, .whenPasscodeSetThisDeviceOnly: return state.unlocked
        case .afterFirstUnlock, .afterFirstUnlockThisDeviceOnly: return state.unlockedSinceBoot
        }
    }

    /// The class an item carries (the SDK's default when it carries none, or one this version does not know).
    package static func of(_ attributes: [String: String]) -> KeychainAccessibility {
        attributes[attribute].flatMap(KeychainAccessibility.init(rawValue:)) ?? sdkDefault
    }

    /// `errSecInteractionNotAllowed`, in one line naming the item, its class and the device's state.
    package func unavailable(service: String, state: KeychainProtectionState) -> KeychainError {
        KeychainError(
            status: .interactionNotAllowed,
            message: "the keychain item \(service) is \(rawValue), which iOS does not give out while the device is \(state) (errSecInteractionNotAllowed); "
                + (isAvailable(.locked)
                    ? "it is available once the device is unlocked after its boot"
                    : "use afterFirstUnlockThisDeviceOnly (the SDK's default) for items a background launch reads"))
    }
}
