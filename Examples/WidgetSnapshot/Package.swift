// swift-tools-version: 6.0
// A developer's app and widget that share a snapshot through the app group, and a test that explores them
// (AppGroupSimTesting's DeviceExploration, issue 38). The snapshot's code has a bug planted on purpose: the app
// writes the count and the names in two writes, so a widget drawn between them shows a header that is not its
// list. Exploring finds it from the developer's own invariant; the fix (one write) breaks nothing.
// scripts/integration/examples.sh builds it and runs its tests.
import PackageDescription

let package = Package(
    name: "WidgetSnapshot",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "AppGroupSim", path: "../..")],
    targets: [
        // The code the app and the widget share: the snapshot in the group's msdkUserDefaults.
        .target(name: "WidgetSnapshot", dependencies: [.product(name: "SalesforceSDKCommon", package: "AppGroupSim")]),
        // The app: `add` puts a contact in the user's store, `clear` empties it; each then publishes the snapshot.
        .executableTarget(name: "snapshot-app", dependencies: ["WidgetSnapshot", .product(name: "MobileSync", package: "AppGroupSim")]),
        // The widget: draws the snapshot (a header with the count, then the names).
        .executableTarget(name: "snapshot-widget", dependencies: ["WidgetSnapshot", .product(name: "SalesforceSDKCommon", package: "AppGroupSim")]),
        .testTarget(name: "WidgetSnapshotTests", dependencies: [.product(name: "AppGroupSimTesting", package: "AppGroupSim")]),
    ]
)
