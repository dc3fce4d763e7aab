// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "AppGroupSim",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "main-app", targets: ["main-app"]),
        .executable(name: "extension-widget", targets: ["extension-widget"]),
        .executable(name: "extension-notification", targets: ["extension-notification"]),
        .executable(name: "sf-simulator", targets: ["sf-simulator"]),
        .executable(name: "msdk-sim", targets: ["msdk-sim"]),
        // A developer's package depends on AppGroupSim by path and uses the SDK's modules, as Swift sees them on iOS
        // (issue 26). The engine under them (AppGroup, Keychain, CoreEngine, CoreNetworkEngine, SmartStoreEngine,
        // MobileSyncEngine, the app layer) is at Swift's `package` access level: no product (docs/architecture.md).
        .library(name: "SmartStore", targets: ["SmartStore"]),
        .library(name: "MobileSync", targets: ["MobileSync"]),
        // `import Combine` on Linux: OpenCombine re-exported by AppGroupSimCombine, which developer targets import
        // under Combine's name with `-module-alias Combine=AppGroupSimCombine` (see Sources/AppGroupSimCombine).
        .library(name: "Combine", targets: ["AppGroupSimCombine"]),
        // The SDK's own module names and Swift API over the engine (issue 26), starting with SalesforceSDKCommon.
        .library(name: "SalesforceSDKCommon", targets: ["SalesforceSDKCommon"]),
        .library(name: "SalesforceSDKCore", targets: ["SalesforceSDKCore"]),
        // `import CryptoKit` on Linux: swift-crypto's Crypto under CryptoKit's name (SymmetricKey, AES.GCM).
        .library(name: "CryptoKit", targets: ["CryptoKit"]),
        // For a developer's tests of their own code: a simulated device, an in-process org, a login, run(as:).
        .library(name: "AppGroupSimTesting", targets: ["AppGroupSimTesting"]),
        // `import WidgetKit` on Linux: WidgetCenter's reloads, recorded on the simulated device (no SwiftUI).
        .library(name: "WidgetKit", targets: ["WidgetKit"]),
        // `import UserNotifications` on Linux: a notification service extension's types (issue 37), re-exporting Foundation.
        .library(name: "UserNotifications", targets: ["UserNotifications"]),
    ],
    // The org on PostgreSQL (sf-simulator --state postgres://…, a CI fleet) is a trait, off by default: a first build
    // then compiles neither PostgresNIO nor swift-nio-ssl. `swift build --traits PostgreSQL`; scripts/fleet and
    // scripts/test turn it on.
    traits: [
        .trait(name: "PostgreSQL", description: "The org's PostgreSQL backend: sf-simulator --state postgres://USER@HOST:PORT/DATABASE, shared by several instances."),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        // SQLite for SmartStore: WAL DatabasePool (a reader in another process while the app writes),
        // cached statements and typed errors; far less code and risk than our own sqlite3 binding.
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        // The simulated org's HTTP server (DESIGN.md §6): small route groups, real sockets on loopback.
        // Without its default traits: the org uses neither swift-configuration (ConfigurationSupport, 48 files that
        // every first build compiled) nor DateFormatter-based form coding (FullFoundation). And SwiftPM writes a
        // package's trait flags (-D) in a Set's order, which changes from one run to the next: with two of them, a
        // build that makes its plan anew (--disable-build-manifest-caching, as every consumer package here is
        // built) recompiled Hummingbird in one build out of two.
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1", traits: []),
        // SHA-256 for OAuth PKCE (S256) and HMAC for token signatures: crypto is not ours to hand-roll.
        .package(url: "https://github.com/apple/swift-crypto", from: "3.12.3"),
        // Graceful shutdown (SIGTERM and tests); Hummingbird already builds on it.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        // Combine's names and semantics on Linux, for developer code that imports Combine (issue 26): a
        // maintained implementation of a large API that is not ours to rewrite.
        .package(url: "https://github.com/OpenCombine/OpenCombine", from: "0.14.0"),
        // Reading a developer's Swift sources for doctor and import (issue 27): the compiler's own parser, so
        // that what we read is what Swift reads; a hand-written Swift parser would be wrong at the edges.
        .package(url: "https://github.com/swiftlang/swift-syntax", from: "603.0.1"),
        // API documentation of the SDK-named products with DocC (issue 29): `scripts/docs` builds it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0"),
        // The org on PostgreSQL, shared by several sf-simulator instances (issue 28): the maintained client of
        // the Swift server ecosystem (SwiftNIO, as Hummingbird), with the wire protocol, auth and binary types.
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        // Already in the graph through Hummingbird and PostgresNIO: named here because the org's code imports their
        // modules (NIOCore, HTTPTypes, NIOHTTPTypes), and every module a target imports is declared (ArchitectureTests).
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
    ],
    targets: [
        // Platform layer (DESIGN.md §1): nothing here imports upward.
        .systemLibrary(
            name: "CSecret",
            pkgConfig: "libsecret-1",
            providers: [.apt(["libsecret-1-dev"])]
        ),
        // Where the device's processes meet (keychain, files, store transactions): reported to `msdk-sim explore`.
        .target(name: "SchedulePoints"),
        // The explorers' side of those points (issue 38): actors as processes stopped at their points, seeded
        // choices, shrinking a schedule; for msdk-sim explore (Diagnostics) and AppGroupSimTesting's DeviceExploration.
        .target(name: "Exploring", dependencies: ["SchedulePoints", "CProcessControl"]),
        .systemLibrary(name: "CProcessControl"),
        .target(name: "Keychain", dependencies: ["CSecret", "FastJSON", "SchedulePoints"]),
        // glibc's <sys/xattr.h>, for the file protection class each file carries (AppGroup/FileProtection.swift).
        .systemLibrary(name: "CXattr"),
        // The system OpenSSL's libcrypto, for RSA PKCS#1 v1.5 encryption, which swift-crypto does not offer: the org
        // sends push secrets that way when a device registers no CipherName (as Salesforce did before SDK 12).
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(name: "AppGroup", dependencies: ["CXattr", "SchedulePoints", .product(name: "Logging", package: "swift-log"), .product(name: "Crypto", package: "swift-crypto")]),
        // Reads a developer's Xcode project (project.pbxproj) for `msdk-sim import` and `doctor --xcodeproj`.
        .target(name: "XcodeProject"),
        // What a developer's code configures (group, flag, login-state key, key labels, SDK initialisation):
        // Swift through SwiftSyntax, Objective-C through a small tokenizer (issue 27).
        .target(name: "SourceReader", dependencies: [
            .product(name: "SwiftSyntax", package: "swift-syntax"), .product(name: "SwiftParser", package: "swift-syntax"),
            .product(name: "SwiftParserDiagnostics", package: "swift-syntax"),
        ]),

        // The SDK face's Apple pieces (DESIGN.md §12): Combine for developer code, re-exporting OpenCombine.
        // Never a module named Combine in the build: GRDB (and any package) compiles its `#if canImport(Combine)`
        // code when such a module exists by then, and fails without OpenCombine's C module (a race by build order).
        .target(name: "AppGroupSimCombine", dependencies: [
            .product(name: "OpenCombine", package: "OpenCombine"), .product(name: "OpenCombineDispatch", package: "OpenCombine"),
            .product(name: "OpenCombineFoundation", package: "OpenCombine"),
        ]),

        // The SDK's SalesforceSDKCommon, as Swift sees it (DataSharingHelper, UserDefaults.msdk(), the app-group
        // container), for developer code running as a bundle on a simulated device (SDKProcess).
        .target(name: "SalesforceSDKCommon", dependencies: ["AppGroup", "Keychain"]),
        // The SDK's SalesforceSDKCore, as Swift sees it: KeyGenerator and Encryptor so far; re-exports
        // SalesforceSDKCommon as the SDK's umbrella header does.
        .target(name: "SalesforceSDKCore", dependencies: [
            "SalesforceSDKCommon", "CryptoKit", "CoreEngine", "CoreNetworkEngine", "AppGroup", "Keychain", "AppGroupSimCombine", "UserNotifications", "FastJSON",
        ]),
        .target(name: "CryptoKit", dependencies: [.product(name: "Crypto", package: "swift-crypto")]),
        // The SDK's SmartStore, as Swift sees it (SmartStore.shared(withName:forUserAccount:), QuerySpec, SoupIndex,
        // SmartStoreSDKManager), on the engine's store; re-exports SalesforceSDKCore.
        .target(name: "SmartStore", dependencies: ["SalesforceSDKCore", "SalesforceSDKCommon", "SmartStoreEngine", "CoreEngine", "AppGroup", "FastJSON", "AppGroupSimCombine"]),
        .target(name: "WidgetKit", dependencies: ["AppGroup", "SalesforceSDKCommon"]),
        .target(name: "UserNotifications", dependencies: ["AppGroup", "SalesforceSDKCommon"]),
        .target(name: "AppGroupSimTesting", dependencies: ["AppGroup", "Keychain", "CoreEngine", "CoreNetworkEngine", "MobileApp", "OrgSimulator", "SalesforceSDKCommon", "UserNotifications", "Exploring"]),
        // The SDK's MobileSync, as Swift sees it (SyncManager.sharedInstance(forUserAccount:), SyncState, the targets,
        // MobileSyncSDKManager), on the engine's sync manager; re-exports SmartStore.
        .target(name: "MobileSync", dependencies: [
            "SmartStore", "SalesforceSDKCore", "SalesforceSDKCommon", "MobileSyncEngine", "CoreNetworkEngine", "SmartStoreEngine", "CoreEngine", "Keychain", "FastJSON",
            "AppGroupSimCombine",
        ]),

        // Base (DESIGN.md §1): one JSON value with a fast reader and writer, shared by the data layer.
        .target(name: "FastJSON"),

        // The engine, one module per SDK module in the SDK's order (docs/architecture.md): CoreEngine (accounts,
        // launch, events, directories, keys, push decryption; no networking, so an extension links it alone),
        // CoreNetworkEngine (REST, OAuth, login, logout, IDP, screen lock, push registration), SmartStoreEngine
        // (stores), MobileSyncEngine (syncs). Crypto: AES-GCM for UserAccount.plist, RSA for the push key.
        .target(name: "CoreEngine", dependencies: [
            "AppGroup", "Keychain", "FastJSON", "SchedulePoints",
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto"),
        ]),
        .target(name: "CoreNetworkEngine", dependencies: ["CoreEngine", "AppGroup", "Keychain", "FastJSON", "SchedulePoints", .product(name: "Crypto", package: "swift-crypto")]),
        .target(name: "SmartStoreEngine", dependencies: [
            // Store paths come from the device layout (DeviceLayout.SDKRoot), one rule for every module.
            "CoreEngine", "AppGroup", "FastJSON", "SchedulePoints",
            .product(name: "GRDB", package: "GRDB.swift"), .product(name: "GRDBSQLite", package: "GRDB.swift"),
        ]),
        .target(name: "MobileSyncEngine", dependencies: ["SmartStoreEngine", "CoreNetworkEngine", "CoreEngine", "AppGroup", "FastJSON"]),
        .target(name: "OrgSimulator", dependencies: [
            .product(name: "Hummingbird", package: "hummingbird"), .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "Logging", package: "swift-log"), .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"), .product(name: "HTTPTypes", package: "swift-http-types"),
            .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
            // The org's records, tokens and cursors in SQLite (issue "Any org"): the same library the client's
            // SmartStore uses, so no second SQLite binding.
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "Crypto", package: "swift-crypto"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            // The push gateway encrypts notifications as Salesforce does (issue "Push"), with its own code: the org
            // shares none with the client's decryption.
            "FastJSON", .product(name: "_CryptoExtras", package: "swift-crypto"), "COpenSSL",
        ]),
        // The org's PostgreSQL backend, apart so that only sf-simulator (and tests) link PostgresNIO: packages
        // built on AppGroupSimTesting's in-process org do not. Without the trait PostgreSQL it holds only the
        // URL's rules and says the backend is not built.
        .target(name: "OrgSimulatorPostgres", dependencies: [
            "OrgSimulator", .product(name: "PostgresNIO", package: "postgres-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["PostgreSQL"])),
        ]),

        // App layer (DESIGN.md §1): the app and its extensions as their bundles configure them. Generic: the
        // sample and any imported app differ only in their bundles' files.
        // What an extension runs: the widget's launch checks, evaluation, cards and the newest-records query.
        // And the notification service extension's: the next delivered payload, decrypted with the app's push key.
        .target(name: "AppExtensions", dependencies: ["AppGroup", "Keychain", "SmartStoreEngine", "CoreEngine", "FastJSON",
            // SHA-256 of a delivered payload: shown once however often APNs delivers it; RSA for the push key.
            .product(name: "Crypto", package: "swift-crypto"), .product(name: "_CryptoExtras", package: "swift-crypto")]),
        // What the app runs: launch with the userLoggedIn writer, sessions, syncs, records, status, the shell's scenes.
        .target(name: "MobileApp", dependencies: ["AppGroup", "Keychain", "CoreEngine", "CoreNetworkEngine", "SmartStoreEngine", "MobileSyncEngine", "AppExtensions", "FastJSON"]),

        // Executables are thin: argument parsing and output.
        .executableTarget(name: "main-app", dependencies: [
            "MobileApp", "CoreEngine", "CoreNetworkEngine", "MobileSyncEngine", "SmartStoreEngine", "SchedulePoints",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "extension-widget", dependencies: [
            "AppExtensions", "CoreEngine", "SchedulePoints",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "extension-notification", dependencies: [
            "AppExtensions", "CoreEngine", "SchedulePoints",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "sf-simulator", dependencies: [
            "OrgSimulator", "OrgSimulatorPostgres",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Diagnosis and field-failure reproductions for msdk-sim: reads bundles and devices through the facade.
        .target(name: "Diagnostics", dependencies: ["AppGroup", "Keychain", "CoreEngine", "CoreNetworkEngine", "SmartStoreEngine", "XcodeProject", "SourceReader", "Exploring"]),
        .executableTarget(name: "msdk-sim", dependencies: [
            "AppGroup", "Keychain", "CoreEngine", "CoreNetworkEngine", "Diagnostics", "Exploring", "OrgSimulator",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // Test and benchmark support: drives the platform layer from separate processes.
        .executableTarget(name: "appgroupsim-probe", dependencies: [
            "AppGroup", "Keychain", "SchedulePoints", "CoreEngine", "SmartStoreEngine", "MobileSyncEngine", "CoreNetworkEngine",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),

        // Cross-process benchmark with named baselines (Benchmarks/run).
        .executableTarget(name: "hello", path: "Benchmarks/hello"),
        // A small C launcher, so that a child's peak RSS is its own and not floored at the benchmark's size.
        .executableTarget(name: "bench-launcher", path: "Benchmarks/launcher"),
        // The widget benchmark's floor: only libsecret's part of a listing launch, in C (no Swift runtime).
        .executableTarget(name: "bench-secret-floor", dependencies: ["CSecret"], path: "Benchmarks/secretfloor"),
        // And the notLoggedIn path's: the widget's options parsed by swift-argument-parser, nothing else.
        .executableTarget(name: "bench-args-floor", dependencies: [.product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/argsfloor"),
        .executableTarget(name: "bench", dependencies: [
            "SmartStoreEngine", "CoreNetworkEngine", "CoreEngine", "AppGroup", "FastJSON", "Keychain", "MobileSyncEngine", .product(name: "GRDBSQLite", package: "GRDB.swift"),
            // The SDK-API benchmark (issue 26): the SmartStore face against the engine, in one run.
            "SmartStore",
            // Reading a developer's code against the compiler's parser (issue 34).
            "SourceReader",
        ], path: "Benchmarks/bench"),

        .target(name: "AppGroupSimTestSupport", dependencies: ["OrgSimulator", "OrgSimulatorPostgres", "CoreNetworkEngine", "Keychain", "CoreEngine"], path: "Tests/Support"),
        // docs/architecture.md against this file and the sources (issue 35).
        .testTarget(name: "ArchitectureTests"),
        .testTarget(name: "XcodeProjectTests", dependencies: ["XcodeProject", "AppGroupSimTestSupport"]),
        .testTarget(name: "SourceReaderTests", dependencies: ["SourceReader"]),
        .testTarget(name: "AppGroupTests", dependencies: ["AppGroup", "AppGroupSimTestSupport"]),
        .testTarget(name: "KeychainTests", dependencies: ["Keychain", "AppGroup", "AppGroupSimTestSupport"]),
        .testTarget(name: "MobileSyncTests", dependencies: ["CoreEngine", "FastJSON", "MobileSyncEngine", "SmartStoreEngine", "CoreNetworkEngine", "OrgSimulator", "Keychain", "AppGroupSimTestSupport"],
            exclude: ["Fixtures"]),  // read from the checkout by path
        .testTarget(name: "OrgSimulatorTests", dependencies: [
            "OrgSimulator", "OrgSimulatorPostgres", "CoreEngine", "CoreNetworkEngine", "Keychain", "AppGroupSimTestSupport", .product(name: "GRDB", package: "GRDB.swift"), .product(name: "Crypto", package: "swift-crypto"),
        ]),
        .testTarget(name: "FastJSONTests", dependencies: ["FastJSON"]),
        .testTarget(name: "CoreEngineTests", dependencies: ["CoreEngine", "AppGroup", "Keychain", "AppGroupSimTestSupport", "OrgSimulator", "FastJSON", .product(name: "_CryptoExtras", package: "swift-crypto")]),
        .testTarget(name: "SmartStoreTests", dependencies: ["FastJSON", .product(name: "GRDB", package: "GRDB.swift"), "SmartStoreEngine", "CoreEngine", "AppGroup", "AppGroupSimTestSupport"],
            exclude: ["Fixtures"]),  // read from the checkout by path
        .testTarget(name: "AppExtensionsTests", dependencies: ["CoreEngine", "AppExtensions", "Diagnostics", "CoreNetworkEngine", "OrgSimulator", "FastJSON", .product(name: "_CryptoExtras", package: "swift-crypto"), "AppGroup", "Keychain", "SmartStoreEngine", "AppGroupSimTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
        .testTarget(name: "MobileAppTests", dependencies: ["CoreEngine", "MobileApp", "AppExtensions", "CoreNetworkEngine", "AppGroup", "Keychain", "SmartStoreEngine", "OrgSimulator", "AppGroupSimTestSupport"]),
        .testTarget(name: "DiagnosticsTests", dependencies: ["CoreEngine", "CoreNetworkEngine", "Diagnostics", "Exploring", "AppExtensions", "AppGroup", "Keychain", "AppGroupSimTestSupport", "OrgSimulator"]),
        .testTarget(name: "SalesforceSDKCoreTests", dependencies: ["SalesforceSDKCore", "Keychain", "AppGroupSimTestSupport", "AppGroupSimTesting", "UserNotifications"]),
        .testTarget(name: "SalesforceSDKCommonTests", dependencies: ["Keychain", "SalesforceSDKCommon", "AppGroup", "AppGroupSimTestSupport"]),
        .testTarget(name: "CoreNetworkEngineTests", dependencies: [.product(name: "_CryptoExtras", package: "swift-crypto"), "FastJSON", "OrgSimulator", "CoreNetworkEngine", "CoreEngine", "AppGroup", "Keychain", "SmartStoreEngine", "AppGroupSimTestSupport", .product(name: "GRDB", package: "GRDB.swift")]),
    ]
)
