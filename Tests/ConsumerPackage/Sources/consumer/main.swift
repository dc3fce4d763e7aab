import AppExtensions
import AppGroup
import Combine
import Foundation
import MobileApp
import MobileSync
import RestClient
import SalesforceSDK
import SalesforceSDKCommon
import SmartStore

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

// Uses the exported libraries the way a developer's test target would: a SmartStore on disk, the
// syncs a bundle names, the widget's query, and a bundle read through AppGroup.
let root = URL(fileURLWithPath: CommandLine.arguments[1])
let work = FileManager.default.temporaryDirectory.appendingPathComponent("consumer-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: work) }

let store = try SmartStore(url: work.appendingPathComponent("store.sqlite"), name: "consumer")
try store.registerSoup("workorders", indexSpecs: [IndexSpec(path: "Name", type: .string)])
try store.upsert([["Name": .string("WO-1")], ["Name": .string("WO-2")]], into: "workorders")
let newest = try store.query(.smart("SELECT {workorders:Name} FROM {workorders} ORDER BY {workorders:_soupEntryId} DESC", pageSize: 1))
print("SmartStore: \(try store.count(.all(soup: "workorders"))) entries, newest \(newest.first?.arrayValue?.first?.stringValue ?? "?")")

let bundle = try AppBundle(at: root.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app"))
let syncs = try SyncManager.configuredSyncs(bundle.resourceURL("usersyncs.json"))
print("MobileSync: \(bundle.bundleIdentifier) names \(syncs.map(\.name).joined(separator: ", "))")
print("AppExtensions: the sample widget queries \(WidgetConfig.sample.smartSQL)")
let byName = WidgetConfig(title: "Work orders", soup: "workorders", fields: ["Name"], orderPath: "Name", ascending: true, filter: nil, count: 1)
print("AppExtensions: first by name \(try byName.newestRecords(in: store).map(byName.rowText(of:)))")
let values = try RecordEditor.values(json: #"{"Quantity__c": 2}"#, set: ["Name=WO-3"])
print("MobileApp: a record from the command line has \(values.keys.sorted().joined(separator: ", "))")
print("RestClient: API \(RestClient.apiVersion)")

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
                Future<[String], Never> { promise in
                    let rows = (try? store.query(.smart("SELECT {workorders:Name} FROM {workorders} ORDER BY {workorders:Name}", pageSize: 10))) ?? []
                    promise(.success(rows.compactMap { $0.arrayValue?.first?.stringValue }))
                }
            }
            .assign(to: \.names, on: self)
            .store(in: &cancellables)
    }
}
let orders = WorkOrders(store: store)
var seen: [[String]] = []
let watching = orders.$names.sink { seen.append($0) }
try store.upsert([["Name": .string("WO-0")]], into: "workorders")
orders.changes.send()
watching.cancel()
print("Combine: @Published went \(seen.map { $0.joined(separator: ",") }.map { "[\($0)]" }.joined(separator: " -> "))")
