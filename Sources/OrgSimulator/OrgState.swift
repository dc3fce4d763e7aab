import Crypto
import Foundation

/// Everything the org knows and changes: records, deletions, recent items, OAuth codes and tokens,
/// query cursors. One actor, so concurrent requests see a consistent org. With a state file, every
/// change to records or refresh tokens is written atomically, and a restart picks up where it stopped.
actor OrgState {
    typealias Record = [String: FieldValue]

    struct Grant: Codable, Sendable {
        var orgId: String
        var userId: String
        var clientId: String
        var scopes: [String]
        var revoked: Bool
    }

    struct AccessToken: Sendable {
        var refreshHash: String?
        var orgId: String
        var userId: String
        var expires: Date
    }

    struct AuthCode: Sendable {
        var orgId: String
        var userId: String
        var clientId: String
        var redirectURI: String
        var challenge: String?
        var expires: Date
    }

    struct Cursor: Sendable {
        var rows: [Record]
        var fields: [String]
        var batchSize: Int
        var orgId: String
        var created: Date
    }

    /// What survives a restart.
    struct Snapshot: Codable {
        var contacts: [String: [Record]]
        var deleted: [String: [Record]]
        var recent: [String: [String]]
        var grants: [String: Grant]
        var nextNumber: [String: Int]
        var lastWriteMs: Int64
    }

    let fixture: OrgFixture
    let stateURL: URL?
    var tokenLifetime: TimeInterval
    private(set) var contacts: [String: [Record]] = [:]
    private var positions: [String: [String: Int]] = [:]
    private(set) var deleted: [String: [String: Record]] = [:]
    private var recent: [String: [String]] = [:]
    /// Refresh tokens by their SHA-256: the state file never holds a usable token.
    private var grants: [String: Grant] = [:]
    private var accessTokens: [String: AccessToken] = [:]
    private var codes: [String: AuthCode] = [:]
    private var cursors: [String: Cursor] = [:]
    private var nextNumber: [String: Int] = [:]
    private var lastWriteMs: Int64 = 0
    private var cursorCounter = 0

    init(fixture: OrgFixture, stateURL: URL?, tokenLifetime: TimeInterval) throws {
        self.fixture = fixture
        self.stateURL = stateURL
        self.tokenLifetime = tokenLifetime
        if let stateURL, let data = FileManager.default.contents(atPath: stateURL.path) {
            let snapshot: Snapshot
            do { snapshot = try JSONDecoder().decode(Snapshot.self, from: data) } catch {
                throw OrgSimulatorError.state("\(stateURL.path) is not a valid sf-simulator state file (\(error)); move it aside to start from the fixture")
            }
            contacts = snapshot.contacts
            deleted = snapshot.deleted.mapValues { Dictionary(uniqueKeysWithValues: $0.compactMap { r in r["Id"]?.stringValue.map { ($0, r) } }) }
            recent = snapshot.recent
            grants = snapshot.grants
            nextNumber = snapshot.nextNumber
            lastWriteMs = snapshot.lastWriteMs
        } else {
            guard let reference = SalesforceDate.parse(fixture.referenceDate) else {
                throw OrgSimulatorError.fixture("referenceDate \(fixture.referenceDate) is not a date")
            }
            var generator = FixtureGenerator(seed: fixture.seed)
            for (index, org) in fixture.orgs.enumerated() {
                contacts[org.id] = generator.contacts(org: org, orgIndex: index, reference: reference)
                nextNumber[org.id] = index * 1_000_000 + org.contactCount + 1
            }
        }
        for (org, records) in contacts {
            positions[org] = Dictionary(uniqueKeysWithValues: records.enumerated().compactMap { i, r in r["Id"]?.stringValue.map { ($0, i) } })
        }
    }

    // MARK: Users and tokens

    func user(named username: String, password: String) -> (OrgFixture.Org, OrgFixture.User)? {
        for org in fixture.orgs {
            if let user = org.users.first(where: { $0.username.lowercased() == username.lowercased() && $0.password == password }) {
                return (org, user)
            }
        }
        return nil
    }

    func user(orgId: String, userId: String) -> (OrgFixture.Org, OrgFixture.User)? {
        guard let org = fixture.orgs.first(where: { $0.id == orgId }), let user = org.users.first(where: { $0.id == userId }) else {
            return nil
        }
        return (org, user)
    }

    func issueCode(orgId: String, userId: String, clientId: String, redirectURI: String, challenge: String?) -> String {
        let code = "aPrx" + Self.randomToken(24)
        codes[code] = AuthCode(
            orgId: orgId, userId: userId, clientId: clientId, redirectURI: redirectURI, challenge: challenge,
            expires: Date().addingTimeInterval(600))
        return code
    }

    /// Codes are single-use.
    func redeemCode(_ code: String) -> AuthCode? {
        guard let grant = codes.removeValue(forKey: code), grant.expires > Date() else { return nil }
        return grant
    }

    func issueRefreshToken(orgId: String, userId: String, clientId: String, scopes: [String]) throws -> String {
        let token = "5Aep861" + Self.randomToken(48)
        grants[Self.hash(token)] = Grant(orgId: orgId, userId: userId, clientId: clientId, scopes: scopes, revoked: false)
        try persist()
        return token
    }

    func grant(forRefreshToken token: String) -> Grant? {
        guard let grant = grants[Self.hash(token)], !grant.revoked else { return nil }
        return grant
    }

    /// Access tokens issued for a refresh-token grant since start: what a test of "one refresh shared by
    /// concurrent requests" counts (`GET /__admin/faults` shows it as `tokenRefreshes`).
    private(set) var tokenRefreshes = 0

    func countRefresh() { tokenRefreshes += 1 }

    func issueAccessToken(orgId: String, userId: String, refreshToken: String?) -> String {
        let token = orgId + "!" + Self.randomToken(64)
        accessTokens[token] = AccessToken(
            refreshHash: refreshToken.map(Self.hash), orgId: orgId, userId: userId, expires: Date().addingTimeInterval(tokenLifetime))
        return token
    }

    func session(forAccessToken token: String) -> AccessToken? {
        guard let session = accessTokens[token], session.expires > Date() else { return nil }
        if let hash = session.refreshHash, grants[hash]?.revoked == true { return nil }
        return session
    }

    /// `/services/oauth2/revoke`: a refresh token revokes its grant and every access token from it.
    func revoke(token: String) throws -> Bool {
        let hash = Self.hash(token)
        if grants[hash] != nil {
            grants[hash]?.revoked = true
            accessTokens = accessTokens.filter { $0.value.refreshHash != hash }
            try persist()
            return true
        }
        return accessTokens.removeValue(forKey: token) != nil
    }

    /// Fault: every access token expires now.
    func expireAllAccessTokens() { accessTokens.removeAll() }

    /// Fault: revoke every refresh token of a user.
    func revokeUser(username: String) throws -> Int {
        guard let userId = fixture.orgs.flatMap(\.users).first(where: { $0.username.lowercased() == username.lowercased() })?.id else {
            return 0
        }
        var count = 0
        for (hash, grant) in grants where grant.userId == userId && !grant.revoked {
            grants[hash]?.revoked = true
            count += 1
        }
        accessTokens = accessTokens.filter { $0.value.userId != userId }
        try persist()
        return count
    }

    func setTokenLifetime(_ seconds: TimeInterval) { tokenLifetime = seconds }

    // MARK: Records

    func allContacts(orgId: String, includeDeleted: Bool) -> [Record] {
        let live = contacts[orgId] ?? []
        guard includeDeleted else { return live }
        return live + (deleted[orgId].map { Array($0.values) } ?? [])
    }

    func contact(orgId: String, id: String) -> Record? {
        guard let index = positions[orgId]?[Self.key(id)] else { return nil }
        return contacts[orgId]?[index]
    }

    func isDeleted(orgId: String, id: String) -> Bool { deleted[orgId]?[Self.key(id)] != nil }

    /// A server clock for writes that never repeats or goes back, so incremental syncs see every change.
    func nextWriteTime() -> String {
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        lastWriteMs = max(now, lastWriteMs + 1)
        return SalesforceDate.string(Date(timeIntervalSince1970: Double(lastWriteMs) / 1000))
    }

    func create(orgId: String, userId: String, fields: Record) throws -> String {
        let number = nextNumber[orgId, default: 1]
        nextNumber[orgId] = number + 1
        let id = SalesforceID.make(prefix: "003", number: number)
        let now = nextWriteTime()
        var record = fields
        record["Id"] = .string(id)
        record["CreatedDate"] = .string(now)
        record["LastModifiedDate"] = .string(now)
        record["SystemModstamp"] = .string(now)
        record["IsDeleted"] = .bool(false)
        for field in ContactSchema.writable.keys where record[field] == nil { record[field] = .null }
        positions[orgId, default: [:]][id] = contacts[orgId, default: []].count
        contacts[orgId, default: []].append(record)
        touch(userId: userId, id: id)
        return id
    }

    func update(orgId: String, userId: String, id: String, fields: Record) -> Bool {
        guard let index = positions[orgId]?[Self.key(id)] else { return false }
        let now = nextWriteTime()
        for (k, v) in fields { contacts[orgId]![index][k] = v }
        contacts[orgId]![index]["LastModifiedDate"] = .string(now)
        contacts[orgId]![index]["SystemModstamp"] = .string(now)
        touch(userId: userId, id: id)
        return true
    }

    func delete(orgId: String, id: String) -> Bool {
        guard let index = positions[orgId]?[Self.key(id)], var record = contacts[orgId]?[index] else { return false }
        contacts[orgId]!.remove(at: index)
        positions[orgId] = Dictionary(uniqueKeysWithValues: contacts[orgId]!.enumerated().compactMap { i, r in r["Id"]?.stringValue.map { ($0, i) } })
        let now = nextWriteTime()
        record["IsDeleted"] = .bool(true)
        record["LastModifiedDate"] = .string(now)
        record["SystemModstamp"] = .string(now)
        deleted[orgId, default: [:]][Self.key(id)] = record
        for user in recent.keys { recent[user]?.removeAll { $0 == Self.key(id) } }
        return true
    }

    /// Collections: create every valid record, or with `allOrNone` none unless all are valid.
    /// Runs as one actor call, so no other request sees half of it.
    func createMany(orgId: String, userId: String, _ records: [Result<Record, SObjectRoutes.FieldError>], allOrNone: Bool) throws
        -> [Result<String, SObjectRoutes.FieldError>]
    {
        if allOrNone, records.contains(where: { if case .failure = $0 { return true } else { return false } }) {
            return records.map { $0.map { _ in "" }.flatMap { _ in .failure(Self.rolledBack) } }
        }
        var results: [Result<String, SObjectRoutes.FieldError>] = []
        for record in records {
            switch record {
            case .success(let fields): results.append(.success(try create(orgId: orgId, userId: userId, fields: fields)))
            case .failure(let error): results.append(.failure(error))
            }
        }
        return results
    }

    /// Collections upsert: each record matched by its value of the external id `field`: updated when one
    /// record has it, created when none does, refused when several do. One actor call, so two requests
    /// with the same value cannot both create.
    func upsertMany(orgId: String, userId: String, field: String, _ records: [(value: String?, fields: Result<Record, SObjectRoutes.FieldError>)], allOrNone: Bool)
        throws -> [Result<(id: String, created: Bool), SObjectRoutes.FieldError>]
    {
        let live = contacts[orgId] ?? []
        let checked: [Result<(String?, String?, Record), SObjectRoutes.FieldError>] = records.map { item in
            item.fields.flatMap { fields in
                guard let value = item.value, !value.isEmpty else {
                    return .failure(SObjectRoutes.FieldError(errorCode: "MISSING_ARGUMENT", message: "\(field) not specified", fields: [field]))
                }
                let matches = live.filter { $0[field]?.stringValue.map { $0.lowercased() == value.lowercased() } ?? false }
                guard matches.count <= 1 else {
                    return .failure(SObjectRoutes.FieldError(
                        errorCode: "DUPLICATE_EXTERNAL_ID", message: "\(field): more than one record found for external id field: \(value)", fields: [field]))
                }
                return .success((value, matches.first?["Id"]?.stringValue, fields))
            }
        }
        if allOrNone, checked.contains(where: { if case .failure = $0 { return true } else { return false } }) {
            return checked.map { $0.flatMap { _ in .failure(Self.rolledBack) } }
        }
        var results: [Result<(id: String, created: Bool), SObjectRoutes.FieldError>] = []
        for item in checked {
            switch item {
            case .failure(let error): results.append(.failure(error))
            case .success(let (value, existing, fields)):
                if let existing {
                    _ = update(orgId: orgId, userId: userId, id: existing, fields: fields)
                    results.append(.success((existing, false)))
                } else if (fields["LastName"] ?? .null) == .null {
                    results.append(.failure(SObjectRoutes.FieldError(errorCode: "REQUIRED_FIELD_MISSING", message: "Required fields are missing: [LastName]", fields: ["LastName"])))
                } else {
                    var record = fields
                    record[field] = .string(value ?? "")
                    results.append(.success((try create(orgId: orgId, userId: userId, fields: record), true)))
                }
            }
        }
        return results
    }

    /// Collections: update records by id (missing or deleted ids fail per record).
    func updateMany(orgId: String, userId: String, _ records: [(id: String, fields: Result<Record, SObjectRoutes.FieldError>)], allOrNone: Bool)
        -> [Result<String, SObjectRoutes.FieldError>]
    {
        let checked: [Result<(String, Record), SObjectRoutes.FieldError>] = records.map { item in
            item.fields.flatMap { fields in
                guard contact(orgId: orgId, id: item.id) != nil else { return .failure(missing(orgId: orgId, id: item.id)) }
                return .success((item.id, fields))
            }
        }
        if allOrNone, checked.contains(where: { if case .failure = $0 { return true } else { return false } }) {
            return checked.map { $0.map { _ in "" }.flatMap { _ in .failure(Self.rolledBack) } }
        }
        return checked.map { $0.map { id, fields in
            _ = update(orgId: orgId, userId: userId, id: id, fields: fields)
            return id
        } }
    }

    /// Collections: delete records by id.
    func deleteMany(orgId: String, ids: [String], allOrNone: Bool) -> [Result<String, SObjectRoutes.FieldError>] {
        let checked: [Result<String, SObjectRoutes.FieldError>] = ids.map { id in
            contact(orgId: orgId, id: id) != nil ? .success(id) : .failure(missing(orgId: orgId, id: id))
        }
        if allOrNone, checked.contains(where: { if case .failure = $0 { return true } else { return false } }) {
            return checked.map { $0.flatMap { _ in .failure(Self.rolledBack) } }
        }
        return checked.map { $0.map { id in
            _ = delete(orgId: orgId, id: id)
            return id
        } }
    }

    private func missing(orgId: String, id: String) -> SObjectRoutes.FieldError {
        isDeleted(orgId: orgId, id: id)
            ? SObjectRoutes.FieldError(errorCode: "ENTITY_IS_DELETED", message: "entity is deleted", fields: [])
            : SObjectRoutes.FieldError(errorCode: "INVALID_CROSS_REFERENCE_KEY", message: "invalid cross reference id", fields: [])
    }

    static let rolledBack = SObjectRoutes.FieldError(
        errorCode: "ALL_OR_NONE_OPERATION_ROLLED_BACK", message: "Record rolled back because not all records were valid and the request was using AllOrNone header",
        fields: [])

    /// Everything `composite` with `allOrNone` may have to undo.
    struct RecordsSnapshot: Sendable {
        var contacts: [String: [Record]]
        var positions: [String: [String: Int]]
        var deleted: [String: [String: Record]]
        var recent: [String: [String]]
        var nextNumber: [String: Int]
    }

    func snapshotRecords() -> RecordsSnapshot {
        RecordsSnapshot(contacts: contacts, positions: positions, deleted: deleted, recent: recent, nextNumber: nextNumber)
    }

    func restore(_ snapshot: RecordsSnapshot) {
        contacts = snapshot.contacts
        positions = snapshot.positions
        deleted = snapshot.deleted
        recent = snapshot.recent
        nextNumber = snapshot.nextNumber
    }

    /// Record ids this user created, changed or viewed, newest first (Salesforce keeps the recent items per user).
    func recentItems(userId: String) -> [String] { recent[userId] ?? [] }

    func touch(userId: String, id: String) {
        var list = recent[userId] ?? []
        list.removeAll { $0 == Self.key(id) }
        list.insert(Self.key(id), at: 0)
        recent[userId] = Array(list.prefix(200))
    }

    /// Call after a request's changes: one atomic write of the state file.
    func persist() throws {
        guard let stateURL else { return }
        let snapshot = Snapshot(
            contacts: contacts, deleted: deleted.mapValues { Array($0.values) }, recent: recent, grants: grants,
            nextNumber: nextNumber, lastWriteMs: lastWriteMs)
        let data = try JSONEncoder().encode(snapshot)
        let tmp = stateURL.deletingLastPathComponent().appendingPathComponent(".\(stateURL.lastPathComponent).tmp-\(getpid())")
        guard FileManager.default.createFile(atPath: tmp.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
            throw OrgSimulatorError.state("cannot write \(tmp.path)")
        }
        let fd = open(tmp.path, O_RDONLY)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
        guard rename(tmp.path, stateURL.path) == 0 else { throw OrgSimulatorError.state("cannot replace \(stateURL.path)") }
    }

    // MARK: Query cursors

    func storeCursor(rows: [Record], fields: [String], batchSize: Int, orgId: String) -> String {
        cursorCounter += 1
        let locator = SalesforceID.make(prefix: "01g", number: cursorCounter)
        cursors[locator] = Cursor(rows: rows, fields: fields, batchSize: batchSize, orgId: orgId, created: Date())
        // Like a real org, only recent cursors stay open.
        if cursors.count > 50, let oldest = cursors.min(by: { $0.value.created < $1.value.created })?.key {
            cursors.removeValue(forKey: oldest)
        }
        return locator
    }

    func cursor(_ locator: String) -> Cursor? { cursors[locator] }

    // MARK: Helpers

    /// 15- and 18-character forms name the same record.
    static func key(_ id: String) -> String { id.count == 15 ? SalesforceID.withSuffix(id) : id }

    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).map { String(format: "%02x", $0) }.joined()
    }

    static func randomToken(_ bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        let raw = Data((0..<bytes).map { _ in UInt8.random(in: 0...255, using: &generator) })
        return raw.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
