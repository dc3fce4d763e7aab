import CoreNetworkEngine
import Foundation

/// `kSOSLReservedCharacters`.
public let kSOSLReservedCharacters = QueryText.soslReservedCharacters
/// `kSOSLEscapeCharacter`.
public let kSOSLEscapeCharacter = QueryText.soslEscapeCharacter
/// `kMaxSOSLSearchLimit`.
public let kMaxSOSLSearchLimit = QueryText.maxSOSLSearchLimit

/// `SFRestAPI (QueryBuilder)`: SOQL and SOSL text (`CoreNetworkEngine.QueryText` writes it).
extension RestClient {
    /// Escapes SOSL's reserved characters with a backslash.
    public class func sanitizeSOSLSearchTerm(_ searchTerm: String) -> String { QueryText.sanitizeSOSL(searchTerm) }

    /// `FIND {term} IN NAME FIELDS RETURNING …`; nil without a term. The object scope maps an object to its
    /// field list (or to anything else for none); its objects are written in sorted order.
    public class func SOSLSearch(withSearchTerm term: String?, objectScope: [String: Any]?) -> String? {
        SOSLSearch(withSearchTerm: term, fieldScope: nil, objectScope: objectScope, limit: 0)
    }

    /// As above, with a field scope (`IN ALL FIELDS`…) and a limit (capped at `kMaxSOSLSearchLimit`).
    public class func SOSLSearch(withSearchTerm term: String?, fieldScope: String?, objectScope: [String: Any]?, limit: Int) -> String? {
        let scope = (objectScope ?? [:]).keys.sorted().map { (object: $0, fields: objectScope?[$0] as? String) }
        return QueryText.sosl(term: term, fieldScope: fieldScope, objectScope: scope, limit: limit)
    }

    /// `select … from … [where …] [limit n]`; nil without fields or an object.
    public class func SOQLQuery(withFields fields: [String], sObject: String, whereClause: String?, limit: Int) -> String? {
        SOQLQuery(withFields: fields, sObject: sObject, whereClause: whereClause, groupBy: nil, having: nil, orderBy: nil, limit: limit)
    }

    public class func SOQLQuery(
        withFields fields: [String], sObject: String, whereClause: String?, groupBy: [String]?, having: String?, orderBy: [String]?, limit: Int
    ) -> String? {
        QueryText.soql(fields: fields, sObject: sObject, whereClause: whereClause, groupBy: groupBy, having: having, orderBy: orderBy, limit: limit)
    }
}

/// The SDK's `SFSDKSoqlBuilder`: a SOQL query, clause by clause.
public final class SFSDKSoqlBuilder: NSObject, @unchecked Sendable {
    private var query = QueryText.SOQL()

    public class func withFields(_ fields: String) -> SFSDKSoqlBuilder {
        let builder = SFSDKSoqlBuilder()
        builder.query.fields = fields
        return builder
    }

    public class func withFieldsArray(_ fields: [String]) -> SFSDKSoqlBuilder { withFields(fields.joined(separator: ", ")) }

    public func from(_ from: String) -> SFSDKSoqlBuilder { query.from = from; return self }
    public func whereClause(_ whereClause: String) -> SFSDKSoqlBuilder { query.whereClause = whereClause; return self }
    /// Kept and not written into the query, as in the SDK.
    public func with(_ with: String) -> SFSDKSoqlBuilder { query.with = with; return self }
    public func groupBy(_ groupBy: String) -> SFSDKSoqlBuilder { query.groupBy = groupBy; return self }
    public func having(_ having: String) -> SFSDKSoqlBuilder { query.having = having; return self }
    public func orderBy(_ orderBy: String) -> SFSDKSoqlBuilder { query.orderBy = orderBy; return self }
    public func limit(_ limit: Int) -> SFSDKSoqlBuilder { query.limit = limit; return self }
    public func offset(_ offset: Int) -> SFSDKSoqlBuilder { query.offset = offset; return self }

    /// The query, nil without fields or `from`.
    public func build() -> String? { query.build() }
    /// The query, URL-encoded (empty when there is none).
    public func encodeAndBuild() -> String { build().map(QueryText.urlEncode) ?? "" }
    public func encodeAndBuild(withPath path: String) -> String { QueryText.withPath(path, "query", encodeAndBuild()) }
    public func build(withPath path: String) -> String { QueryText.withPath(path, "query", build() ?? "") }
}

/// The SDK's `SFSDKSoslReturningBuilder`: one object of a SOSL query's `returning`.
public final class SFSDKSoslReturningBuilder: NSObject, @unchecked Sendable {
    fileprivate var clause: QueryText.SOSLReturning

    private init(_ name: String) { clause = QueryText.SOSLReturning(objectName: name) }

    public var objectName: String { clause.objectName }

    public class func withObjectName(_ name: String) -> SFSDKSoslReturningBuilder { SFSDKSoslReturningBuilder(name) }

    public func fields(_ fields: String) -> SFSDKSoslReturningBuilder { clause.fields = fields; return self }
    public func whereClause(_ whereClause: String) -> SFSDKSoslReturningBuilder { clause.whereClause = whereClause; return self }
    public func withNetwork(_ networkId: String) -> SFSDKSoslReturningBuilder { clause.withNetwork = networkId; return self }
    public func orderBy(_ orderBy: String) -> SFSDKSoslReturningBuilder { clause.orderBy = orderBy; return self }
    public func limit(_ limit: Int) -> SFSDKSoslReturningBuilder { clause.limit = limit; return self }

    /// The clause, with the SDK's leading space; nil without an object name.
    public func build() -> String? { clause.build() }
}

/// The SDK's `SFSDKSoslBuilder`: a SOSL query, clause by clause; its search term is escaped.
public final class SFSDKSoslBuilder: NSObject, @unchecked Sendable {
    private var query: QueryText.SOSL

    private init(_ term: String?) { query = QueryText.SOSL(searchTerm: term) }

    public class func withSearchTerm(_ searchTerm: String) -> SFSDKSoslBuilder { SFSDKSoslBuilder(searchTerm) }

    public func searchGroup(_ searchGroup: String) -> SFSDKSoslBuilder { query.searchGroup = searchGroup; return self }
    public func returning(_ returningSpec: SFSDKSoslReturningBuilder) -> SFSDKSoslBuilder { query.returning.append(returningSpec.clause); return self }
    public func divisionFilter(_ divisionFilter: String) -> SFSDKSoslBuilder { query.divisionFilter = divisionFilter; return self }
    public func dataCategory(_ dataCategory: String) -> SFSDKSoslBuilder { query.dataCategory = dataCategory; return self }
    public func limit(_ limit: Int) -> SFSDKSoslBuilder { query.limit = limit; return self }

    /// The query, nil without a search term.
    public func build() -> String? { query.build() }
    public func encodeAndBuild() -> String { build().map(QueryText.urlEncode) ?? "" }
    public func encodeAndBuild(withPath path: String) -> String { QueryText.withPath(path, "search", encodeAndBuild()) }
    public func build(withPath path: String) -> String { QueryText.withPath(path, "search", build() ?? "") }
}
