import Foundation

extension FileManager {
    /// iOS's `containerURL(forSecurityApplicationGroupIdentifier:)`, which Foundation on Linux lacks: the
    /// group's container on the simulated device when this process's bundle is entitled to the group (and no
    /// other team owns it there), `nil` otherwise, as on iOS.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        let sandbox = SDKProcess.current.sandbox
        guard let url = sandbox.containerURL(forSecurityApplicationGroupIdentifier: groupIdentifier) else {
            SDKProcess.warn("\(sandbox.bundleIdentifier) is not entitled to app group \(groupIdentifier): containerURL(forSecurityApplicationGroupIdentifier:) is nil, as on iOS")
            return nil
        }
        return url
    }
}
