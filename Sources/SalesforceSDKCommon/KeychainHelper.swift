import Foundation
import Keychain

/// iOS's `OSStatus` and the Security framework's codes the SDK's keychain results carry.
public typealias OSStatus = Int32
public let errSecSuccess: OSStatus = 0
public let errSecItemNotFound: OSStatus = -25300
public let errSecDuplicateItem: OSStatus = -25299
public let errSecInteractionNotAllowed: OSStatus = -25308
public let errSecMissingEntitlement: OSStatus = -34018
public let errSecNotAvailable: OSStatus = -25291

/// The Security framework's `kSecAttrAccessible…` values (CFStrings on iOS; their values as Strings here).
public let kSecAttrAccessibleWhenUnlocked = "ak"
public let kSecAttrAccessibleWhenUnlockedThisDeviceOnly = "aku"
public let kSecAttrAccessibleAfterFirstUnlock = "ck"
public let kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly = "cku"
public let kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly = "akpu"

/// The SDK's `KeychainItemAccessibility`: the `kSecAttrAccessible` class of the SDK's keychain items. The
/// device's lock state decides which classes can be read (`msdk-sim device lock`, `SimulatedDevice.lock()`).
public enum KeychainItemAccessibility: Int, Sendable {
    case whenUnlocked
    case whenUnlockedThisDeviceOnly
    case afterFirstUnlock
    case afterFirstUnlockThisDeviceOnly
    case whenPasscodeSetThisDeviceOnly

    /// The class's `kSecAttrAccessible…` value.
    public var asString: String {
        switch self {
        case .whenUnlocked: return kSecAttrAccessibleWhenUnlocked
        case .whenUnlockedThisDeviceOnly: return kSecAttrAccessibleWhenUnlockedThisDeviceOnly
        case .afterFirstUnlock: return kSecAttrAccessibleAfterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: return kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: return kSecAttrAccessibleWhenPasscodeSetThisDeviceOnly
        }
    }

    var engine: KeychainAccessibility {
        switch self {
        case .whenUnlocked: return .whenUnlocked
        case .whenUnlockedThisDeviceOnly: return .whenUnlockedThisDeviceOnly
        case .afterFirstUnlock: return .afterFirstUnlock
        case .afterFirstUnlockThisDeviceOnly: return .afterFirstUnlockThisDeviceOnly
        case .whenPasscodeSetThisDeviceOnly: return .whenPasscodeSetThisDeviceOnly
        }
    }
}

/// The SDK's `KeychainResult` (`SFSDKKeychainResult`): whether the call succeeded, its `OSStatus`, the item's
/// data, and an `NSError` whose code is the status.
public class KeychainResult: NSObject, @unchecked Sendable {
    public let success: Bool
    public let status: OSStatus
    public let data: Data?
    public let error: NSError?

    /// - Parameter written: for a write, the data written, which the SDK's result carries (testWriteAndReadItem:
    ///   `XCTAssertNotNil(writeResult.data)`).
    init(_ engine: Keychain.KeychainResult, written: Data? = nil) {
        success = engine.success
        status = engine.status.rawValue
        // An item made empty (createIfNotPresent, reset) reads as no data, as the SDK's own
        // KeychainHelperTests require (testCreateIfNotPresent, testReset: `XCTAssertNil(readResult.data)`).
        data = engine.success && written != nil ? written : engine.data.flatMap { $0.isEmpty ? nil : Data($0) }
        error = engine.error.map { NSError(domain: KeychainHelper.errorDomain, code: Int(engine.status.rawValue), userInfo: [NSLocalizedDescriptionKey: $0.message]) }
    }
}

/// The SDK's `KeychainHelper` (`SFSDKKeychainHelper`), synchronous as the SDK's is, on this process's keychain
/// groups (`SDKProcess.current`): a read with no group searches every entitled group, a write with no group
/// goes to `accessGroup` when it is set, else to the first entitled group; a group the bundle is not
/// entitled to is `errSecMissingEntitlement` (-34018). Items are the same Secret Service items the binaries
/// read and write.
public class KeychainHelper: NSObject {
    static let errorDomain = "com.salesforce.keychainHelper"

    /// The group new items go to when a call names none (nil: the first group of the entitlements, as iOS).
    nonisolated(unsafe) public static var accessGroup: String?
    /// The SDK caches reads per process; here every read asks the Secret Service, so another process's
    /// write is seen at once (kept for source compatibility).
    nonisolated(unsafe) public static var cacheEnabled: Bool = true

    public enum CacheMode: Int {
        case unspecified
        case enabled
        case disabled
    }

    static var engine: Keychain.KeychainHelper { SDKProcess.current.keychain }

    private static let accessibilitySet = PerProcess<String?> { nil }

    /// The class set by `setAccessibleAttribute` in this process (its `kSecAttrAccessible…` value); nil until then,
    /// when new items get the SDK's default, `kSecAttrAccessibleAfterFirstUnlockThisDeviceOnly`.
    public static var accessibilityAttribute: String? { accessibilitySet.value() }

    /// Sets the class of new items and saves every item the SDK made in this process's groups again with it, as
    /// the SDK does. `errSecInteractionNotAllowed` (nothing changed) when an item, or the new class, cannot be
    /// read in the device's lock state.
    @discardableResult
    public class func setAccessibleAttribute(_ secAttrAccessible: KeychainItemAccessibility) -> KeychainResult {
        let engine = self.engine
        let result = (try? SDKProcess.blocking { await engine.setAccessibility(secAttrAccessible.engine) }) ?? .failure(.io, "the keychain call did not finish")
        accessibilitySet.withValue { $0 = secAttrAccessible.asString }
        return KeychainResult(result)
    }

    public class func read(service: String, account: String?) -> KeychainResult {
        read(service: service, account: account, accessGroup: nil, cacheMode: .unspecified)
    }

    public class func read(service: String, account: String?, accessGroup: String? = nil, cacheMode: CacheMode) -> KeychainResult {
        KeychainResult(engine.readBlocking(service: service, account: account, accessGroup: accessGroup))
    }

    public class func createIfNotPresent(service: String, account: String?) -> KeychainResult {
        createIfNotPresent(service: service, account: account, accessGroup: nil, cacheMode: .unspecified)
    }

    public class func createIfNotPresent(service: String, account: String?, accessGroup: String? = nil, cacheMode: CacheMode = .unspecified) -> KeychainResult {
        KeychainResult(engine.createIfNotPresentBlocking(service: service, account: account, accessGroup: accessGroup ?? Self.accessGroup))
    }

    public class func write(service: String, data: Data, account: String?) -> KeychainResult {
        write(service: service, data: data, account: account, accessGroup: nil, cacheMode: .unspecified)
    }

    public class func write(service: String, data: Data, account: String?, accessGroup: String? = nil, cacheMode: CacheMode = .unspecified) -> KeychainResult {
        KeychainResult(engine.writeBlocking(Array(data), service: service, account: account, accessGroup: accessGroup ?? Self.accessGroup), written: data)
    }

    public class func reset(service: String, account: String?) -> KeychainResult {
        reset(service: service, account: account, accessGroup: nil, cacheMode: .unspecified)
    }

    public class func reset(service: String, account: String?, accessGroup: String? = nil, cacheMode: CacheMode = .unspecified) -> KeychainResult {
        KeychainResult(engine.resetBlocking(service: service, account: account, accessGroup: accessGroup))
    }

    public class func remove(service: String, account: String?) -> KeychainResult {
        remove(service: service, account: account, accessGroup: nil, cacheMode: .unspecified)
    }

    public class func remove(service: String, account: String?, accessGroup: String? = nil, cacheMode: CacheMode = .unspecified) -> KeychainResult {
        KeychainResult(engine.removeBlocking(service: service, account: account, accessGroup: accessGroup))
    }

    /// Removes every item the SDK made in this process's groups on this device.
    public class func removeAll() -> KeychainResult {
        KeychainResult(engine.removeAllBlocking())
    }

    /// Nothing is cached here (see `cacheEnabled`).
    public class func clearCaches() {}
}
