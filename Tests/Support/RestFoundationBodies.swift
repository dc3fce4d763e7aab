import Foundation
import CoreEngine
import CoreNetworkEngine

// Tests of the simulated org build request bodies and read answers as Foundation objects: any shape,
// including ones no client would send. The client side itself has one JSON model (FastJSON and
// Codable answers); these helpers live here, with the tests, not in RestClient.

extension RestRequest {
    /// A request whose body is Foundation objects (a dictionary or array literal).
    package static func json(_ method: String, _ path: String, _ object: Any) throws -> RestRequest {
        RestRequest(
            method: method, path: path, body: try JSONSerialization.data(withJSONObject: object), headers: ["Content-Type": "application/json"])
    }
}

extension RestResponse {
    /// The body as Foundation objects; an empty body is an empty dictionary.
    package func json() throws -> Any {
        guard !body.isEmpty else { return [String: Any]() }
        return try JSONSerialization.jsonObject(with: body)
    }

    /// The body as a dictionary.
    package func object() throws -> [String: Any] {
        guard let object = try json() as? [String: Any] else { throw RestError.malformedResponse("expected a JSON object") }
        return object
    }
}
