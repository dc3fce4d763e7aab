import Foundation
import SchedulePoints
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// URLSession underneath, with redirects left to the caller (the login flow reads the code from a
/// redirect to the app's custom scheme) and connection failures mapped to `RestError.offline`.
///
/// A session keeps its delegate, and its sockets, until it is invalidated: the delegate is an object of its own
/// (not this transport, which keeps the session), and the session is invalidated when the transport goes, its
/// requests in flight finished first. A transport that made its session its own delegate was never freed, and
/// a process that makes many clients (a test run, `msdk-sim explore`) kept every one's sockets open.
final class HTTPTransport: Sendable {
    private let session: URLSession

    init(timeout: TimeInterval) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.httpCookieStorage = nil
        configuration.urlCache = nil
        session = URLSession(configuration: configuration, delegate: RedirectsToTheCaller(), delegateQueue: nil)
    }

    deinit {
        session.finishTasksAndInvalidate()
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
        // Under `msdk-sim explore`, a point: the org has answered and the process has not acted on the answer. The
        // detail is the method, the path (never the query, which may carry a secret) and the status.
        if case .success(let reply) = result {
            SchedulePoint.reach(.networkResponse, "\(request.httpMethod ?? "GET") \(request.url?.path ?? "") \(reply.status)")
        }
        return try result.get()
    }

    /// A redirect is given to the caller as the answer, never followed.
    private final class RedirectsToTheCaller: NSObject, URLSessionTaskDelegate, Sendable {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
            newRequest request: URLRequest, completionHandler: @escaping @Sendable (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }

    /// A URLError as a value and a message, without the URL, which may carry a query with secrets.
    static func describe(_ error: any Error) -> NetworkFailure {
        guard let urlError = error as? URLError else { return NetworkFailure(.other, "\(type(of: error))") }
        switch urlError.code {
        case .cannotConnectToHost: return NetworkFailure(.refused, "connection refused")
        case .timedOut: return NetworkFailure(.timedOut, "timed out")
        case .cannotFindHost, .dnsLookupFailed: return NetworkFailure(.hostNotFound, "host not found")
        case .networkConnectionLost: return NetworkFailure(.connectionLost, "connection lost")
        case .notConnectedToInternet: return NetworkFailure(.notConnected, "not connected")
        case .cancelled: return NetworkFailure(.cancelled, "cancelled")
        default: return NetworkFailure(.other, "URLError \(urlError.code.rawValue)")
        }
    }
}

/// A request to a host other than the user's instance, without the session's token (the SDK's custom-URL
/// requests, the APNs stand-in): the one HTTP path of the client, with its timeout and its errors.
package enum HTTPClient {
    package struct Answer: Sendable {
        package var status: Int
        package var headers: [String: String]
        package var body: Data
    }

    /// Any status is an answer; no connection is `RestError.offline` with what the connection did.
    package static func send(_ request: URLRequest, timeout: TimeInterval = 30) async throws(RestError) -> Answer {
        let reply = try await HTTPTransport(timeout: timeout).send(request)
        return Answer(status: reply.status, headers: reply.headers, body: reply.body)
    }

    /// A POST whose only success is 200 (the APNs stand-in, `POST /__apns/devices`): 10 s.
    package static func post(_ url: URL, contentType: String, body: Data, headers: [String: String] = [:]) async throws {
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.httpMethod = "POST"
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.httpBody = body
        let answer = try await send(request, timeout: 10)
        guard answer.status == 200 else { throw RestClient.httpError(HTTPTransport.Reply(status: answer.status, headers: answer.headers, body: answer.body)) }
    }
}
