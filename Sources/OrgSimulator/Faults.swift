import Foundation
import Hummingbird

/// Faults a test can switch on at start (`sf-simulator` flags) or at run time (`POST /__admin/faults`):
/// added latency, a rate of 5xx answers, malformed JSON bodies. Randomness is seeded, so a failing
/// run can be replayed with the same seed. (Token expiry and revocation act on the org state.)
public struct FaultSettings: Sendable, Codable, Equatable {
    public var latencyMs: Int = 0
    /// 0…1: the share of API requests answered 503.
    public var errorRate: Double = 0
    /// Truncate JSON bodies of API answers.
    public var malformedBodies: Bool = false
    public var seed: UInt64 = 1

    public init(latencyMs: Int = 0, errorRate: Double = 0, malformedBodies: Bool = false, seed: UInt64 = 1) {
        self.latencyMs = latencyMs
        self.errorRate = errorRate
        self.malformedBodies = malformedBodies
        self.seed = seed
    }
}

actor FaultState {
    private(set) var settings: FaultSettings
    private var random: UInt64

    init(_ settings: FaultSettings) {
        self.settings = settings
        random = settings.seed
    }

    func update(_ change: (inout FaultSettings) -> Void) {
        let seed = settings.seed
        change(&settings)
        if settings.seed != seed { random = settings.seed }
    }

    /// The next number in [0, 1) of the seeded sequence (SplitMix64).
    func nextUnit() -> Double {
        random &+= 0x9E37_79B9_7F4A_7C15
        var z = random
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        z ^= z >> 31
        return Double(z >> 11) / Double(1 << 53)
    }
}

/// Applies the faults to every request except the admin route.
struct FaultMiddleware: RouterMiddleware {
    typealias Context = BasicRequestContext
    let faults: FaultState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix("/__admin") { return try await next(request, context) }
        let settings = await faults.settings
        if settings.latencyMs > 0 { try await Task.sleep(nanoseconds: UInt64(settings.latencyMs) * 1_000_000) }
        if settings.errorRate > 0, await faults.nextUnit() < settings.errorRate {
            return HTTP.error(.serviceUnavailable, "SERVER_UNAVAILABLE", "The server is temporarily unavailable (injected fault)").response
        }
        var response = try await next(request, context)
        if settings.malformedBodies, response.headers[.contentType]?.hasPrefix("application/json") == true {
            var buffer = ByteBuffer()
            buffer.writeString("{\"totalSize\": 3, \"records\": [{\"Id\": ")
            response.body = .init(byteBuffer: buffer)
            response.headers[.contentLength] = nil
        }
        return response
    }
}

/// `/__admin/faults` (the server listens on 127.0.0.1 only): read and change faults, expire tokens,
/// revoke a user's sessions.
struct AdminRoutes {
    let state: OrgState
    let faults: FaultState
    /// Closes the listener for this many seconds (connections are refused), then reopens it.
    let goOffline: @Sendable (Double) -> Void

    func register(on router: Router<BasicRequestContext>) {
        router.get("/__admin/faults") { _, _ in HTTP.json(.ok, try await self.current()) }
        router.post("/__admin/faults") { request, _ in try await self.change(request) }
    }

    private func current() async throws -> Any {
        let data = try JSONEncoder().encode(await faults.settings)
        return try JSONSerialization.jsonObject(with: data)
    }

    /// Body: any of `latencyMs`, `errorRate`, `malformedBodies`, `seed`, `tokenLifetime` (seconds),
    /// `expireTokens: true`, `revokeUser: "<username>"`, `offlineForSeconds: N`, `reset: true`.
    private func change(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)) else {
            return HTTP.error(.badRequest, "JSON_PARSER_ERROR", "expected a JSON object")
        }
        if body["reset"] as? Bool == true { await faults.update { $0 = FaultSettings() } }
        if let v = body["latencyMs"] as? Int { await faults.update { $0.latencyMs = max(0, v) } }
        if let v = body["errorRate"] as? Double { await faults.update { $0.errorRate = min(max(v, 0), 1) } }
        if let v = body["malformedBodies"] as? Bool { await faults.update { $0.malformedBodies = v } }
        if let v = body["seed"] as? Int { await faults.update { $0.seed = UInt64(truncatingIfNeeded: v) } }
        if let v = body["tokenLifetime"] as? Double { await state.setTokenLifetime(v) }
        if body["expireTokens"] as? Bool == true { await state.expireAllAccessTokens() }
        var revoked = 0
        if let user = body["revokeUser"] as? String { revoked = try await state.revokeUser(username: user) }
        var answer = try await current() as? [String: Any] ?? [:]
        answer["revokedGrants"] = revoked
        if let seconds = body["offlineForSeconds"] as? Double, seconds > 0 {
            goOffline(seconds)
            answer["offlineForSeconds"] = seconds
        }
        return HTTP.json(.ok, answer)
    }
}
