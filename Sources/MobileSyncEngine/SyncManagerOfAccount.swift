import AppGroup
import CoreEngine
import CoreNetworkEngine
import Foundation
import SmartStoreEngine

/// What `MobileSyncSDKManager` adds to the SDK's manager: the sync manager of an account.
extension SDKManager {
    /// The user's sync manager on their default store, with the bundle's `usersyncs.json` syncs created once
    /// (the SDK's `setupUserSyncsFromDefaultConfig`).
    package func syncManager(for account: UserAccount) async throws -> SyncManager {
        let store = try await userStore(for: account)
        let manager = try SyncManager.sharedInstance(for: store, client: userAccountManager.restClient(account))
        try setUpUserSyncs(manager)
        return manager
    }

    /// Creates the syncs of the bundle's `usersyncs.json` in a user's sync manager, once each (the SDK's
    /// `setupUserSyncsFromDefaultConfig`).
    package func setUpUserSyncs(_ manager: SyncManager) throws {
        try manager.createSyncs(fromConfig: launch.sandbox.bundle.resourceURL("usersyncs.json"))
    }
}
