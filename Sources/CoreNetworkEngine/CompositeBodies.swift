import FastJSON

/// How the SDK writes the body of a composite request (`SFSDKCompositeRequest`, `POST /vXX.X/composite`) and of a
/// batch request (`SFSDKBatchRequest`, `POST /vXX.X/composite/batch`): the one home of that rule. The face's
/// builders (`CompositeRequestBuilder`, `BatchRequestBuilder`) give each request's parts and send what this writes.
package enum CompositeBodies {
    /// One request inside a composite or batch request, as the SDK's request object holds it.
    package struct Part: Sendable {
        /// `GET`, `POST`, `PATCH`, `DELETE`…
        package var method: String
        /// The endpoint (`/services/data`), empty for a request with a URL of its own.
        package var endpoint: String
        /// The request's path as it was given (`/v66.0/sobjects/Contact`).
        package var path: String
        /// The endpoint, the path as it is sent and the query: the request's URL below the instance.
        package var relativeURL: String
        package var body: JSON?

        package init(method: String, endpoint: String, path: String, relativeURL: String, body: JSON?) {
            self.method = method
            self.endpoint = endpoint
            self.path = path
            self.relativeURL = relativeURL
            self.body = body
        }

        /// A GET or DELETE carries its parameters in its URL; the others carry a body.
        var parametersInURL: Bool { method == "GET" || method == "DELETE" }
    }

    package static func compositePath(apiVersion: String) -> String { "/\(apiVersion)/composite" }
    package static func batchPath(apiVersion: String) -> String { "/\(apiVersion)/composite/batch" }

    /// `{"compositeRequest": [{"referenceId", "method", "url", "body"?}…], "allOrNone"}`: the URL from the
    /// endpoint on (with the query for a GET or DELETE), the body as it is.
    package static func composite(_ parts: [(referenceId: String, part: Part)], allOrNone: Bool) -> JSON {
        let items: [JSON] = parts.map { referenceId, part in
            var item: [String: JSON] = ["referenceId": .string(referenceId), "method": .string(part.method)]
            if part.parametersInURL {
                item["url"] = .string(part.relativeURL)
            } else {
                item["url"] = .string(part.endpoint + part.path)
                if let body = part.body { item["body"] = body }
            }
            return .object(item)
        }
        return .object(["compositeRequest": .array(items), "allOrNone": .bool(allOrNone)])
    }

    /// `{"batchRequests": [{"method", "url", "richInput"?}…], "haltOnError"}`: the URL from the version on (with
    /// the query for a GET or DELETE), the body as `richInput`.
    package static func batch(_ parts: [Part], haltOnError: Bool) -> JSON {
        let items: [JSON] = parts.map { part in
            var item: [String: JSON] = ["method": .string(part.method)]
            if part.parametersInURL {
                item["url"] = .string(String(part.relativeURL.dropFirst(part.endpoint.count)))
            } else {
                item["url"] = .string(part.path)
                if let body = part.body { item["richInput"] = body }
            }
            return .object(item)
        }
        return .object(["batchRequests": .array(items), "haltOnError": .bool(haltOnError)])
    }
}
