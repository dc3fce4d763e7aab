import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

/// `msdk-sim device uninstall` (issue 36): an app group's container goes only with the group's last app, and
/// nothing of another app is ever deleted.
final class DeviceUninstallTests: XCTestCase {
    func testTheGroupContainerGoesWithItsLastAppOnly() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: root.appendingPathComponent("device"), initialize: true)
        let apps = DeviceApps(device: device)
        let app = try AppBundle(at: TestSupport.fixtureApp)
        let group = try XCTUnwrap(app.entitlements.applicationGroups.first)
        // A second app of the same team and group (a copy with another bundle id).
        let other = root.appendingPathComponent("Other.app")
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: other)
        let info = other.appendingPathComponent("Info.plist")
        var plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
        plist["CFBundleIdentifier"] = "com.acme.other"
        plist["CFBundleURLTypes"] = [[String: Any]]()
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: info)
        try apps.install(app)
        try apps.install(try AppBundle(at: other))
        for id in [app.bundleIdentifier, app.bundleIdentifier + ".RecentContacts", "com.acme.other"] {
            try SecureFiles.makeDirectory(device.layout.dataContainer(bundleID: id).appendingPathComponent("Library"))
        }
        let shared = device.layout.sharedContainer(groupID: group)
        try SecureFiles.makeDirectory(shared.appendingPathComponent("Library"))

        // A prefix of the app's id is no app: refused, and nothing of the apps it prefixes is touched.
        XCTAssertThrowsError(try apps.uninstall(bundleID: "com.salesforce")) { XCTAssertEqual($0 as? DeviceApps.UninstallFailure, .notOnDevice("com.salesforce")) }
        // Another app whose id starts with this one's is not its extension.
        try SecureFiles.makeDirectory(device.layout.dataContainer(bundleID: app.bundleIdentifier + ".Lite"))
        let first = try apps.uninstall(bundleID: app.bundleIdentifier)
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.layout.dataContainer(bundleID: app.bundleIdentifier + ".Lite").path))
        try FileManager.default.removeItem(at: device.layout.dataContainer(bundleID: app.bundleIdentifier + ".Lite"))
        XCTAssertEqual(Set(first.removed), ["Containers/Data/\(app.bundleIdentifier)", "Containers/Data/\(app.bundleIdentifier).RecentContacts"])
        XCTAssertEqual(first.keptGroups[group], "com.acme.other uses it")
        XCTAssertTrue(FileManager.default.fileExists(atPath: shared.path), "another app of the group keeps its container")
        XCTAssertTrue(FileManager.default.fileExists(atPath: device.layout.dataContainer(bundleID: "com.acme.other").path))
        XCTAssertThrowsError(try apps.uninstall(bundleID: app.bundleIdentifier)) { XCTAssertEqual($0 as? DeviceApps.UninstallFailure, .notOnDevice(app.bundleIdentifier)) }

        // A container whose app is not installed here may use the group: the group is kept, and said so.
        try SecureFiles.makeDirectory(device.layout.dataContainer(bundleID: "com.unknown.app"))
        let second = try apps.uninstall(bundleID: "com.acme.other")
        XCTAssertEqual(second.removed, ["Containers/Data/com.acme.other"])
        XCTAssertTrue(second.keptGroups[group]?.hasPrefix("com.unknown.app has a container here") ?? false, "\(second.keptGroups)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: shared.path))

        // The group's last app: its container goes with it.
        try FileManager.default.removeItem(at: device.layout.dataContainer(bundleID: "com.unknown.app"))
        try apps.install(try AppBundle(at: other))
        try SecureFiles.makeDirectory(device.layout.dataContainer(bundleID: "com.acme.other"))
        let last = try apps.uninstall(bundleID: "com.acme.other")
        XCTAssertTrue(last.removed.contains("Containers/Shared/AppGroup/\(group)"), "\(last.removed)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: shared.path))
    }
}
