import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import SalesforceSDKCommon
import XCTest

/// The SDK's `FileProtectionHelper`, `FileManager`'s protection key and the protected-data notifications, run as
/// the fixture app on a device that locks (issue 36, item 3).
final class FileProtectionHelperTests: XCTestCase {
    var root: URL!
    let store = InMemorySecretStore()
    var device: URL { root.appendingPathComponent("device") }
    var app: URL { root.appendingPathComponent("MobileSyncExplorer.app") }

    override func setUpWithError() throws {
        root = try TestSupport.temporaryDirectory(self)
        try FileManager.default.copyItem(at: TestSupport.fixtureApp, to: app)
    }

    override func tearDown() {
        FileProtectionHelper.shared.defaultMode = FileProtectionType.completeUntilFirstUserAuthentication.rawValue
    }

    func asApp<T>(_ body: () throws -> T) throws -> T { try SDKProcess.run(as: app, device: device, secretStore: store, body) }

    func testTheHelperIsTheSDKsRule() throws {
        let helper = FileProtectionHelper.shared
        XCTAssertEqual(helper.defaultMode, FileProtectionType.completeUntilFirstUserAuthentication.rawValue, "the SDK's default")
        helper.addProtection(FileProtectionType.complete.rawValue, for: "/tmp/a")
        helper.addProtection("NSFileProtectionSometimes", for: "/tmp/b")
        XCTAssertEqual(FileProtectionHelper.protection(for: "/tmp/a"), FileProtectionType.complete.rawValue)
        XCTAssertEqual(FileProtectionHelper.protection(for: "/tmp/b"), helper.defaultMode, "an invalid class is ignored, as the SDK's addProtection does")
        XCTAssertEqual(helper.pathStatusMap["/tmp/a"], FileProtectionType.complete.rawValue)
        helper.defaultMode = FileProtectionType.none.rawValue
        XCTAssertEqual(FileProtectionHelper.protection(for: "/tmp/c"), FileProtectionType.none.rawValue)
    }

    func testAFileProtectedWithFileManagerIsClosedWhileTheDeviceIsLocked() throws {
        let file = try asApp { () -> URL in
            let container = try XCTUnwrap(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: "group.com.salesforce.mobilesdk.MobileSyncExplorer"))
            let file = container.appendingPathComponent("draft.txt")
            try Data("a draft".utf8).write(to: file)
            try FileManager.default.setAttributes([.protectionKey: FileProtectionType.complete], ofItemAtPath: file.path)
            XCTAssertEqual(FileManager.default.fileProtection(ofItemAtPath: file.path).rawValue, FileProtectionType.complete.rawValue)
            XCTAssertTrue(SDKProcess.current.isProtectedDataAvailable)
            return file
        }
        let simulated = try Device.open(at: device)
        try simulated.setLockState(.locked)
        try asApp {
            XCTAssertFalse(SDKProcess.current.isProtectedDataAvailable)
            XCTAssertThrowsError(try SecureFiles.readIfPresent(file)) { XCTAssertEqual(($0 as? FileProtectionError)?.protection, .complete) }
            // The class of a file whose key is not available cannot be changed: Foundation's 513, as on iOS.
            XCTAssertThrowsError(try FileManager.default.setAttributes([.protectionKey: FileProtectionType.none], ofItemAtPath: file.path)) { error in
                XCTAssertEqual((error as NSError).domain, NSCocoaErrorDomain)
                XCTAssertEqual((error as NSError).code, 513)
            }
        }
        try simulated.setLockState(.unlocked)
        XCTAssertEqual(try SecureFiles.readIfPresent(file), Data("a draft".utf8))
    }

    func testARunningProcessIsToldWhenProtectedDataComesAndGoes() throws {
        let simulated = try Device.open(at: device, initialize: true)
        let unavailable = expectation(forNotification: .protectedDataWillBecomeUnavailable, object: nil)
        let available = expectation(forNotification: .protectedDataDidBecomeAvailable, object: nil)
        try asApp {
            try simulated.setLockState(.locked)
            wait(for: [unavailable], timeout: 10)
            try simulated.setLockState(.unlocked)
            wait(for: [available], timeout: 10)
        }
    }
}
