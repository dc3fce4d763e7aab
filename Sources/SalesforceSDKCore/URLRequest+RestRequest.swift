import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLRequest {
    /// The SDK's `URLRequest.toRestRequest(_:_:)`: a `RestRequest` with this request's method, base URL (scheme and
    /// host), path (also its endpoint, as the SDK sets it), query parameters, headers, timeout and body; nil without
    /// a URL.
    public func toRestRequest(
        _ networkServiceType: RestRequest.NetWorkServiceType = .SFNetworkServiceTypeDefault, _ requiresAuthentication: Bool = true
    ) -> RestRequest? {
        guard let url else { return nil }
        var queryParams: [String: Any] = [:]
        for item in URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? [] { queryParams[item.name] = item.value }
        let request = RestRequest(
            method: RestRequest.sfRestMethod(fromHTTPMethod: httpMethod ?? "GET"), baseURL: "\(url.scheme ?? "https")://\(url.host ?? "")",
            path: url.path, queryParams: queryParams)
        for (name, value) in allHTTPHeaderFields ?? [:] { request.setHeaderValue(value, forHeaderName: name) }
        request.timeoutInterval = timeoutInterval
        if let httpBody {
            request.setCustomRequestBodyData(httpBody, contentType: allHTTPHeaderFields?["Content-Type"] ?? "application/octet-stream")
        }
        request.endpoint = url.path
        request.networkServiceType = networkServiceType
        request.requiresAuthentication = requiresAuthentication
        return request
    }
}
