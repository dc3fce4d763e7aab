import AppGroupSimCombine
import CoreNetworkEngine
import FastJSON
import Foundation

/// The SDK's `SFSDKCompositeSubRequest` (`CompositeSubRequest`): a request of a composite request, named by its
/// reference id (later requests refer to its answer with `@{referenceId.field}`).
public class CompositeSubRequest: RestRequest, @unchecked Sendable {
    public var referenceId: String

    public init(referenceId: String) {
        self.referenceId = referenceId
        super.init(method: .GET, path: "", queryParams: nil)
    }

    init(_ request: RestRequest, referenceId: String) {
        self.referenceId = referenceId
        super.init(method: request.method, path: request.path, queryParams: request.queryParams)
        endpoint = request.endpoint
        baseURL = request.baseURL
        requiresAuthentication = request.requiresAuthentication
        customHeaders = request.customHeaders
        parseResponse = request.parseResponse
        body = request.body
        networkServiceType = request.networkServiceType
        serviceHostType = request.serviceHostType
    }
}

/// The SDK's `SFSDKCompositeRequest` (`CompositeRequest`): `POST /vXX.X/composite`, its sub-requests in order, all
/// or none. Made by `CompositeRequestBuilder`.
public class CompositeRequest: RestRequest, @unchecked Sendable {
    public private(set) var allOrNone = false
    public private(set) var allSubRequests: [CompositeSubRequest] = []

    init(_ subRequests: [CompositeSubRequest], allOrNone: Bool, apiVersion: String) {
        self.allOrNone = allOrNone
        allSubRequests = subRequests
        super.init(method: .POST, path: CompositeBodies.compositePath(apiVersion: apiVersion), queryParams: nil)
        let body = CompositeBodies.composite(subRequests.map { ($0.referenceId, $0.compositePart) }, allOrNone: allOrNone)
        setCustomRequestBodyDictionary(body.foundationValue as? [String: Any] ?? [:], contentType: "application/json")
    }
}

extension RestRequest {
    /// This request as a part of a composite or batch body (written by the engine's `CompositeBodies`).
    var compositePart: CompositeBodies.Part {
        CompositeBodies.Part(
            method: RestRequest.httpMethod(from: method), endpoint: endpoint, path: path, relativeURL: relativeURL,
            body: requestBodyAsDictionary.map { dict in JSON(foundation: Dictionary(uniqueKeysWithValues: dict.compactMap { k, v in (k.base as? String).map { ($0, v) } })) })
    }
}

/// The SDK's `SFSDKCompositeRequestBuilder` (`CompositeRequestBuilder`).
public class CompositeRequestBuilder: NSObject, @unchecked Sendable {
    private var allOrNone = false
    private var subRequests: [CompositeSubRequest] = []

    public override init() { super.init() }

    @discardableResult
    public func setAllOrNone(_ allOrNone: Bool) -> CompositeRequestBuilder {
        self.allOrNone = allOrNone
        return self
    }

    @discardableResult
    public func add(_ request: RestRequest, referenceId: String) -> CompositeRequestBuilder {
        subRequests.append(CompositeSubRequest(request, referenceId: referenceId))
        return self
    }

    @discardableResult
    public func add(_ subRequest: CompositeSubRequest) -> CompositeRequestBuilder {
        subRequests.append(subRequest)
        return self
    }

    public func buildCompositeRequest(_ apiVersion: String) -> CompositeRequest {
        CompositeRequest(subRequests, allOrNone: allOrNone, apiVersion: apiVersion)
    }
}

/// The SDK's `SFSDKBatchRequest` (`BatchRequest`): `POST /vXX.X/composite/batch`, independent requests, and whether
/// the org stops at the first that fails. Made by `BatchRequestBuilder`.
public class BatchRequest: RestRequest, @unchecked Sendable {
    public private(set) var haltOnError = false
    public private(set) var batchRequests: [RestRequest] = []

    init(_ requests: [RestRequest], haltOnError: Bool, apiVersion: String) {
        self.haltOnError = haltOnError
        batchRequests = requests
        super.init(method: .POST, path: CompositeBodies.batchPath(apiVersion: apiVersion), queryParams: nil)
        let body = CompositeBodies.batch(requests.map(\.compositePart), haltOnError: haltOnError)
        setCustomRequestBodyDictionary(body.foundationValue as? [String: Any] ?? [:], contentType: "application/json")
    }
}

/// The SDK's `SFSDKBatchRequestBuilder` (`BatchRequestBuilder`).
public class BatchRequestBuilder: NSObject, @unchecked Sendable {
    private var haltOnError = false
    private var requests: [RestRequest] = []

    public override init() { super.init() }

    @discardableResult
    public func setHaltOnError(_ haltOnError: Bool) -> BatchRequestBuilder {
        self.haltOnError = haltOnError
        return self
    }

    @discardableResult
    public func add(_ request: RestRequest) -> BatchRequestBuilder {
        requests.append(request)
        return self
    }

    public func buildBatchRequest(_ apiVersion: String) -> BatchRequest {
        BatchRequest(requests, haltOnError: haltOnError, apiVersion: apiVersion)
    }
}

/// The SDK's `SFSDKCompositeSubResponse` (`CompositeSubResponse`).
public class CompositeSubResponse: NSObject, @unchecked Sendable {
    public let dict: Any
    public let body: Any
    public let httpHeaders: [String: String]
    public let httpStatusCode: Int
    public let referenceId: String

    /// The SDK's `-initWith:`, which Swift names `init(_:)`.
    public convenience init(_ dict: [AnyHashable: Any]) {
        self.init(with: Dictionary(dict.compactMap { key, value in (key.base as? String).map { ($0, value) } }, uniquingKeysWith: { _, last in last }))
    }

    init(with dict: [String: Any]) {
        self.dict = dict
        body = dict["body"] ?? NSNull()
        httpHeaders = dict["httpHeaders"] as? [String: String] ?? [:]
        httpStatusCode = dict["httpStatusCode"] as? Int ?? 0
        referenceId = dict["referenceId"] as? String ?? ""
    }

    public override var description: String { "\(dict)" }
}

/// The SDK's `SFSDKCompositeResponse` (`CompositeResponse`).
public class CompositeResponse: NSObject, @unchecked Sendable {
    public let subResponses: [CompositeSubResponse]

    /// The SDK's `-initWith:`, which Swift names `init(_:)`.
    public convenience init(_ dict: [AnyHashable: Any]) { self.init(with: dict) }

    public init(with dict: [AnyHashable: Any]) {
        subResponses = (dict["compositeResponse"] as? [[String: Any]] ?? []).map(CompositeSubResponse.init(with:))
    }
}

/// The SDK's `SFSDKBatchResponse` (`BatchResponse`).
public class BatchResponse: NSObject, @unchecked Sendable {
    public let hasErrors: Bool
    public let results: [Any]

    /// The SDK's `-initWith:`, which Swift names `init(_:)`.
    public convenience init(_ dict: [AnyHashable: Any]) { self.init(with: dict) }

    public init(with dict: [AnyHashable: Any]) {
        hasErrors = dict["hasErrors"] as? Bool ?? false
        results = dict["results"] as? [Any] ?? []
    }
}

extension RestClient {
    /// Sends a composite request; its answer as a `CompositeResponse` (each sub-response with its own status).
    public func send(compositeRequest: CompositeRequest) async throws -> CompositeResponse {
        CompositeResponse(with: try await send(request: compositeRequest).asJson() as? [String: Any] ?? [:])
    }

    /// Sends a batch request; its answer as a `BatchResponse`.
    public func send(batchRequest: BatchRequest) async throws -> BatchResponse {
        BatchResponse(with: try await send(request: batchRequest).asJson() as? [String: Any] ?? [:])
    }

    public func send(compositeRequest: CompositeRequest, _ completionBlock: @escaping (Result<CompositeResponse, RestClientError>) -> Void) {
        let completion = UncheckedBox(completionBlock)
        Task.detached { completion.value(await Self.result { try await self.send(compositeRequest: compositeRequest) }) }
    }

    public func send(batchRequest: BatchRequest, _ completionBlock: @escaping (Result<BatchResponse, RestClientError>) -> Void) {
        let completion = UncheckedBox(completionBlock)
        Task.detached { completion.value(await Self.result { try await self.send(batchRequest: batchRequest) }) }
    }

    public func publisher(for request: CompositeRequest) -> Future<CompositeResponse, RestClientError> {
        Future { promise in
            let promise = UncheckedBox(promise)
            Task.detached { promise.value(await Self.result { try await self.send(compositeRequest: request) }) }
        }
    }

    public func publisher(for request: BatchRequest) -> Future<BatchResponse, RestClientError> {
        Future { promise in
            let promise = UncheckedBox(promise)
            Task.detached { promise.value(await Self.result { try await self.send(batchRequest: request) }) }
        }
    }

    static func result<T>(_ body: () async throws -> T) async -> Result<T, RestClientError> {
        do { return .success(try await body()) } catch let error as RestClientError { return .failure(error) } catch {
            return .failure(.apiFailed(response: nil, underlyingError: error, urlResponse: nil))
        }
    }
}
