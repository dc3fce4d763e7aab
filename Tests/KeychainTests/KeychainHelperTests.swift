import AppGroupSimTestSupport
import Foundation
import XCTest

@testable import Keychain

/// The iOS rules of `KeychainHelper`, each checked on the in-memory double and on the real Secret
/// Service (gnome-keyring started by scripts/with-keyring). The real one must be there: without it
/// these tests fail and say why. (Linux XCTest does not discover inherited tests, so each test loops.)
final class KeychainRulesTests: XCTestCase {
    let appGroups = ["SIMTEAM001.com.salesforce.mobilesdk.MobileSyncExplorer", "SIMTEAM001.com.x.app", "group.x"]
    var store: (any SecretStore)!
    var deviceID = ""

    /// Runs `body` once per store, each time with a fresh device id, and removes every item of that device afterwards.
    func onEachStore(_ body: () async throws -> Void) async throws {
        let real = LibsecretStore()
        let availability = real.availability()
        guard availability == .ready else {
            throw KeychainError(
                status: .notAvailable,
                message: "these tests need a Secret Service (\(availability)); run them through scripts/test or scripts/with-keyring swift test")
        }
        for candidate in [InMemorySecretStore() as any SecretStore, real] {
            store = candidate
            deviceID = "test-\(UUID().uuidString)"
            do {
                try await body()
            } catch {
                XCTFail("on \(type(of: candidate)): \(error)")
            }
            try store.delete(["device": deviceID])
            try store.delete(["device": deviceID + "-other"])
            XCTAssertEqual(try store.search(["device": deviceID]).count, 0, "items left behind on \(type(of: candidate))")
        }
    }

    func helper(_ groups: [String]? = nil, device: String? = nil) -> KeychainHelper {
        KeychainHelper(store: store, deviceID: device ?? deviceID, accessGroups: groups ?? appGroups)
    }

    func testAValueRoundTripsAsBytes() async throws {
        try await onEachStore {
            let kc = helper()
            let bytes: [UInt8] = [0, 1, 2, 255, 0, 10]
            let written = await kc.write(bytes, service: "com.salesforce.mobilesdk.oauth.refresh", account: "acct-1")
            XCTAssertEqual(written.status, .success)
            let read = await kc.read(service: "com.salesforce.mobilesdk.oauth.refresh", account: "acct-1")
            XCTAssertEqual(read.status, .success)
            XCTAssertEqual(read.data, bytes)
            let rewritten = await kc.write([9], service: "com.salesforce.mobilesdk.oauth.refresh", account: "acct-1")
            XCTAssertTrue(rewritten.success)
            let again = await kc.read(service: "com.salesforce.mobilesdk.oauth.refresh", account: "acct-1")
            XCTAssertEqual(again.data, [9])
            let count = try await kc.items().count
            XCTAssertEqual(count, 1, "a write replaces, it does not add")
        }
    }

    func testAnItemWrittenWithNoGroupLandsInTheFirstEntitledGroup() async throws {
        try await onEachStore {
            let kc = helper()
            _ = await kc.write([1], service: "svc")
            let items = try await kc.items()
            XCTAssertEqual(items.map(\.accessGroup), [appGroups[0]])
            let inFirst = await kc.read(service: "svc", accessGroup: appGroups[0])
            XCTAssertEqual(inFirst.data, [1])
            let inSecond = await kc.read(service: "svc", accessGroup: appGroups[1])
            XCTAssertEqual(inSecond.status, .itemNotFound)
        }
    }

    func testAReadWithNoGroupSearchesEveryEntitledGroup() async throws {
        try await onEachStore {
            let kc = helper()
            _ = await kc.write([7], service: "svc", accessGroup: "group.x")
            let read = await kc.read(service: "svc")
            XCTAssertEqual(read.data, [7])
        }
    }

    func testAGroupTheProcessIsNotEntitledToIsMissingEntitlement() async throws {
        try await onEachStore {
            let app = helper()
            _ = await app.write([1], service: "svc")
            let widget = helper(["SIMTEAM001.com.x.widget"])
            let explicit = await widget.read(service: "svc", accessGroup: appGroups[0])
            XCTAssertEqual(explicit.status, .missingEntitlement)
            XCTAssertEqual(explicit.status.rawValue, -34018)
            XCTAssertTrue(explicit.error?.message.contains("keychain-access-groups") ?? false, "the message names the fix")
            let write = await widget.write([2], service: "svc", accessGroup: appGroups[0])
            XCTAssertEqual(write.status, .missingEntitlement)
            let implicit = await widget.read(service: "svc")
            XCTAssertEqual(implicit.status, .itemNotFound, "the widget cannot see the app's group at all")
        }
    }

    func testResetLeavesAnEmptyItem() async throws {
        try await onEachStore {
            let kc = helper()
            _ = await kc.write([1, 2, 3], service: "svc", account: "a")
            let reset = await kc.reset(service: "svc", account: "a")
            XCTAssertTrue(reset.success)
            let read = await kc.read(service: "svc", account: "a")
            XCTAssertEqual(read.status, .success)
            XCTAssertEqual(read.data, [])
            let count = try await kc.items().count
            XCTAssertEqual(count, 1)
        }
    }

    func testRemovingAMissingItemIsItemNotFound() async throws {
        try await onEachStore {
            let kc = helper()
            let result = await kc.remove(service: "never-written")
            XCTAssertEqual(result.status, .itemNotFound)
            XCTAssertEqual(result.status.rawValue, -25300)
            _ = await kc.write([1], service: "svc")
            let removed = await kc.remove(service: "svc")
            XCTAssertTrue(removed.success)
            let gone = await kc.read(service: "svc")
            XCTAssertEqual(gone.status, .itemNotFound)
        }
    }

    func testAddingAnExistingItemIsDuplicate() async throws {
        try await onEachStore {
            let kc = helper()
            let first = await kc.add([1], service: "svc")
            XCTAssertTrue(first.success)
            let second = await kc.add([2], service: "svc")
            XCTAssertEqual(second.status, .duplicateItem)
            let read = await kc.read(service: "svc")
            XCTAssertEqual(read.data, [1], "the duplicate add changed nothing")
        }
    }

    func testCreateIfNotPresentMakesAnEmptyItemOnceAndThenReturnsIt() async throws {
        try await onEachStore {
            let kc = helper()
            let created = await kc.createIfNotPresent(service: "svc")
            XCTAssertEqual(created.data, [])
            _ = await kc.write([5], service: "svc")
            let existing = await kc.createIfNotPresent(service: "svc")
            XCTAssertEqual(existing.data, [5])
        }
    }

    func testRemoveAllTouchesOnlyThisSDKsItemsOnThisDevice() async throws {
        try await onEachStore {
            let kc = helper()
            _ = await kc.write([1], service: "a")
            _ = await kc.write([2], service: "b", accessGroup: "group.x")
            let foreign = ["device": deviceID, "accessGroup": appGroups[0], "service": "other-app", "account": "", "creator": "someone.else"]
            try store.store(foreign, label: "foreign", secret: [3])
            let otherDevice = helper(device: deviceID + "-other")
            _ = await otherDevice.write([4], service: "a")

            let result = await kc.removeAll()
            XCTAssertTrue(result.success)
            let remaining = try await kc.items().count
            XCTAssertEqual(remaining, 0)
            XCTAssertEqual(try store.search(["device": deviceID, "creator": "someone.else"]).count, 1, "another creator's item stays")
            let onOtherDevice = await otherDevice.read(service: "a")
            XCTAssertEqual(onOtherDevice.data, [4], "another device's item stays")
        }
    }

    func testDevicesDoNotSeeEachOthersItems() async throws {
        try await onEachStore {
            let a = helper()
            let b = helper(device: deviceID + "-other")
            let written = await a.write([1], service: "svc")
            XCTAssertEqual(written.status, .success, "the first device's write must succeed, or the test proves nothing")
            let own = await a.read(service: "svc")
            XCTAssertEqual(own.data, [1])
            let read = await b.read(service: "svc")
            XCTAssertEqual(read.status, .itemNotFound)
        }
    }

    func testMessagesNeverCarryTheSecret() async throws {
        try await onEachStore {
            let kc = helper()
            let secret = Array("super-secret-refresh-token-value".utf8)
            _ = await kc.write(secret, service: "svc")
            let denied = await helper(["other"]).read(service: "svc", accessGroup: appGroups[0])
            let text = "\(denied) \(denied.error?.message ?? "")"
            XCTAssertFalse(text.contains("super-secret"))
            let items = try await kc.items()
            XCTAssertFalse(String(describing: items).contains("super-secret"))
        }
    }
}

final class InMemoryAvailabilityTests: XCTestCase {
    func testEveryCallReportsALockedKeychainAsInteractionNotAllowed() async {
        let store = InMemorySecretStore()
        let kc = KeychainHelper(store: store, deviceID: "d", accessGroups: ["g"])
        _ = await kc.write([1], service: "svc")
        store.setAvailability(.locked)
        let read = await kc.read(service: "svc")
        XCTAssertEqual(read.status, .interactionNotAllowed)
        XCTAssertEqual(read.status.rawValue, -25308)
        let write = await kc.write([2], service: "svc")
        XCTAssertEqual(write.status, .interactionNotAllowed)
        store.setAvailability(.ready)
        let after = await kc.read(service: "svc")
        XCTAssertEqual(after.data, [1], "nothing changed while locked")
    }

    func testAMissingSecretServiceSaysHowToStartOne() async {
        let store = InMemorySecretStore()
        store.setAvailability(.noSecretService(detail: "org.freedesktop.secrets was not provided by any .service files"))
        let result = await KeychainHelper(store: store, deviceID: "d", accessGroups: ["g"]).status()
        XCTAssertEqual(result.status, .notAvailable)
        XCTAssertTrue(result.error?.message.contains("scripts/with-keyring") ?? false, "\(result)")
    }
}
