import AppGroup
import Foundation

/// The SDK's `SFSDKDatasharingHelper`, as Swift sees it (`NS_SWIFT_NAME(DataSharingHelper)`): the app group
/// name, kept in the process's standard defaults, and the enabled flag, kept in the group's suite (so a
/// process reads it only after it set the name). Translates to the engine's helper for this process's bundle
/// (`SDKProcess.current`); it adds no behaviour.
public final class DataSharingHelper: NSObject, @unchecked Sendable {
    private static let instance = PerProcess { DataSharingHelper() }

    /// `sharedInstance`: one per process identity.
    public static var shared: DataSharingHelper { instance.value() }

    var engine: AppGroup.DataSharingHelper { SDKProcess.current.dataSharing }

    /// Name of the app group to use to share data.
    public var appGroupName: String? {
        get { attempt("read appGroupName", nil) { try engine.appGroupName() } }
        set { attempt("set appGroupName", ()) { try engine.setAppGroupName(newValue) } }
    }

    /// Set to true to enable the app group (the SDK's `appGroupEnabled`, `NS_SWIFT_NAME(isAppGroupEnabled)`).
    /// Setting it without a name does nothing, as in the SDK.
    public var isAppGroupEnabled: Bool {
        get { attempt("read isAppGroupEnabled", false) { try engine.appGroupEnabled() } }
        set { attempt("set isAppGroupEnabled", ()) { try engine.setAppGroupEnabled(newValue) } }
    }

    private func attempt<T>(_ what: String, _ fallback: T, _ body: () throws -> T) -> T {
        do { return try body() } catch {
            SDKProcess.warn("DataSharingHelper could not \(what): \(error)")
            return fallback
        }
    }
}
