import AppGroup
import Foundation
import Keychain
import SmartStoreEngine

/// The SDK's manager hierarchy: `SalesforceManager` (accounts) → `SmartStoreSDKManager` (stores)
/// → `MobileSyncSDKManager` (syncs), with the hybrid and React Native flavours on top.
/// `initializeSDK()` is called on the class the app uses, and that class is the instance class.
package class SalesforceManager: @unchecked Sendable {
    package let launch: ProcessLaunch
    package let events: SDKEvents
    package let userAccountManager: UserAccountManager

    package required init(launch: ProcessLaunch, events: SDKEvents) {
        self.launch = launch
        self.events = events
        userAccountManager = UserAccountManager(launch: launch, events: events)
    }

    /// Creates the shared instance of this class (the sample calls it after setting the app group).
    package class func initializeSDK(launch: ProcessLaunch, events: SDKEvents) -> Self {
        events.step("initializeSDK", ["class": String(describing: self)])
        return self.init(launch: launch, events: events)
    }

    /// What this flavour sets up, for `status` and the trace.
    package var features: [String] { ["accounts"] }
}

package class SmartStoreSDKManager: SalesforceManager, @unchecked Sendable {
    package override var features: [String] { super.features + ["smartstore"] }

    /// The stores of this process's SDK root; a user store opens only for a logged-in user.
    package func storeManager() throws -> StoreManager {
        let accounts = userAccountManager
        let loggedIn = try accounts.allAccounts().map(\.identity)
        return StoreManager(sdkRoot: try launch.dataSharing.sdkRoot(), isLoggedIn: { user in
            loggedIn.contains(UserIdentity(orgId: user.orgId, userId: user.userId))
        })
    }

    /// The user's default store, with the bundle's `userstore.json` soups registered.
    package func userStore(for account: UserAccount) async throws -> SmartStore {
        guard try await userAccountManager.isLoggedIn(account) else { throw SDKError.notLoggedIn }
        let store = try storeManager().store(for: account.storeUser)
        try StoreConfig.load(launch.sandbox.bundle.resourceURL("userstore.json"))?.register(in: store)
        return store
    }

    /// The user's default store as an extension opens it: read-only, never created or altered; nil when
    /// the app has not created it yet.
    package func existingUserStore(for account: UserAccount) async throws -> SmartStore? {
        guard try await userAccountManager.isLoggedIn(account) else { throw SDKError.notLoggedIn }
        return try storeManager().existingStore(for: account.storeUser)
    }
}

/// The flavour of the SDK the sample app initializes; its sync manager (which needs the network) is in
/// SalesforceSDK, as an extension, so that an extension linking this module links no networking.
package class MobileSyncSDKManager: SmartStoreSDKManager, @unchecked Sendable {
    package override var features: [String] { super.features + ["mobilesync"] }
}

package class SalesforceHybridSDKManager: MobileSyncSDKManager, @unchecked Sendable {
    package override var features: [String] { super.features + ["hybrid"] }
}

package class SalesforceReactSDKManager: MobileSyncSDKManager, @unchecked Sendable {
    package override var features: [String] { super.features + ["react"] }
}
