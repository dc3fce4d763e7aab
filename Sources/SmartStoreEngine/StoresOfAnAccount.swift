import AppGroup
import CoreEngine
import Foundation

extension UserAccount {
    /// Whose stores: `<orgId>/<userId>/internal`.
    package var storeUser: StoreUser { StoreUser(orgId: orgId, userId: userId) }
}

/// What `SmartStoreSDKManager` adds to the SDK's manager: the stores of this process's SDK root. The one rule
/// of who may open a user store is here, for the binaries and the SDK-named API alike: a user whose account is
/// in this SDK root and logged in (a refresh token in the keychain), as the SDK's SmartStore refuses a user
/// store for a user who is not logged in.
extension SDKManager {
    /// The stores of this process's SDK root.
    package func storeManager() async throws -> StoreManager {
        let accounts = userAccountManager
        var loggedIn: [UserAccount] = []
        for account in try accounts.allAccounts() where try await accounts.isLoggedIn(account) { loggedIn.append(account) }
        return try storeManager(loggedIn: loggedIn)
    }

    /// The stores of this process's SDK root, for a caller that has just checked which accounts are logged in
    /// (the widget reads the current user's token once, and does not read it again to open the store).
    package func storeManager(loggedIn accounts: [UserAccount]) throws -> StoreManager {
        let loggedIn = Set(accounts.map(\.identity))
        return StoreManager(sdkRoot: try launch.dataSharing.sdkRoot(), recovery: userAccountManager.recovery, events: events) { user in
            loggedIn.contains(UserIdentity(orgId: user.orgId, userId: user.userId))
        }
    }

    /// The user's store (the default one unless named), created if missing, with the bundle's `userstore.json`
    /// soups registered (the SDK's `setupUserStoreFromDefaultConfig`).
    package func userStore(named name: String = StoreManager.defaultStoreName, for account: UserAccount) async throws -> SmartStore {
        guard try await userAccountManager.isLoggedIn(account) else { throw SDKError.notLoggedIn }
        let store = try await storeManager().store(named: name, for: account.storeUser)
        if name == StoreManager.defaultStoreName { try setUpUserStore(store) }
        return store
    }

    /// The global store (the default one unless named), with the bundle's `globalstore.json` soups registered
    /// in the default one (the SDK's `setupGlobalStoreFromDefaultConfig`).
    package func globalStore(named name: String = StoreManager.defaultStoreName) async throws -> SmartStore {
        let store = try await storeManager().globalStore(named: name)
        if name == StoreManager.defaultStoreName { try setUpGlobalStore(store) }
        return store
    }

    /// The user's default store as an extension opens it: read-only, never created or altered; nil when the app
    /// has not created it yet.
    package func existingUserStore(for account: UserAccount) async throws -> SmartStore? {
        guard try await userAccountManager.isLoggedIn(account) else { throw SDKError.notLoggedIn }
        return try await storeManager().existingStore(for: account.storeUser)
    }

    /// Registers the soups of the bundle's `userstore.json` in a user's store (the SDK's
    /// `setupUserStoreFromDefaultConfig`); a bundle without the file registers nothing.
    package func setUpUserStore(_ store: SmartStore) throws {
        try StoreConfig.load(launch.sandbox.bundle.resourceURL("userstore.json"))?.register(in: store)
    }

    /// Registers the soups of the bundle's `globalstore.json` in a global store (`setupGlobalStoreFromDefaultConfig`).
    package func setUpGlobalStore(_ store: SmartStore) throws {
        try StoreConfig.load(launch.sandbox.bundle.resourceURL("globalstore.json"))?.register(in: store)
    }
}
