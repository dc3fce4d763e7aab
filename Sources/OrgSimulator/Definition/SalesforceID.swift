/// Salesforce record ids: a 3-character key prefix, 12 characters, and the 3-character case-safe
/// suffix that makes the 18-character form (computed as Salesforce does).
enum SalesforceID {
    private static let alphabet = Array("0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz")
    private static let suffixAlphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ012345")

    /// The 18-character id for `prefix` (e.g. `003`) and a sequence number.
    static func make(prefix: String, pod: String = "5g", number: Int) -> String {
        var n = number
        var body: [Character] = []
        let width = 15 - prefix.count - pod.count
        for _ in 0..<width {
            body.append(alphabet[n % 62])
            n /= 62
        }
        return withSuffix(prefix + pod + String(body.reversed()))
    }

    /// The 15-character id with its case-safe suffix.
    static func withSuffix(_ id15: String) -> String {
        let chars = Array(id15)
        var suffix = ""
        for chunk in 0..<3 {
            var bits = 0
            for k in 0..<5 where chars[chunk * 5 + k].isUppercase {
                bits |= 1 << k
            }
            suffix.append(suffixAlphabet[bits])
        }
        return id15 + suffix
    }

    /// 15- and 18-character forms name the same record: the 18-character one.
    static func key(_ id: String) -> String { id.count == 15 && isValid(id) ? withSuffix(id) : id }

    /// True for a well-formed 15- or 18-character id.
    static func isValid(_ id: String) -> Bool {
        guard id.count == 15 || id.count == 18, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return false }
        return id.count == 15 || withSuffix(String(id.prefix(15))) == id
    }
}
