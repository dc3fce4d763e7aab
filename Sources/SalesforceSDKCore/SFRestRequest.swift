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
public let SFRestCollectionRetrieveMaxSize = CoreNetworkEngine.RestRequest.collectionRetrieveMaxSize
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
public class RestRequest: NSObject, @unchecked Sendable {
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
    var relativeURL: String { endpoint + effectivePath + queryString }

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

    /// `prepareRequestForSend:` (Swift: `prepare(forSend:)`): the `URLRequest` for the user, put together as the SDK
    /// does: a path that is a whole `https://` URL as it is; else the base URL (the request's, or the user's login
    /// host or instance), the endpoint and the path (without the endpoint when it starts with it), the query; the
    /// timeout, the method, the user's access token unless an `Authorization` header is given, the headers, the body.
    public func prepare(forSend user: UserAccount) -> URLRequest? {
        let url: URL?
        if path.lowercased().hasPrefix("https://") {
            url = URL(string: path)
        } else {
            let base = baseURL ?? (serviceHostType == .login ? user.credentials.engine.loginHost.absoluteString : user.credentials.instanceUrl?.absoluteString)
            guard var full = base else { return nil }
            if !full.hasSuffix("/") { full += "/" }
            var point = endpoint
            if point.hasPrefix("/") { point.removeFirst() }
            var rest = effectivePath
            if rest.hasPrefix("/") { rest.removeFirst() }
            // The SDK ends the endpoint with "/" even when no path follows; here that slash is left out.
            if !point.isEmpty, !point.hasSuffix("/"), !rest.isEmpty { point += "/" }
            full += point + rest + queryString
            url = URL(string: full)
        }
        guard let url else { return nil }
        var request = URLRequest(url: url)
        request.timeoutInterval = timeoutInterval
        request.httpMethod = Self.httpMethod(from: method)
        if requiresAuthentication, customHeaders?["Authorization"] == nil, let token = user.credentials.accessToken {
            request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        }
        for (name, value) in customHeaders ?? [:] { request.setValue(value, forHTTPHeaderField: name) }
        request.httpBody = body
        return request
    }

    /// The name this project used before `prepare(forSend:)`.
    public func prepareRequest(forSend user: UserAccount) -> URLRequest? { prepare(forSend: user) }

    /// The path without the endpoint when it starts with it (the SDK's sanity check of the two).
    var effectivePath: String { !endpoint.isEmpty && path.hasPrefix(endpoint) ? String(path.dropFirst(endpoint.count)) : path }

    /// `?a=1&b=2` (sorted by name), or empty.
    var queryString: String {
        let query = (queryParams ?? [:]).sorted { $0.key < $1.key }
            .map { "\($0.key)=\(String(describing: $0.value).addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? "")" }.joined(separator: "&")
        return query.isEmpty ? "" : "?" + query
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

    let inFlightLock = NSLock()
    nonisolated(unsafe) var inFlight: (any CancellableTask)?

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
        let path = effectivePath
        let fullPath = (endpoint.isEmpty ? "" : endpoint) + (path.hasPrefix("/") || endpoint.isEmpty ? path : "/" + path)
        return CoreNetworkEngine.RestRequest(method: Self.httpMethod(from: method), path: fullPath, queryItems: items, body: body, headers: customHeaders ?? [:])
    }

    public override var description: String { "RestRequest(\(Self.httpMethod(from: method)) \(endpoint)\(path))" }
}
