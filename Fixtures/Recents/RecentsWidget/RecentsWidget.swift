//
//  RecentsWidget.swift — UI: the widget and its cells.
//

import SwiftUI
import WidgetKit

@main
struct RecentsWidget: Widget {
    var body: some WidgetConfiguration {
        StaticConfiguration(kind: "RecentsWidget", provider: Provider()) { entry in
            RecentsWidgetView(entry: entry)
        }
        .configurationDisplayName("Recent contacts")
    }
}

struct RecentsWidgetView: View {
    let entry: ContactsEntry

    var body: some View {
        VStack(alignment: .leading) {
            ForEach(entry.contacts ?? [], id: \.self) { contact in
                Link(destination: Provider.link(for: contact)) { Text(contact.displayName) }
            }
            Link(destination: Provider.link(for: nil)) { Text("New contact") }
        }
    }
}
