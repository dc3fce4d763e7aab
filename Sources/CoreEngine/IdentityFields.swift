import AppGroup
import Foundation

/// The identity service's answer as the SDK reads it (`SFIdentityData`, `initWithJsonDict:`): which key gives
/// which field, and of which type. The account keeps the whole answer (`idData` in `UserAccount.plist`; it holds
/// no token), so every field the org sent is there after a relaunch. A key that is absent, or of another type,
/// reads as nil (the SDK's `nil`/`NO`/`0`).
package struct IdentityFields: Sendable, Equatable {
    /// The answer as it came, `null`s dropped.
    package let dictionary: [String: PlistValue]

    package init(_ dictionary: [String: PlistValue]) { self.dictionary = dictionary }

    /// The keys the account holds as fields of its own (who, and the screen-lock policy, which the engine
    /// decides by): the account keeps the rest of the answer beside them, and writes them over it in its file.
    package static let accountKeys: Set<String> = ["user_id", "organization_id", "username", "display_name", "email", "mobile_policy"]

    /// The answer without the account's own keys.
    package var withoutAccountKeys: IdentityFields { IdentityFields(dictionary.filter { !Self.accountKeys.contains($0.key) }) }

    /// Reads a JSON answer: objects, arrays, strings, numbers and booleans; `null` is dropped (a plist has none).
    /// Nil when the body is not a JSON object.
    package init?(json body: Data) {
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else { return nil }
        self.init(object.compactMapValues(Self.plist))
    }

    private static func plist(_ value: Any) -> PlistValue? {
        if value is NSNull { return nil }
        if let array = value as? [Any] { return .array(array.compactMap(plist)) }
        if let object = value as? [String: Any] { return .dictionary(object.compactMapValues(plist)) }
        return PlistValue(foundation: value)
    }

    package func string(_ key: String) -> String? { dictionary[key]?.stringValue }
    package func url(_ key: String) -> URL? { string(key).flatMap(URL.init(string:)) }
    package func bool(_ key: String) -> Bool? {
        switch dictionary[key] {
        case .bool(let b): b
        case .int(let i): i != 0
        default: nil
        }
    }
    package func int(_ key: String) -> Int? {
        switch dictionary[key] {
        case .int(let i): i
        case .double(let d): Int(d)
        default: nil
        }
    }
    /// A string from a nested object (`urls.rest`, `photos.picture`).
    package func string(_ object: String, _ key: String) -> String? { dictionary[object]?.dictionaryValue?[key]?.stringValue }

    package var idURL: URL? { url("id") }
    package var userId: String? { string("user_id") }
    package var orgId: String? { string("organization_id") }
    package var username: String? { string("username") }
    package var nickname: String? { string("nick_name") }
    package var displayName: String? { string("display_name") }
    package var email: String? { string("email") }
    package var firstName: String? { string("first_name") }
    package var lastName: String? { string("last_name") }
    package var pictureURL: URL? { string("photos", "picture").flatMap(URL.init(string:)) }
    package var thumbnailURL: URL? { string("photos", "thumbnail").flatMap(URL.init(string:)) }
    /// `urls.<key>`: `enterprise`, `metadata`, `partner`, `rest`, `sobjects`, `search`, `query`, `recent`,
    /// `profile`, `feeds`, `groups`, `users`, `feed_items`.
    package func serviceURL(_ key: String) -> String? { string("urls", key) }
    package var mobilePolicy: [String: PlistValue]? { dictionary["mobile_policy"]?.dictionaryValue }
    package var pinLength: Int? {
        if case .int(let i) = mobilePolicy?["pin_length"] { return i }
        return nil
    }
    package var screenLockTimeout: Int? {
        if case .int(let i) = mobilePolicy?["screen_lock"] { return i }
        return nil
    }
    /// `last_modified_date` read with the SDK's format, `yyyy-MM-dd'T'HH:mm:ssZZZ`; a value with fractional
    /// seconds, as Salesforce sends it, does not match that format and reads as nil, as in the SDK.
    package var lastModifiedDate: Date? {
        guard let text = string("last_modified_date") else { return nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZZZ"
        return formatter.date(from: text)
    }
}
