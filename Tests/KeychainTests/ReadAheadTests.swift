import Foundation
import XCTest

@testable import Keychain

/// `KeychainHelper.readAhead`: a launch's reads made early, in one trip for their values, and given to the reads
/// that follow only while nothing could have changed them. Each test runs on the in-memory double and on the real
/// Secret Service (gnome-keyring, started by scripts/with-keyring), whose `lookupFirst` is the batched one.
final class ReadAheadTests: XCTestCase {
    let groups = ["SIMTEAM001.com.acme.app", "SIMTEAM001.com.acme.shared"]
    let service = "com.salesforce.keystore.com.salesforce.keystore.accountKey"
    let tag = "com.salesforce.eckey.private.defaultKey"

    /// Counts what reaches the store, passing every call on.
    final class CountingStore: SecretStore, @unchecked Sendable {
        let inner: any SecretStore
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        init(_ inner: any SecretStore) { self.inner = inner }
        func count(_ name: String) -> Int { lock.withLock { counts[name, default: 0] } }
        private func note(_ name: String) { lock.withLock { counts[name, default: 0] += 1 } }
        func availability() -> SecretStoreAvailability { inner.availability() }
        func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
            note("search")
            return try inner.search(attributes)
        }
        func lookup(_ attributes: [String: String]) throws(KeychainError) -> SecretStoreLookup {
            note("lookup")
            return try inner.lookup(attributes)
        }
        func lookupFirst(_ reads: [[[String: String]]]) throws(KeychainError) -> [SecretStoreFirstMatch] {
            note("lookupFirst")
            return try inner.lookupFirst(reads)
        }
        func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) {
            try inner.store(attributes, label: label, secret: secret)
        }
        func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool { try inner.delete(attributes) }
    }

    final class StateBox: @unchecked Sendable {
        private let lock = NSLock()
        private var state = KeychainProtectionState.unlocked
        private var locksAfterReads: Int?
        var value: KeychainProtectionState {
            get {
                lock.withLock {
                    let now = state
                    if let left = locksAfterReads {
                        locksAfterReads = left - 1
                        if left == 1 { state = .locked }
                    }
                    return now
                }
            }
            set { lock.withLock { state = newValue } }
        }
        /// The device locks right after its state has been read `reads` more times.
        func lock(afterReads reads: Int) { lock.withLock { locksAfterReads = reads } }
    }

    /// Runs `body` on each store with a fresh device, then removes that device's items.
    func onEachStore(_ body: (CountingStore, KeychainHelper, StateBox) async throws -> Void) async throws {
        let real = LibsecretStore()
        guard real.availability() == .ready else {
            throw KeychainError(status: .notAvailable, message: "these tests need a Secret Service; run them through scripts/test or scripts/with-keyring swift test")
        }
        for inner in [InMemorySecretStore() as any SecretStore, real] {
            let device = "test-\(UUID().uuidString)"
            let store = CountingStore(inner)
            let state = StateBox()
            let helper = KeychainHelper(store: store, deviceID: device, accessGroups: groups, protection: { state.value }, accessibility: .whenUnlocked)
            do {
                try await body(store, helper, state)
            } catch {
                XCTFail("on \(type(of: inner)): \(error)")
            }
            _ = try inner.delete(["device": device])
        }
    }

    func testReadsDoneAheadAnswerTheReadsThatFollowInOneTrip() async throws {
        try await onEachStore { store, kc, _ in
            // The key in the second group: the read ahead must still name the group it was found in.
            let wroteKey = await kc.write([1, 2, 3], service: service, accessGroup: groups[1])
            XCTAssertTrue(wroteKey.success)
            let wroteHalf = await kc.writeKey(tag: tag, secret: [9, 8, 7])
            XCTAssertTrue(wroteHalf.success)
            let before = store.count("lookup") + store.count("search")
            kc.readAhead(services: [service], keyTags: [tag])
            let key = await kc.read(service: service)
            let half = await kc.readKey(tag: tag)
            XCTAssertEqual(key.data, [1, 2, 3])
            XCTAssertEqual(key.accessGroup, groups[1])
            XCTAssertEqual(half.data, [9, 8, 7])
            XCTAssertEqual(store.count("lookupFirst"), 1)
            XCTAssertEqual(store.count("lookup") + store.count("search"), before, "a read done ahead was asked again")
            // Each answers one read: the next read of the key asks the store.
            let again = await kc.read(service: service)
            XCTAssertEqual(again.data, [1, 2, 3])
            XCTAssertGreaterThan(store.count("lookup") + store.count("search"), before)
        }
    }

    func testAWriteInBetweenIsSeen() async throws {
        try await onEachStore { _, kc, _ in
            let wrote = await kc.write([1], service: service)
            XCTAssertTrue(wrote.success)
            kc.readAhead(services: [service], keyTags: [])
            let rewrote = await kc.write([2], service: service)
            XCTAssertTrue(rewrote.success)
            let read = await kc.read(service: service)
            XCTAssertEqual(read.data, [2])
        }
    }

    func testAnyOtherCallInBetweenDropsThem() async throws {
        try await onEachStore { store, kc, _ in
            let wrote = await kc.write([1], service: service)
            XCTAssertTrue(wrote.success)
            kc.readAhead(services: [service], keyTags: [])
            _ = await kc.read(service: "some.other.service")
            let lookups = store.count("lookup") + store.count("search")
            let read = await kc.read(service: service)
            XCTAssertEqual(read.data, [1])
            XCTAssertGreaterThan(store.count("lookup") + store.count("search"), lookups, "the key was given from a read ahead that another call should have dropped")
        }
    }

    func testALockInBetweenIsTheOrdinaryRead() async throws {
        try await onEachStore { _, kc, state in
            let wrote = await kc.write([1], service: service)
            XCTAssertTrue(wrote.success)
            // The read ahead sees the device unlocked; it locks at once after.
            state.lock(afterReads: 1)
            kc.readAhead(services: [service], keyTags: [])
            let read = await kc.read(service: service)
            XCTAssertEqual(read.status, .interactionNotAllowed, "a whenUnlocked item read ahead while unlocked was given out on a locked device")
        }
    }

    func testWhatIsNotFoundIsLeftToTheOrdinaryRead() async throws {
        try await onEachStore { _, kc, _ in
            kc.readAhead(services: [service], keyTags: [tag])
            let key = await kc.read(service: service)
            XCTAssertEqual(key.status, .itemNotFound)
            let half = await kc.readKey(tag: tag)
            XCTAssertEqual(half.status, .itemNotFound)
        }
    }

    func testNotReadAheadWhenLocked() async throws {
        try await onEachStore { store, kc, state in
            let wrote = await kc.write([1], service: service)
            XCTAssertTrue(wrote.success)
            state.value = .locked
            kc.readAhead(services: [service], keyTags: [])
            let read = await kc.read(service: service)
            XCTAssertEqual(read.status, .interactionNotAllowed)
            XCTAssertEqual(store.count("lookupFirst"), 0)
        }
    }
}
