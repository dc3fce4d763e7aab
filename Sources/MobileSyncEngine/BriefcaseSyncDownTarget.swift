import CoreEngine
import CoreNetworkEngine
import FastJSON
import Foundation
import SmartStoreEngine

/// One object type of a briefcase sync: the soup its records go to and the fields fetched.
package struct BriefcaseObjectInfo: Sendable, Hashable {
    package var soupName: String
    package var sobjectType: String
    package var fieldlist: [String]
    package var idFieldName: String
    package var modificationDateFieldName: String

    package init(soupName: String, sobjectType: String, fieldlist: [String], idFieldName: String? = nil, modificationDateFieldName: String? = nil) {
        self.soupName = soupName
        self.sobjectType = sobjectType
        self.fieldlist = fieldlist
        self.idFieldName = idFieldName ?? SyncField.id
        self.modificationDateFieldName = modificationDateFieldName ?? SyncField.lastModifiedDate
    }

    /// As the SDK encodes it (`Codable`, its property names); a missing id or date field name is the default.
    package var json: JSON {
        .object([
            "soupName": .string(soupName), "sobjectType": .string(sobjectType), "fieldlist": .array(fieldlist.map(JSON.string)),
            "idFieldName": .string(idFieldName), "modificationDateFieldName": .string(modificationDateFieldName),
        ])
    }

    package init?(json: JSON) {
        guard let soup = json["soupName"]?.stringValue, let type = json["sobjectType"]?.stringValue,
            let fields = json["fieldlist"]?.arrayValue?.compactMap(\.stringValue)
        else { return nil }
        self.init(
            soupName: soup, sobjectType: type, fieldlist: fields, idFieldName: json["idFieldName"]?.stringValue,
            modificationDateFieldName: json["modificationDateFieldName"]?.stringValue)
    }

    /// The fields asked of the org: the list, the id and the modification date, once each.
    var fieldsToFetch: [String] {
        var fields: [String] = []
        for field in fieldlist + [idFieldName, modificationDateFieldName] where !fields.contains(field) { fields.append(field) }
        return fields
    }
}

/// The SDK's `BriefcaseSyncDownTarget` (Mobile SDK 10): the records of the briefcases assigned to the
/// connected app. Their ids come from `connect/briefcase/priming-records`; the records from collection
/// retrieves (`composite/sobjects/<type>`), `countIdsPerRetrieve` ids at a time, each type into its own soup.
///
/// Two things are as the SDK at aea9bf3 does them, and a developer meets them on a device too:
/// - a sync down reads **one page** of priming records: the SDK never keeps the response's relay token, so
///   the ids past the org's first page are not fetched by that sync (its total is the first page's count);
/// - cleaning ghosts reads every page (following relay tokens, with no timestamp), and cleans only the soups
///   of the types that still have records in a briefcase.
package struct BriefcaseSyncDownTarget: SyncDownTarget {
    package static let maxCountIdsPerRetrieve = RestRequest.collectionRetrieveMaxSize
    package var infos: [BriefcaseObjectInfo]
    package var countIdsPerRetrieve: Int

    /// As the SDK's initialiser: the infos by type (a later info of the same type wins), and a count below
    /// the collection retrieve's maximum kept, anything else the maximum.
    package init(infos: [BriefcaseObjectInfo], countIdsPerRetrieve: Int? = nil) {
        var byType: [String: BriefcaseObjectInfo] = [:]
        var order: [String] = []
        for info in infos {
            if byType[info.sobjectType] == nil { order.append(info.sobjectType) }
            byType[info.sobjectType] = info
        }
        self.infos = order.compactMap { byType[$0] }
        if let count = countIdsPerRetrieve, count > 0, count < Self.maxCountIdsPerRetrieve {
            self.countIdsPerRetrieve = count
        } else {
            self.countIdsPerRetrieve = Self.maxCountIdsPerRetrieve
        }
    }

    package init(json: JSON) throws {
        guard let raw = json["infos"]?.arrayValue else { throw MobileSyncError.invalidTarget("a briefcase target needs infos") }
        var infos: [BriefcaseObjectInfo] = []
        for item in raw {
            guard let info = BriefcaseObjectInfo(json: item) else {
                throw MobileSyncError.invalidTarget("each info of a briefcase target needs soupName, sobjectType and fieldlist")
            }
            infos.append(info)
        }
        self.init(infos: infos, countIdsPerRetrieve: json["countIdsPerRetrieve"]?.intValue.map(Int.init))
    }

    package var json: JSON {
        SyncTargetFormat.downTarget("briefcase", impl: "SFBriefcaseSyncDownTarget", [
            "infos": .array(infos.map(\.json)), "countIdsPerRetrieve": .int(Int64(countIdsPerRetrieve)),
        ])
    }

    /// Why this target cannot run here (nil when it can): an info naming id or date fields other than the defaults.
    var notSimulated: String? {
        for info in infos {
            if let reason = SyncManager.fieldNamesNotSimulated(info.json) { return "briefcase info \(info.sobjectType): \(reason)" }
        }
        return nil
    }

    package func startFetch(client: RestClient, maxTimeStamp: Int64, store: SmartStore, soupName: String) async throws -> SyncPage {
        // The SDK passes the timestamp as it is (0 on a first sync, sent as 1970).
        let page = try await primingIds(client, relayToken: nil, changedAfter: maxTimeStamp)
        return try await fetch(client, ids: page.ids, from: 0, totalSize: page.ids.count)
    }

    package func remoteIds(client: RestClient, store: SmartStore, soupName: String) async throws -> Set<String> {
        Set(try await remoteIdsBySoup(client: client, store: store, soupName: soupName).values.flatMap { $0 })
    }

    package func remoteIdsBySoup(client: RestClient, store: SmartStore, soupName: String) async throws -> [String: Set<String>] {
        var bySoup: [String: Set<String>] = [:]
        var relayToken: String?
        var pages = 0
        repeat {
            let page = try await primingIds(client, relayToken: relayToken, changedAfter: nil)
            for typed in page.ids { bySoup[typed.info.soupName, default: []].insert(typed.id) }
            relayToken = page.relayToken
            pages += 1
            // An org that hands back relay tokens forever is an org bug, not a reason to hang.
            if pages > 100_000 { throw RestError.malformedResponse("priming records: more than 100,000 pages of relay tokens") }
        } while relayToken != nil
        return bySoup
    }

    /// Every type's soup, by type name (the SDK's `getIdsToSkip` goes through its infos map).
    package func filledSoups(syncSoup: String, idField: String) -> [(soup: String, idField: String)] {
        infos.sorted { $0.sobjectType < $1.sobjectType }.map { ($0.soupName, $0.idFieldName) }
    }

    package func soupName(for record: SoupEntry, syncSoup: String) -> String? {
        guard let type = record["attributes"]?["type"]?.stringValue else { return nil }
        return infos.first { $0.sobjectType == type }?.soupName
    }

    struct TypedId: Sendable {
        var id: String
        var info: BriefcaseObjectInfo
    }

    /// One page of priming records: the ids of the target's types, in the org's order, and the relay token.
    func primingIds(_ client: RestClient, relayToken: String?, changedAfter: Int64?) async throws -> (ids: [TypedId], relayToken: String?) {
        let body = try await client.send(.primingRecords(relayToken: relayToken, changedAfter: changedAfter)).value()
        guard let byType = body["primingRecords"]?.objectValue else {
            throw RestError.malformedResponse("priming records: an answer without primingRecords")
        }
        var ids: [TypedId] = []
        for info in infos {
            guard let byRecordType = byType[info.sobjectType]?.objectValue else { continue }
            for recordType in byRecordType.keys.sorted() {
                for record in byRecordType[recordType]?.arrayValue ?? [] {
                    if let id = record["id"]?.stringValue { ids.append(TypedId(id: id, info: info)) }
                }
            }
        }
        return (ids, body["relayToken"]?.stringValue)
    }

    /// The records of `ids[start..<start + countIdsPerRetrieve]`, one collection retrieve per type; the next
    /// slice is the page's continuation.
    func fetch(_ client: RestClient, ids: [TypedId], from start: Int, totalSize: Int) async throws -> SyncPage {
        guard start < ids.count else { return SyncPage(records: [], totalSize: totalSize, nextRecordsUrl: nil) }
        let slice = ids[start..<min(start + countIdsPerRetrieve, ids.count)]
        var records: [SoupEntry] = []
        for info in infos {
            let typeIds = slice.filter { $0.info.sobjectType == info.sobjectType }.map(\.id)
            guard !typeIds.isEmpty else { continue }
            let body = try await client.send(.collectionRetrieve(info.sobjectType, ids: typeIds, fields: info.fieldsToFetch)).value()
            guard let rows = body.arrayValue else {
                throw RestError.malformedResponse("collection retrieve of \(info.sobjectType): the answer is not an array of records")
            }
            // A record deleted since the priming is null in the answer.
            records += rows.compactMap(\.objectValue)
        }
        let next = start + countIdsPerRetrieve
        let target = self
        var continuation: (@Sendable (RestClient) async throws -> SyncPage?)?
        if next < ids.count {
            continuation = { (client: RestClient) async throws -> SyncPage? in
                try await target.fetch(client, ids: ids, from: next, totalSize: totalSize)
            }
        }
        return SyncPage(records: records, totalSize: totalSize, nextRecordsUrl: nil, continuation: continuation)
    }
}
