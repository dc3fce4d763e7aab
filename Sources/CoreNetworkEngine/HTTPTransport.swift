import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession underneath, with redirects left to the caller (the login flow reads the code from a
/// redirect to the app's custom scheme) and connection failures mapped to `RestError.offline`.
final class HTTPTransport: NSObject, URLSessionTaskDelegate, @unchecked Sendable {
    private var session: URLSession!

    init(timeout: TimeInterval) {
        super.init()
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    struct Reply: Sendable {
        var status: Int
        var headers: [String: String]
        var body: Data
    }

    func send(_ request: URLRequest) async throws(RestError) -> Reply {
        let result: Result<Reply, RestError> = await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request) { data, response, error in
                if let error {
                    continuation.resume(returning: .failure(.offline(Self.describe(error))))
                    return
                }
                guard let http = response as? HTTPURLResponse else {
                    continuation.resume(returning: .failure(.malformedResponse("not an HTTP response")))
                    return
                }
                var headers: [String: String] = [:]
                for (k, v) in http.allHeaderFields {
                    if let k = k as? String, let v = v as? String { headers[k.lowercased()] = v }
                }
                continuation.resume(returning: .success(Reply(status: http.statusCode, headers: headers, body: data ?? Data())))
            }
            task.resume()
        }
        return try result.get()
    }

    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }

    /// A URLError's message without the URL, which may carry a query with secrets.
    static func describe(_ error: any Error) -> String {
        guard let urlError = error as? URLError else { return "\(type(of: error))" }
        switch urlError.code {
        case .cannotConnectToHost: return "connection refused"
        case .timedOut: return "timed out"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "not connected"
        default: return "URLError \(urlError.code.rawValue)"
        }
    }
}
