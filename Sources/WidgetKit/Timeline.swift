import Foundation

// WidgetKit's timeline types, for a widget's provider code on Linux (issue 27): a `TimelineProvider` compiles
// and runs as on iOS (its entries are plain values); the views that render the entries are SwiftUI, which is
// not here. A test or driver asks the provider as WidgetKit does, with a `TimelineProviderContext`.

/// A widget's entry: what one rendering shows, and when.
public protocol TimelineEntry {
    var date: Date { get }
}

/// When WidgetKit asks the provider again.
public struct TimelineReloadPolicy: Equatable, Sendable, CustomStringConvertible {
    enum Kind: Equatable, Sendable { case atEnd, never, after(Date) }
    let kind: Kind
    public static let atEnd = TimelineReloadPolicy(kind: .atEnd)
    public static let never = TimelineReloadPolicy(kind: .never)
    public static func after(_ date: Date) -> TimelineReloadPolicy { TimelineReloadPolicy(kind: .after(date)) }

    public var description: String {
        switch kind {
        case .atEnd: return "atEnd"
        case .never: return "never"
        case .after(let date): return "after(\(date))"
        }
    }
}

/// The entries a provider gives, and its reload policy.
public struct Timeline<EntryType: TimelineEntry> {
    public let entries: [EntryType]
    public let policy: TimelineReloadPolicy

    public init(entries: [EntryType], policy: TimelineReloadPolicy) {
        self.entries = entries
        self.policy = policy
    }
}

/// The widget's size class.
public enum WidgetFamily: String, CaseIterable, Sendable {
    case systemSmall, systemMedium, systemLarge, systemExtraLarge, accessoryCircular, accessoryRectangular, accessoryInline
}

/// What WidgetKit tells the provider about the request.
public struct TimelineProviderContext: Sendable {
    public let family: WidgetFamily
    public let isPreview: Bool
    public let displaySize: CGSize

    /// WidgetKit makes these on iOS; here a test or driver does.
    public init(family: WidgetFamily = .systemMedium, isPreview: Bool = false, displaySize: CGSize = CGSize(width: 329, height: 155)) {
        self.family = family
        self.isPreview = isPreview
        self.displaySize = displaySize
    }
}

/// A widget's provider: a placeholder, a snapshot, and a timeline of entries.
public protocol TimelineProvider {
    associatedtype Entry: TimelineEntry
    typealias Context = TimelineProviderContext

    func placeholder(in context: Context) -> Entry
    func getSnapshot(in context: Context, completion: @escaping (Entry) -> Void)
    func getTimeline(in context: Context, completion: @escaping (Timeline<Entry>) -> Void)
}
