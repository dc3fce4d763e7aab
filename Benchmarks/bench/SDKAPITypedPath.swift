import Foundation
import SmartStoreEngine

// The typed path of the SDK-API benchmark: the engine's own API (`[String: JSON]` entries, `QuerySpec.smart`),
// what the binaries call. Kept in its own file: the SDK's `SmartStore` and the engine's share a name.

/// Contact-shaped entries as the engine takes them.
func typedContacts(_ count: Int) -> [SoupEntry] {
    let first = ["Ada", "Grace", "Alan", "Edsger", "Barbara", "Donald"], last = ["Lovelace", "Hopper", "Turing", "Dijkstra", "Liskov", "Knuth"]
    return (0..<count).map { i -> SoupEntry in
        var entry: SoupEntry = [:]
        entry["Id"] = .string(String(format: "003%015d", i))
        entry["FirstName"] = .string(first[i % first.count])
        entry["LastName"] = .string(last[(i / first.count) % last.count])
        entry["Title"] = .string("Engineer")
        entry["Email"] = .string("c\(i)@example.test")
        entry["LastModifiedDate"] = .string(String(format: "2026-01-01T00:%02d:%02d.000+0000", (i / 60) % 60, i % 60))
        return entry
    }
}

let sdkBenchIndexPaths = ["Id", "FirstName", "LastName", "LastModifiedDate"]
let sdkBenchNewest3 = "SELECT {contacts:_soup} FROM {contacts} ORDER BY {contacts:_soupLastModifiedDate} DESC, {contacts:_soupEntryId} DESC"

/// Seconds to upsert the entries into a new store's soup; the store is kept open for the query runs.
func typedUpsert(_ entries: [SoupEntry], in dir: URL) throws -> (seconds: Double, store: SmartStoreEngine.SmartStore) {
    let store = try SmartStoreEngine.SmartStore(url: dir.appendingPathComponent("typed.sqlite"), name: "typed")
    try store.registerSoup("contacts", indexSpecs: sdkBenchIndexPaths.map { IndexSpec(path: $0, type: .string) })
    let t0 = Date()
    try store.upsert(entries, into: "contacts")
    return (Date().timeIntervalSince(t0), store)
}

/// Seconds for one newest-3 smart query, its entries read into the engine's values.
func typedNewest3(_ store: SmartStoreEngine.SmartStore) throws -> Double {
    let t0 = Date()
    let rows = try store.query(.smart(sdkBenchNewest3, pageSize: 3))
    precondition(rows.count == 3)
    return Date().timeIntervalSince(t0)
}
