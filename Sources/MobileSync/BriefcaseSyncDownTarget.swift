import FastJSON
import Foundation
import MobileSyncEngine
import SalesforceSDKCore

/// The SDK's `BriefcaseObjectInfo` (`SFBriefcaseObjectInfo`): one object type of a briefcase sync, the soup
/// its records go to and the fields fetched; the id and modification date fields default to `Id` and
/// `LastModifiedDate`.
public final class BriefcaseObjectInfo: NSObject, Codable, @unchecked Sendable {
    let engine: MobileSyncEngine.BriefcaseObjectInfo

    public var sobjectType: String { engine.sobjectType }
    public var fieldlist: [String] { engine.fieldlist }
    public var idFieldName: String { engine.idFieldName }
    public var modificationDateFieldName: String { engine.modificationDateFieldName }
    public var soupName: String { engine.soupName }

    init(engine: MobileSyncEngine.BriefcaseObjectInfo) {
        self.engine = engine
        super.init()
    }

    public convenience init(soupName: String, sobjectType: String, fieldlist: [String]) {
        self.init(soupName: soupName, sobjectType: sobjectType, fieldlist: fieldlist, idFieldName: nil, modificationDateFieldName: nil)
    }

    public convenience init(soupName: String, sobjectType: String, fieldlist: [String], idFieldName: String?, modificationDateFieldName: String?) {
        self.init(engine: .init(
            soupName: soupName, sobjectType: sobjectType, fieldlist: fieldlist, idFieldName: idFieldName, modificationDateFieldName: modificationDateFieldName))
    }

    enum CodingKeys: String, CodingKey { case sobjectType, fieldlist, idFieldName, modificationDateFieldName, soupName }

    public required convenience init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            soupName: try c.decode(String.self, forKey: .soupName), sobjectType: try c.decode(String.self, forKey: .sobjectType),
            fieldlist: try c.decode([String].self, forKey: .fieldlist), idFieldName: try c.decodeIfPresent(String.self, forKey: .idFieldName),
            modificationDateFieldName: try c.decodeIfPresent(String.self, forKey: .modificationDateFieldName))
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sobjectType, forKey: .sobjectType)
        try c.encode(fieldlist, forKey: .fieldlist)
        try c.encode(idFieldName, forKey: .idFieldName)
        try c.encode(modificationDateFieldName, forKey: .modificationDateFieldName)
        try c.encode(soupName, forKey: .soupName)
    }

    public override func isEqual(_ object: Any?) -> Bool { (object as? BriefcaseObjectInfo)?.engine == engine }
    public override var hash: Int { engine.hashValue }
}

/// The SDK's `BriefcaseSyncDownTarget` (`SFBriefcaseSyncDownTarget`): the records of the briefcases assigned
/// to the connected app, each type into its own soup. The engine runs it (what it does, and the SDK's
/// one-page sync down that it keeps, are in MobileSyncEngine's `BriefcaseSyncDownTarget`).
public final class BriefcaseSyncDownTarget: SyncDownTarget, @unchecked Sendable {
    private let target: MobileSyncEngine.BriefcaseSyncDownTarget

    init(_ target: MobileSyncEngine.BriefcaseSyncDownTarget) {
        self.target = target
        super.init()
        queryType = .briefcase
    }

    public convenience init(infos: [BriefcaseObjectInfo]) {
        self.init(infos: infos, countIdsPerRetrieve: nil)
    }

    public convenience init(infos: [BriefcaseObjectInfo], countIdsPerRetrieve: Int?) {
        self.init(MobileSyncEngine.BriefcaseSyncDownTarget(infos: infos.map(\.engine), countIdsPerRetrieve: countIdsPerRetrieve))
    }

    /// From the SDK's serialised form; infos that cannot be read are left out (the SDK logs them and goes on).
    public override convenience init(dict: [AnyHashable: Any]) {
        let infos = (JSON(sdkValue: dict)?["infos"]?.arrayValue ?? []).compactMap(MobileSyncEngine.BriefcaseObjectInfo.init(json:))
        self.init(MobileSyncEngine.BriefcaseSyncDownTarget(infos: infos, countIdsPerRetrieve: dict["countIdsPerRetrieve"] as? Int))
    }

    public override class func new(fromDict dict: [AnyHashable: Any]) -> BriefcaseSyncDownTarget? { BriefcaseSyncDownTarget(dict: dict) }

    public var countIdsPerRetrieve: Int { target.countIdsPerRetrieve }

    /// The infos by object type.
    public var infosMap: [String: BriefcaseObjectInfo] {
        Dictionary(target.infos.map { ($0.sobjectType, BriefcaseObjectInfo(engine: $0)) }, uniquingKeysWith: { _, last in last })
    }

    package override var engineTarget: (any MobileSyncEngine.SyncDownTarget)? { target }
}
