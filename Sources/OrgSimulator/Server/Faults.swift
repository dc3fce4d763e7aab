import Foundation
import Hummingbird

/// Faults a test can switch on at start (`sf-simulator` flags) or at run time (`POST /__admin/faults`):
/// added latency, a rate of 5xx answers, malformed JSON bodies. Randomness is seeded, so a failing
/// run can be replayed with the same seed. (Token expiry and revocation act on the org state.)
package struct FaultSettings: Sendable, Codable, Equatable {
    package var latencyMs: Int = 0
    /// 0…1: the share of API requests answered 503.
    package var errorRate: Double = 0
    /// Truncate JSON bodies of API answers.
    package var malformedBodies: Bool = false
    package var seed: UInt64 = 1
    /// Milliseconds the answer to an API write waits after the write is applied: a window in which a
    /// client can be killed with its change made at the org and not yet known to it.
    package var writeResponseDelayMs: Int = 0

    package init(latencyMs: Int = 0, errorRate: Double = 0, malformedBodies: Bool = false, seed: UInt64 = 1, writeResponseDelayMs: Int = 0) {
        self.latencyMs = latencyMs
        self.errorRate = errorRate
        self.malformedBodies = malformedBodies
        self.seed = seed
        self.writeResponseDelayMs = writeResponseDelayMs
    }
}

actor FaultState {
    private(set) var settings: FaultSettings
    private var random: UInt64
    /// API writes answered with success since start (for `GET /__admin/faults`).
    private(set) var appliedWrites = 0

    func countWrite() { appliedWrites += 1 }

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
    typealias Context = OrgContext
    let faults: FaultState

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if request.uri.path.hasPrefix("/__admin") { return try await next(request, context) }
        let settings = await faults.settings
        if settings.latencyMs > 0 { try await Task.sleep(nanoseconds: UInt64(settings.latencyMs) * 1_000_000) }
        if settings.errorRate > 0, await faults.nextUnit() < settings.errorRate {
            return HTTP.error(.serviceUnavailable, "SERVER_UNAVAILABLE", "The server is temporarily unavailable (injected fault)").response
        }
        var response = try await next(request, context)
        if request.method != .get, request.uri.path.hasPrefix("/services/data/"), response.status.code < 300 {
            await faults.countWrite()
            if settings.writeResponseDelayMs > 0 { try await Task.sleep(nanoseconds: UInt64(settings.writeResponseDelayMs) * 1_000_000) }
        }
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

    func register(on router: Router<OrgContext>) {
        router.get("/__admin/faults") { _, _ in HTTP.json(.ok, try await self.current()) }
        router.post("/__admin/faults") { request, _ in try await self.change(request) }
    }

    private func current() async throws -> Any {
        let data = try JSONEncoder().encode(await faults.settings)
        var answer = try JSONSerialization.jsonObject(with: data) as? [String: Any] ?? [:]
        answer["appliedWrites"] = await faults.appliedWrites
        answer["tokenRefreshes"] = try state.grants.tokenRefreshes()
        answer["openCursors"] = try await state.database.store.read { db in try state.queries.openCursorCount(db) }
        return answer
    }

    /// Body: any of `latencyMs`, `errorRate`, `malformedBodies`, `seed`, `tokenLifetime` (seconds),
    /// `expireTokens: true`, `revokeUser: "<username>"`, `offlineForSeconds: N`, `reset: true`.
    /// Every value is checked before any is applied: one out of range, of the wrong type, or an unknown
    /// key is a 400 in Salesforce's error shape, and nothing changes.
    private func change(_ request: Request) async throws -> Outcome {
        guard let body = HTTP.parseJSONObject(try await HTTP.body(request)) else {
            return HTTP.error(.badRequest, "JSON_PARSER_ERROR", "expected a JSON object")
        }
        let change: FaultChange
        do {
            change = try FaultChange(body)
        } catch let error as FaultChange.Invalid {
            return HTTP.error(.badRequest, "INVALID_FIELD", error.message, fields: [error.key])
        }
        // The record to hold is checked before anything changes: one that is not there is refused.
        var holdTable: String?
        if let hold = change.holdRecordLock {
            let key = OrgState.key(hold.id)
            guard let object = state.records.object(ofId: hold.id),
                try await state.database.store.read({ db in
                    try db.value(as: Int.self, "SELECT 1 FROM \(OrgDatabase.quote(object.table)) WHERE \"Id\" = ?", [key])
                }) != nil
            else {
                return HTTP.error(.badRequest, "INVALID_FIELD", "holdRecordLock: no record \(hold.id) in this org", fields: ["holdRecordLock"])
            }
            holdTable = object.table
        }
        if change.reset { await faults.update { $0 = FaultSettings() } }
        await faults.update { settings in
            if let v = change.latencyMs { settings.latencyMs = v }
            if let v = change.errorRate { settings.errorRate = v }
            if let v = change.malformedBodies { settings.malformedBodies = v }
            if let v = change.seed { settings.seed = v }
            if let v = change.writeResponseDelayMs { settings.writeResponseDelayMs = v }
        }
        if let v = change.tokenLifetime { state.grants.counters.setLifetime(v) }
        if change.expireTokens { try state.grants.expireAllAccessTokens() }
        var revoked = 0
        if let user = change.revokeUser { revoked = try state.grants.revokeUser(username: user) }
        var held: [String: Any]?
        if let hold = change.holdRecordLock, let table = holdTable {
            try await state.database.store.holdRecordLock(table: table, id: OrgState.key(hold.id), seconds: hold.seconds)
            held = ["id": hold.id, "seconds": hold.seconds]
        }
        var answer = try await current() as? [String: Any] ?? [:]
        answer["revokedGrants"] = revoked
        if let held { answer["heldRecordLock"] = held }
        if let seconds = change.offlineForSeconds {
            goOffline(seconds)
            answer["offlineForSeconds"] = seconds
        }
        return HTTP.json(.ok, answer)
    }
}

/// A checked `POST /__admin/faults` body. The ranges are the ones `sf-simulator`'s flags accept.
struct FaultChange {
    struct Invalid: Error {
        var key: String
        var message: String
    }

    static let maxLatencyMs = 60_000
    static let maxTokenLifetime: Double = 31_536_000
    static let maxOfflineSeconds: Double = 86_400

    var reset = false
    var latencyMs: Int?
    var errorRate: Double?
    var malformedBodies: Bool?
    var seed: UInt64?
    var writeResponseDelayMs: Int?
    var tokenLifetime: Double?
    var expireTokens = false
    var revokeUser: String?
    var offlineForSeconds: Double?
    /// A record to lock for a while, as a long transaction elsewhere would (`{"id": …, "seconds": …}`).
    var holdRecordLock: (id: String, seconds: Double)?
    static let maxHoldSeconds: Double = 600

    init(_ body: [String: Any]) throws {
        let known: Set<String> = [
            "reset", "latencyMs", "errorRate", "malformedBodies", "seed", "writeResponseDelayMs", "tokenLifetime", "expireTokens", "revokeUser", "offlineForSeconds",
            "holdRecordLock",
        ]
        if let unknown = body.keys.sorted().first(where: { !known.contains($0) }) {
            throw Invalid(key: unknown, message: "unknown fault '\(unknown)'; known: \(known.sorted().joined(separator: ", "))")
        }
        reset = try Self.bool(body, "reset") ?? false
        expireTokens = try Self.bool(body, "expireTokens") ?? false
        malformedBodies = try Self.bool(body, "malformedBodies")
        if let v = try Self.number(body, "latencyMs") {
            guard v == v.rounded(), v >= 0, v <= Double(Self.maxLatencyMs) else {
                throw Invalid(key: "latencyMs", message: "latencyMs must be a whole number from 0 to \(Self.maxLatencyMs)")
            }
            latencyMs = Int(v)
        }
        if let v = try Self.number(body, "writeResponseDelayMs") {
            guard v == v.rounded(), v >= 0, v <= Double(Self.maxLatencyMs) else {
                throw Invalid(key: "writeResponseDelayMs", message: "writeResponseDelayMs must be a whole number from 0 to \(Self.maxLatencyMs)")
            }
            writeResponseDelayMs = Int(v)
        }
        if let v = try Self.number(body, "errorRate") {
            guard v >= 0, v <= 1 else { throw Invalid(key: "errorRate", message: "errorRate must be from 0 to 1 (a share of requests)") }
            errorRate = v
        }
        if let v = try Self.number(body, "seed") {
            guard v == v.rounded(), v >= 0, v <= 9_007_199_254_740_992 else {
                throw Invalid(key: "seed", message: "seed must be a whole number from 0 to 2^53")
            }
            seed = UInt64(v)
        }
        if let v = try Self.number(body, "tokenLifetime") {
            guard v > 0, v <= Self.maxTokenLifetime else {
                throw Invalid(key: "tokenLifetime", message: "tokenLifetime must be more than 0 and at most \(Int(Self.maxTokenLifetime)) seconds")
            }
            tokenLifetime = v
        }
        if let v = try Self.number(body, "offlineForSeconds") {
            guard v > 0, v <= Self.maxOfflineSeconds else {
                throw Invalid(key: "offlineForSeconds", message: "offlineForSeconds must be more than 0 and at most \(Int(Self.maxOfflineSeconds))")
            }
            offlineForSeconds = v
        }
        if let v = body["revokeUser"] {
            guard let user = v as? String, !user.isEmpty else { throw Invalid(key: "revokeUser", message: "revokeUser must be a username") }
            revokeUser = user
        }
        if let v = body["holdRecordLock"] {
            let usage = "holdRecordLock must be {\"id\": RECORD_ID, \"seconds\": N} with N more than 0 and at most \(Int(Self.maxHoldSeconds))"
            guard let hold = v as? [String: Any], let id = hold["id"] as? String, SalesforceID.isValid(id), Set(hold.keys).isSubset(of: ["id", "seconds"]),
                let seconds = try? Self.number(hold, "seconds"), seconds > 0, seconds <= Self.maxHoldSeconds
            else { throw Invalid(key: "holdRecordLock", message: usage) }
            holdRecordLock = (id, seconds)
        }
    }

    /// JSON true/false only (not 0 or 1).
    static func bool(_ body: [String: Any], _ key: String) throws -> Bool? {
        guard let v = body[key] else { return nil }
        guard isBool(v), let b = v as? Bool else { throw Invalid(key: key, message: "\(key) must be true or false") }
        return b
    }

    /// A JSON number (not a string, not a boolean), finite.
    static func number(_ body: [String: Any], _ key: String) throws -> Double? {
        guard let v = body[key] else { return nil }
        guard !isBool(v), let d = (v as? NSNumber)?.doubleValue, d.isFinite else {
            throw Invalid(key: key, message: "\(key) must be a number")
        }
        return d
    }

    /// Foundation hands JSON booleans and numbers over as NSNumber, and a number casts to Bool; a boolean's
    /// type encoding is "c".
    static func isBool(_ v: Any) -> Bool {
        guard let n = v as? NSNumber else { return v is Bool }
        return String(cString: n.objCType) == "c"
    }
}
