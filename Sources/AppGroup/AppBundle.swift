import Foundation

/// A bundle directory, as on iOS: `Info.plist`, one `.entitlements` file, resources, and for an app
/// its extensions under `PlugIns/*.appex`.
package struct AppBundle: Sendable, Equatable {
    package let url: URL
    /// `CFBundleIdentifier`.
    package let bundleIdentifier: String
    /// `CFBundleDisplayName` or `CFBundleName`, if any.
    package let displayName: String?
    package let info: [String: PlistValue]
    package let entitlements: Entitlements
    package let entitlementsURL: URL

    /// The team that signed the bundle (`com.apple.developer.team-identifier` in its entitlements), if it says.
    package var teamIdentifier: String? { entitlements.raw["com.apple.developer.team-identifier"]?.stringValue }

    /// True for an app extension (`*.appex`).
    package var isExtension: Bool { url.pathExtension == "appex" }

    /// `NSExtension.NSExtensionPointIdentifier` of an extension's Info.plist.
    package var extensionPointIdentifier: String? { info["NSExtension"]?.dictionaryValue?["NSExtensionPointIdentifier"]?.stringValue }

    package static let notificationServiceExtensionPoint = "com.apple.usernotifications.service"

    /// A notification service extension: iOS hands it each remote notification before it is shown.
    package var isNotificationServiceExtension: Bool { isExtension && extensionPointIdentifier == Self.notificationServiceExtensionPoint }

    /// The app whose widgets and notifications these are, by bundle id: this bundle's own for an app, the host
    /// app's (the `.app` whose PlugIns/ holds it) for an extension, as iOS counts them; its own when it has none.
    package var owningAppIdentifier: String {
        guard isExtension else { return bundleIdentifier }
        return (try? AppBundle(at: url.deletingLastPathComponent().deletingLastPathComponent()))?.bundleIdentifier ?? bundleIdentifier
    }

    package init(at url: URL) throws {
        let url = url.standardizedFileURL
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir.boolValue else {
            throw BundleError.notABundle(path: url.path)
        }
        self.url = url
        let infoURL = url.appendingPathComponent("Info.plist")
        guard let info = try Self.readPlist(infoURL) else { throw BundleError.missingFile(path: infoURL.path) }
        self.info = info
        guard let id = info["CFBundleIdentifier"]?.stringValue, !id.isEmpty else {
            throw BundleError.invalidValue(path: infoURL.path, key: "CFBundleIdentifier", expected: "a non-empty string")
        }
        // It names directories on the device: '../../x' would put the app's container outside it.
        if let problem = BundleIdentifier.problem(id) {
            throw BundleError.invalidValue(path: infoURL.path, key: "CFBundleIdentifier", expected: "a reverse-DNS identifier like com.acme.app; \"\(id.prefix(80))\" \(problem)")
        }
        bundleIdentifier = id
        displayName = info["CFBundleDisplayName"]?.stringValue ?? info["CFBundleName"]?.stringValue

        let candidates = (try? FileManager.default.contentsOfDirectory(atPath: url.path))?
            .filter { $0.hasSuffix(".entitlements") }.sorted() ?? []
        guard candidates.count == 1 else {
            throw candidates.isEmpty
                ? BundleError.missingFile(path: url.appendingPathComponent("<name>.entitlements").path)
                : BundleError.ambiguousEntitlements(path: url.path, files: candidates)
        }
        entitlementsURL = url.appendingPathComponent(candidates[0])
        guard let plist = try Self.readPlist(entitlementsURL) else { throw BundleError.missingFile(path: entitlementsURL.path) }
        entitlements = try Entitlements(plist: plist, path: entitlementsURL.path)
    }

    /// The extensions under `PlugIns/`, sorted by name.
    package func plugIns() throws -> [AppBundle] {
        let dir = url.appendingPathComponent("PlugIns")
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: dir.path) else { return [] }
        return try names.filter { $0.hasSuffix(".appex") }.sorted().map { try AppBundle(at: dir.appendingPathComponent($0)) }
    }

    package func resourceURL(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// A property-list resource of the bundle, or nil when the bundle does not carry it.
    package func plistResource(_ name: String) throws -> [String: PlistValue]? {
        try Self.readPlist(resourceURL(name))
    }

    static func readPlist(_ url: URL) throws -> [String: PlistValue]? {
        guard let data = try SecureFiles.readIfPresent(url) else { return nil }
        switch SharedDefaults.decode(data) {
        case .success(let dict): return dict
        case .failure(let failure):
            let detail: String
            switch failure {
            case .corrupt(let d): detail = d
            case .unreadable(let e): detail = e.reason
            case .protected(let e): detail = e.description
            }
            throw BundleError.invalidPlist(path: url.path, detail: detail)
        }
    }
}

package enum BundleError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case notABundle(path: String)
    case missingFile(path: String)
    case invalidPlist(path: String, detail: String)
    case invalidValue(path: String, key: String, expected: String)
    case ambiguousEntitlements(path: String, files: [String])

    package var description: String {
        switch self {
        case .notABundle(let path):
            return "\(path) is not a bundle directory; pass --bundle with a path like Fixtures/MobileSyncExplorer/MobileSyncExplorer.app"
        case .missingFile(let path):
            return "\(path) is missing; every bundle needs Info.plist and one .entitlements file"
        case .invalidPlist(let path, let detail):
            return "\(path) is not a valid property list (\(detail)); check it with `plutil -lint`"
        case .invalidValue(let path, let key, let expected):
            return "\(path): \(key) must be \(expected)"
        case .ambiguousEntitlements(let path, let files):
            return "\(path) has several .entitlements files (\(files.joined(separator: ", "))); keep exactly one"
        }
    }

    package var errorDescription: String? { description }
}
