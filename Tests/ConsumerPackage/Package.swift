// swift-tools-version: 6.0
// A developer's own package that depends on AppGroupSim by path and drives its libraries in-process
// (scripts/integration/consumer-package.sh builds and runs it). It is not part of AppGroupSim's build.
import PackageDescription

let package = Package(
    name: "AppGroupSimConsumer",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "AppGroupSim", path: "../..")],
    targets: [
        .executableTarget(name: "consumer", dependencies: [
            .product(name: "SmartStore", package: "AppGroupSim"),
            .product(name: "MobileSync", package: "AppGroupSim"),
            .product(name: "RestClient", package: "AppGroupSim"),
            .product(name: "SalesforceSDK", package: "AppGroupSim"),
            .product(name: "AppGroup", package: "AppGroupSim"),
            .product(name: "AppExtensions", package: "AppGroupSim"),
            .product(name: "MobileApp", package: "AppGroupSim"),
            .product(name: "Combine", package: "AppGroupSim"),
            .product(name: "SalesforceSDKCommon", package: "AppGroupSim"),
        ], swiftSettings: [
            // `import Combine` reads AppGroupSim's OpenCombine re-export (Sources/AppGroupSimCombine), for this
            // target only: other packages' `#if canImport(Combine)` stay false.
            .unsafeFlags(["-module-alias", "Combine=AppGroupSimCombine"]),
        ]),
    ]
)
