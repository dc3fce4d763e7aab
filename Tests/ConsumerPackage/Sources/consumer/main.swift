import Combine
import Foundation
import MobileSync
import WidgetKit

// `consumer reload-widgets`: what an app does after it wrote what its widget shows.
if CommandLine.arguments.dropFirst().first == "reload-widgets" {
    WidgetCenter.shared.reloadAllTimelines()
    exit(0)
}

// `consumer extension-setup GROUP`: an extension's setup written against the SDK's API, run as the bundle and
// device that APPGROUPSIM_BUNDLE and APPGROUPSIM_DEVICE name: the login state before and after it sets the group.
if CommandLine.arguments.count == 3, CommandLine.arguments[1] == "extension-setup" {
    let group = CommandLine.arguments[2]
    func state() -> String {
        "appGroupName=\(DataSharingHelper.shared.appGroupName ?? "nil") enabled=\(DataSharingHelper.shared.isAppGroupEnabled) userLoggedIn=\(UserDefaults.msdk().bool(forKey: "userLoggedIn")) container=\(FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: group) != nil)"
    }
    print("before: \(state())")
    DataSharingHelper.shared.appGroupName = group
    print("after: \(state())")
    exit(0)
}

// The SDK's API the way app code uses it, as the bundle and device that APPGROUPSIM_BUNDLE and
// APPGROUPSIM_DEVICE name: a global store on the device, the SDK's query specs, a sync target, and an app
// data layer publishing rows through Combine.
let store = SmartStore.sharedGlobal(withName: "consumer")
store.removeSoup("workorders")
_ = store.registerSoup(withName: "workorders", withIndexPaths: ["Name"])
store.upsert(entries: [["Name": "WO-1"], ["Name": "WO-2"]], forSoupNamed: "workorders")
let newestSpec = QuerySpec.buildSmartQuerySpec(smartSql: "SELECT {workorders:Name} FROM {workorders} ORDER BY {workorders:_soupEntryId} DESC", pageSize: 1)!
let newest = try store.query(using: newestSpec, startingFromPageIndex: 0) as! [[Any]]
let all = QuerySpec.buildAllQuerySpec(soupName: "workorders", orderPath: "Name", order: .ascending, pageSize: 10)
print("SmartStore: \(try store.count(using: all)) entries, newest \(newest.first?.first as? String ?? "?")")
print("SmartStore: the store is \(store.path!.replacingOccurrences(of: ProcessInfo.processInfo.environment["APPGROUPSIM_DEVICE"] ?? "", with: "$DEVICE"))")
let target = SoqlSyncDownTarget.newSyncTarget("SELECT Name FROM WorkOrder")
print("MobileSync: a SOQL target keeps \(target.query)")
print("SalesforceSDKCore: current user \(UserAccountManager.shared.currentUserAccount?.idData.username ?? "none"), app \(SalesforceManager.appName)")

// An app data layer's way to publish records, with Combine's names: an ObservableObject whose @Published
// rows follow the store, a Future for one query, a subject for changes, and the cancellables that hold them.
final class WorkOrders: ObservableObject {
    @Published var names: [String] = []
    let changes = PassthroughSubject<Void, Never>()
    // Qualified by module as some code does: the alias answers to Combine. too.
    private var cancellables = Set<Combine.AnyCancellable>()

    init(store: SmartStore) {
        changes.prepend(())
            .flatMap { _ in
                store.publisher(for: "SELECT {workorders:Name} FROM {workorders} ORDER BY {workorders:Name}")
                    .map { rows in rows.compactMap { ($0 as? [Any])?.first as? String } }
                    .replaceError(with: [])
            }
            .assign(to: \.names, on: self)
            .store(in: &cancellables)
    }
}
let orders = WorkOrders(store: store)
var seen: [[String]] = []
let watching = orders.$names.sink { seen.append($0) }
store.upsert(entries: [["Name": "WO-0"]], forSoupNamed: "workorders")
orders.changes.send()
watching.cancel()
print("Combine: @Published went \(seen.map { $0.joined(separator: ",") }.map { "[\($0)]" }.joined(separator: " -> "))")
