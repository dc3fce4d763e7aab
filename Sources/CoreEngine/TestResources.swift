import Foundation

/// Where a test's own resource file is (the SDK's `TestSetupUtils` reads `test_credentials.json` beside the test
/// class): the test bundle itself, then the SwiftPM resource bundles (`*.resources`) beside the test binary.
package enum TestResources {
    package static func url(named name: String, bundleURL: URL, resourceURL: URL?) -> URL? {
        let fm = FileManager.default
        var candidates = [resourceURL?.appendingPathComponent(name), bundleURL.appendingPathComponent(name)].compactMap { $0 }
        let beside = bundleURL.deletingLastPathComponent()
        if let items = try? fm.contentsOfDirectory(at: beside, includingPropertiesForKeys: nil) {
            candidates += items.filter { $0.pathExtension == "resources" }.sorted { $0.path < $1.path }.map { $0.appendingPathComponent(name) }
        }
        return candidates.first { fm.fileExists(atPath: $0.path) }
    }
}
