import AppGroup
import Foundation
import SalesforceSDKCommon

/// WidgetKit's `WidgetCenter` for data code on Linux (issue 26): `reloadAllTimelines()` and
/// `reloadTimelines(ofKind:)` record the reload on the simulated device, for the app whose widgets they are
/// (the process's own bundle, or its host app when an extension calls it). `extension-widget --watch`
/// re-renders on it, `inspect` lists it, and the trace (`APPGROUPSIM_TRACE`) gets a `widgetReload` line.
/// Widgets' views are SwiftUI, which is not here.
public final class WidgetCenter: @unchecked Sendable {
    public static let shared = WidgetCenter()

    private init() {}

    public func reloadAllTimelines() { record(kind: nil) }

    public func reloadTimelines(ofKind kind: String) { record(kind: kind) }

    private func record(kind: String?) {
        let process = SDKProcess.current
        let bundle = process.sandbox.bundle
        let appID = bundle.owningAppIdentifier
        do {
            try WidgetReloads.record(process.sandbox.device.layout, app: appID, kind: kind, from: bundle.bundleIdentifier)
            SDKProcess.traceStep("widgetReload", ["app": appID, "kind": kind ?? "*"])
        } catch {
            SDKProcess.warn("WidgetCenter could not record the reload: \(error)")
        }
    }
}
