import AppGroup
import Foundation

/// The SDK's `SFSDKLoginViewControllerConfig`, read from the bundle's `LoginViewConfig.plist`:
/// whether the login screen shows its navigation bar and the settings icon (which opens the
/// login-host list), the bar's colour, its title's colour and font.
package struct LoginViewConfig: Sendable, Equatable {
    package static let fileName = "LoginViewConfig.plist"

    package var showsSettingsIcon = true
    package var showsNavigationBar = true
    /// `#RRGGBB`.
    package var navBarColor = "#0070D2"
    package var navBarTitleColor = "#FFFFFF"
    package var navBarFontName = "SalesforceSans-Bold"
    package var navBarFontSize = 17.0
    package var title = "Log In"

    package init() {}

    /// The bundle's configuration, or the SDK's defaults when it has none.
    package static func load(from bundle: AppBundle) throws -> LoginViewConfig {
        var config = LoginViewConfig()
        guard let plist = try bundle.plistResource(fileName) else { return config }
        let path = bundle.resourceURL(fileName).path
        func bool(_ key: String) throws -> Bool? {
            guard let value = plist[key] else { return nil }
            guard let b = value.boolValue else { throw BundleError.invalidValue(path: path, key: key, expected: "a bool") }
            return b
        }
        func color(_ key: String) throws -> String? {
            guard let value = plist[key] else { return nil }
            guard let s = value.stringValue, Self.rgb(s) != nil else {
                throw BundleError.invalidValue(path: path, key: key, expected: "a colour as #RRGGBB")
            }
            return s
        }
        config.showsSettingsIcon = try bool("showsSettingsIcon") ?? config.showsSettingsIcon
        config.showsNavigationBar = try bool("showsNavigationBar") ?? config.showsNavigationBar
        config.navBarColor = try color("navBarColor") ?? config.navBarColor
        config.navBarTitleColor = try color("navBarTitleColor") ?? config.navBarTitleColor
        if let font = plist["navBarFont"] {
            guard let d = font.dictionaryValue, let name = d["name"]?.stringValue else {
                throw BundleError.invalidValue(path: path, key: "navBarFont", expected: "a dictionary with name and size")
            }
            config.navBarFontName = name
            config.navBarFontSize = d["size"].flatMap { $0.doubleValue ?? $0.intValue.map(Double.init) } ?? config.navBarFontSize
        }
        config.title = plist["title"]?.stringValue ?? config.title
        return config
    }

    static func rgb(_ hex: String) -> (Int, Int, Int)? {
        guard hex.count == 7, hex.first == "#", let v = Int(hex.dropFirst(), radix: 16) else { return nil }
        return (v >> 16 & 0xFF, v >> 8 & 0xFF, v & 0xFF)
    }

    /// The screen's top, as text. On a terminal the bar is drawn in its colours (24-bit ANSI) and the
    /// title in bold or italic when the font's name says so; a terminal has no other fonts, so the
    /// font's name and size are shown after the title.
    package func renderBar(loginHost: URL, ansi: Bool) -> String {
        var lines: [String] = []
        if showsNavigationBar {
            let icon = showsSettingsIcon ? "⚙ " : "  "
            let font = "(\(navBarFontName) \(Int(navBarFontSize)))"
            let text = " \(icon) \(title)  \(font)".padding(toLength: 52, withPad: " ", startingAt: 0)
            if ansi, let bg = Self.rgb(navBarColor), let fg = Self.rgb(navBarTitleColor) {
                let lower = navBarFontName.lowercased()
                let style = (lower.contains("bold") ? "1;" : "") + (lower.contains("italic") || lower.contains("oblique") ? "3;" : "")
                lines.append("\u{1B}[\(style)38;2;\(fg.0);\(fg.1);\(fg.2);48;2;\(bg.0);\(bg.1);\(bg.2)m\(text)\u{1B}[0m")
            } else {
                lines.append("[\(text.trimmingCharacters(in: .whitespaces))]  bar \(navBarColor), title \(navBarTitleColor)")
            }
        }
        lines.append("  login host: \(loginHost.absoluteString)")
        if showsSettingsIcon { lines.append("  (type 'settings' as the username to change the login host)") }
        return lines.joined(separator: "\n")
    }
}
