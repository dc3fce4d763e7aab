// swift-tools-version: 6.0
// An app extension's data code, written as the Mobile SDK's samples write their widget's: set the app group,
// check the login state, initialize the SDK, then read the current user's newest contacts. It uses only the
// SDK-named products; run it as the widget bundle on a simulated device (APPGROUPSIM_BUNDLE, APPGROUPSIM_DEVICE).
import PackageDescription

let package = Package(
    name: "RecentContactsExtension",
    platforms: [.macOS(.v14)],
    dependencies: [.package(name: "AppGroupSim", path: "../..")],
    targets: [
        .executableTarget(name: "RecentContactsExtension", dependencies: [
            .product(name: "MobileSync", package: "AppGroupSim"),
        ]),
    ]
)
