// swift-tools-version: 6.0
// A developer's own package that depends on AppGroupSim by path and uses only the SDK-named products (and
// AppGroupSimTesting in its tests)
// (scripts/integration/consumer-package.sh builds and runs it). It is not part of AppGroupSim's build.
import PackageDescription

let package = Package(
    name: "AppGroupSimConsumer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "AppGroupSim", path: "../..")],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "MobileSync", package: "AppGroupSim"),
            .product(name: "Combine", package: "AppGroupSim"),
            .product(name: "WidgetKit", package: "AppGroupSim"),
        ], swiftSettings: [
            // `import Combine` reads AppGroupSim's OpenCombine re-export (Sources/AppGroupSimCombine), for this
            // target only: other packages' `#if canImport(Combine)` stay false.
            .unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]),
        ]),
        // The SDK's own Swift tests for these classes, rewritten, and a developer's app-then-extension test,
        // against the SDK-named products only (scripts/integration/consumer-package.sh runs them).
        .testTarget(name: "SDKAPITests", dependencies: [
            .product(name: "MobileSync", package: "AppGroupSim"),
            .product(name: "SmartStore", package: "AppGroupSim"),
            .product(name: "SalesforceSDKCore", package: "AppGroupSim"),
            .product(name: "Combine", package: "AppGroupSim"),
            .product(name: "AppGroupSimTesting", package: "AppGroupSim"),
            .product(name: "UserNotifications", package: "AppGroupSim"),
        ], swiftSettings: [.unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"])]),
    ]
)
