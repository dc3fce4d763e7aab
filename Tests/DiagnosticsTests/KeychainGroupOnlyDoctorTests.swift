import AppGroup
import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Diagnostics

/// Issue 37, item 7: a project whose targets share only a keychain group (the SDK's encrypted-notification
/// template; Fixtures/CaseAlerts is written that way) is valid for push decryption. Doctor gives it no
/// app-group finding, still checks its keychain group, and no fix ever names an empty group.
final class KeychainGroupOnlyDoctorTests: XCTestCase {
    var work: URL!
    var project: URL { work.appendingPathComponent("CaseAlerts/CaseAlerts.xcodeproj") }
    var extensionEntitlements: URL { work.appendingPathComponent("CaseAlerts/NotificationServiceExtension/NotificationServiceExtension.entitlements") }

    override func setUpWithError() throws {
        work = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.packageRoot.appendingPathComponent("Fixtures/CaseAlerts"), to: work.appendingPathComponent("CaseAlerts"))
    }

    func testAKeychainGroupOnlyProjectHasNoAppGroupFinding() async throws {
        let found = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
        XCTAssertEqual(found, [], "\(found)")
        let bundles = try ProjectImport.run(.init(xcodeproj: project, configuration: "Debug", out: work.appendingPathComponent("out")))
        let app = try XCTUnwrap(bundles.apps.first).bundle
        let onDevice = await Doctor.examine(app: app.path)
        XCTAssertEqual(onDevice.map(\.id), [], "\(onDevice)")
    }

    /// Its keychain group is still checked: an extension that does not share it cannot read the push key.
    func testItsKeychainGroupIsStillChecked() async throws {
        let entitlements = try String(contentsOf: extensionEntitlements, encoding: .utf8)
        XCTAssertTrue(entitlements.contains("com.acme.casealerts</string>"))
        try entitlements.replacingOccurrences(of: "com.acme.casealerts</string>", with: "com.acme.other</string>")
            .write(to: extensionEntitlements, atomically: true, encoding: .utf8)
        let found = await ProjectDoctor.examine(xcodeproj: project, configuration: "Debug")
        XCTAssertEqual(found.map(\.id), ["push-key-group-not-shared"], "\(found)")
    }

    /// A widget beside it needs the app group: then the findings are back, and their fixes name a group.
    func testAWidgetNeedsTheGroupAndNoFixNamesAnEmptyGroup() async throws {
        let bundles = try ProjectImport.run(.init(xcodeproj: project, configuration: "Debug", out: work.appendingPathComponent("out")))
        let app = try XCTUnwrap(bundles.apps.first).bundle
        let nse = app.appendingPathComponent("PlugIns/NotificationServiceExtension.appex")
        let widget = app.appendingPathComponent("PlugIns/Widget.appex")
        try FileManager.default.copyItem(at: nse, to: widget)
        let info = widget.appendingPathComponent("Info.plist")
        var plist = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: info), format: nil) as? [String: Any])
        plist["CFBundleIdentifier"] = "com.acme.casealerts.Widget"
        plist["NSExtension"] = ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"]
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: info)
        let found = await Doctor.examine(app: app.path)
        XCTAssertTrue(found.contains { $0.id == "app-group-entitlement-missing" }, "\(found)")
        for finding in found {
            XCTAssertFalse(finding.fix.contains("add  to") || finding.fix.contains("appGroupName  ") || finding.fix.hasSuffix("appGroupName "), "an empty group name: \(finding.fix)")
            XCTAssertFalse(finding.fix.contains("  "), "a gap where a name should be: \(finding.fix)")
        }
    }
}
