import AppGroupSimCombine
import Foundation
#if canImport(FoundationNetworking)
// URLResponse is Foundation's on iOS and FoundationNetworking's here: re-exported so SDK code that names it
// compiles unchanged.
@_exported import FoundationNetworking
#endif
import CoreEngine
import CoreNetworkEngine
import SalesforceSDKCommon

/// The SDK's `SFRestAPI` (`NS_SWIFT_NAME(RestClient)`): requests for the current (or a given) user's org,
/// sent with the session's tokens (refreshed once on a 401, as the SDK), over real sockets.
public final class RestClient: NSObject, @unchecked Sendable {
    public var apiVersion = SFRestDefaultAPIVersion
    public let userAccount: UserAccount?
    let engine: CoreNetworkEngine.RestClient?

    init(user: UserAccount?, engine: CoreNetworkEngine.RestClient?) {
        userAccount = user
        self.engine = engine
    }

    private static let clients = PerProcess<[String: RestClient]> { [:] }

    /// The current user's client. Without a current user, requests fail with the SDK's error (a client with
    /// no user cannot authenticate).
    public static var shared: RestClient {
        guard let user = UserAccountManager.shared.currentUserAccount, let client = restClient(for: user) else {
            return RestClient(user: nil, engine: nil)
        }
        return client
    }

    /// A client that sends without authentication.
    public static var sharedGlobal: RestClient { RestClient(user: nil, engine: nil) }

    public static func restClient(for userAccount: UserAccount) -> RestClient? {
        let key = userAccount.accountIdentity.description
        if let client = clients.withValue({ $0[key] }) { return client }
        guard let engine = SDKEngine.current.restClient(for: userAccount) else { return nil }
        return clients.withValue { byUser in
            if let client = byUser[key] { return client }
            let client = RestClient(user: userAccount, engine: engine)
            byUser[key] = client
            return client
        }
    }

    public func cleanup() {}
    public func cancelAllRequests() {}

    // MARK: Requests, with the SDK's paths

    private func versioned(_ apiVersion: String?) -> String { "/\(apiVersion ?? self.apiVersion)" }

    public func requestForVersions() -> RestRequest { RestRequest(method: .GET, path: "/", queryParams: nil) }

    public func requestForUserInfo() -> RestRequest {
        let request = RestRequest(method: .GET, path: "/services/oauth2/userinfo", queryParams: nil)
        request.endpoint = ""
        return request
    }

    public func request(forLimits apiVersion: String?) -> RestRequest { RestRequest(method: .GET, path: versioned(apiVersion) + "/limits", queryParams: nil) }

    public func cheapRequest(_ apiVersion: String?) -> RestRequest { RestRequest(method: .GET, path: versioned(apiVersion) + "/", queryParams: nil) }

    public func request(forResources apiVersion: String?) -> RestRequest { RestRequest(method: .GET, path: versioned(apiVersion) + "/", queryParams: nil) }

    public func request(forDescribeGlobal apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/sobjects/", queryParams: nil)
    }

    public func requestForMetadata(withObjectType objectType: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/sobjects/\(objectType)/", queryParams: nil)
    }

    public func requestForDescribe(withObjectType objectType: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/sobjects/\(objectType)/describe/", queryParams: nil)
    }

    public func requestForRetrieve(withObjectType objectType: String, objectId: String, fieldList: String?, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/sobjects/\(objectType)/\(objectId)", queryParams: fieldList.map { ["fields": $0] })
    }

    public func requestForCreate(withObjectType objectType: String, fields: [String: Any]?, apiVersion: String?) -> RestRequest {
        jsonRequest(.POST, versioned(apiVersion) + "/sobjects/\(objectType)", fields ?? [:])
    }

    public func requestForUpsert(withObjectType objectType: String, externalIdField: String, externalId: String?, fields: [String: Any], apiVersion: String?) -> RestRequest {
        let path = versioned(apiVersion) + "/sobjects/\(objectType)/\(externalIdField)" + (externalId.map { "/\($0)" } ?? "")
        return jsonRequest(externalId == nil ? .POST : .PATCH, path, fields)
    }

    public func requestForUpdate(withObjectType objectType: String, objectId: String, fields: [String: Any]?, apiVersion: String?) -> RestRequest {
        jsonRequest(.PATCH, versioned(apiVersion) + "/sobjects/\(objectType)/\(objectId)", fields ?? [:])
    }

    public func requestForDelete(withObjectType objectType: String, objectId: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .DELETE, path: versioned(apiVersion) + "/sobjects/\(objectType)/\(objectId)", queryParams: nil)
    }

    public func requestForUpdate(withObjectType objectType: String, objectId: String, fields: [String: Any]?, ifUnmodifiedSinceDate: Date?, apiVersion: String?) -> RestRequest {
        let request = requestForUpdate(withObjectType: objectType, objectId: objectId, fields: fields, apiVersion: apiVersion)
        if let date = ifUnmodifiedSinceDate {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "GMT")
            formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
            request.setHeaderValue(formatter.string(from: date), forHeaderName: SFRestIfUnmodifiedSince)
        }
        return request
    }

    public func requestForLayout(withObjectAPIName objectAPIName: String, formFactor: String?, layoutType: String?, mode: String?, recordTypeId: String?, apiVersion: String?) -> RestRequest {
        var params: [String: Any] = [:]
        params["formFactor"] = formFactor
        params["layoutType"] = layoutType
        params["mode"] = mode
        params["recordTypeId"] = recordTypeId
        return RestRequest(method: .GET, path: versioned(apiVersion) + "/ui-api/layout/\(objectAPIName)", queryParams: params.isEmpty ? nil : params)
    }

    public func request(forPrimingRecords relayToken: String?, changedAfterTimestamp timestamp: NSNumber?, apiVersion: String?) -> RestRequest {
        let engine = CoreNetworkEngine.RestRequest.primingRecords(relayToken: relayToken, changedAfter: timestamp?.int64Value)
        let params = Dictionary(engine.queryItems.map { ($0.name, $0.value ?? "") as (String, Any) }, uniquingKeysWith: { _, last in last })
        return RestRequest(method: .GET, path: versioned(apiVersion) + "/connect/briefcase/priming-records", queryParams: params.isEmpty ? nil : params)
    }

    /// A single-access URL (frontdoor) for the redirect URI, from the login service.
    public func request(forSingleAccess redirectUri: String) -> RestRequest {
        let request = RestRequest(method: .POST, path: "/services/oauth2/singleaccess", queryParams: nil)
        request.endpoint = ""
        request.setCustomRequestBodyString("redirect_uri=\(redirectUri.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")", contentType: "application/x-www-form-urlencoded")
        return request
    }

    public func request(forSearchScopeAndOrder apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/search/scopeOrder", queryParams: nil)
    }

    public func request(forSearchResultLayout objectList: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/search/layout", queryParams: ["q": objectList])
    }

    /// `/composite/batch`: the requests run one after the other, each with its own answer.
    public func batchRequest(_ requests: [RestRequest], haltOnError: Bool, apiVersion: String?) -> RestRequest {
        requests.reduce(BatchRequestBuilder().setHaltOnError(haltOnError)) { $0.add($1) }.buildBatchRequest(apiVersion ?? self.apiVersion)
    }

    /// `/composite`: the requests in one call, each named by its reference id, all or none.
    public func compositeRequest(_ requests: [RestRequest], refIds: [String], allOrNone: Bool, apiVersion: String?) -> RestRequest {
        zip(requests, refIds).reduce(CompositeRequestBuilder().setAllOrNone(allOrNone)) { $0.add($1.0, referenceId: $1.1) }
            .buildCompositeRequest(apiVersion ?? self.apiVersion)
    }

    /// Revokes the user's access token at the login host (`/services/oauth2/revoke`).
    public func requestForRevokeAccessToken(user: UserAccount? = UserAccountManager.shared.currentUserAccount) -> RestRequest? {
        guard let user, let token = user.credentials.accessToken else { return nil }
        var host = user.credentials.engine.loginHost.absoluteString
        if host.hasSuffix("/") { host.removeLast() }
        let request = RestRequest.customUrlRequest(withMethod: .POST, baseURL: host, path: "/services/oauth2/revoke", queryParams: nil)
        request.setCustomRequestBodyString("token=\(token)", contentType: "application/x-www-form-urlencoded")
        request.requiresAuthentication = false
        return request
    }

    public func request(forQuery soql: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/query", queryParams: ["q": soql])
    }

    public func request(forQuery soql: String, apiVersion: String?, batchSize: Int) -> RestRequest {
        let request = self.request(forQuery: soql, apiVersion: apiVersion)
        if let options = CoreNetworkEngine.RestRequest.queryOptions(batchSize: batchSize) { request.setHeaderValue(options, forHeaderName: SFRestQueryOptions) }
        return request
    }

    public func request(forQueryAll soql: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/queryAll", queryParams: ["q": soql])
    }

    public func request(forSearch sosl: String, apiVersion: String?) -> RestRequest {
        RestRequest(method: .GET, path: versioned(apiVersion) + "/search", queryParams: ["q": sosl])
    }

    public func request(forCollectionCreate allOrNone: Bool, records: [[String: Any]], apiVersion: String?) -> RestRequest {
        jsonRequest(.POST, versioned(apiVersion) + "/composite/sobjects", ["allOrNone": allOrNone, "records": records])
    }

    public func request(forCollectionUpdate allOrNone: Bool, records: [[String: Any]], apiVersion: String?) -> RestRequest {
        jsonRequest(.PATCH, versioned(apiVersion) + "/composite/sobjects", ["allOrNone": allOrNone, "records": records])
    }

    public func request(forCollectionUpsert allOrNone: Bool, objectType: String, externalIdField: String, records: [[String: Any]], apiVersion: String?) -> RestRequest {
        jsonRequest(.PATCH, versioned(apiVersion) + "/composite/sobjects/\(objectType)/\(externalIdField)", ["allOrNone": allOrNone, "records": records])
    }

    public func request(forCollectionDelete allOrNone: Bool, objectIds: [String], apiVersion: String?) -> RestRequest {
        RestRequest(method: .DELETE, path: versioned(apiVersion) + "/composite/sobjects", queryParams: ["ids": objectIds.joined(separator: ","), "allOrNone": allOrNone])
    }

    public func request(forCollectionRetrieve objectType: String, objectIds: [String], fieldList: [String], apiVersion: String?) -> RestRequest {
        jsonRequest(.POST, versioned(apiVersion) + "/composite/sobjects/\(objectType)", ["ids": objectIds, "fields": fieldList])
    }

    private func jsonRequest(_ method: RestRequest.Method, _ path: String, _ body: [String: Any]) -> RestRequest {
        let request = RestRequest(method: method, path: path, queryParams: nil)
        request.setCustomRequestBodyDictionary(body, contentType: "application/json")
        return request
    }

    public class func isStatusCodeSuccess(_ statusCode: UInt) -> Bool { (200..<300).contains(statusCode) }
    public class func isStatusCodeNotFound(_ statusCode: UInt) -> Bool { statusCode == 404 }
    public class func userAgentString() -> String { userAgentString("") }
    public class func userAgentString(_ qualifier: String) -> String { SalesforceManager.shared.userAgentGenerator(qualifier) }

}
