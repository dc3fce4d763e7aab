import Crypto
import Foundation

/// OAuth state: authorization codes, refresh-token grants and access tokens, each kept by its SHA-256
/// only, so the state file never holds a usable secret.
struct Grants: Sendable {
    let database: OrgDatabase
    let counters: Counters

    struct Grant: Sendable {
        var orgId: String
        var userId: String
        var clientId: String
        var scopes: [String]
    }

    struct AuthCode: Sendable {
        var orgId: String
        var userId: String
        var clientId: String
        var redirectURI: String
        var challenge: String?
        var scopes: [String]
    }

    /// This instance's token lifetime (`--token-lifetime`, or a fault's change through the instance's
    /// `/__admin/faults`). What clients can see of the counters (the day's API requests, refreshes) is kept in
    /// the state, counted once however many instances serve the org.
    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        var tokenLifetime: TimeInterval

        init(tokenLifetime: TimeInterval) { self.tokenLifetime = tokenLifetime }

        func setLifetime(_ seconds: TimeInterval) { lock.withLock { tokenLifetime = seconds } }
        var lifetime: TimeInterval { lock.withLock { tokenLifetime } }
    }

    /// An API request with an access token: who it acts as, and the day's API request count with it. Nil when
    /// the token is not a live one (the request is then not counted).
    func authenticate(accessToken token: String) async throws -> (Session, Int)? {
        let database = database
        let hash = OrgState.hash(token)
        let now = Date()
        try database.prepareAPIRequestCount(now)
        // No write lock: the look-up reads, and the count is one atomic statement.
        return try await database.store.update { db in
            switch db.dialect {
            case .sqlite:
                guard let session = try Self.session(db, hash: hash) else { return nil }
                return (session, try database.countAPIRequest(db, now))
            case .postgres:
                // The look-up and the count in one statement (one round trip instead of two): `nextval` runs for
                // each row the look-up finds, so only for a live token.
                guard let row = try db.fetchOne(
                    "SELECT s.*, nextval(CAST(? AS regclass)) AS request_count FROM (\(Self.sessionSQL)) AS s",
                    [OrgDatabase.apiRequestSequence(now), hash, now.timeIntervalSince1970])
                else { return nil }
                return (Self.session(row), row["request_count"] as Int? ?? 0)
            }
        }
    }

    /// The day's API requests so far, over every instance.
    func apiRequestCount() throws -> Int {
        try database.store.read { db in try database.apiRequests(db, Date()) }
    }

    /// Refresh-token grants answered, over every instance and restart.
    func tokenRefreshes() throws -> Int {
        try database.store.read { db in Int(try database.meta(db, "tokenRefreshes") ?? "0") ?? 0 }
    }

    func countRefresh() throws {
        _ = try database.store.write { db in try database.increment(db, "tokenRefreshes") }
    }

    var definition: OrgDefinition { database.definition }

    func user(named username: String, password: String) -> (OrgFixture.Org, OrgFixture.User)? {
        for org in definition.orgs {
            if let user = org.users.first(where: { $0.username.lowercased() == username.lowercased() && $0.password == password }) {
                return (org, user)
            }
        }
        return nil
    }

    func user(orgId: String, userId: String) -> (OrgFixture.Org, OrgFixture.User)? {
        guard let org = definition.orgs.first(where: { $0.id == orgId }), let user = org.users.first(where: { $0.id == userId }) else { return nil }
        return (org, user)
    }

    func issueCode(_ code: AuthCode) throws -> String {
        let raw = "aPrx" + OrgState.randomToken(24)
        try database.store.write { db in
            try db.execute("DELETE FROM auth_codes WHERE expires < ?", [Date().timeIntervalSince1970])
            try db.execute("INSERT INTO auth_codes(hash, org_id, user_id, client_id, redirect_uri, challenge, scopes, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [OrgState.hash(raw), code.orgId, code.userId, code.clientId, code.redirectURI, code.challenge, code.scopes.joined(separator: " "),
                            Date().timeIntervalSince1970 + 600])
        }
        return raw
    }

    /// Codes are single-use and live ten minutes. A code is used up only by an exchange that `accept`s it (the
    /// client it was issued to, its redirect URI, its PKCE verifier): a failed attempt, by another client or
    /// without the verifier, leaves it for the client it belongs to (RFC 6749 §4.1.3 binds the code to its
    /// client; the verifier's 256 bits leave nothing to guess). Look-up, check and removal are one transaction.
    /// Returns the code, or what `accept` refused it with; nil when there is no such live code.
    func redeemCode<Refusal>(_ raw: String, accept: (AuthCode) -> Refusal?) throws -> Result<AuthCode, RefusalBox<Refusal>>? {
        try database.store.write { db in
            guard let row = try db.fetchOne("SELECT * FROM auth_codes WHERE hash = ?", [OrgState.hash(raw)]) else { return nil }
            guard (row["expires"] as Double) > Date().timeIntervalSince1970 else {
                try db.execute("DELETE FROM auth_codes WHERE hash = ?", [OrgState.hash(raw)])
                return nil
            }
            let code = AuthCode(
                orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], redirectURI: row["redirect_uri"], challenge: row["challenge"],
                scopes: (row["scopes"] as String).split(separator: " ").map(String.init))
            if let refusal = accept(code) { return .failure(RefusalBox(value: refusal)) }
            try db.execute("DELETE FROM auth_codes WHERE hash = ?", [OrgState.hash(raw)])
            return .success(code)
        }
    }

    struct RefusalBox<Value>: Error, @unchecked Sendable { var value: Value }

    func issueRefreshToken(_ grant: Grant) throws -> String {
        let token = "5Aep861" + OrgState.randomToken(48)
        _ = try database.store.write { db in
            try db.execute("INSERT INTO grants(hash, org_id, user_id, client_id, scopes, revoked, created) VALUES (?, ?, ?, ?, ?, 0, ?)", [OrgState.hash(token), grant.orgId, grant.userId, grant.clientId, grant.scopes.joined(separator: " "), Date().timeIntervalSince1970])
        }
        return token
    }

    func grant(forRefreshToken token: String) throws -> Grant? {
        try database.store.read { db in
            guard let row = try db.fetchOne("SELECT * FROM grants WHERE hash = ? AND revoked = 0", [OrgState.hash(token)]) else { return nil }
            return Grant(orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], scopes: (row["scopes"] as String).split(separator: " ").map(String.init))
        }
    }

    func issueAccessToken(orgId: String, userId: String, clientId: String, refreshToken: String?) throws -> String {
        let token = orgId + "!" + OrgState.randomToken(64)
        let now = Date().timeIntervalSince1970
        try database.store.write { db in
            try db.execute("DELETE FROM access_tokens WHERE expires < ?", [now])
            try db.execute("INSERT INTO access_tokens(hash, refresh_hash, org_id, user_id, client_id, expires) VALUES (?, ?, ?, ?, ?, ?)", [OrgState.hash(token), refreshToken.map(OrgState.hash), orgId, userId, clientId, now + counters.lifetime])
        }
        return token
    }

    func session(forAccessToken token: String) throws -> Session? {
        try database.store.read { db in try Self.session(db, hash: OrgState.hash(token)) }
    }

    /// The live access token of a hash (its two arguments: the hash, the time now): not expired, and its grant,
    /// if it has one, not revoked.
    static let sessionSQL = """
        SELECT a.* FROM access_tokens a LEFT JOIN grants g ON g.hash = a.refresh_hash
        WHERE a.hash = ? AND a.expires > ? AND (a.refresh_hash IS NULL OR g.revoked = 0)
        """

    static func session(_ db: SQLTransaction, hash: String) throws -> Session? {
        guard let row = try db.fetchOne(sessionSQL, [hash, Date().timeIntervalSince1970]) else { return nil }
        return session(row)
    }

    static func session(_ row: SQLRow) -> Session {
        Session(orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], refreshHash: row["refresh_hash"])
    }

    /// `/services/oauth2/revoke`: a refresh token revokes its grant and every access token from it.
    func revoke(token: String) throws -> Bool {
        let hash = OrgState.hash(token)
        return try database.store.write { db in
            if try db.execute("UPDATE grants SET revoked = 1 WHERE hash = ?", [hash]) > 0 {
                try db.execute("DELETE FROM access_tokens WHERE refresh_hash = ?", [hash])
                return true
            }
            return try db.execute("DELETE FROM access_tokens WHERE hash = ?", [hash]) > 0
        }
    }

    /// Fault: every access token expires now.
    func expireAllAccessTokens() throws { _ = try database.store.write { db in try db.execute("DELETE FROM access_tokens") } }

    /// Fault: revoke every refresh token of a user.
    func revokeUser(username: String) throws -> Int {
        guard let userId = definition.orgs.flatMap(\.users).first(where: { $0.username.lowercased() == username.lowercased() })?.id else { return 0 }
        return try database.store.write { db in
            let count = try db.execute("UPDATE grants SET revoked = 1 WHERE user_id = ? AND revoked = 0", [userId])
            try db.execute("DELETE FROM access_tokens WHERE user_id = ?", [userId])
            return count
        }
    }
}
