// swift-tools-version: 6.0
// An app's data layer, written as Mobile SDK Swift apps write theirs: the user's store from userstore.json,
// the configured syncs, a sync down through SyncManager, and the contacts published to the UI through Combine.
// It uses only the SDK-named products and Combine; run it as the app bundle on a simulated device.
import PackageDescription

let package = Package(
    name: "ContactsDataLayer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "AppGroupSim", path: "../..")],
    targets: [
        .executableTarget(name: "ContactsDataLayer", dependencies: [
            .product(name: "MobileSync", package: "AppGroupSim"),
            .product(name: "Combine", package: "AppGroupSim"),
            .product(name: "WidgetKit", package: "AppGroupSim"),
        ], swiftSettings: [
            // `import Combine` is AppGroupSim's OpenCombine re-export, for this target only.
            .unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]),
        ]),
    ]
)
