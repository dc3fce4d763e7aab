import Foundation

/// The ids the SDK turns into folder names: an org id, a user id and a community id name
/// `Library/<orgId>/<userId>` and `Documents/<orgId>/<userId>/<community>`. They come from outside (an
/// org's identity URL and token response, an account file, `LastUserIdentity`), so each is checked here
/// before it names a directory: a rogue org whose identity URL ends in `/..` must not make a user whose
/// folder is the whole library (its logout would delete every account).
///
/// A Salesforce id is 15 or 18 ASCII letters and digits, and its first three characters are its object's
/// key prefix (`00D` for an organization, `005` for a user, `0DB` for a community, i.e. a Network).
package enum SalesforceIdentifier {
    package enum Kind: String, Sendable, CaseIterable {
        case organization = "00D"
        case user = "005"
        case community = "0DB"

        package var prefix: String { rawValue }

        var name: String {
            switch self {
            case .organization: return "org id"
            case .user: return "user id"
            case .community: return "community id"
            }
        }
    }

    /// An id that cannot name a folder: it says which, where it came from, and shows the value escaped.
    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package var kind: Kind
        package var value: String
        /// Where the id came from (`the identity URL http://…`, `the account file …`).
        package var source: String

        package var description: String {
            "\(source) names the \(kind.name) \(SalesforceIdentifier.quoted(value)), which is not a Salesforce \(kind.name) "
                + "(\(kind.prefix) then 12 or 15 letters and digits); refused, nothing was written"
        }
    }

    /// True for 15 or 18 ASCII letters and digits starting with the kind's key prefix.
    package static func isValid(_ id: String, _ kind: Kind) -> Bool {
        let bytes = Array(id.utf8)
        guard bytes.count == 15 || bytes.count == 18, id.hasPrefix(kind.prefix) else { return false }
        return bytes.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 90) || ($0 >= 97 && $0 <= 122) }
    }

    /// `id` when it is valid; otherwise `Invalid` naming `source`.
    @discardableResult
    package static func check(_ id: String, _ kind: Kind, from source: String) throws(Invalid) -> String {
        guard isValid(id, kind) else { throw Invalid(kind: kind, value: id, source: source) }
        return id
    }

    /// A value from outside for a message: quoted, non-printable and non-ASCII characters escaped, at most
    /// 60 characters of it.
    package static func quoted(_ value: String, limit: Int = 60) -> String {
        var out = ""
        var count = 0
        for scalar in value.unicodeScalars {
            if count == limit {
                out += "…"
                break
            }
            count += 1
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case " "..."~": out.unicodeScalars.append(scalar)
            default: out += "\\u{\(String(scalar.value, radix: 16))}"
            }
        }
        return "\"\(out)\""
    }
}
