import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// The SDK's RestClient+Blocks.swift: the block forms over the same sends (its deprecated SDK 13 forms included,
// since the SDK's own tests still call them).

/// A block that gets a response's JSON object and the raw response.
public typealias SFRestDictionaryResponseBlock = (_ dict: [String: Any]?, _ rawResponse: URLResponse?) -> Void
/// A block that gets a response's JSON array and the raw response.
public typealias SFRestArrayResponseBlock = (_ array: [Any]?, _ rawResponse: URLResponse?) -> Void
/// A block that gets a response's body and the raw response.
public typealias SFRestDataResponseBlock = (_ data: Data?, _ rawResponse: URLResponse?) -> Void
/// A block that gets a composite request's `CompositeResponse` and the raw response.
public typealias SFRestCompositeResponseBlock = (_ response: CompositeResponse, _ rawResponse: URLResponse?) -> Void
/// A block that gets a batch request's `BatchResponse` and the raw response.
public typealias SFRestBatchResponseBlock = (_ response: BatchResponse, _ rawResponse: URLResponse?) -> Void

extension RestClient {
    /// An error with this description, as the SDK makes them (domain `API Error`, code 42).
    public static func error(withDescription description: String) -> NSError {
        NSError(domain: "API Error", code: 42, userInfo: [NSLocalizedDescriptionKey: description, NSFilePathErrorKey: ""])
    }

    public func sendCompositeRequest(_ request: CompositeRequest, failureBlock: @escaping SFRestRequestFailBlock, successBlock: @escaping SFRestCompositeResponseBlock) {
        sendRequest(request, failureBlock: failureBlock) { response, rawResponse in
            guard let dict = response as? [AnyHashable: Any] else {
                return failureBlock(response, RestClient.error(withDescription: "CompositeResponse format invalid"), rawResponse)
            }
            successBlock(CompositeResponse(dict), rawResponse)
        }
    }

    public func sendBatchRequest(_ request: BatchRequest, failureBlock: @escaping SFRestRequestFailBlock, successBlock: @escaping SFRestBatchResponseBlock) {
        sendRequest(request, failureBlock: failureBlock) { response, rawResponse in
            guard let dict = response as? [AnyHashable: Any] else {
                return failureBlock(response, RestClient.error(withDescription: "BatchResponse format invalid"), rawResponse)
            }
            successBlock(BatchResponse(dict), rawResponse)
        }
    }

    public func send(request: RestRequest, _ completionBlock: @escaping (Result<RestResponse, RestClientError>) -> Void) {
        let completion = UncheckedBox(completionBlock)
        Task.detached { completion.value(await Self.result { try await self.send(request: request) }) }
    }

    /// A query's records decoded as `Record`; a body that does not decode is an empty page, as the SDK's. A
    /// request that is not a query gets no answer, as the SDK's.
    public func fetchRecords<Record: Decodable>(
        ofModelType modelType: Record.Type, forRequest request: RestRequest, withDecoder decoder: JSONDecoder = .init(),
        _ completionBlock: @escaping (Result<QueryResponse<Record>, RestClientError>) -> Void
    ) {
        guard request.isQueryRequest else { return }
        let decoder = UncheckedBox(decoder)
        send(request: request) { result in
            switch result {
            case .success(let response):
                let page = (try? response.asDecodable(type: QueryResponse<Record>.self, decoder: decoder.value)) ?? QueryResponse<Record>(totalSize: 0, done: true, records: [])
                completionBlock(.success(page))
            case .failure(let error):
                completionBlock(.failure(error))
            }
        }
    }

    public func fetchRecords<Record: Decodable>(
        ofModelType modelType: Record.Type, forQuery query: String, withApiVersion version: String = SFRestDefaultAPIVersion,
        withDecoder decoder: JSONDecoder = .init(), _ completionBlock: @escaping (Result<QueryResponse<Record>, RestClientError>) -> Void
    ) {
        fetchRecords(ofModelType: modelType, forRequest: request(forQuery: query, apiVersion: version), withDecoder: decoder, completionBlock)
    }
}
