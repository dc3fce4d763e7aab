import Foundation
import Keychain
import CoreEngine
import XCTest

/// A test with its own copy of the fixture app (MobileSyncExplorer.app, its extensions included) on a
/// fresh device, and the in-memory keychain double: what the extension and SDK tests start from.
open class FixtureAppTestCase: XCTestCase {
    package var root: URL!
    package var devicePath: String!
    package let keychain = InMemorySecretStore()

    open override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        devicePath = root.appendingPathComponent("device").path
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: appURL)
    }

    package var appURL: URL { root.appendingPathComponent("MobileSyncExplorer.app") }
    package var widgetURL: URL { appURL.appendingPathComponent("PlugIns/RecentContacts.appex") }
    package var notificationServiceURL: URL { appURL.appendingPathComponent("PlugIns/NotificationService.appex") }

    /// A process of `bundle` (the app or one of its extensions) launching on the test's device.
    package func launch(_ bundle: URL) throws -> ProcessLaunch {
        try ProcessLaunch(bundlePath: bundle.path, devicePath: devicePath, secretStore: keychain)
    }
}
