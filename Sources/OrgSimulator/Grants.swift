import Crypto
import Foundation
import GRDB

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

    /// Things only this run counts (for `GET /__admin/faults` and `limits`).
    final class Counters: @unchecked Sendable {
        private let lock = NSLock()
        private var refreshes = 0
        private var apiRequests = 0
        var tokenLifetime: TimeInterval

        init(tokenLifetime: TimeInterval) { self.tokenLifetime = tokenLifetime }

        func countRefresh() { lock.withLock { refreshes += 1 } }
        var tokenRefreshes: Int { lock.withLock { refreshes } }
        func countAPIRequest() { lock.withLock { apiRequests += 1 } }
        var apiRequestCount: Int { lock.withLock { apiRequests } }
        func setLifetime(_ seconds: TimeInterval) { lock.withLock { tokenLifetime = seconds } }
        var lifetime: TimeInterval { lock.withLock { tokenLifetime } }
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
        try database.queue.write { db in
            try db.execute(sql: "DELETE FROM auth_codes WHERE expires < ?", arguments: [Date().timeIntervalSince1970])
            try db.execute(
                sql: "INSERT INTO auth_codes(hash, org_id, user_id, client_id, redirect_uri, challenge, scopes, expires) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                arguments: [OrgState.hash(raw), code.orgId, code.userId, code.clientId, code.redirectURI, code.challenge, code.scopes.joined(separator: " "),
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
        try database.queue.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM auth_codes WHERE hash = ?", arguments: [OrgState.hash(raw)]) else { return nil }
            guard (row["expires"] as Double) > Date().timeIntervalSince1970 else {
                try db.execute(sql: "DELETE FROM auth_codes WHERE hash = ?", arguments: [OrgState.hash(raw)])
                return nil
            }
            let code = AuthCode(
                orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], redirectURI: row["redirect_uri"], challenge: row["challenge"],
                scopes: (row["scopes"] as String).split(separator: " ").map(String.init))
            if let refusal = accept(code) { return .failure(RefusalBox(value: refusal)) }
            try db.execute(sql: "DELETE FROM auth_codes WHERE hash = ?", arguments: [OrgState.hash(raw)])
            return .success(code)
        }
    }

    struct RefusalBox<Value>: Error, @unchecked Sendable { var value: Value }

    func issueRefreshToken(_ grant: Grant) throws -> String {
        let token = "5Aep861" + OrgState.randomToken(48)
        try database.queue.write { db in
            try db.execute(
                sql: "INSERT INTO grants(hash, org_id, user_id, client_id, scopes, revoked, created) VALUES (?, ?, ?, ?, ?, 0, ?)",
                arguments: [OrgState.hash(token), grant.orgId, grant.userId, grant.clientId, grant.scopes.joined(separator: " "), Date().timeIntervalSince1970])
        }
        return token
    }

    func grant(forRefreshToken token: String) throws -> Grant? {
        try database.queue.read { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM grants WHERE hash = ? AND revoked = 0", arguments: [OrgState.hash(token)]) else { return nil }
            return Grant(orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], scopes: (row["scopes"] as String).split(separator: " ").map(String.init))
        }
    }

    func issueAccessToken(orgId: String, userId: String, clientId: String, refreshToken: String?) throws -> String {
        let token = orgId + "!" + OrgState.randomToken(64)
        let now = Date().timeIntervalSince1970
        try database.queue.write { db in
            try db.execute(sql: "DELETE FROM access_tokens WHERE expires < ?", arguments: [now])
            try db.execute(
                sql: "INSERT INTO access_tokens(hash, refresh_hash, org_id, user_id, client_id, expires) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [OrgState.hash(token), refreshToken.map(OrgState.hash), orgId, userId, clientId, now + counters.lifetime])
        }
        return token
    }

    func session(forAccessToken token: String) throws -> Session? {
        try database.queue.read { db in
            guard let row = try Row.fetchOne(
                db, sql: """
                    SELECT a.* FROM access_tokens a LEFT JOIN grants g ON g.hash = a.refresh_hash
                    WHERE a.hash = ? AND a.expires > ? AND (a.refresh_hash IS NULL OR g.revoked = 0)
                    """, arguments: [OrgState.hash(token), Date().timeIntervalSince1970])
            else { return nil }
            return Session(orgId: row["org_id"], userId: row["user_id"], clientId: row["client_id"], refreshHash: row["refresh_hash"])
        }
    }

    /// `/services/oauth2/revoke`: a refresh token revokes its grant and every access token from it.
    func revoke(token: String) throws -> Bool {
        let hash = OrgState.hash(token)
        return try database.queue.write { db in
            try db.execute(sql: "UPDATE grants SET revoked = 1 WHERE hash = ?", arguments: [hash])
            if db.changesCount > 0 {
                try db.execute(sql: "DELETE FROM access_tokens WHERE refresh_hash = ?", arguments: [hash])
                return true
            }
            try db.execute(sql: "DELETE FROM access_tokens WHERE hash = ?", arguments: [hash])
            return db.changesCount > 0
        }
    }

    /// Fault: every access token expires now.
    func expireAllAccessTokens() throws { try database.queue.write { db in try db.execute(sql: "DELETE FROM access_tokens") } }

    /// Fault: revoke every refresh token of a user.
    func revokeUser(username: String) throws -> Int {
        guard let userId = definition.orgs.flatMap(\.users).first(where: { $0.username.lowercased() == username.lowercased() })?.id else { return 0 }
        return try database.queue.write { db in
            try db.execute(sql: "UPDATE grants SET revoked = 1 WHERE user_id = ? AND revoked = 0", arguments: [userId])
            let count = db.changesCount
            try db.execute(sql: "DELETE FROM access_tokens WHERE user_id = ?", arguments: [userId])
            return count
        }
    }
}
