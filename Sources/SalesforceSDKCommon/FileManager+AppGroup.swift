import Foundation

extension FileManager {
    /// iOS's `containerURL(forSecurityApplicationGroupIdentifier:)`, which Foundation on Linux lacks: the
    /// group's container on the simulated device when this process's bundle is entitled to the group (and no
    /// other team owns it there), `nil` otherwise, as on iOS.
    public func containerURL(forSecurityApplicationGroupIdentifier groupIdentifier: String) -> URL? {
        let process = SDKProcess.current
        guard let url = process.sandbox.containerURL(forSecurityApplicationGroupIdentifier: groupIdentifier) else {
            process.noteNotEntitled(group: groupIdentifier, "containerURL(forSecurityApplicationGroupIdentifier:) is nil, as on iOS")
            return nil
        }
        return url
    }
}
