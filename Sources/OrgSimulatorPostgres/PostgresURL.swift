import Foundation
import OrgSimulator

/// `--state postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE`: where the org's PostgreSQL is. The password may
/// also come from `PGPASSWORD`; it is never printed (`redacted` is what messages show).
///
/// As in libpq's URLs, a HOST that is a percent-encoded absolute path (`%2Fvar%2Frun%2Fpostgresql`) names the
/// directory of the server's Unix-domain socket (`DIR/.s.PGSQL.PORT`): for a PostgreSQL on the same machine,
/// cheaper than TCP over loopback on every round trip.
package struct PostgresURL: Sendable, Equatable {
    var user: String
    var password: String?
    var host: String
    var port: Int
    var database: String

    /// Whether `--state` names PostgreSQL rather than a file.
    package static func isPostgres(_ state: String) -> Bool {
        state.hasPrefix("postgres://") || state.hasPrefix("postgresql://")
    }

    /// The URL without its password.
    package var redacted: String {
        let shown = socketDirectory != nil ? host.replacingOccurrences(of: "/", with: "%2F") : host.contains(":") ? "[\(host)]" : host
        return "postgres://\(user)@\(shown):\(port)/\(database)"
    }

    /// The socket's directory, when HOST is a path.
    package var socketDirectory: String? { host.hasPrefix("/") ? host : nil }

    /// The socket itself, `DIR/.s.PGSQL.PORT`, when HOST is a path (nil: TCP to HOST:PORT).
    package var socketPath: String? {
        guard let socketDirectory else { return nil }
        return "\(socketDirectory.hasSuffix("/") ? String(socketDirectory.dropLast()) : socketDirectory)/.s.PGSQL.\(port)"
    }

    /// Parses the URL; an error names the part that is wrong, and never quotes a password.
    package static func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> PostgresURL {
        let form = "postgres://USER@HOST:PORT/DATABASE"
        // A control character (a NUL, a newline), as written or percent-encoded, would reach PostgreSQL's startup
        // packet: refused, the URL shown escaped and without what could be a password.
        if text.unicodeScalars.contains(where: isControl) || (text.removingPercentEncoding ?? text).unicodeScalars.contains(where: isControl) {
            throw OrgSimulatorError.badURL("--state: the URL holds a control character (\(escaped(withoutPassword(text)))); a user, host or database name has none")
        }
        guard let schemeEnd = text.range(of: "://") else { throw OrgSimulatorError.badURL("--state: '\(text)' is neither a file nor a URL of the form \(form)") }
        let scheme = String(text[..<schemeEnd.lowerBound])
        guard scheme == "postgres" || scheme == "postgresql" else {
            throw OrgSimulatorError.badURL("--state: the URL's scheme '\(scheme)' is not postgres (\(form))")
        }
        var rest = String(text[schemeEnd.upperBound...])
        if let q = rest.firstIndex(of: "?") {
            let query = String(rest[rest.index(after: q)...])
            throw OrgSimulatorError.badURL("--state: the URL's query '?\(query.split(separator: "&").map { String($0.split(separator: "=").first ?? "") }.joined(separator: "&"))' is not supported; give the pool size with --pool-size, and no other option")
        }
        guard let at = rest.lastIndex(of: "@") else {
            throw OrgSimulatorError.badURL("--state: the URL names no user (\(form))")
        }
        let credentials = String(rest[..<at])
        rest = String(rest[rest.index(after: at)...])
        var user = credentials
        var password: String?
        if let colon = credentials.firstIndex(of: ":") {
            user = String(credentials[..<colon])
            password = String(credentials[credentials.index(after: colon)...]).removingPercentEncoding
        }
        guard let decodedUser = user.removingPercentEncoding, !decodedUser.isEmpty else {
            throw OrgSimulatorError.badURL("--state: the URL names no user before '@' (\(form))")
        }
        guard let slash = rest.firstIndex(of: "/") else {
            throw OrgSimulatorError.badURL("--state: the URL names no database after the host (\(form))")
        }
        let hostPort = String(rest[..<slash])
        let database = String(rest[rest.index(after: slash)...])
        guard let decodedDatabase = database.removingPercentEncoding, !decodedDatabase.isEmpty, !decodedDatabase.contains("/") else {
            throw OrgSimulatorError.badURL("--state: the URL's database '\(database)' is not one name (\(form))")
        }
        var host = hostPort
        var port = 5432
        if hostPort.hasPrefix("[") {
            guard let close = hostPort.firstIndex(of: "]") else { throw OrgSimulatorError.badURL("--state: the URL's host '\(hostPort)' has no closing ']'") }
            host = String(hostPort[hostPort.index(after: hostPort.startIndex)..<close])
            let after = hostPort[hostPort.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":"), let p = Int(after.dropFirst()), (1...65535).contains(p) else {
                    throw OrgSimulatorError.badURL("--state: the URL's port '\(after.dropFirst())' is not a number from 1 to 65535")
                }
                port = p
            }
        } else if let colon = hostPort.lastIndex(of: ":") {
            host = String(hostPort[..<colon])
            let text = String(hostPort[hostPort.index(after: colon)...])
            guard let p = Int(text), (1...65535).contains(p) else {
                throw OrgSimulatorError.badURL("--state: the URL's port '\(text)' is not a number from 1 to 65535")
            }
            port = p
        }
        guard !host.isEmpty else { throw OrgSimulatorError.badURL("--state: the URL names no host after '@' (\(form))") }
        if let path = host.removingPercentEncoding, path.hasPrefix("/") {
            // A socket's directory. sockaddr_un holds 107 bytes of path: DIR, "/.s.PGSQL." and the port.
            guard path.utf8.count + 16 <= 107, !path.contains("\0") else {
                throw OrgSimulatorError.badURL("--state: the URL's socket directory '\(escaped(path))' is too long for a Unix-domain socket (at most 91 bytes)")
            }
            return PostgresURL(user: decodedUser, password: password ?? environment["PGPASSWORD"], host: path, port: port, database: decodedDatabase)
        }
        guard host.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "." || $0 == "-" || $0 == ":" || $0 == "_" }) else {
            throw OrgSimulatorError.badURL("--state: the URL's host '\(host)' is not a host name or address")
        }
        return PostgresURL(
            user: decodedUser, password: password ?? environment["PGPASSWORD"], host: host, port: port, database: decodedDatabase)
    }
}

extension PostgresURL {
    static func isControl(_ scalar: Unicode.Scalar) -> Bool { scalar.value < 0x20 || scalar.value == 0x7F || (0x80..<0xA0).contains(scalar.value) }

    /// Printable ASCII as it is, everything else as `\u{…}`.
    static func escaped(_ text: String) -> String {
        text.unicodeScalars.map { $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "\\u{\(String($0.value, radix: 16))}" }.joined()
    }

    /// The URL with anything between the user's `:` and the `@` replaced, so that no message shows a password.
    static func withoutPassword(_ text: String) -> String {
        guard let scheme = text.range(of: "://"), let at = text.range(of: "@", options: .backwards), scheme.upperBound < at.lowerBound else { return text }
        let credentials = text[scheme.upperBound..<at.lowerBound]
        guard let colon = credentials.firstIndex(of: ":") else { return text }
        return String(text[..<colon]) + ":…" + String(text[at.lowerBound...])
    }
}
