import AppGroup
import Foundation

/// What a widget lists, from its extension bundle's `WidgetConfig.plist`: the soup, a title, the
/// fields shown, the order path and direction, an optional smart-SQL filter, and how many. Without the
/// file it is the sample's Recent Contacts. One query for the widget and the app's shell alike.
public struct WidgetConfig: Sendable, Equatable {
    public static let fileName = "WidgetConfig.plist"

    public var title: String
    public var soup: String
    public var fields: [String]
    public var orderPath: String
    public var ascending: Bool
    /// A smart-SQL condition, e.g. `{workorders:Status__c} != 'Completed'`.
    public var filter: String?
    public var count: Int

    public static let sample = WidgetConfig(
        title: "Recent Contacts", soup: "contacts", fields: ["FirstName", "LastName", "LastModifiedDate"], orderPath: "_soupLastModifiedDate",
        ascending: false, filter: nil, count: 3)

    public init(title: String, soup: String, fields: [String], orderPath: String, ascending: Bool, filter: String?, count: Int) {
        self.title = title
        self.soup = soup
        self.fields = fields
        self.orderPath = orderPath
        self.ascending = ascending
        self.filter = filter
        self.count = count
    }

    public enum ConfigError: Error, CustomStringConvertible {
        case invalid(path: String, key: String, expected: String)
        public var description: String {
            switch self {
            case .invalid(let path, let key, let expected): return "\(path): \(key) must be \(expected); fix the widget's \(WidgetConfig.fileName)"
            }
        }
    }

    /// The bundle's config, or the sample's when it has none.
    public static func load(from bundle: AppBundle) throws -> WidgetConfig {
        guard let plist = try bundle.plistResource(fileName) else { return .sample }
        let path = bundle.resourceURL(fileName).path
        func string(_ key: String) throws -> String? {
            guard let value = plist[key] else { return nil }
            guard let s = value.stringValue, !s.isEmpty else { throw ConfigError.invalid(path: path, key: key, expected: "a non-empty string") }
            return s
        }
        guard let soup = try string("soup") else { throw ConfigError.invalid(path: path, key: "soup", expected: "the soup to list (a string)") }
        let identifier: (String) -> Bool = { $0.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." } && !$0.isEmpty }
        guard identifier(soup) else { throw ConfigError.invalid(path: path, key: "soup", expected: "a soup name (letters, digits, _)") }
        var fields = sample.fields
        if let raw = plist["fields"] {
            guard let list = raw.arrayValue?.compactMap(\.stringValue), !list.isEmpty, list.allSatisfy(identifier) else {
                throw ConfigError.invalid(path: path, key: "fields", expected: "an array of field paths")
            }
            fields = list
        }
        let order = try string("orderPath") ?? sample.orderPath
        guard identifier(order) else { throw ConfigError.invalid(path: path, key: "orderPath", expected: "a field path") }
        var ascending = false
        if let raw = plist["ascending"] {
            guard let b = raw.boolValue else { throw ConfigError.invalid(path: path, key: "ascending", expected: "a boolean") }
            ascending = b
        }
        var count = sample.count
        if let raw = plist["count"] {
            guard let n = raw.intValue, (1...100).contains(n) else { throw ConfigError.invalid(path: path, key: "count", expected: "an integer from 1 to 100") }
            count = n
        }
        return WidgetConfig(title: try string("title") ?? soup, soup: soup, fields: fields, orderPath: order, ascending: ascending, filter: try string("filter"), count: count)
    }

    /// The newest-first (or configured) query: ties broken by the entry written last.
    public var smartSQL: String {
        "SELECT {\(soup):_soup} FROM {\(soup)}\(filter.map { " WHERE \($0)" } ?? "") ORDER BY {\(soup):\(orderPath)} \(ascending ? "ASC" : "DESC"), {\(soup):_soupEntryId} DESC"
    }
}
