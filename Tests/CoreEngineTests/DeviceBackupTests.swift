import AppGroup
import AppGroupSimTestSupport
import Foundation
import Keychain
import XCTest

@testable import CoreEngine

/// `msdk-sim device backup|restore` (issue 36, item 5): files keep their classes, …ThisDeviceOnly items stay
/// behind, no secret in the file; a backup that names a path outside the containers, or bytes not the ones
/// listed, restores nothing.
final class DeviceBackupTests: XCTestCase {
    let store = InMemorySecretStore()

    private func deviceWithData() throws -> (Device, URL) {
        let root = try TestSupport.temporaryDirectory(self)
        let device = try Device.open(at: root.appendingPathComponent("old"), initialize: true)
        let container = device.layout.dataContainer(bundleID: "com.acme.app")
        try SecureFiles.writeAtomically(Data("kept".utf8), to: container.appendingPathComponent("Library/a.dat"), protection: .complete)
        try SecureFiles.writeAtomically(Data("cache".utf8), to: container.appendingPathComponent("Library/Caches/c.dat"))
        for (service, accessible) in [("carried", "afterFirstUnlock"), ("mine", "afterFirstUnlockThisDeviceOnly"), ("unmarked", nil)] {
            var attributes = ["device": device.id.uuidString, "service": service, "accessGroup": "SIMTEAM001.com.acme.app"]
            attributes["accessible"] = accessible
            try store.store(attributes, label: service, secret: Array("secret-of-\(service)-0123456789".utf8))
        }
        return (device, root)
    }

    func testFilesKeepTheirClassesAndThisDeviceOnlyItemsStayBehind() throws {
        let (device, root) = try deviceWithData()
        let file = root.appendingPathComponent("phone.backup")
        let summary = try DeviceBackup.backup(device, store: store, to: file)
        XCTAssertEqual(summary.files, 1, "caches are not backed up")
        XCTAssertEqual(summary.keychainItems, 1)
        XCTAssertEqual(summary.keychainItemsLeftOut, 2, "an item without a class has the SDK's default, ThisDeviceOnly")
        let bytes = try Data(contentsOf: file)
        XCTAssertNil(bytes.range(of: Data("secret-of-".utf8)), "no keychain secret is in the file")

        let (restored, back) = try DeviceBackup.restore(file, to: root.appendingPathComponent("new"), store: store)
        XCTAssertNotEqual(restored.id, device.id)
        XCTAssertEqual(back.keychainItems, 1)
        let copied = restored.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library/a.dat")
        XCTAssertEqual(try SecureFiles.readIfPresent(copied), Data("kept".utf8))
        XCTAssertEqual(FileProtection.storedClass(of: copied), .complete)
        XCTAssertEqual(try store.search(["device": restored.id.uuidString]).map { $0.attributes["service"] }, ["carried"])
        XCTAssertEqual(restored.restoredFrom, summary.backupID)
        XCTAssertNil(device.restoredFrom)
    }

    func testAHostileBackupRestoresNothing() throws {
        let (device, root) = try deviceWithData()
        let file = root.appendingPathComponent("phone.backup")
        _ = try DeviceBackup.backup(device, store: store, to: file)
        let original = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil) as? [String: Any])
        func tampered(_ change: (inout [String: Any]) -> Void) throws -> URL {
            var archive = original
            change(&archive)
            let url = root.appendingPathComponent("tampered-\(UUID().uuidString).backup")
            try PropertyListSerialization.data(fromPropertyList: archive, format: .binary, options: 0).write(to: url)
            return url
        }
        let path = try XCTUnwrap((original["Files"] as? [[String: Any]])?.first?["Path"] as? String)
        let escapes = try tampered { archive in
            var files = archive["Files"] as! [[String: Any]]
            files[0]["Path"] = "Containers/../../escaped.dat"
            archive["Files"] = files
            var contents = archive["Contents"] as! [String: Data]
            contents["Containers/../../escaped.dat"] = contents[path]
            archive["Contents"] = contents
        }
        let changed = try tampered { archive in
            var contents = archive["Contents"] as! [String: Data]
            contents[path] = Data("other bytes".utf8)
            archive["Contents"] = contents
        }
        for (url, expected) in [(escapes, "a file path outside Containers/"), (changed, "are missing or not the ones listed")] {
            let target = root.appendingPathComponent("target-\(UUID().uuidString)")
            XCTAssertThrowsError(try DeviceBackup.restore(url, to: target, store: store)) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(error)")
                XCTAssertTrue("\(error)".contains("nothing was restored"), "\(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "no device was made")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root.deletingLastPathComponent().appendingPathComponent("escaped.dat").path))
    }
}
