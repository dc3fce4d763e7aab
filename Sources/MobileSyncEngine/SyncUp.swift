import FastJSON
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

extension SyncManager {
    static let collectionLimit = 200
    static let retrieveLimit = 2000
    /// Fields a sync up never sends.
    static let neverSent: Set<String> = ["Id", "LastModifiedDate", "attributes", "CreatedDate", "SystemModstamp", "IsDeleted", "Name"]

    /// Pushes local edits through the `composite/sobjects` collections, 200 records per request.
    func runSyncUp(_ sync: inout SyncState, progress: Progress?) async throws {
        if let reason = Self.notSimulated(syncUp: sync.target) { throw MobileSyncError.invalidTarget(reason) }
        let target = SyncUpTarget(json: sync.target)
        let soup = sync.soupName
        let dirty = try dirtyRecords(soup)
        sync.totalSize = dirty.count
        var done = 0
        func advance(_ n: Int, _ sync: inout SyncState) throws {
            done += n
            sync.progress = sync.totalSize == 0 ? 100 : min(100, done * 100 / sync.totalSize)
            try save(sync)
            progress?(sync)
        }

        // Created and then deleted locally: the server never hears of it.
        let createdAndDeleted = dirty.filter { flag($0, SyncField.locallyCreated) && flag($0, SyncField.locallyDeleted) }
        try store.remove(ids: createdAndDeleted.compactMap { $0[SoupField.entryId]?.intValue }, from: soup)
        try advance(createdAndDeleted.count, &sync)

        var creates = dirty.filter { flag($0, SyncField.locallyCreated) && !flag($0, SyncField.locallyDeleted) }
        var updates = dirty.filter { flag($0, SyncField.locallyUpdated) && !flag($0, SyncField.locallyCreated) && !flag($0, SyncField.locallyDeleted) }
        var deletes = dirty.filter { flag($0, SyncField.locallyDeleted) && !flag($0, SyncField.locallyCreated) }

        if sync.options.mergeMode == .leaveIfChanged {
            // Skip records changed on the server since this copy was fetched; they stay dirty.
            var server: [String: Int64] = [:]
            for (type, records) in Dictionary(grouping: updates + deletes, by: { recordType($0, target) }) {
                server.merge(try await serverModificationDates(type, ids: records.compactMap { $0[SyncField.id]?.stringValue })) { a, _ in a }
            }
            func newerOnServer(_ record: SoupEntry) -> Bool {
                guard let id = record[SyncField.id]?.stringValue, let serverDate = server[id] else { return false }
                let local = record[SyncField.lastModifiedDate]?.stringValue.flatMap(SalesforceTime.milliseconds) ?? Int64.min
                return serverDate > local
            }
            let skipped = (updates + deletes).filter(newerOnServer)
            updates.removeAll(where: newerOnServer)
            deletes.removeAll(where: newerOnServer)
            try advance(skipped.count, &sync)
        }

        for chunk in chunks(deletes) {
            let ids = chunk.compactMap { $0[SyncField.id]?.stringValue }
            let results = try await client.send(RestRequest(
                method: "DELETE", path: "/services/data/\(RestClient.apiVersion)/composite/sobjects",
                queryItems: [URLQueryItem(name: "ids", value: ids.joined(separator: ",")), URLQueryItem(name: "allOrNone", value: "false")]))
            let answers = try collectionResults(results, count: chunk.count)
            var removed: [Int64] = []
            var failed: [SoupEntry] = []
            for (record, answer) in zip(chunk, answers) {
                // Already gone on the server counts as done.
                if answer.success || answer.isNotFound {
                    if let entryId = record[SoupField.entryId]?.intValue { removed.append(entryId) }
                } else {
                    failed.append(withError(record, answer.message))
                }
            }
            try store.remove(ids: removed, from: soup)
            if !failed.isEmpty { try store.upsert(failed, into: soup) }
            try advance(chunk.count, &sync)
        }

        var recreate: [SoupEntry] = []
        for chunk in chunks(updates) {
            let records: [JSON] = chunk.map { record in
                var fields = body(record, fieldlist: target.updateFieldlist ?? sync.options.fieldlist, type: recordType(record, target))
                fields["Id"] = .string(record[SyncField.id]?.stringValue ?? "")
                return .object(fields)
            }
            let results = try await client.send(.json("PATCH", "/services/data/\(RestClient.apiVersion)/composite/sobjects", value: ["allOrNone": false, "records": .array(records)]))
            let answers = try collectionResults(results, count: chunk.count)
            var saved: [SoupEntry] = []
            for (record, answer) in zip(chunk, answers) {
                if answer.success {
                    saved.append(clean(record))
                } else if answer.isNotFound && sync.options.mergeMode == .overwrite {
                    recreate.append(record)
                } else {
                    saved.append(withError(record, answer.message))
                }
            }
            if !saved.isEmpty { try store.upsert(saved, into: soup) }
            try advance(chunk.count - recreate.count, &sync)
        }

        // OVERWRITE: a record deleted on the server is created again from the local copy.
        creates += recreate
        // With an external id, records that carry a value are upserted by it; the others are created.
        let externalId = target.externalIdFieldName
        let upserts = externalId.map { field in creates.filter { !($0[field]?.stringValue ?? "").isEmpty } } ?? []
        if let externalId {
            creates.removeAll { !($0[externalId]?.stringValue ?? "").isEmpty }
        }
        // An upsert names one object in its path: one batch per type.
        let upsertBatches = Dictionary(grouping: upserts, by: { recordType($0, target) }).sorted { $0.key < $1.key }
            .flatMap { type, records in chunks(records).map { ($0, Optional((externalId ?? "", type))) } }
        for (chunk, upsertBy) in upsertBatches + chunks(creates).map({ ($0, Optional<(String, String)>.none) }) {
            let records: [JSON] = chunk.map { record in
                var fields = body(record, fieldlist: target.createFieldlist ?? sync.options.fieldlist, type: recordType(record, target))
                if let upsertBy { fields[upsertBy.0] = record[upsertBy.0]?.stringValue.map(JSON.string) }
                return .object(fields)
            }
            let path = "/services/data/\(RestClient.apiVersion)/composite/sobjects" + (upsertBy.map { "/\($0.1)/\($0.0)" } ?? "")
            let results = try await client.send(.json(upsertBy == nil ? "POST" : "PATCH", path, value: ["allOrNone": false, "records": .array(records)]))
            let answers = try collectionResults(results, count: chunk.count)
            var saved: [SoupEntry] = []
            for (record, answer) in zip(chunk, answers) {
                if answer.success, let id = answer.id {
                    var entry = clean(record)
                    entry[SyncField.id] = .string(id)
                    saved.append(entry)
                } else {
                    saved.append(withError(record, answer.message))
                }
            }
            try store.upsert(saved, into: soup)
            try advance(chunk.count, &sync)
        }
        try finish(&sync, progress)
    }

    private func flag(_ record: SoupEntry, _ name: String) -> Bool { record[name]?.boolValue == true }

    /// The record's sObject type, as the SDK reads it: `attributes.type`, else the target's.
    private func recordType(_ record: SoupEntry, _ target: SyncUpTarget) -> String {
        record["attributes"]?["type"]?.stringValue ?? target.sobjectType
    }

    /// The sObject a soup holds, from its syncs: a sync up target's `sobjectType` if it names one,
    /// else the object of a SOQL sync down into it (`… FROM WorkOrder__c …`).
    package func sobjectType(forSoup soup: String) throws -> String? {
        let syncs = try allSyncs().filter { $0.soupName == soup }
        for sync in syncs where sync.type == .syncUp {
            if let type = sync.target["sobjectType"]?.stringValue { return type }
        }
        for sync in syncs where sync.type == .syncDown {
            guard let query = sync.target["query"]?.stringValue else { continue }
            let words = query.split(whereSeparator: { $0.isWhitespace || $0 == "," })
            if let from = words.firstIndex(where: { $0.uppercased() == "FROM" }), from + 1 < words.count { return String(words[from + 1]) }
        }
        return nil
    }

    private func chunks(_ records: [SoupEntry]) -> [[SoupEntry]] {
        stride(from: 0, to: records.count, by: Self.collectionLimit).map { Array(records[$0..<min($0 + Self.collectionLimit, records.count)]) }
    }

    /// The record's fields for the server: the field list if given, else every field that is not Mobile Sync's or read-only.
    private func body(_ record: SoupEntry, fieldlist: [String]?, type: String) -> [String: JSON] {
        var out: [String: JSON] = ["attributes": ["type": .string(type)]]
        let names = fieldlist ?? Array(record.keys)
        // A field list names what to send, Name included (a custom object's Name is writable); without
        // one, Name is left out with the other fields a record carries back from the server.
        let excluded = fieldlist == nil ? Self.neverSent : Self.neverSent.subtracting(["Name"])
        for name in names where !excluded.contains(name) && !SyncField.all.contains(name) && !name.hasPrefix("_soup") {
            if let value = record[name] { out[name] = value }
        }
        return out
    }

    private func clean(_ record: SoupEntry) -> SoupEntry {
        var entry = record
        for name in [SyncField.local, SyncField.locallyCreated, SyncField.locallyUpdated, SyncField.locallyDeleted] { entry[name] = .bool(false) }
        entry[SyncField.lastError] = nil
        return entry
    }

    private func withError(_ record: SoupEntry, _ message: String) -> SoupEntry {
        var entry = record
        entry[SyncField.lastError] = .string(message)
        return entry
    }

    struct CollectionAnswer {
        var success: Bool
        var id: String?
        var statusCode: String?
        var message: String
        var isNotFound: Bool { ["ENTITY_IS_DELETED", "INVALID_CROSS_REFERENCE_KEY", "NOT_FOUND"].contains(statusCode ?? "") }
    }

    private func collectionResults(_ response: RestResponse, count: Int) throws -> [CollectionAnswer] {
        let list = try response.decode([CollectionResult].self)
        guard list.count == count else { throw RestError.malformedResponse("a collection answer with the wrong number of results") }
        return list.map { item in
            let error = item.errors.first
            return CollectionAnswer(
                success: item.success, id: item.id, statusCode: error?.statusCode,
                message: error?.message.map { m in error?.statusCode.map { "\($0): \(m)" } ?? m } ?? "")
        }
    }

    /// `LastModifiedDate` on the server (epoch ms) for these ids, by collection retrieve (2,000 per request).
    private func serverModificationDates(_ type: String, ids: [String]) async throws -> [String: Int64] {
        var out: [String: Int64] = [:]
        for start in stride(from: 0, to: ids.count, by: Self.retrieveLimit) {
            let chunk = Array(ids[start..<min(start + Self.retrieveLimit, ids.count)])
            let response = try await client.send(.json(
                "POST", "/services/data/\(RestClient.apiVersion)/composite/sobjects/\(type)",
                value: ["ids": .array(chunk.map(JSON.string)), "fields": ["Id", "LastModifiedDate"]]))
            for record in try response.value().arrayValue ?? [] {
                guard let id = record["Id"]?.stringValue, let date = record["LastModifiedDate"]?.stringValue.flatMap(SalesforceTime.milliseconds)
                else { continue }
                out[id] = date
            }
        }
        return out
    }

    // MARK: Local edits

    /// Saves a record created on the device: a local id (`local_000000001`) and the local flags. When a
    /// sync up of this soup upserts by an external id field and the record has no value for it, the
    /// record gets a new UUID there, made on the device, which is what lets that upsert recognise it.
    @discardableResult
    package func createLocally(_ fields: SoupEntry, soupName: String) throws -> SoupEntry {
        var entry = fields
        // As the SDK's sample apps do when they make a record: name its type, so a sync up knows the object.
        if entry["attributes"]?["type"] == nil, let type = try sobjectType(forSoup: soupName) {
            entry["attributes"] = .object(["type": .string(type)])
        }
        for field in try externalIdFields(soupName: soupName) where (entry[field]?.stringValue ?? "").isEmpty {
            entry[field] = .string(UUID().uuidString)
        }
        entry[SyncField.local] = .bool(true)
        entry[SyncField.locallyCreated] = .bool(true)
        entry[SyncField.locallyUpdated] = .bool(false)
        entry[SyncField.locallyDeleted] = .bool(false)
        var saved = try store.upsert([entry], into: soupName)[0]
        let entryId = saved[SoupField.entryId]?.intValue ?? 0
        saved[SyncField.id] = .string(String(format: "local_%09lld", entryId))
        return try store.upsert([saved], into: soupName)[0]
    }

    /// Applies local changes to a record (by `Id`) and marks it updated.
    @discardableResult
    package func updateLocally(id: String, changes: SoupEntry, soupName: String) throws -> SoupEntry {
        var entry = try record(id: id, soupName: soupName)
        for (k, v) in changes where k != SyncField.id { entry[k] = v }
        entry[SyncField.local] = .bool(true)
        if entry[SyncField.locallyCreated]?.boolValue != true { entry[SyncField.locallyUpdated] = .bool(true) }
        return try store.upsert([entry], into: soupName)[0]
    }

    /// Marks a record (by `Id`) deleted; it goes at the next sync up.
    @discardableResult
    package func deleteLocally(id: String, soupName: String) throws -> SoupEntry {
        var entry = try record(id: id, soupName: soupName)
        entry[SyncField.local] = .bool(true)
        entry[SyncField.locallyDeleted] = .bool(true)
        return try store.upsert([entry], into: soupName)[0]
    }

    /// The `externalIdFieldName`s of the sync ups of this soup.
    func externalIdFields(soupName: String) throws -> [String] {
        try allSyncs().filter { $0.type == .syncUp && $0.soupName == soupName }
            .compactMap { SyncUpTarget(json: $0.target).externalIdFieldName }
    }

    private func record(id: String, soupName: String) throws -> SoupEntry {
        guard let entry = try store.query(.exact(soup: soupName, path: SyncField.id, value: .string(id))).first?.objectValue else {
            throw MobileSyncError.syncFailed("no record \(id) in soup \(soupName)")
        }
        return entry
    }
}
