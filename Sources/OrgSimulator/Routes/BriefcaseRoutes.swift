import Foundation
import Hummingbird

/// `connect/briefcase/priming-records` (Connect REST API, v54.0 on; `changedAfterTimestamp` v55.0 on): the ids
/// of the records in the briefcases assigned to the session's connected app, as a Priming Record Collection:
/// `primingRecords` by object and record type, `relayToken` (null when every rule is served), `ruleErrors`
/// and `stats`. Rules are served in order, at most `primingRecordsPerResponse` records (default 2,000) per
/// response; a response that stops inside a rule carries a relay token to go on from there. The records are
/// those the user may see (the same query engine as `query`), ordered by id within a rule.
struct BriefcaseRoutes {
    let state: OrgState

    static let defaultRecordsPerResponse = 2000
    /// The master record type: every simulated record has it.
    static let masterRecordTypeId = "012000000000000AAA"

    func register(on api: RouterGroup<OrgContext>) {
        api.get("connect/briefcase/priming-records") { request, context in
            let call = APICall(method: .get, path: ["connect", "briefcase", "priming-records"], query: HTTP.queryItems(request), body: Data(),
                               session: try context.requireSession, version: context.apiVersion)
            do {
                return try await state.database.store.read { db in try handle(db, call) }
            } catch let error as SQLStoreError {
                throw SalesforceError.unknown(error)
            }
        }
    }

    /// Where a response stopped: the rule, the last id served in it, how many it served, and the request's
    /// `changedAfterTimestamp` (a relay token replaces it on the next request).
    struct Relay: Codable, Equatable {
        var rule: Int
        var after: String?
        var served: Int
        var changedAfter: String?

        var token: String {
            let data = (try? JSONEncoder().encode(self)) ?? Data()
            return data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
        }

        /// A token this org made, checked: its id is an id and its time a time, since both go into a query.
        init?(token: String) {
            var text = token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
            while text.count % 4 != 0 { text += "=" }
            guard let data = Data(base64Encoded: text), let relay = try? JSONDecoder().decode(Relay.self, from: data), relay.rule >= 0,
                relay.served >= 0, relay.after.map(SalesforceID.isValid) ?? true, relay.changedAfter.map({ SalesforceDate.parse($0) != nil }) ?? true
            else { return nil }
            self = relay
        }

        init(rule: Int, after: String?, served: Int, changedAfter: String?) {
            self.rule = rule
            self.after = after
            self.served = served
            self.changedAfter = changedAfter
        }
    }

    func handle(_ db: SQLTransaction, _ call: APICall) throws -> Outcome {
        let relayToken = call.query["relayToken"].flatMap { $0.isEmpty ? nil : $0 }
        let changed = call.query["changedAfterTimestamp"].flatMap { $0.isEmpty ? nil : $0 }
        if relayToken != nil && changed != nil {
            throw SalesforceError(.badRequest, "INVALID_API_INPUT", "Specify either relayToken or changedAfterTimestamp, not both")
        }
        var position = Relay(rule: 0, after: nil, served: 0, changedAfter: nil)
        if let relayToken {
            guard let relay = Relay(token: relayToken) else {
                throw SalesforceError(.badRequest, "INVALID_API_INPUT", "Invalid relayToken: use the relayToken of the previous response")
            }
            position = relay
        }
        if let changed {
            guard let date = SalesforceDate.parse(changed) else {
                throw SalesforceError(.badRequest, "INVALID_API_INPUT", "Invalid changedAfterTimestamp '\(changed)': use an ISO 8601 date and time")
            }
            if QueryEngine.versionNumber(call.version) < 55 { throw SalesforceError(.badRequest, "INVALID_API_INPUT", "changedAfterTimestamp needs v55.0 or later") }
            // Before 1970 (the SDK's "never synced", -1 ms) every record is after it.
            position.changedAfter = date.timeIntervalSince1970 < 0 ? nil : SalesforceDate.string(date)
        }
        let app = state.database.definition.app(consumerKey: call.session.clientId)
        let rules = (app?.briefcases ?? []).flatMap { briefcase in briefcase.rules.enumerated().map { (briefcase: briefcase.name, index: $0, rule: $1) } }
        let perResponse = app?.primingRecordsPerResponse ?? Self.defaultRecordsPerResponse

        var primingRecords: [String: [String: [[String: Any]]]] = [:]
        var ruleErrors: [[String: Any]] = []
        var remaining = perResponse
        var served = 0
        var rulesServed = 0
        while position.rule < rules.count && remaining > 0 {
            let (briefcase, index, rule) = rules[position.rule]
            let ruleId = Self.ruleId(briefcase: briefcase, index: index)
            let take = min(remaining, (rule.limit ?? Int.max) - position.served, QueryEngine.defaultBatchSize)
            var rows: [[String: Any]] = []
            if take > 0 {
                var conditions = rule.filter.map { ["(\($0))"] } ?? []
                if let after = position.changedAfter { conditions.append("SystemModstamp > \(after.replacingOccurrences(of: "+0000", with: "Z"))") }
                let soql = "SELECT Id, SystemModstamp FROM \(rule.object)\(conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")) ORDER BY Id LIMIT \(take)"
                do {
                    var plan = try SOQLCompiler.compile(try SOQLParser.parse(soql), definition: state.database.definition, dialect: db.dialect)
                    // A rule's records are its first `limit` by id; a changed-after request serves those of them
                    // changed since, not the first `limit` of the changed ones.
                    if let limit = rule.limit, position.changedAfter != nil {
                        let bound = "SELECT Id FROM \(rule.object)\(rule.filter.map { " WHERE (\($0))" } ?? "") ORDER BY Id LIMIT 1"
                        var last = try SOQLCompiler.compile(try SOQLParser.parse(bound), definition: state.database.definition, dialect: db.dialect)
                        last.offset = limit - 1
                        let answer = try state.queries.run(db, plan: last, session: call.session, version: call.version, includeDeleted: false, batchSize: 1)
                        if let id = ((try JSONSerialization.jsonObject(with: answer) as? [String: Any])?["records"] as? [[String: Any]])?.first?["Id"] as? String {
                            plan.condition = "(\(plan.condition)) AND t0.\"Id\" <= ?"
                            plan.arguments.append(.text(id))
                        }
                    }
                    // Where the last page stopped: ids compared in SQL (SOQL's Id takes only = and !=).
                    if let after = position.after {
                        plan.condition = "(\(plan.condition)) AND t0.\"Id\" > ?"
                        plan.arguments.append(.text(after))
                    }
                    let page = try state.queries.run(db, plan: plan, session: call.session, version: call.version, includeDeleted: false, batchSize: QueryEngine.defaultBatchSize)
                    rows = ((try JSONSerialization.jsonObject(with: page) as? [String: Any])?["records"] as? [[String: Any]]) ?? []
                } catch let error as SalesforceError {
                    // A rule whose filter does not run is reported and skipped, as Salesforce reports rule errors.
                    ruleErrors.append(["ruleId": ruleId, "message": error.message])
                    position = Relay(rule: position.rule + 1, after: nil, served: 0, changedAfter: position.changedAfter)
                    continue
                }
            }
            for row in rows {
                guard let id = row["Id"] as? String else { continue }
                primingRecords[rule.object, default: [:]][Self.masterRecordTypeId, default: []].append(["id": id, "systemModstamp": row["SystemModstamp"] ?? NSNull()])
            }
            remaining -= rows.count
            served += rows.count
            if rows.count < take || take <= 0 || position.served + rows.count >= (rule.limit ?? Int.max) {
                position = Relay(rule: position.rule + 1, after: nil, served: 0, changedAfter: position.changedAfter)
                rulesServed += 1
            } else {
                position.after = rows.last?["Id"] as? String
                position.served += rows.count
            }
        }
        let body: [String: Any] = [
            "primingRecords": primingRecords,
            "relayToken": position.rule < rules.count ? position.token : NSNull(),
            "ruleErrors": ruleErrors,
            "stats": ["ruleCountTotal": rules.count, "recordCountTotal": served, "ruleCountServed": rulesServed, "recordCountServed": served],
        ]
        return HTTP.json(.ok, body)
    }

    /// A rule's id: stable for the definition, unique within the org.
    static func ruleId(briefcase: String, index: Int) -> String { "\(briefcase)#\(index + 1)" }
}
