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

/// The SDK's Swift `RestClientError`.
public enum RestClientError: Error, @unchecked Sendable {
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

extension RestClient {
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
