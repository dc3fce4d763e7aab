import Foundation

/// What an app asked of `UNUserNotificationCenter` on the simulated device: the authorization it requested
/// (granted, as a user who taps Allow does) and the categories it set, in
/// `Notifications/<app bundle id>/settings.json`. `inspect` and a developer's tests read it; nothing else
/// acts on it. Written whole (a new file, then rename), so that a reader never sees half of it.
package struct NotificationSettings: Codable, Sendable, Equatable {
    package struct Category: Codable, Sendable, Equatable {
        package var identifier: String
        package var actions: [Action]
        package var options: [String]

        package init(identifier: String, actions: [Action], options: [String]) {
            self.identifier = identifier
            self.actions = actions
            self.options = options
        }
    }

    package struct Action: Codable, Sendable, Equatable {
        package var identifier: String
        package var title: String
        package var options: [String]

        package init(identifier: String, title: String, options: [String]) {
            self.identifier = identifier
            self.title = title
            self.options = options
        }
    }

    /// The options of every authorization request so far (`alert`, `badge`, `sound`, …), in the order first asked.
    package var authorization: [String] = []
    /// How many times authorization was requested.
    package var authorizationRequests = 0
    /// The categories of the last `setNotificationCategories(_:)`, by identifier.
    package var categories: [Category] = []

    package init() {}

    package static func file(_ layout: DeviceLayout, app bundleID: String) -> URL {
        layout.root.appendingPathComponent("Notifications").appendingPathComponent(bundleID).appendingPathComponent("settings.json")
    }

    /// The app's settings; empty when it never asked. A file that cannot be read is an error naming it.
    package static func read(_ layout: DeviceLayout, app bundleID: String) throws -> NotificationSettings {
        let url = file(layout, app: bundleID)
        // Read through no link: a link put in its place is refused by name, never followed.
        guard let data = try SecureFiles.readRegularFileNoFollow(url) else { return NotificationSettings() }
        do {
            return try JSONDecoder().decode(NotificationSettings.self, from: data)
        } catch {
            throw FileError(path: url.path, reason: "is not the notification settings this device writes (\(error)); delete it to start again")
        }
    }

    /// Reads, changes and writes back the app's settings.
    package static func update(_ layout: DeviceLayout, app bundleID: String, _ change: (inout NotificationSettings) -> Void) throws {
        let url = file(layout, app: bundleID)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var settings = try read(layout, app: bundleID)
        change(&settings)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        try SecureFiles.writeAtomically(try encoder.encode(settings), to: url, durability: .atomic)
    }
}
