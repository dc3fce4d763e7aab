import Crypto
import Foundation

/// What an org definition (`--data`) says, item by item, as the database keeps it: instances that share one
/// PostgreSQL database must serve one org, so an instance started with another definition is refused and
/// names the items that differ, never their values (a password is one of them), and changes nothing.
struct DefinitionFingerprint: Equatable {
    /// One line per item: `org <id>`, `user <org id> <user id>`, `object <name>`, `seed`, `reference date`.
    var items: [String: String]

    init(items: [String: String]) { self.items = items }

    init(_ definition: OrgDefinition) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        func hash(_ text: String) -> String { SHA256.hash(data: Data(text.utf8)).prefix(12).map { String(format: "%02x", $0) }.joined() }
        func json<T: Encodable>(_ value: T) -> String { (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "?" }
        var items: [String: String] = ["seed": String(definition.seed), "reference date": String(definition.referenceDate.timeIntervalSince1970)]
        for org in definition.orgs {
            items["org \(org.id)"] = hash("\(org.name)|\(org.contactCount)|\(json(org.mobilePolicy))")
            for user in org.users {
                items["user \(org.id) \(user.id) (\(user.username))"] = hash("\(user.username)|\(user.password)|\(user.displayName)|\(user.email)")
            }
        }
        for object in definition.objects {
            let seed = object.seedCounts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ",")
            items["object \(object.name)"] = hash("\(object.keyPrefix)|\(object.createable)|\(json(object.compoundName))|\(seed)|\(json(object.fields))")
        }
        self.items = items
    }

    /// As stored in the database's `meta`: one `key\tvalue` line per item, sorted.
    var text: String { items.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)" }.joined(separator: "\n") }

    init(text: String) {
        var items: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { items[String(parts[0])] = String(parts[1]) }
        }
        self.items = items
    }

    /// The items that differ, in words: at most `limit` of each kind.
    func differences(from stored: DefinitionFingerprint, limit: Int = 3) -> String {
        let onlyStored = stored.items.keys.filter { items[$0] == nil }.sorted()
        let onlyHere = items.keys.filter { stored.items[$0] == nil }.sorted()
        let changed = items.keys.filter { stored.items[$0] != nil && stored.items[$0] != items[$0] }.sorted()
        func list(_ keys: [String]) -> String { keys.prefix(limit).joined(separator: ", ") + (keys.count > limit ? " and \(keys.count - limit) more" : "") }
        var parts: [String] = []
        if !onlyStored.isEmpty { parts.append("only the database's has \(list(onlyStored))") }
        if !onlyHere.isEmpty { parts.append("only this one has \(list(onlyHere))") }
        if !changed.isEmpty { parts.append("\(list(changed)) differ") }
        return parts.joined(separator: "; ")
    }
}
