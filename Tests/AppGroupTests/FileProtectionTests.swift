import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import AppGroup

/// Data protection classes of files (issue 36, item 3): for each class, a read in each of the device's three
/// states, as iOS gives them; a write keeps the class; SharedDefaults refuses what iOS would not open.
final class FileProtectionTests: XCTestCase {
    private func device() throws -> Device {
        try Device.open(at: TestSupport.temporaryDirectory(self).appendingPathComponent("device"), initialize: true)
    }

    func testEachClassInEachStateAsIOSGivesIt() throws {
        let device = try device()
        let folder = device.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library")
        let expected: [FileProtectionClass: [DeviceLockState: Bool]] = [
            .complete: [.beforeFirstUnlock: false, .unlocked: true, .locked: false],
            .completeUnlessOpen: [.beforeFirstUnlock: false, .unlocked: true, .locked: false],
            .completeUntilFirstUserAuthentication: [.beforeFirstUnlock: false, .unlocked: true, .locked: true],
            .none: [.beforeFirstUnlock: true, .unlocked: true, .locked: true],
        ]
        for (protection, states) in expected {
            let file = folder.appendingPathComponent("\(protection.rawValue).dat")
            try device.setLockState(.unlocked)
            try SecureFiles.writeAtomically(Data("secret-free \(protection)".utf8), to: file, protection: protection)
            XCTAssertEqual(FileProtection.storedClass(of: file), protection)
            for (state, readable) in states {
                try device.setLockState(state)
                if readable {
                    XCTAssertEqual(try SecureFiles.readIfPresent(file), Data("secret-free \(protection)".utf8), "\(protection) \(state)")
                } else {
                    XCTAssertThrowsError(try SecureFiles.readIfPresent(file), "\(protection) \(state)") { error in
                        let refusal = error as? FileProtectionError
                        XCTAssertEqual(refusal?.protection, protection)
                        XCTAssertEqual(refusal?.state, state)
                        XCTAssertTrue(refusal?.description.contains("EPERM, NSCocoaErrorDomain 257") ?? false, "\(error)")
                    }
                }
            }
        }
    }

    func testAFileWithoutAClassHasTheDefaultAndAWriteKeepsTheClass() throws {
        let device = try device()
        let file = device.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library/plain.dat")
        try SecureFiles.writeAtomically(Data("one".utf8), to: file)
        XCTAssertNil(FileProtection.storedClass(of: file))
        XCTAssertEqual(FileProtection.effectiveClass(of: file), .completeUntilFirstUserAuthentication)
        try device.setLockState(.beforeFirstUnlock)
        XCTAssertThrowsError(try SecureFiles.readIfPresent(file))
        XCTAssertThrowsError(try SecureFiles.writeAtomically(Data("two".utf8), to: file)) { XCTAssertEqual(($0 as? FileProtectionError)?.writing, true) }
        try device.setLockState(.unlocked)
        XCTAssertEqual(try SecureFiles.readIfPresent(file), Data("one".utf8), "a refused write changed nothing")

        // Replacing a file keeps its class; a new file takes its folder's.
        try FileProtection.set(.complete, on: file)
        try SecureFiles.writeAtomically(Data("three".utf8), to: file)
        XCTAssertEqual(FileProtection.storedClass(of: file), .complete)
        let folder = file.deletingLastPathComponent()
        try FileProtection.set(.none, on: folder)
        let fresh = folder.appendingPathComponent("fresh.dat")
        try SecureFiles.writeAtomically(Data("four".utf8), to: fresh)
        XCTAssertEqual(FileProtection.storedClass(of: fresh), FileProtectionClass.none)
    }

    func testCreatingWhileLockedFollowsTheFoldersClass() throws {
        let device = try device()
        let folder = device.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library/inbox")
        try SecureFiles.makeDirectory(folder)
        try FileProtection.set(.completeUnlessOpen, on: folder)
        try device.setLockState(.locked)
        // completeUnlessOpen: a new file can be written while locked, and not read back until the unlock.
        let file = folder.appendingPathComponent("new.dat")
        try SecureFiles.writeAtomically(Data("new".utf8), to: file)
        XCTAssertThrowsError(try SecureFiles.readIfPresent(file))
        try device.setLockState(.unlocked)
        try FileProtection.set(.complete, on: folder)
        try device.setLockState(.locked)
        XCTAssertThrowsError(try SecureFiles.writeAtomically(Data("x".utf8), to: folder.appendingPathComponent("other.dat")))
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.appendingPathComponent("other.dat").path))
        // The class of a file that is not available cannot be changed (its key is not in memory).
        XCTAssertThrowsError(try FileProtection.set(.none, on: file))
        try device.setLockState(.unlocked)
        XCTAssertEqual(FileProtection.storedClass(of: file), .completeUnlessOpen)
    }

    func testFilesOutsideADevicesContainersAreNeverRefused() throws {
        let device = try device()
        try device.setLockState(.beforeFirstUnlock)
        let file = device.root.appendingPathComponent("notes.txt")
        try SecureFiles.writeAtomically(Data("device file".utf8), to: file)
        XCTAssertEqual(try SecureFiles.readIfPresent(file), Data("device file".utf8))
    }

    func testSharedDefaultsRefuseWhatIOSWouldNotOpenAndKeepTheirValues() throws {
        let device = try device()
        let url = device.layout.groupSuite(groupID: "group.com.acme")
        let defaults = SharedDefaults(url: url)
        try defaults.set(.bool(true), forKey: "userLoggedIn")
        XCTAssertEqual(try defaults.value(forKey: "userLoggedIn"), .bool(true))
        try FileProtection.set(.complete, on: url)
        try device.setLockState(.locked)
        // The copy this process holds is not given out either.
        XCTAssertThrowsError(try defaults.value(forKey: "userLoggedIn")) { error in
            guard case .protected(let refusal)? = error as? SharedDefaultsError else { return XCTFail("\(error)") }
            XCTAssertEqual(refusal.protection, .complete)
        }
        XCTAssertThrowsError(try defaults.set(.bool(false), forKey: "userLoggedIn"))
        try device.setLockState(.unlocked)
        XCTAssertEqual(try defaults.value(forKey: "userLoggedIn"), .bool(true))
    }

    func testThePolicyIsTheSDKsFileProtectionHelperRule() {
        let policy = FileProtectionPolicy()
        XCTAssertEqual(policy.protection(forPath: "/a"), .completeUntilFirstUserAuthentication)
        policy.addProtection(.complete, forPath: "/a")
        policy.defaultMode = .none
        XCTAssertEqual(policy.protection(forPath: "/a"), .complete)
        XCTAssertEqual(policy.protection(forPath: "/b"), FileProtectionClass.none)
        XCTAssertEqual(FileProtectionClass(name: "NSFileProtectionCompleteUnlessOpen"), .completeUnlessOpen)
        XCTAssertNil(FileProtectionClass(name: "NSFileProtectionSometimes"))
    }

    /// Attacks on the state and the classes: a lock-state that is a symbolic link (to a file that says unlocked) is
    /// not followed and counts as the strictest state; a link in the containers to a complete file is refused as
    /// the file is.
    func testALinkCannotUnlockTheDeviceOrAFile() throws {
        let device = try device()
        let file = device.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library/secret-free.dat")
        try SecureFiles.writeAtomically(Data("x".utf8), to: file, protection: .complete)
        try device.setLockState(.locked)
        let link = file.deletingLastPathComponent().appendingPathComponent("link.dat")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: file)
        XCTAssertThrowsError(try SecureFiles.readIfPresent(link)) { XCTAssertEqual(($0 as? FileProtectionError)?.protection, .complete) }

        let says = device.root.appendingPathComponent("says-unlocked")
        try Data("unlocked\n".utf8).write(to: says)
        try FileManager.default.removeItem(at: device.lockStateFile)
        try FileManager.default.createSymbolicLink(at: device.lockStateFile, withDestinationURL: says)
        XCTAssertThrowsError(try device.lockState(), "a link is not followed")
        XCTAssertEqual(device.lockStateOrStrictest, .beforeFirstUnlock)
        let plain = device.layout.dataContainer(bundleID: "com.acme.app").appendingPathComponent("Library/plain.dat")
        XCTAssertThrowsError(try SecureFiles.readIfPresent(plain.deletingLastPathComponent().appendingPathComponent("secret-free.dat")))
        XCTAssertThrowsError(try SecureFiles.writeAtomically(Data("y".utf8), to: plain), "nothing is written in the strictest state")
        XCTAssertFalse(FileManager.default.fileExists(atPath: plain.path))
    }

    /// The device's root is the path before the first `/Containers/`, found without Foundation's string search.
    func testTheDeviceRootOfAPath() {
        XCTAssertEqual(FileProtection.deviceRootPath(of: "/tmp/d/Containers/Data/x.plist"), "/tmp/d")
        XCTAssertEqual(FileProtection.deviceRootPath(of: "/tmp/Containersx/d/Containers/Shared/a"), "/tmp/Containersx/d")
        XCTAssertEqual(FileProtection.deviceRootPath(of: "/a/Containers/b/Containers/c"), "/a")
        XCTAssertEqual(FileProtection.deviceRootPath(of: "/Containers/x"), "")
        XCTAssertNil(FileProtection.deviceRootPath(of: "/tmp/d/Containers"))
        XCTAssertNil(FileProtection.deviceRootPath(of: "/tmp/é/Container/x"))
        XCTAssertEqual(FileProtection.deviceRootPath(of: "/tmp/é/Containers/x"), "/tmp/é")
        XCTAssertEqual(FileProtection.deviceRoot(of: URL(fileURLWithPath: "/tmp/d/Containers/Data/x"))?.path, "/tmp/d")
    }

    /// The explorer asks whether a folder's files can carry a class before it puts its runs there: a probe file,
    /// given a class and removed. (Not tested here: a file system that refuses `user.` attributes, such as tmpfs
    /// before Linux 6.6; this machine has none to try.)
    func testAFolderCarriesClassesWhereItsFilesCanBeGivenOneAndTheProbeLeavesNothing() throws {
        let dir = try TestSupport.temporaryDirectory(self)
        XCTAssertTrue(FileProtection.canCarryClasses(in: dir.path))
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: dir.path), [], "the probe file is gone")
        XCTAssertFalse(FileProtection.canCarryClasses(in: dir.appendingPathComponent("missing").path), "no file can be made there")
        XCTAssertFalse(FileProtection.canCarryClasses(in: "/proc"), "no file can be made there")
    }
}
