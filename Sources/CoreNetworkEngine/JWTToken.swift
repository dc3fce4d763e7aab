import Foundation

/// A JWT access token as the SDK reads it (SDK 13's `JwtAccessToken`): three dot-separated parts, of which
/// the header and payload are base64url JSON. The signature is not checked: the SDK only reads the token's
/// fields (its expiry), the org checks it.
package enum JWTToken {
    package enum FormatError: Error, Equatable {
        /// Fewer than two parts.
        case invalidFormat
        /// A part that is not base64url of UTF-8 text.
        case invalidBase64
    }

    /// The header's (0) or the payload's (1) JSON text.
    package static func part(_ jwt: String, _ index: Int) throws(FormatError) -> String {
        let parts = jwt.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count >= 2, index < 2 else { throw .invalidFormat }
        return try decodeBase64URL(String(parts[index]))
    }

    /// base64url (`-` and `_`, padding optional) to UTF-8 text; plain base64 is read too.
    package static func decodeBase64URL(_ text: String) throws(FormatError) -> String {
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        if base64.count % 4 != 0 { base64 += String(repeating: "=", count: 4 - base64.count % 4) }
        guard let data = Data(base64Encoded: base64), let string = String(data: data, encoding: .utf8) else { throw .invalidBase64 }
        return string
    }
}
