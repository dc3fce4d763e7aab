import FastJSON
import Foundation
import SmartStoreEngine

public let kQuerySpecSortOrderAscending = "ascending"
public let kQuerySpecSortOrderDescending = "descending"
public let kQuerySpecTypeExact = "exact"
public let kQuerySpecTypeRange = "range"
public let kQuerySpecTypeLike = "like"
public let kQuerySpecTypeSmart = "smart"
public let kQuerySpecTypeMatch = "match"
public let kQuerySpecParamQueryType = "queryType"
public let kQuerySpecParamSelectPaths = "selectPaths"
public let kQuerySpecParamIndexPath = "indexPath"
public let kQuerySpecParamOrder = "order"
public let kQuerySpecParamPageSize = "pageSize"
public let kQuerySpecParamOrderPath = "orderPath"
public let kQuerySpecParamMatchKey = "matchKey"
public let kQuerySpecParamBeginKey = "beginKey"
public let kQuerySpecParamEndKey = "endKey"
public let kQuerySpecParamLikeKey = "likeKey"
public let kQuerySpecParamSmartSql = "smartSql"
public let kQuerySpecDefaultPageSize: UInt = 10

/// The SDK's `SFQuerySpec` (`NS_SWIFT_NAME(QuerySpec)`), built with its class methods; the engine runs
/// the query it describes (`engineSpec`).
public final class QuerySpec: NSObject, @unchecked Sendable {
    /// `SFSoupQueryType`.
    @objc public enum QueryType: Int, Sendable {
        case exact = 2, range = 4, like = 8, smart = 16, match = 32
    }

    /// `SFSoupQuerySortOrder`.
    @objc public enum SortOrder: UInt, Sendable {
        case ascending = 0, descending
    }

    public var queryType: QueryType
    public var smartSql: String
    public var pageSize: UInt
    public var soupName: String
    public var selectPaths: [Any]?
    public var path: String
    public var beginKey: String
    public var endKey: String
    public var likeKey: String
    public var matchKey: String
    public var orderPath: String
    public var order: SortOrder

    /// The smart SQL the SDK derives to count the results (`SELECT count(*) FROM (…)`).
    public var countSmartSql: String { "SELECT count(*) FROM (\(effectiveSmartSql))" }
    /// The smart SQL the SDK derives to select the ids (`SELECT id FROM (…)`).
    public var idsSmartSql: String { "SELECT id FROM (\(effectiveSmartSql))" }
    public var sqlSortOrder: String { order == .descending ? "DESC" : "ASC" }

    init(type: QueryType, soupName: String, smartSql: String = "", selectPaths: [Any]? = nil, path: String = "", beginKey: String = "",
         endKey: String = "", likeKey: String = "", matchKey: String = "", orderPath: String = "", order: SortOrder = .ascending, pageSize: UInt)
    {
        queryType = type
        self.soupName = soupName
        self.smartSql = smartSql
        self.selectPaths = selectPaths
        self.path = path
        self.beginKey = beginKey
        self.endKey = endKey
        self.likeKey = likeKey
        self.matchKey = matchKey
        self.orderPath = orderPath
        self.order = order
        self.pageSize = pageSize
    }

    // MARK: The SDK's builders

    public class func buildExactQuerySpec(soupName: String, selectPaths: [Any]?, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec? {
        QuerySpec(type: .exact, soupName: soupName, selectPaths: selectPaths, path: path, matchKey: matchKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildExactQuerySpec(soupName: String, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .exact, soupName: soupName, path: path, matchKey: matchKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildLikeQuerySpec(soupName: String, selectPaths: [Any]?, path: String, likeKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec? {
        QuerySpec(type: .like, soupName: soupName, selectPaths: selectPaths, path: path, likeKey: likeKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildLikeQuerySpec(soupName: String, path: String, likeKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .like, soupName: soupName, path: path, likeKey: likeKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildRangeQuerySpec(soupName: String, selectPaths: [Any]?, path: String?, beginKey: String?, endKey: String?, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec? {
        QuerySpec(type: .range, soupName: soupName, selectPaths: selectPaths, path: path ?? "", beginKey: beginKey ?? "", endKey: endKey ?? "", orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildRangeQuerySpec(soupName: String, path: String, beginKey: String, endKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .range, soupName: soupName, path: path, beginKey: beginKey, endKey: endKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    /// All entries: the SDK builds it as a range query with no bounds.
    public class func buildAllQuerySpec(soupName: String, selectPaths: [Any]?, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .range, soupName: soupName, selectPaths: selectPaths, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildAllQuerySpec(soupName: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .range, soupName: soupName, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildMatchQuerySpec(soupName: String, selectPaths: [Any]?, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec? {
        QuerySpec(type: .match, soupName: soupName, selectPaths: selectPaths, path: path, matchKey: matchKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildMatchQuerySpec(soupName: String, path: String, matchKey: String, orderPath: String, order: SortOrder, pageSize: UInt) -> QuerySpec {
        QuerySpec(type: .match, soupName: soupName, path: path, matchKey: matchKey, orderPath: orderPath, order: order, pageSize: pageSize)
    }

    public class func buildSmartQuerySpec(smartSql: String, pageSize: UInt) -> QuerySpec? {
        QuerySpec(type: .smart, soupName: "", smartSql: smartSql, pageSize: pageSize)
    }

    /// From the dictionary form the hybrid bridge and sync targets use (`queryType`, `indexPath`, …).
    public init(querySpec: [AnyHashable: Any], targetSoupName: String) {
        let string = { (key: String) in querySpec[key] as? String ?? "" }
        queryType = QuerySpec.queryType(from: string(kQuerySpecParamQueryType))
        soupName = targetSoupName
        smartSql = string(kQuerySpecParamSmartSql)
        selectPaths = querySpec[kQuerySpecParamSelectPaths] as? [Any]
        path = string(kQuerySpecParamIndexPath)
        beginKey = string(kQuerySpecParamBeginKey)
        endKey = string(kQuerySpecParamEndKey)
        likeKey = string(kQuerySpecParamLikeKey)
        matchKey = string(kQuerySpecParamMatchKey)
        orderPath = string(kQuerySpecParamOrderPath)
        order = QuerySpec.sortOrder(from: string(kQuerySpecParamOrder))
        pageSize = (querySpec[kQuerySpecParamPageSize] as? Int).map { UInt(max($0, 0)) } ?? kQuerySpecDefaultPageSize
    }

    public func asDictionary() -> [AnyHashable: Any] {
        var dictionary: [AnyHashable: Any] = [
            kQuerySpecParamQueryType: QuerySpec.queryType(fromEnum: queryType), kQuerySpecParamPageSize: Int(pageSize),
        ]
        if queryType == .smart {
            dictionary[kQuerySpecParamSmartSql] = smartSql
        } else {
            dictionary["soupName"] = soupName
            dictionary[kQuerySpecParamIndexPath] = path
            dictionary[kQuerySpecParamOrderPath] = orderPath
            dictionary[kQuerySpecParamOrder] = QuerySpec.sortOrder(fromEnum: order)
            dictionary[kQuerySpecParamMatchKey] = matchKey
            dictionary[kQuerySpecParamBeginKey] = beginKey
            dictionary[kQuerySpecParamEndKey] = endKey
            dictionary[kQuerySpecParamLikeKey] = likeKey
            if let selectPaths { dictionary[kQuerySpecParamSelectPaths] = selectPaths }
        }
        return dictionary
    }

    /// The values bound to the query's `?`s: the match, begin/end or like key.
    public func bindsForQuerySpec() -> [Any]? {
        switch queryType {
        case .exact, .match: return [matchKey]
        case .like: return [likeKey]
        case .range: return [beginKey, endKey].filter { !$0.isEmpty }
        case .smart: return nil
        }
    }

    public class func queryType(from queryType: String) -> QueryType {
        switch queryType {
        case kQuerySpecTypeExact: return .exact
        case kQuerySpecTypeLike: return .like
        case kQuerySpecTypeSmart: return .smart
        case kQuerySpecTypeMatch: return .match
        default: return .range
        }
    }

    public class func queryType(fromEnum queryType: QueryType) -> String {
        switch queryType {
        case .exact: return kQuerySpecTypeExact
        case .range: return kQuerySpecTypeRange
        case .like: return kQuerySpecTypeLike
        case .smart: return kQuerySpecTypeSmart
        case .match: return kQuerySpecTypeMatch
        }
    }

    public class func sortOrder(from sortOrder: String) -> SortOrder { sortOrder == kQuerySpecSortOrderDescending ? .descending : .ascending }

    public class func sortOrder(fromEnum sortOrder: SortOrder) -> String {
        sortOrder == .descending ? kQuerySpecSortOrderDescending : kQuerySpecSortOrderAscending
    }

    // MARK: The engine's spec

    private var effectiveSmartSql: String {
        if queryType == .smart { return smartSql }
        let columns = (selectPaths as? [String]).map { $0.map { "{\(soupName):\($0)}" }.joined(separator: ", ") } ?? "{\(soupName):_soup}"
        return "SELECT \(columns) FROM {\(soupName)}"
    }

    /// What the engine runs. `whereArgs` are smart SQL's bind values (SmartStore's `query(…whereArgs:)`).
    package func engineSpec(whereArgs: [Any]? = nil) throws -> SmartStoreEngine.QuerySpec {
        let size = Int(clamping: pageSize)
        let paths = try selectPaths.map { paths in
            try paths.map { path -> String in
                guard let path = path as? String else { throw SmartStoreEngine.SmartStoreError.invalidQuery("select paths must be strings") }
                return path
            }
        }
        let order: SmartStoreEngine.QuerySpec.Order = self.order == .descending ? .descending : .ascending
        let orderPath = self.orderPath.isEmpty ? nil : self.orderPath
        let args = try whereArgs.map { args in
            try args.map { arg -> JSON in
                guard let json = JSON(sdkValue: arg) else { throw SmartStoreEngine.SmartStoreError.invalidQuery("a where argument is not a JSON value") }
                return json
            }
        }
        switch queryType {
        case .smart:
            return .smart(smartSql, pageSize: size, whereArgs: args)
        case .exact:
            return .exact(soup: soupName, path: path, value: .string(matchKey), orderPath: orderPath, order: order, pageSize: size, selectPaths: paths)
                .withWhereArgs(args)
        case .like:
            return .like(soup: soupName, path: path, pattern: likeKey, orderPath: orderPath, order: order, pageSize: size, selectPaths: paths).withWhereArgs(args)
        case .match:
            return .match(soup: soupName, path: path.isEmpty ? nil : path, matchKey: matchKey, orderPath: orderPath, order: order, pageSize: size, selectPaths: paths)
                .withWhereArgs(args)
        case .range:
            if path.isEmpty || (beginKey.isEmpty && endKey.isEmpty) {
                return .all(soup: soupName, orderPath: orderPath, order: order, pageSize: size, selectPaths: paths).withWhereArgs(args)
            }
            return .range(soup: soupName, path: path, begin: beginKey.isEmpty ? nil : .string(beginKey), end: endKey.isEmpty ? nil : .string(endKey),
                          orderPath: orderPath, order: order, pageSize: size, selectPaths: paths).withWhereArgs(args)
        }
    }
}

extension SmartStoreEngine.QuerySpec {
    /// Bind values on a query that is not smart SQL: the engine refuses them with the SDK's code 5.
    fileprivate func withWhereArgs(_ args: [JSON]?) -> SmartStoreEngine.QuerySpec {
        var spec = self
        spec.whereArgs = args
        return spec
    }
}
