import CoreEngine
import Foundation

/// The SDK's `SFSDKPrimingRecord` (`PrimingRecord`): one record of a briefcase, its id and `systemModstamp`.
public final class PrimingRecord: NSObject, @unchecked Sendable {
    public let dict: [AnyHashable: Any]
    public let objectId: String
    public let systemModstamp: Date?

    public init(_ dict: [AnyHashable: Any]) {
        self.dict = dict
        objectId = dict["id"] as? String ?? ""
        systemModstamp = (dict["systemModstamp"] as? String).flatMap(SalesforceTime.milliseconds).map { Date(timeIntervalSince1970: Double($0) / 1000) }
        super.init()
    }

    public override var description: String { "\(dict)" }
}

/// The SDK's `SFSDKPrimingRuleError` (`PrimingRuleError`): a rule that was processed with an error.
public final class PrimingRuleError: NSObject, @unchecked Sendable {
    public let dict: [AnyHashable: Any]
    public let ruleId: String

    public init(_ dict: [AnyHashable: Any]) {
        self.dict = dict
        ruleId = dict["ruleId"] as? String ?? ""
        super.init()
    }

    public override var description: String { "\(dict)" }
}

/// The SDK's `SFSDKPrimingStats` (`PrimingStats`).
public final class PrimingStats: NSObject, @unchecked Sendable {
    public let dict: [AnyHashable: Any]
    public let ruleCountTotal: UInt
    public let recordCountTotal: UInt
    public let ruleCountServed: UInt
    public let recordCountServed: UInt

    public init(_ dict: [AnyHashable: Any]) {
        self.dict = dict
        func count(_ key: String) -> UInt { UInt(max(0, (dict[key] as? NSNumber)?.intValue ?? Int(dict[key] as? String ?? "") ?? 0)) }
        ruleCountTotal = count("ruleCountTotal")
        recordCountTotal = count("recordCountTotal")
        ruleCountServed = count("ruleCountServed")
        recordCountServed = count("recordCountServed")
        super.init()
    }

    public override var description: String { "\(dict)" }
}

/// The SDK's `SFSDKPrimingRecordsResponse` (`PrimingRecordsResponse`): a `connect/briefcase/priming-records`
/// answer, its records by object API name and record type, its relay token (nil on the last page), its rule
/// errors and stats.
public final class PrimingRecordsResponse: NSObject, @unchecked Sendable {
    public let primingRecords: [String: [String: [PrimingRecord]]]
    public let relayToken: String?
    public let ruleErrors: [PrimingRuleError]
    public let stats: PrimingStats

    public init(_ dict: [AnyHashable: Any]) {
        var records: [String: [String: [PrimingRecord]]] = [:]
        for case let (apiName as String, byType as [AnyHashable: Any]) in dict["primingRecords"] as? [AnyHashable: Any] ?? [:] {
            var typed: [String: [PrimingRecord]] = [:]
            for case let (recordType as String, raw as [Any]) in byType {
                typed[recordType] = raw.compactMap { $0 as? [AnyHashable: Any] }.map(PrimingRecord.init)
            }
            records[apiName] = typed
        }
        primingRecords = records
        relayToken = dict["relayToken"] as? String
        ruleErrors = (dict["ruleErrors"] as? [Any] ?? []).compactMap { $0 as? [AnyHashable: Any] }.map(PrimingRuleError.init)
        stats = PrimingStats(dict["stats"] as? [AnyHashable: Any] ?? [:])
        super.init()
    }
}
