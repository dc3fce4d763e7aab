// The Recents widget's process: WidgetKit asks the provider for its timeline, and each cell's link is
// printed with it. Run with APPGROUPSIM_BUNDLE (the imported RecentsWidget.appex) and APPGROUPSIM_DEVICE.
import Foundation
import WidgetKit
@testable import RecentsWidget

let provider = Provider()
var shown: Timeline<ContactsEntry>?
provider.getTimeline(in: TimelineProviderContext()) { shown = $0 }
guard let entry = shown?.entries.first else {
    FileHandle.standardError.write(Data("recents-widget: the provider gave no entry\n".utf8))
    exit(1)
}
if let contacts = entry.contacts {
    for contact in contacts { print("\(contact.displayName) | \(Provider.link(for: contact).absoluteString)") }
} else {
    print("placeholder")
}
print("+ | \(Provider.link(for: nil).absoluteString)")
