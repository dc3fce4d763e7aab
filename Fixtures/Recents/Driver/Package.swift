// swift-tools-version: 6.0
// Runs the Recents fixture's own code on a simulated device, as iOS would call it: what the app's scene and
// app delegate do (start, sync, open a contact, open a widget's link), and what WidgetKit asks the widget's
// provider. It depends on the package that `msdk-sim import --package` writes from Fixtures/Recents
// (RECENTS_PACKAGE, default ../../../.build/recents-import/package), and reaches the app's internal types
// with @testable import, as a test would (debug builds). scripts/integration/run-your-code.sh builds and runs it.
import PackageDescription

let imported = Context.environment["RECENTS_PACKAGE"] ?? "../../../.build/recents-import/package"

let package = Package(
    name: "RecentsDriver",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Recents", path: imported),
        .package(name: "AppGroupSim", path: "../../.."),
    ],
    targets: [
        .executableTarget(name: "recents-app", dependencies: [
            .product(name: "Recents", package: "Recents"), .product(name: "MobileSync", package: "AppGroupSim"),
        ], swiftSettings: [.unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]), .swiftLanguageMode(.v5)]),
        .executableTarget(name: "recents-widget", dependencies: [
            .product(name: "RecentsWidget", package: "Recents"), .product(name: "WidgetKit", package: "AppGroupSim"),
        ], swiftSettings: [.unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]), .swiftLanguageMode(.v5)]),
    ]
)
