import Foundation

/// What iOS accepts as a bundle identifier, an app group or a keychain group name: letters, digits, hyphens
/// and periods (reverse DNS). Every such name becomes a directory name on the device (its container, its
/// URL inbox), so anything else (a '/', '..', an empty part) would reach outside the device.
package enum BundleIdentifier {
    /// Nil when `name` is usable; otherwise what is wrong with it, in words.
    package static func problem(_ name: String) -> String? {
        if name.isEmpty { return "is empty" }
        if name.utf8.count > 255 { return "is longer than 255 characters" }
        if let bad = name.unicodeScalars.first(where: { !($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-" || $0 == ".")) }) {
            return "contains \(bad == "/" ? "'/'" : "'\(bad.escaped(asASCII: true))'"), but only letters, digits, '-' and '.' are allowed (reverse DNS)"
        }
        if name.hasPrefix(".") || name.hasSuffix(".") || name.contains("..") { return "has an empty part (a leading, trailing or doubled '.')" }
        return nil
    }

    package static func isValid(_ name: String) -> Bool { problem(name) == nil }
}
