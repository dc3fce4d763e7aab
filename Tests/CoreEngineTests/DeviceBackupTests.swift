@testable import AppGroup
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

    /// A backup is outside input: a binary property list that crashed `PropertyListSerialization` (found by
    /// scripts/fuzz for the shared defaults) made `msdk-sim device restore` die of SIGSEGV; it is refused by name.
    /// An XML list, a text file and an empty file are refused the same way, and none makes a device.
    func testADamagedOrForeignFileIsRefusedByNameWithoutCrashing() throws {
        let root = try TestSupport.temporaryDirectory(self)
        let crasher = try Data(contentsOf: TestSupport.packageRoot.appendingPathComponent("Tests/Fuzz/Plist/corpus/regression-binary-set-crashes-foundation"))
        let xml = try PropertyListSerialization.data(fromPropertyList: ["Format": DeviceBackup.format], format: .xml, options: 0)
        let cases: [(String, Data, String)] = [
            ("crasher", crasher, "a damaged binary property list"),
            ("xml", xml, "not a binary property list"),
            ("text", Data("hello".utf8), "not a binary property list"),
            ("empty", Data(), "not a binary property list"),
        ]
        for (name, bytes, expected) in cases {
            let file = root.appendingPathComponent("\(name).backup")
            try bytes.write(to: file)
            let target = root.appendingPathComponent("target-\(name)")
            XCTAssertThrowsError(try DeviceBackup.restore(file, to: target, store: store), name) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(name): \(error)")
                XCTAssertTrue("\(error)".contains("nothing was restored"), "\(name): \(error)")
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "\(name): no device was made")
        }
    }

    /// Backups written before the archive had a type of its own (by `PropertyListSerialization`, the same keys)
    /// restore as before: files, classes, the app registry with its arrays, and the keychain counts.
    func testABackupWrittenByPropertyListSerializationRestores() throws {
        let (device, root) = try deviceWithData()
        try SharedDefaults(url: device.root.appendingPathComponent("InstalledApps.plist")).set(.dictionary(["path": .string("/apps/Acme.app"), "schemes": .array([.string("acme"), .string("acme-idp")])]), forKey: "com.acme.app")
        let file = root.appendingPathComponent("phone.backup")
        let summary = try DeviceBackup.backup(device, store: store, to: file)
        // Read with Foundation's own reader (as plistlib would) and written again the old way.
        let object = try XCTUnwrap(PropertyListSerialization.propertyList(from: Data(contentsOf: file), format: nil) as? [String: Any])
        XCTAssertEqual(Set(object.keys), ["Format", "BackupID", "Date", "Device", "Apps", "Files", "Contents", "Keychain"])
        XCTAssertTrue(object["Date"] is Date)
        let files = try XCTUnwrap(object["Files"] as? [[String: Any]])
        XCTAssertEqual(files.first?["Size"] as? Int, 4)
        XCTAssertEqual((files.first?["SHA256"] as? String)?.count, 64)
        let old = root.appendingPathComponent("old-writer.backup")
        try PropertyListSerialization.data(fromPropertyList: object, format: .binary, options: 0).write(to: old)

        let (restored, back) = try DeviceBackup.restore(old, to: root.appendingPathComponent("new"), store: store)
        XCTAssertEqual(back.backupID, summary.backupID)
        XCTAssertEqual(back.files, 1)
        XCTAssertEqual(back.keychainItemsLeftOut, 2)
        XCTAssertEqual(back.apps, ["com.acme.app"])
        XCTAssertEqual(try DeviceApps(device: restored).apps().map(\.schemes), [["acme", "acme-idp"]])
        XCTAssertEqual(try DeviceBackup.fingerprint(restored), try DeviceBackup.fingerprint(device))
    }

    /// Every property-list type of the app registry comes back as itself, but for a real with a whole value (the
    /// decoder cannot tell it from an integer; the registry holds strings and arrays of strings).
    func testTheArchiveKeepsEachRegistryValue() throws {
        let values: [String: PlistValue] = [
            "app": .dictionary(["path": .string("/a"), "schemes": .array([.string("x"), .string("y")]), "empty": .array([]), "none": .dictionary([:])]),
            "flags": .array([.bool(true), .bool(false), .int(0), .int(-7), .double(2.5), .data(Data([0, 255])), .date(Date(timeIntervalSinceReferenceDate: 12))]),
        ]
        let archive = DeviceBackupArchive(format: DeviceBackup.format, backupID: "id", date: Date(), device: .init(ID: "d", TeamID: nil), apps: values,
                                          files: [], contents: [:], keychain: .init(Items: 0, LeftOutThisDeviceOnly: 0))
        guard case .success(let back) = DeviceBackupArchive.decode(try archive.encoded()) else { return XCTFail("the archive did not read back") }
        XCTAssertEqual(back.apps, values)
        XCTAssertNil(back.Device?.TeamID)
    }

    /// Foundation's encoder writes offsets of 3 bytes when the archive is between 64 KB and 16 MB (the binary format
    /// allows 1 to 8); the check before the decoder once took only 1, 2, 4 or 8 and refused every such backup.
    func testABackupWithThreeByteOffsetsRestores() throws {
        let (device, root) = try deviceWithData()
        let container = device.layout.dataContainer(bundleID: "com.acme.app")
        try SecureFiles.writeAtomically(Data(repeating: 7, count: 200_000), to: container.appendingPathComponent("Library/store.sqlite"))
        let file = root.appendingPathComponent("phone.backup")
        _ = try DeviceBackup.backup(device, store: store, to: file)
        let bytes = try Data(contentsOf: file)
        XCTAssertEqual(bytes[bytes.count - 32 + 6], 3, "offsets of 3 bytes (the case under test)")
        let (restored, back) = try DeviceBackup.restore(file, to: root.appendingPathComponent("new"), store: store)
        XCTAssertEqual(back.files, 2)
        XCTAssertEqual(try DeviceBackup.fingerprint(restored), try DeviceBackup.fingerprint(device))
    }

    /// The encoder stores identical files once, so a small archive can name one value many times. What a restore
    /// would hold is counted before decoding (each file's bytes, shared or not): past the budget the archive is
    /// refused as too large, not decoded; within it, the same archive reads.
    func testAnArchiveIsMeasuredBeforeItIsDecoded() throws {
        let same = Data(repeating: 9, count: 1_000_000)
        let files = (0..<3).map { DeviceBackupArchive.File(Path: "Containers/Shared/AppGroup/g/f\($0)", Protection: "none", Size: same.count, SHA256: "x") }
        let archive = DeviceBackupArchive(format: DeviceBackup.format, backupID: "id", date: Date(), device: .init(ID: "d", TeamID: nil), apps: [:],
                                          files: files, contents: Dictionary(uniqueKeysWithValues: files.map { ($0.Path!, same) }),
                                          keychain: .init(Items: 0, LeftOutThisDeviceOnly: 0))
        let data = try archive.encoded()
        XCTAssertLessThan(data.count, 1_100_000, "identical files are stored once")
        let expanded = BinaryPlistCheck.expandedBytes([UInt8](data))
        XCTAssertGreaterThanOrEqual(expanded, 3_000_000)
        XCTAssertLessThan(expanded, 3_010_000)
        guard case .failure(let refusal) = DeviceBackupArchive.decode(data, memoryBudget: 2_000_000) else { return XCTFail("decoded past its budget") }
        XCTAssertTrue(refusal.tooLarge)
        XCTAssertTrue(refusal.reason.hasPrefix("its files add up to 3.0 MB once each file's bytes are counted (the file is 1.0 MB), more than the 2.0 MB"), refusal.reason)
        guard case .success(let read) = DeviceBackupArchive.decode(data, memoryBudget: 4_000_000) else { return XCTFail("refused within its budget") }
        XCTAssertEqual(read.Contents?.values.map(\.count), [same.count, same.count, same.count])
    }

    /// A restore that would fill the disk is refused before it writes anything.
    func testARestoreThatDoesNotFitWritesNothing() throws {
        let (device, root) = try deviceWithData()
        let file = root.appendingPathComponent("phone.backup")
        _ = try DeviceBackup.backup(device, store: store, to: file)
        let target = root.appendingPathComponent("new")
        XCTAssertThrowsError(try DeviceBackup.restore(file, to: target, store: store, freeSpace: { _ in 3 })) { error in
            XCTAssertEqual("\(error)", "the backup's files need 4 bytes and \(target.path) has 3 bytes free; free some space or restore elsewhere; nothing was restored")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: target.path), "no device was made")
        XCTAssertNotNil(DeviceBackup.freeSpace(at: target), "the real free space of a folder not made yet (its parent's)")
    }
}
