import AppGroup
import Foundation
import MobileSyncEngine
import RestClientEngine
import SDKCoreEngine
import SmartStoreEngine

// The manager classes are declared in SDKCoreEngine (package access allows no subclass in another module);
// what needs Mobile Sync and the network is here, as an extension.
extension MobileSyncSDKManager {
    /// The user's sync manager, with the bundle's `usersyncs.json` syncs created once.
    package func syncManager(for account: UserAccount) async throws -> SyncManager {
        let store = try await userStore(for: account)
        let manager = try SyncManager.sharedInstance(for: store, client: userAccountManager.restClient(account))
        try manager.createSyncs(fromConfig: launch.sandbox.bundle.resourceURL("usersyncs.json"))
        return manager
    }
}
