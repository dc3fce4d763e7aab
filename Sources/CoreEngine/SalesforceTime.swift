import Foundation

/// The REST API's datetimes (`2026-11-01T09:30:00.000+0000`) as epoch milliseconds, and back as SOQL literals.
package enum SalesforceTime {
    package static func milliseconds(_ text: String) -> Int64? {
        let s = Array(text.utf8)
        func n(_ at: Int, _ len: Int) -> Int? {
            guard at + len <= s.count else { return nil }
            var v = 0
            for b in s[at..<at + len] {
                guard (0x30...0x39).contains(b) else { return nil }
                v = v * 10 + Int(b - 0x30)
            }
            return v
        }
        guard let y = n(0, 4), let mo = n(5, 2), let d = n(8, 2), let h = n(11, 2), let mi = n(14, 2), let se = n(17, 2) else { return nil }
        var parts = tm()
        parts.tm_year = Int32(y - 1900)
        parts.tm_mon = Int32(mo - 1)
        parts.tm_mday = Int32(d)
        parts.tm_hour = Int32(h)
        parts.tm_min = Int32(mi)
        parts.tm_sec = Int32(se)
        let ms = s.count > 19 && s[19] == 0x2E ? (n(20, 3) ?? 0) : 0
        return Int64(timegm(&parts)) * 1000 + Int64(ms)
    }

    /// An unquoted SOQL datetime literal.
    package static func soqlLiteral(_ ms: Int64) -> String {
        // Floored, so that a time before 1970 (the SDK's -1 for "never synced") is a valid literal too.
        let seconds = ms >= 0 ? ms / 1000 : -((-ms + 999) / 1000)
        var t = time_t(seconds)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday, parts.tm_hour,
            parts.tm_min, parts.tm_sec, Int32(ms - seconds * 1000))
    }

    package static func now() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
}
