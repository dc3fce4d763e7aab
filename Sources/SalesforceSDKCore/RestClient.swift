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

public let SFRestErrorDomain = "com.salesforce.RestAPI.ErrorDomain"
public let SFRestErrorCode = 999
public let SFRestDefaultAPIVersion = CoreNetworkEngine.RestClient.apiVersion
public let SFRestIfUnmodifiedSince = "If-Unmodified-Since"
public let SFRestSOQLMinBatchSize = 200
public let SFRestSOQLMaxBatchSize = 2000
public let SFRestSOQLDefaultBatchSize = 2000
public let SFRestQueryOptions = "Sforce-Query-Options"
public let SFRestCollectionRetrieveMaxSize = 2000
public let kSFDefaultRestEndpoint = "/services/data"

/// Called when a request fails: the decoded answer if any, the error, and the raw response.
public typealias RestRequestFailBlock = (_ response: Any?, _ error: Error?, _ rawResponse: URLResponse?) -> Void
/// Called when a request succeeds: the decoded answer (JSON objects as Foundation types) and the raw response.
public typealias RestResponseBlock = (_ response: Any?, _ rawResponse: URLResponse?) -> Void
/// The Objective-C name of ``RestRequestFailBlock``.
public typealias SFRestRequestFailBlock = RestRequestFailBlock
/// The Objective-C name of ``RestResponseBlock``.
public typealias SFRestResponseBlock = RestResponseBlock

/// The SDK's `SFRestRequest` (`NS_SWIFT_NAME(RestRequest)`): a REST call relative to the user's instance.
public final class RestRequest: NSObject, @unchecked Sendable {
    /// `SFRestMethod`.
    @objc public enum Method: Int, Sendable {
        case GET = 0, POST, PUT, DELETE, HEAD, PATCH
    }

    public var method: Method
    /// `/services/data` unless the request names another endpoint.
    public var endpoint = "/services/data"
    public var path: String
    public var queryParams: [String: Any]?
    public var customHeaders: [String: String]?
    public var requiresAuthentication = true
    public var parseResponse = true
    public var timeoutInterval: TimeInterval = 60
    public var baseURL: String?
    var body: Data?

    public init(method: Method, path: String, queryParams: [String: Any]?) {
        self.method = method
        self.path = path
        self.queryParams = queryParams
    }

    public class func request(withMethod method: Method, path: String, queryParams: [String: Any]?) -> RestRequest {
        RestRequest(method: method, path: path, queryParams: queryParams)
    }

    /// `SFSDKRestServiceHostType`: the user's instance, or the login host.
    @objc public enum ServiceHostType: Int, Sendable { case instance = 0, login }

    public var serviceHostType: ServiceHostType = .instance

    public convenience init(method: Method, serviceHostType: ServiceHostType, path: String, queryParams: [String: Any]?) {
        self.init(method: method, path: path, queryParams: queryParams)
        self.serviceHostType = serviceHostType
    }

    public class func customUrlRequest(withMethod method: Method, baseURL: String, path: String, queryParams: [String: Any]?) -> RestRequest {
        RestRequest(method: method, baseURL: baseURL, path: path, queryParams: queryParams)
    }

    public class func customEndPointRequest(withMethod method: Method, endPoint: String, path: String, queryParams: [String: Any]?) -> RestRequest {
        let request = RestRequest(method: method, path: path, queryParams: queryParams)
        request.endpoint = endPoint
        return request
    }

    /// The URL relative to the instance, as composite and batch requests name their parts.
    var relativeURL: String {
        let query = (queryParams ?? [:]).sorted { $0.key < $1.key }
            .map { "\($0.key)=\(String(describing: $0.value).addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")" }.joined(separator: "&")
        return endpoint + path + (query.isEmpty ? "" : "?" + query)
    }

    public class func request(withMethod method: Method, baseURL: String, path: String, queryParams: [String: Any]?) -> RestRequest {
        let request = RestRequest(method: method, path: path, queryParams: queryParams)
        request.baseURL = baseURL
        request.endpoint = ""
        return request
    }

    public func setHeaderValue(_ value: String?, forHeaderName name: String) {
        var headers = customHeaders ?? [:]
        headers[name] = value
        customHeaders = headers
    }

    public func setCustomRequestBodyString(_ bodyString: String, contentType: String) {
        body = Data(bodyString.utf8)
        setHeaderValue(contentType, forHeaderName: "Content-Type")
    }

    public func setCustomRequestBodyData(_ bodyData: Data, contentType: String) {
        body = bodyData
        setHeaderValue(contentType, forHeaderName: "Content-Type")
    }

    public func setCustomRequestBodyDictionary(_ bodyDictionary: [AnyHashable: Any], contentType: String) {
        body = try? JSONSerialization.data(withJSONObject: bodyDictionary)
        setHeaderValue(contentType, forHeaderName: "Content-Type")
    }

    /// The body from a stream, read now.
    public func setCustomRequestBodyStream(_ bodyStreamBlock: @escaping () -> InputStream, contentType: String) {
        let stream = bodyStreamBlock()
        stream.open()
        defer { stream.close() }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while stream.hasBytesAvailable {
            let read = stream.read(&buffer, maxLength: buffer.count)
            if read <= 0 { break }
            data.append(buffer, count: read)
        }
        setCustomRequestBodyData(data, contentType: contentType)
    }

    /// A file as one part of a `multipart/form-data` body, with the other parameters as parts before it.
    public func addPostFileData(_ fileData: Data, paramName: String, fileName: String, mimeType: String, params: [AnyHashable: Any]?) {
        let boundary = "AppGroupSim-\(UUID().uuidString)"
        var body = Data()
        func line(_ text: String) { body.append(Data((text + "\r\n").utf8)) }
        for (name, value) in (params ?? [:]).sorted(by: { "\($0.key)" < "\($1.key)" }) {
            line("--\(boundary)")
            line("Content-Disposition: form-data; name=\"\(name)\"")
            line("")
            line("\(value)")
        }
        line("--\(boundary)")
        line("Content-Disposition: form-data; name=\"\(paramName)\"; filename=\"\(fileName)\"")
        line("Content-Type: \(mimeType)")
        line("")
        body.append(fileData)
        line("")
        line("--\(boundary)--")
        setCustomRequestBodyData(body, contentType: "multipart/form-data; boundary=\(boundary)")
    }

    /// The `URLRequest` the client sends for the user: the instance's URL, the method, the headers and body,
    /// and the session's access token.
    public func prepareRequest(forSend user: UserAccount) -> URLRequest? {
        guard let instance = user.credentials.instanceUrl, var components = URLComponents(url: instance, resolvingAgainstBaseURL: false) else { return nil }
        let engineRequest = engine
        components.path = engineRequest.path
        if !engineRequest.queryItems.isEmpty { components.queryItems = engineRequest.queryItems }
        guard let url = (baseURL.flatMap { URL(string: $0 + engineRequest.path) }) ?? components.url else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = engineRequest.method
        request.httpBody = engineRequest.body
        request.timeoutInterval = timeoutInterval
        for (name, value) in engineRequest.headers { request.setValue(value, forHTTPHeaderField: name) }
        if requiresAuthentication, let token = user.credentials.accessToken { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        return request
    }

    /// The body as a dictionary, when it is JSON.
    public var requestBodyAsDictionary: [AnyHashable: Any]? {
        body.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [AnyHashable: Any] }
    }

    /// `SFSDKNetworkServiceType`: how URLSession should schedule the request (no difference here).
    @objc public enum NetWorkServiceType: Int, Sendable {
        case SFNetworkServiceTypeDefault = 0, SFNetworkServiceTypeBackground, SFNetworkServiceTypeResponsiveData
    }

    public var networkServiceType: NetWorkServiceType = .SFNetworkServiceTypeDefault

    private let inFlightLock = NSLock()
    nonisolated(unsafe) private var inFlight: (any CancellableTask)?

    /// Cancels the request while it is sent: its failure block gets a cancellation error.
    public func cancel() { inFlightLock.withLock { inFlight }?.cancelTask() }

    func sending(_ task: any CancellableTask) { inFlightLock.withLock { inFlight = task } }

    public var isQueryRequest: Bool { method == .GET && (path.hasSuffix("/query") || path.hasSuffix("/queryAll")) }

    /// Whether an error is the network's (no connection, timeout, a lost connection), not the org's answer: the
    /// codes the SDK's `+isNetworkError:` lists, in `NSURLErrorDomain`.
    public class func isNetworkError(_ error: Error) -> Bool {
        let error = error as NSError
        return error.domain == NSURLErrorDomain && RestErrors.networkCodes.contains(error.code)
    }

    public class func httpMethod(fromSFRestMethod restMethod: Method) -> String { httpMethod(from: restMethod) }

    public convenience init(method: Method, baseURL: String, path: String, queryParams: [String: Any]?) {
        self.init(method: method, path: path, queryParams: queryParams)
        self.baseURL = baseURL
        endpoint = ""
    }

    public class func httpMethod(from restMethod: Method) -> String {
        switch restMethod {
        case .GET: return "GET"
        case .POST: return "POST"
        case .PUT: return "PUT"
        case .DELETE: return "DELETE"
        case .HEAD: return "HEAD"
        case .PATCH: return "PATCH"
        }
    }

    public class func sfRestMethod(fromHTTPMethod httpMethod: String) -> Method {
        switch httpMethod.uppercased() {
        case "POST": return .POST
        case "PUT": return .PUT
        case "DELETE": return .DELETE
        case "HEAD": return .HEAD
        case "PATCH": return .PATCH
        default: return .GET
        }
    }

    /// The engine's request: the path under the endpoint, with the query string the SDK builds.
    var engine: CoreNetworkEngine.RestRequest {
        let items = (queryParams ?? [:]).sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: "\($0.value)") }
        let fullPath = (endpoint.isEmpty ? "" : endpoint) + (path.hasPrefix("/") || endpoint.isEmpty ? path : "/" + path)
        return CoreNetworkEngine.RestRequest(method: Self.httpMethod(from: method), path: fullPath, queryItems: items, body: body, headers: customHeaders ?? [:])
    }

    public override var description: String { "RestRequest(\(Self.httpMethod(from: method)) \(endpoint)\(path))" }
}

/// The SDK's Swift `RestClientError`.
public enum RestClientError: Error {
    case apiResponseIsEmpty
    case apiFailed(response: Any?, underlyingError: Error, urlResponse: URLResponse?)
    case decodingFailed(underlyingError: Error)
    case jsonSerialization(underlyingError: Error)
    case invalidRequest(String)
}

/// The SDK's Swift `RestResponse`: the body and the HTTP response.
public struct RestResponse {
    private let data: Data
    public private(set) var urlResponse: URLResponse

    public init(data: Data, urlResponse: URLResponse) {
        self.data = data
        self.urlResponse = urlResponse
    }

    public func asJson() throws -> Any {
        do { return try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) } catch {
            throw RestClientError.jsonSerialization(underlyingError: error)
        }
    }

    public func asData() -> Data { data }

    public func asString() -> String { String(decoding: data, as: UTF8.self) }

    public func asDecodable<T: Decodable>(type: T.Type, decoder: JSONDecoder = .init()) throws -> T {
        do { return try decoder.decode(type, from: data) } catch { throw RestClientError.decodingFailed(underlyingError: error) }
    }
}

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

    private static let lock = NSLock()
    nonisolated(unsafe) private static var clients: (generation: Int, byUser: [String: RestClient]) = (-1, [:])

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
        let generation = SDKProcess.generation
        let key = userAccount.accountIdentity.description
        if let client = lock.withLock({ clients.generation == generation ? clients.byUser[key] : nil }) { return client }
        guard let engine = SDKEngine.current.restClient(for: userAccount) else { return nil }
        return lock.withLock {
            if clients.generation != generation { clients = (generation, [:]) }
            if let client = clients.byUser[key] { return client }
            let client = RestClient(user: userAccount, engine: engine)
            clients.byUser[key] = client
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
        var params: [String: Any] = [:]
        params["relayToken"] = relayToken
        params["changedAfterTimestamp"] = timestamp?.int64Value
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
        let items: [[String: Any]] = requests.map { request in
            var item: [String: Any] = ["method": RestRequest.httpMethod(from: request.method), "url": request.relativeURL]
            if let body = request.requestBodyAsDictionary { item["richInput"] = body }
            return item
        }
        return jsonRequest(.POST, versioned(apiVersion) + "/composite/batch", ["batchRequests": items, "haltOnError": haltOnError])
    }

    /// `/composite`: the requests in one call, each named by its reference id, all or none.
    public func compositeRequest(_ requests: [RestRequest], refIds: [String], allOrNone: Bool, apiVersion: String?) -> RestRequest {
        let items: [[String: Any]] = zip(requests, refIds).map { request, refId in
            var item: [String: Any] = ["method": RestRequest.httpMethod(from: request.method), "url": request.relativeURL, "referenceId": refId]
            if let body = request.requestBodyAsDictionary { item["body"] = body }
            return item
        }
        return jsonRequest(.POST, versioned(apiVersion) + "/composite", ["allOrNone": allOrNone, "compositeRequest": items])
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
        request.setHeaderValue("batchSize=\(min(max(batchSize, SFRestSOQLMinBatchSize), SFRestSOQLMaxBatchSize))", forHeaderName: SFRestQueryOptions)
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

    // MARK: Sending

    /// Sends on a background task; one of the blocks is called with the parsed JSON (or the data, when the
    /// request says `parseResponse = false`) and the HTTP response.
    public func send(_ request: RestRequest, failureBlock: @escaping RestRequestFailBlock, successBlock: @escaping RestResponseBlock) {
        let blocks = Blocks(failure: failureBlock, success: successBlock)
        let parse = request.parseResponse
        let task = perform(request)
        Task.detached {
            switch await task.value {
            case .success(let (data, response)):
                if parse, !data.isEmpty, let json = try? JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed]) {
                    blocks.success(json, response)
                } else {
                    blocks.success(data, response)
                }
            case .failure(let failure):
                blocks.failure(failure.body, failure.error, failure.response)
            }
        }
    }

    public func sendRequest(_ request: RestRequest, failureBlock: @escaping RestRequestFailBlock, successBlock: @escaping RestResponseBlock) {
        send(request, failureBlock: failureBlock, successBlock: successBlock)
    }

    /// Sends a `URLRequest`: to the user's instance with the session's token (refreshed once on a 401), to any
    /// other host as it is.
    public func send(urlRequest: URLRequest, networkServiceType: RestRequest.NetWorkServiceType = .SFNetworkServiceTypeDefault, requiresAuthentication: Bool = true)
        async throws -> (Data, URLResponse)
    {
        guard let url = urlRequest.url, let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            throw RestClientError.invalidRequest("a URLRequest without a URL")
        }
        let method = RestRequest.sfRestMethod(fromHTTPMethod: urlRequest.httpMethod ?? "GET")
        let params = components.queryItems.map { Dictionary($0.map { ($0.name, $0.value ?? "" as Any) }, uniquingKeysWith: { $1 }) }
        let request: RestRequest
        if requiresAuthentication, url.host == userAccount?.credentials.instanceUrl?.host, url.port == userAccount?.credentials.instanceUrl?.port {
            request = RestRequest(method: method, path: components.path, queryParams: params)
            request.endpoint = ""
        } else {
            var base = components
            base.path = ""
            base.query = nil
            request = RestRequest(method: method, baseURL: base.string ?? "", path: components.path, queryParams: params)
        }
        request.body = urlRequest.httpBody
        request.customHeaders = urlRequest.allHTTPHeaderFields
        request.networkServiceType = networkServiceType
        let response = try await send(request: request)
        return (response.asData(), response.urlResponse)
    }

    public func send(request: RestRequest) async throws -> RestResponse {
        switch await perform(request).value {
        case .success(let (data, response)): return RestResponse(data: data, urlResponse: response)
        case .failure(let failure):
            throw RestClientError.apiFailed(response: failure.body, underlyingError: failure.error, urlResponse: failure.response)
        }
    }

    public func publisher(for request: RestRequest) -> Future<RestResponse, RestClientError> {
        Future { promise in
            let promise = UncheckedBox(promise)
            Task.detached {
                do { promise.value(.success(try await self.send(request: request))) } catch let error as RestClientError {
                    promise.value(.failure(error))
                } catch {
                    promise.value(.failure(.apiFailed(response: nil, underlyingError: error, urlResponse: nil)))
                }
            }
        }
    }

    /// A query's answer decoded as the SDK's generic model.
    public struct QueryResponse<Record: Decodable>: Decodable {
        public var totalSize: Int?
        public var done: Bool?
        public var records: [Record]?
    }

    public func fetchRecords<Record: Decodable>(ofModelType modelType: Record.Type, forRequest request: RestRequest, withDecoder decoder: JSONDecoder = .init()) async throws
        -> QueryResponse<Record>
    {
        guard request.isQueryRequest else { throw RestClientError.invalidRequest("Request should be a query request") }
        return try await send(request: request).asDecodable(type: QueryResponse<Record>.self, decoder: decoder)
    }

    public func fetchRecords<Record: Decodable>(
        ofModelType modelType: Record.Type, forQuery query: String, withApiVersion version: String = SFRestDefaultAPIVersion, withDecoder decoder: JSONDecoder = .init()
    ) async throws -> QueryResponse<Record> {
        try await fetchRecords(ofModelType: modelType, forRequest: request(forQuery: query, apiVersion: version), withDecoder: decoder)
    }

    public func records<Record: Decodable>(forRequest request: RestRequest, withDecoder decoder: JSONDecoder = .init()) -> AnyPublisher<QueryResponse<Record>, Never> {
        guard request.isQueryRequest else { return Empty(completeImmediately: true).eraseToAnyPublisher() }
        return publisher(for: request)
            .tryMap { try $0.asDecodable(type: QueryResponse<Record>.self, decoder: decoder) }
            .catch { _ in Just(QueryResponse<Record>(totalSize: 0, done: true, records: [])) }
            .eraseToAnyPublisher()
    }

    public func records<Record: Decodable>(forQuery query: String, withApiVersion version: String = SFRestDefaultAPIVersion, withDecoder decoder: JSONDecoder = .init())
        -> AnyPublisher<QueryResponse<Record>, Never>
    {
        records(forRequest: request(forQuery: query, apiVersion: version), withDecoder: decoder)
    }

    private struct Failure: Error, @unchecked Sendable {
        var body: Any?
        var error: Error
        var response: URLResponse?
    }

    private enum Outcome: @unchecked Sendable {
        case success((Data, URLResponse))
        case failure(Failure)
    }

    /// Sends through the engine, the client's one HTTP path: to the user's instance with the session's tokens
    /// (one refresh on a 401), to another host as it is. A failure is the SDK's error (`RestErrors.nsError`).
    private func perform(_ request: RestRequest) -> Task<Outcome, Never> {
        let task = performTask(request)
        request.sending(task)
        return task
    }

    private func performTask(_ request: RestRequest) -> Task<Outcome, Never> {
        let engine = self.engine
        var engineRequest = request.engine
        engineRequest.timeout = request.timeoutInterval
        let instance = userAccount?.credentials.instanceUrl
        // A request to another host (a custom URL, the login host) goes as it is, without the session's token.
        if let base = request.baseURL {
            var components = URLComponents(string: base + engineRequest.path)
            if !engineRequest.queryItems.isEmpty { components?.queryItems = engineRequest.queryItems }
            guard let url = components?.url else {
                return Task { .failure(Failure(body: nil, error: RestErrors.invalidURL(base + engineRequest.path), response: nil)) }
            }
            var urlRequest = URLRequest(url: url)
            urlRequest.httpMethod = engineRequest.method
            urlRequest.httpBody = engineRequest.body
            for (name, value) in engineRequest.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
            let sending = UncheckedBox(urlRequest)
            let timeout = request.timeoutInterval
            return Task.detached {
                do {
                    let answer = try await HTTPClient.send(sending.value, timeout: timeout)
                    let response = RestErrors.response(url, status: answer.status, headers: answer.headers)
                    guard answer.status < 400 else {
                        let body = try? JSONSerialization.jsonObject(with: answer.body, options: [.fragmentsAllowed])
                        return .failure(Failure(body: body, error: RestErrors.httpError(status: answer.status, body: body, url: url), response: response))
                    }
                    return .success((answer.body, response))
                } catch {
                    return .failure(Failure(body: nil, error: RestErrors.nsError(error, url: url), response: nil))
                }
            }
        }
        return Task.detached {
            guard let engine, let instance else {
                return .failure(Failure(body: nil, error: RestErrors.noUser, response: nil))
            }
            let url = instance.appendingPathComponent(engineRequest.path)
            do {
                let answer = try await engine.send(engineRequest)
                if Task.isCancelled { throw CancellationError() }
                return .success((answer.body, RestErrors.response(url, status: answer.status, headers: answer.headers)))
            } catch let error as RestError {
                let (nsError, body, status) = RestErrors.translate(error, url: url)
                return .failure(Failure(body: body, error: nsError, response: status.map { RestErrors.response(url, status: $0, headers: ["content-type": "application/json"]) }))
            } catch {
                return .failure(Failure(body: nil, error: RestErrors.nsError(error, url: url), response: nil))
            }
        }
    }
}

protocol CancellableTask: Sendable { func cancelTask() }
extension Task: CancellableTask { func cancelTask() { cancel() } }

private struct Blocks: @unchecked Sendable {
    let failure: RestRequestFailBlock
    let success: RestResponseBlock
}

struct UncheckedBox<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
