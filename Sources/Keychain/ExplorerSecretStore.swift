import FastJSON
import Foundation
import SchedulePoints

/// The keychain of a process run by `msdk-sim explore` with its in-memory keychain: every operation is a
/// request to the explorer on the schedule channel (`SchedulePoint.call`), which holds the items in memory
/// (`ExplorerKeychain`). It reaches the same schedule points as `LibsecretStore`, one per operation with the
/// same detail, so a schedule means the same steps on either; the explorer replays on the Secret Service
/// every schedule it reports. Secrets cross the socket only, never a file.
package final class ExplorerSecretStore: SecretStore, @unchecked Sendable {
    /// Set by the explorer beside `APPGROUPSIM_EXPLORE_FD` when its keychain is in memory.
    package static let environmentKey = "APPGROUPSIM_EXPLORE_KEYCHAIN"
    package static let callKind = "keychain.call"

    package init() {}

    package func availability() -> SecretStoreAvailability {
        guard let answer = try? call(["op": "availability"]) else { return .noSecretService(detail: "the explorer did not answer") }
        return answer["locked"]?.boolValue == true ? .locked : .ready
    }

    package func search(_ attributes: [String: String]) throws(KeychainError) -> [SecretStoreItem] {
        SchedulePoint.reach(.keychainRead, LibsecretStore.pointDetail(attributes))
        return try items(call(["op": "search", "attributes": Self.json(attributes)]))
    }

    package func lookup(_ attributes: [String: String]) throws(KeychainError) -> SecretStoreLookup {
        SchedulePoint.reach(.keychainRead, LibsecretStore.pointDetail(attributes))
        return try items(call(["op": "search", "attributes": Self.json(attributes)])).first.map { .found($0.secret) } ?? .notFound
    }

    package func lookupFirst(_ reads: [[[String: String]]]) throws(KeychainError) -> [SecretStoreFirstMatch] {
        SchedulePoint.reach(.keychainRead, reads.compactMap { $0.first.map(LibsecretStore.pointDetail) }.joined(separator: ", "))
        var out: [SecretStoreFirstMatch] = []
        for alternatives in reads {
            var match = SecretStoreFirstMatch(lookup: .notFound, alternative: nil)
            for (i, attributes) in alternatives.enumerated() {
                if let found = try items(call(["op": "search", "attributes": Self.json(attributes)])).first {
                    match = SecretStoreFirstMatch(lookup: .found(found.secret), alternative: i)
                    break
                }
            }
            out.append(match)
        }
        return out
    }

    package func store(_ attributes: [String: String], label: String, secret: [UInt8]) throws(KeychainError) {
        SchedulePoint.reach(.keychainWrite, LibsecretStore.pointDetail(attributes))
        _ = try call(["op": "store", "attributes": Self.json(attributes), "secret": .string(Data(secret).base64EncodedString())])
    }

    package func delete(_ attributes: [String: String]) throws(KeychainError) -> Bool {
        SchedulePoint.reach(.keychainDelete, LibsecretStore.pointDetail(attributes))
        return try call(["op": "delete", "attributes": Self.json(attributes)])["deleted"]?.boolValue ?? false
    }

    /// One request and its answer, as JSON lines (FastJSON: Foundation's JSONSerialization was most of the
    /// explorer's answering and a first use of it in each new process).
    private func call(_ request: [String: JSON]) throws(KeychainError) -> [String: JSON] {
        guard let line = SchedulePoint.call(Self.callKind, JSON.object(request).text), let answer = JSON(text: line)?.objectValue
        else { throw KeychainError(status: .notAvailable, message: "the explorer's in-memory keychain did not answer; run the process without APPGROUPSIM_EXPLORE_KEYCHAIN") }
        if let error = answer["error"]?.stringValue { throw KeychainError(status: .io, message: "the explorer's in-memory keychain: \(error)") }
        return answer
    }

    private func items(_ answer: [String: JSON]) -> [SecretStoreItem] {
        (answer["items"]?.arrayValue ?? []).compactMap { item in
            guard let attributes = item["attributes"].flatMap(Self.strings), let secret = item["secret"]?.stringValue.flatMap({ Data(base64Encoded: $0) })
            else { return nil }
            return SecretStoreItem(attributes: attributes, secret: Array(secret))
        }
    }

    static func json(_ attributes: [String: String]) -> JSON { .object(attributes.mapValues(JSON.string)) }

    /// An object of strings, or nil if it is not one.
    static func strings(_ value: JSON) -> [String: String]? {
        guard let object = value.objectValue else { return nil }
        var out: [String: String] = [:]
        for (key, value) in object {
            guard let text = value.stringValue else { return nil }
            out[key] = text
        }
        return out
    }
}

/// The store a process's launch uses: the explorer's in-memory keychain when the explorer asked for it, the
/// Secret Service otherwise.
package enum SecretStores {
    package static func standard() -> any SecretStore {
        if SchedulePoint.isExplored, ProcessInfo.processInfo.environment[ExplorerSecretStore.environmentKey] == "memory" {
            return ExplorerSecretStore()
        }
        return LibsecretStore()
    }
}

/// The explorer's side: the items in memory, answering `ExplorerSecretStore`'s requests in the order they come
/// (one process runs at a time), so that a run stays a function of its seed.
package final class ExplorerKeychain: @unchecked Sendable {
    package let store = InMemorySecretStore()
    /// Requests answered so far.
    package private(set) var answered = 0

    package init() {}

    /// The answer line (JSON, no newline) to one request line.
    package func answer(_ request: String) -> String {
        answered += 1
        var out: [String: JSON] = [:]
        if let object = JSON(text: request)?.objectValue, let op = object["op"]?.stringValue {
            let attributes = object["attributes"].flatMap(ExplorerSecretStore.strings) ?? [:]
            do {
                switch op {
                case "availability": out["locked"] = .bool(false)
                case "search":
                    out["items"] = .array(
                        try store.search(attributes).map {
                            .object(["attributes": ExplorerSecretStore.json($0.attributes), "secret": .string(Data($0.secret).base64EncodedString())])
                        })
                case "store":
                    guard let secret = object["secret"]?.stringValue.flatMap({ Data(base64Encoded: $0) }) else {
                        out["error"] = "a store request without a value"
                        break
                    }
                    try store.store(attributes, label: "", secret: Array(secret))
                case "delete": out["deleted"] = .bool(try store.delete(attributes))
                default: out["error"] = .string("unknown keychain request \(op)")
                }
            } catch {
                out["error"] = .string("\(error)")
            }
        } else {
            out["error"] = "a keychain request that is not JSON"
        }
        return JSON.object(out).text
    }
}
