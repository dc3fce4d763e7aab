import Foundation
import CoreEngine
import SalesforceSDKCommon

/// The SDK's `SalesforceSDKManager` (`NS_SWIFT_NAME(SalesforceManager)`): `initializeSDK()` on the class the
/// app uses (`SmartStoreSDKManager`, `MobileSyncSDKManager`) makes that class the shared instance's class.
/// The trace gets the SDK's `initializeSDK` step with the class, so the order against the group's settings
/// can be checked, as `main-app`'s trace allows.
open class SalesforceManager: NSObject, @unchecked Sendable {
    /// `SFAppType`.
    @objc public enum AppType: Int, Sendable {
        case native = 0, hybrid, reactNative, nativeSwift
    }

    private static let lock = NSLock()
    private static let instance = PerProcess<SalesforceManager> { lock.withLock { instanceClass }.init() }
    nonisolated(unsafe) private static var instanceClass: SalesforceManager.Type = SalesforceManager.self
    nonisolated(unsafe) private static var appNameValue: String?

    public required override init() { super.init() }

    /// The shared instance, of the class last given to `initializeSDK`.
    open class var shared: SalesforceManager {
        let wanted = lock.withLock { instanceClass }
        return instance.value { type(of: $0) == wanted }
    }

    /// `+initializeSDK` on this class.
    open class func initializeSDK() { initializeSDK(manager: self) }

    open class func initializeSDK(manager className: SalesforceManager.Type) {
        lock.withLock { instanceClass = className }
        SDKEngine.current.initializeSDK(flavour(of: className), className: String(describing: className))
        _ = shared
    }

    /// The SDK's class a manager class is, or descends from (a developer's subclass of `MobileSyncSDKManager` is
    /// a Mobile Sync app): the engine's flavour of that name.
    static func flavour(of className: AnyClass) -> SDKManager.Flavour {
        var current: AnyClass? = className
        while let type = current {
            if let flavour = SDKManager.Flavour(rawValue: String(describing: type)) { return flavour }
            current = _getSuperclass(type)
        }
        return .salesforce
    }

    public class func setInstanceClass(_ className: SalesforceManager.Type) { lock.withLock { instanceClass = className } }

    public class var appName: String {
        get { lock.withLock { appNameValue } ?? SDKEngine.current.launch.sandbox.bundle.displayName ?? SDKEngine.current.launch.sandbox.bundleIdentifier }
        set { lock.withLock { appNameValue = newValue } }
    }

    /// The app name analytics events carry (the app's name unless set).
    public class var analyticsAppName: String {
        get { lock.withLock { analyticsName } ?? appName }
        set { lock.withLock { analyticsName = newValue } }
    }
    nonisolated(unsafe) private static var analyticsName: String?

    /// Makes the User-Agent the REST client sends (`RestClient.userAgentString`) from a qualifier.
    public var userAgentGenerator: (String) -> String {
        get { Self.lock.withLock { Self.userAgent } }
        set { Self.lock.withLock { Self.userAgent = newValue } }
    }
    nonisolated(unsafe) private static var userAgent: (String) -> String = { qualifier in
        "SalesforceMobileSDK/13.1.0 linux AppGroupSim \(SalesforceManager.appName) Native\(qualifier)"
    }

    public var appDisplayName: String {
        get { Self.appName }
        set { Self.appName = newValue }
    }

    open var appType: AppType { .nativeSwift }

    public func getAppTypeAsString() -> String {
        switch appType {
        case .native: return "Native"
        case .hybrid: return "Hybrid"
        case .reactNative: return "ReactNative"
        case .nativeSwift: return "NativeSwift"
        }
    }

    /// The device's id (`device.json`), as the SDK's `deviceId` names this install.
    public func deviceId() -> String { SDKEngine.current.launch.sandbox.device.id.uuidString }
}
