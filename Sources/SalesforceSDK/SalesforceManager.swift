import AppGroup
import Foundation
import MobileSyncEngine
import RestClientEngine
import SDKCoreEngine
import SmartStoreEngine

open class MobileSyncSDKManager: SmartStoreSDKManager, @unchecked Sendable {
    open override var features: [String] { super.features + ["mobilesync"] }

    /// The user's sync manager, with the bundle's `usersyncs.json` syncs created once.
    public func syncManager(for account: UserAccount) async throws -> SyncManager {
        let store = try await userStore(for: account)
        let manager = try SyncManager.sharedInstance(for: store, client: userAccountManager.restClient(account))
        try manager.createSyncs(fromConfig: launch.sandbox.bundle.resourceURL("usersyncs.json"))
        return manager
    }
}

open class SalesforceHybridSDKManager: MobileSyncSDKManager, @unchecked Sendable {
    open override var features: [String] { super.features + ["hybrid"] }
}

open class SalesforceReactSDKManager: MobileSyncSDKManager, @unchecked Sendable {
    open override var features: [String] { super.features + ["react"] }
}
