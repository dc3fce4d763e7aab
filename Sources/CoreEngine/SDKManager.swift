import AppGroup
import Foundation
import Keychain

/// The SDK's manager of a process: `SalesforceManager` (accounts) → `SmartStoreSDKManager` (stores) →
/// `MobileSyncSDKManager` (syncs), and the hybrid and React Native flavours on top. The SDK's class hierarchy
/// exists once, in the SDK-named faces; the engine has one object and the flavour the app initialised, and each
/// engine module adds what its flavour brings as an extension of it (stores in SmartStoreEngine, the sync
/// manager in MobileSyncEngine), so that a module that links only this one (the widget) links no networking.
package final class SDKManager: Sendable {
    /// The class the app calls `initializeSDK()` on, by the SDK's name.
    package enum Flavour: String, Sendable, CaseIterable {
        case salesforce = "SalesforceManager"
        case smartStore = "SmartStoreSDKManager"
        case mobileSync = "MobileSyncSDKManager"
        case hybrid = "SalesforceHybridSDKManager"
        case reactNative = "SalesforceReactSDKManager"

        /// What the flavour sets up, for `status` and the trace.
        package var features: [String] {
            switch self {
            case .salesforce: return ["accounts"]
            case .smartStore: return ["accounts", "smartstore"]
            case .mobileSync: return ["accounts", "smartstore", "mobilesync"]
            case .hybrid: return ["accounts", "smartstore", "mobilesync", "hybrid"]
            case .reactNative: return ["accounts", "smartstore", "mobilesync", "react"]
            }
        }
    }

    package let launch: ProcessLaunch
    package let events: SDKEvents
    package let userAccountManager: UserAccountManager
    package let flavour: Flavour

    /// A manager of the process before (or without) `initializeSDK()`: the SDK-named API makes one as soon as
    /// code reads an account, as the SDK's singletons are made at first use.
    package init(flavour: Flavour, launch: ProcessLaunch, events: SDKEvents, accounts: UserAccountManager? = nil) {
        self.flavour = flavour
        self.launch = launch
        self.events = events
        userAccountManager = accounts ?? UserAccountManager(launch: launch, events: events)
    }

    /// `initializeSDK()`: the trace's `initializeSDK` step names the class the app called it on (`className`:
    /// a developer's subclass keeps its own name), so its order against the group's settings can be checked.
    package static func initializeSDK(
        _ flavour: Flavour, className: String? = nil, launch: ProcessLaunch, events: SDKEvents, accounts: UserAccountManager? = nil
    ) -> SDKManager {
        events.step("initializeSDK", ["class": className ?? flavour.rawValue])
        return SDKManager(flavour: flavour, launch: launch, events: events, accounts: accounts)
    }

    package var features: [String] { flavour.features }
}
