import Foundation
import XCTest

@testable import Keychain

/// The device's lock state and the items' classes (issue 36), on the in-memory double and on the real Secret
/// Service: for each class, a read and a write in each of the three states, as iOS gives them out.
final class AccessibilityTests: XCTestCase {
    final class StateBox: @unchecked Sendable {
        private let lock = NSLock()
        private var state = KeychainProtectionState.unlocked
        var value: KeychainProtectionState {
            get { lock.withLock { state } }
            set { lock.withLock { state = newValue } }
        }
    }

    let group = "SIMTEAM001.com.acme.app"
    let states: [(String, KeychainProtectionState)] = [("unlocked", .unlocked), ("locked", .locked), ("beforeFirstUnlock", .beforeFirstUnlock)]

    func stores() throws -> [any SecretStore] {
        let real = LibsecretStore()
        guard real.availability() == .ready else {
            throw KeychainError(status: .notAvailable, message: "these tests need a Secret Service; run them through scripts/test or scripts/with-keyring swift test")
        }
        return [InMemorySecretStore(), real]
    }

    func helper(_ store: any SecretStore, device: String, state: StateBox, accessibility: KeychainAccessibility) -> KeychainHelper {
        KeychainHelper(store: store, deviceID: device, accessGroups: [group], protection: { state.value }, accessibility: accessibility)
    }

    func testEachClassInEachState() async throws {
        // What iOS gives out: whenUnlocked… only unlocked; afterFirstUnlock… unlocked and locked; nothing before the first unlock.
        let expected: [KeychainAccessibility: Set<String>] = [
            .whenUnlocked: ["unlocked"], .whenUnlockedThisDeviceOnly: ["unlocked"], .whenPasscodeSetThisDeviceOnly: ["unlocked"],
            .afterFirstUnlock: ["unlocked", "locked"], .afterFirstUnlockThisDeviceOnly: ["unlocked", "locked"],
        ]
        for store in try stores() {
            for accessibility in KeychainAccessibility.allCases {
                let device = "test-\(UUID().uuidString)"
                defer { _ = try? store.delete(["device": device]) }
                let state = StateBox()
                let keychain = helper(store, device: device, state: state, accessibility: accessibility)
                let made = await keychain.write(Array("v1".utf8), service: "svc", account: "a")
                XCTAssertTrue(made.success, "\(accessibility) made while unlocked")
                let item = try XCTUnwrap(try store.search(["device": device, "service": "svc"]).first)
                XCTAssertEqual(item.attributes[KeychainAccessibility.attribute], accessibility.rawValue, "the class is an attribute of the item")
                for (name, protection) in states {
                    state.value = protection
                    let read = await keychain.read(service: "svc", account: "a")
                    let write = await keychain.write(Array("v-\(name)".utf8), service: "svc", account: "a")
                    let available = expected[accessibility]!.contains(name)
                    XCTAssertEqual(read.success, available, "read of \(accessibility) while \(name) (\(type(of: store)))")
                    XCTAssertEqual(write.success, available, "write of \(accessibility) while \(name) (\(type(of: store)))")
                    if !available {
                        XCTAssertEqual(read.status, .interactionNotAllowed, "\(accessibility) while \(name)")
                        XCTAssertEqual(write.status, .interactionNotAllowed)
                        XCTAssertTrue(read.error?.message.contains(accessibility.rawValue) ?? false, read.error?.message ?? "")
                    } else {
                        XCTAssertEqual(read.data.map { String(decoding: $0, as: UTF8.self) }?.hasPrefix("v"), true)
                    }
                }
                // A new item of a class the state does not give out is refused too (SecItemAdd's -25308), and nothing is made.
                state.value = .beforeFirstUnlock
                let refused = await keychain.write(Array("x".utf8), service: "other", account: "a")
                XCTAssertEqual(refused.status, .interactionNotAllowed)
                XCTAssertTrue(try store.search(["device": device, "service": "other"]).isEmpty)
                // The values written while available are the ones kept.
                state.value = .unlocked
                let last = await keychain.read(service: "svc", account: "a")
                XCTAssertEqual(last.data.map { String(decoding: $0, as: UTF8.self) }, expected[accessibility]!.contains("locked") ? "v-locked" : "v-unlocked")
            }
        }
    }

    /// An item made before classes were kept has no attribute: it counts as the SDK's default.
    func testAnItemWithoutAClassIsTheSDKDefault() async throws {
        for store in try stores() {
            let device = "test-\(UUID().uuidString)"
            defer { _ = try? store.delete(["device": device]) }
            try store.store(["device": device, "accessGroup": group, "service": "old", "account": "", "creator": KeychainHelper.creator], label: "old", secret: Array("v".utf8))
            let state = StateBox()
            let keychain = helper(store, device: device, state: state, accessibility: .whenUnlocked)
            state.value = .locked
            let read = await keychain.read(service: "old")
            XCTAssertTrue(read.success, "afterFirstUnlockThisDeviceOnly is readable while locked")
            state.value = .beforeFirstUnlock
            let before = await keychain.read(service: "old")
            XCTAssertEqual(before.status, .interactionNotAllowed)
        }
    }

    /// `setAccessibleAttribute`: every item of the SDK saved again with the new class (the SDK's
    /// testChangeAccesibilityAttribute); none of the SDK's: errSecItemNotFound, others' items untouched
    /// (testAccessibilityAttributeScope); refused, with no item changed, when the state does not give an item out.
    func testSetAccessibilityResavesTheSDKsItems() async throws {
        for store in try stores() {
            let device = "test-\(UUID().uuidString)"
            defer { _ = try? store.delete(["device": device]) }
            let state = StateBox()
            let keychain = helper(store, device: device, state: state, accessibility: .sdkDefault)
            let none = await keychain.setAccessibility(.afterFirstUnlock)
            XCTAssertEqual(none.status, .itemNotFound)
            let accounts = [("test.one", "account.one"), ("test.two", "account.two"), ("test.three", "account.three"), ("test.four", "account.four")]
            for (service, account) in accounts {
                let made = await keychain.createIfNotPresent(service: service, account: account)
                XCTAssertTrue(made.success)
            }
            // Another process's item (not the SDK's creator) keeps its class.
            try store.store(["device": device, "accessGroup": group, "service": "foreign", "account": "", KeychainAccessibility.attribute: "whenPasscodeSetThisDeviceOnly"], label: "f", secret: [1])
            XCTAssertEqual(Set(try store.search(["device": device, "creator": KeychainHelper.creator]).map { $0.attributes[KeychainAccessibility.attribute] }), ["afterFirstUnlock"])
            let changed = await keychain.setAccessibility(.whenUnlocked)
            XCTAssertTrue(changed.success)
            let items = try store.search(["device": device, "creator": KeychainHelper.creator])
            XCTAssertEqual(items.count, 4, "saved again, not duplicated")
            XCTAssertEqual(Set(items.map { $0.attributes[KeychainAccessibility.attribute] }), ["whenUnlocked"])
            XCTAssertEqual(try store.search(["device": device, "service": "foreign"]).first?.attributes[KeychainAccessibility.attribute], "whenPasscodeSetThisDeviceOnly")
            state.value = .locked
            let refused = await keychain.setAccessibility(.afterFirstUnlockThisDeviceOnly)
            XCTAssertEqual(refused.status, .interactionNotAllowed, "whenUnlocked items cannot be read while locked")
            XCTAssertEqual(Set(try store.search(["device": device, "creator": KeychainHelper.creator]).map { $0.attributes[KeychainAccessibility.attribute] }), ["whenUnlocked"])
        }
    }
}
