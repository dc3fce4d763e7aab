import FastJSON
import AppGroup
import Foundation
import SmartStoreEngine

/// What a widget lists, from its extension bundle's `WidgetConfig.plist`: the soup, a title, the
/// fields shown, the order path and direction, an optional smart-SQL filter, and how many. Without the
/// file it is the sample's Recent Contacts. One query for the widget and the app's shell alike.
package struct WidgetConfig: Sendable, Equatable {
    package static let fileName = "WidgetConfig.plist"

    package var title: String
    package var soup: String
    package var fields: [String]
    package var orderPath: String
    package var ascending: Bool
    /// A smart-SQL condition, e.g. `{workorders:Status__c} != 'Completed'`.
    package var filter: String?
    package var count: Int

    package static let sample = WidgetConfig(
        title: "Recent Contacts", soup: "contacts", fields: ["FirstName", "LastName", "LastModifiedDate"], orderPath: "_soupLastModifiedDate",
        ascending: false, filter: nil, count: 3)

    package init(title: String, soup: String, fields: [String], orderPath: String, ascending: Bool, filter: String?, count: Int) {
        self.title = title
        self.soup = soup
        self.fields = fields
        self.orderPath = orderPath
        self.ascending = ascending
        self.filter = filter
        self.count = count
    }

    package enum ConfigError: Error, CustomStringConvertible {
        case invalid(path: String, key: String, expected: String)
        package var description: String {
            switch self {
            case .invalid(let path, let key, let expected): return "\(path): \(key) must be \(expected); fix the widget's \(WidgetConfig.fileName)"
            }
        }
    }

    /// The bundle's config, or the sample's when it has none.
    package static func load(from bundle: AppBundle) throws -> WidgetConfig {
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
    package var smartSQL: String {
        "SELECT {\(soup):_soup} FROM {\(soup)}\(filter.map { " WHERE \($0)" } ?? "") ORDER BY {\(soup):\(orderPath)} \(ascending ? "ASC" : "DESC"), {\(soup):_soupEntryId} DESC"
    }

    /// The entries this config lists, first `count` (default: the config's) of `smartSQL`: the one
    /// query and order the widget and the app's list screen (`main-app shell`'s `show`) both use.
    /// Empty when the soup does not exist yet (a user who logged in but never synced).
    package func newestRecords(in store: SmartStore, count: Int? = nil) throws -> [SoupEntry] {
        guard try store.soupExists(soup) else { return [] }
        let rows = try store.query(.smart(smartSQL, pageSize: max(1, count ?? self.count)))
        return rows.compactMap { $0.arrayValue?.first?.objectValue }
    }

    /// The configured fields of an entry (and its `Id`) as text, for a card or a list row.
    package func shownFields(of entry: SoupEntry) -> [String: String] {
        var out: [String: String] = [:]
        for field in ["Id"] + fields {
            switch JSON.object(entry).project(field) {
            case .string(let v)?: out[field] = v
            case .int(let v)?: out[field] = String(v)
            case .double(let v)?: out[field] = String(v)
            case .bool(let v)?: out[field] = v ? "true" : "false"
            default: continue
            }
        }
        return out
    }

    /// An entry as one line of a list: the sample's contacts by name, any other entry by its configured
    /// fields in order, joined by ` · `.
    package func rowText(of entry: SoupEntry) -> String {
        if soup == Self.sample.soup {
            return [entry["FirstName"]?.stringValue, entry["LastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
        }
        let shown = shownFields(of: entry)
        return fields.compactMap { shown[$0] }.joined(separator: " · ")
    }

    /// What the app's list screen shows: the config of the first widget it embeds that has one, or
    /// the app's own `WidgetConfig.plist`, or the sample's Recent Contacts.
    package static func listScreen(of app: AppBundle) throws -> WidgetConfig {
        for ext in try app.plugIns() where FileManager.default.fileExists(atPath: ext.resourceURL(fileName).path) { return try load(from: ext) }
        return try load(from: app)
    }
}
