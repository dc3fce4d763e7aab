import Foundation
import Hummingbird
import NIOCore

/// What a route answers, as a value: composite requests run sub-requests through the same
/// operations and read their answers back.
struct Outcome: ResponseGenerator, Sendable {
    var status: HTTPResponse.Status
    var headers: HTTPFields = [:]
    var body = Data()

    func response(from request: Request, context: some RequestContext) throws -> Response { response }

    var response: Response {
        Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// The body as JSON (nil when empty).
    var json: Any? { body.isEmpty ? nil : try? JSONSerialization.jsonObject(with: body) }
}

/// Answers in Salesforce's shapes, and the small parsing every route needs.
enum HTTP {
    static func json(_ status: HTTPResponse.Status, _ object: Any) -> Outcome {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.withoutEscapingSlashes])) ?? Data("{}".utf8)
        return Outcome(status: status, headers: [.contentType: "application/json;charset=UTF-8"], body: data)
    }

    /// `[{"message": …, "errorCode": …, "fields": […]}]`, the REST API's error shape.
    /// In Salesforce's order, whatever the process: a dictionary would give each process its own order.
    static func error(_ status: HTTPResponse.Status, _ code: String, _ message: String, fields: [String] = []) -> Outcome {
        func encoded(_ value: Any) -> String {
            let data = (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .withoutEscapingSlashes])) ?? Data("null".utf8)
            return String(decoding: data, as: UTF8.self)
        }
        let body = "[{\"message\":\(encoded(message)),\"errorCode\":\(encoded(code)),\"fields\":\(encoded(fields))}]"
        return Outcome(status: status, headers: [.contentType: "application/json;charset=UTF-8"], body: Data(body.utf8))
    }

    /// `{"error": …, "error_description": …}`, the OAuth endpoints' error shape.
    static func oauthError(_ status: HTTPResponse.Status, _ error: String, _ description: String) -> Outcome {
        json(status, ["error": error, "error_description": description])
    }

    static func html(_ status: HTTPResponse.Status, _ page: String) -> Outcome {
        Outcome(status: status, headers: [.contentType: "text/html;charset=UTF-8"], body: Data(page.utf8))
    }

    static func redirect(_ location: String) -> Outcome {
        Outcome(status: .found, headers: [.location: location])
    }

    static func empty(_ status: HTTPResponse.Status) -> Outcome { Outcome(status: status) }

    static func noContent() -> Outcome { Outcome(status: .noContent) }

    /// Request bodies above this are 413 (`ErrorShapeMiddleware` gives the JSON).
    static let maxBodyBytes = 32 << 20

    static func body(_ request: Request) async throws -> Data {
        var request = request
        let buffer: ByteBuffer
        do {
            buffer = try await request.collectBody(upTo: maxBodyBytes)
        } catch is NIOTooManyBytesError {
            throw HTTPError(.contentTooLarge)
        }
        return Data(buffer.readableBytesView)
    }

    /// `application/x-www-form-urlencoded` into a dictionary.
    static func form(_ data: Data) -> [String: String] {
        var out: [String: String] = [:]
        for pair in String(decoding: data, as: UTF8.self).split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
            guard let key = decode(kv[0]) else { continue }
            out[key] = kv.count > 1 ? decode(kv[1]) ?? "" : ""
        }
        return out
    }

    /// A path segment: percent-decoded, `+` kept.
    static func decodePath(_ s: String) -> String { s.removingPercentEncoding ?? s }

    /// Every query parameter, form-decoded.
    static func queryItems(_ request: Request) -> [String: String] {
        guard let raw = request.uri.query else { return [:] }
        return form(Data(raw.utf8))
    }

    static func decode(_ s: String) -> String? { s.replacingOccurrences(of: "+", with: " ").removingPercentEncoding }

    /// A query parameter, read from the raw query string as form encoding: `+` is a space, `%2B` a plus
    /// (curl and URLSession differ in which they send for a space).
    static func query(_ request: Request, _ name: String) -> String? {
        guard let raw = request.uri.query else { return nil }
        return form(Data(raw.utf8))[name]
    }

    static func escapeHTML(_ s: String) -> String {
        s.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }

    /// `v31.0` to `v66.0`, as the real API accepts.
    static func isSupportedVersion(_ version: String) -> Bool {
        guard version.hasPrefix("v"), let number = Double(version.dropFirst()) else { return false }
        return number >= 31 && number <= 66
    }

    static func parseJSONObject(_ data: Data) -> [String: Any]? {
        (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
    }
}

extension SalesforceError {
    /// The REST API's answer for this error.
    var outcome: Outcome { HTTP.error(HTTPResponse.Status(code: status.rawValue), errorCode, message, fields: fields) }
}
