import AppGroupSimCombine
import Foundation
import SalesforceSDKCore
import SmartStoreEngine

/// The SDK's Swift error for its `Result`-returning SmartStore calls (SmartStore.swift in the SDK).
public enum SmartStoreError: Error {
    case error(_ error: Error?)
    case unknown
}

/// The page size of the SDK's `query(_:)`: one page holds everything.
private let swiftQueryPageSize: UInt = 65536

extension SmartStore {
    /// Registers a soup whose paths are all json1 indexes, as the SDK's Swift extension does.
    public func registerSoup(withName soupName: String, withIndexPaths indexPaths: [String]) -> Result<Bool, SmartStoreError> {
        let indexes = indexPaths.map { SoupIndex(path: $0, indexType: kSoupIndexTypeJSON1, columnName: nil)! }
        do {
            try registerSoup(withName: soupName, withIndices: indexes)
            return .success(true)
        } catch {
            return .failure(.error(error))
        }
    }

    /// Runs smart SQL, all rows in one page.
    public func query(_ smartSql: String) -> Result<[Any], SmartStoreError> {
        guard let spec = QuerySpec.buildSmartQuerySpec(smartSql: smartSql, pageSize: swiftQueryPageSize) else { return .failure(.unknown) }
        do {
            return .success(try query(using: spec, startingFromPageIndex: 0))
        } catch {
            return .failure(.error(error))
        }
    }

    /// `query(_:)` as a Combine `Future`.
    public func publisher(for smartSql: String) -> Future<[Any], SmartStoreError> {
        Future { promise in
            promise(self.query(smartSql))
        }
    }
}

/// The SDK's `SmartStoreSDKManager`: the account manager's flavour that also sets up stores from the
/// bundle's `userstore.json` and `globalstore.json`.
open class SmartStoreSDKManager: SalesforceManager, @unchecked Sendable {
    open override class var shared: SmartStoreSDKManager {
        if let manager = super.shared as? SmartStoreSDKManager { return manager }
        SalesforceManager.setInstanceClass(self)
        return super.shared as! SmartStoreSDKManager
    }

    /// Registers the soups of the bundle's `userstore.json` in the current user's default store.
    public func setupUserStoreFromDefaultConfig() {
        guard let store = SmartStore.shared(withName: SmartStore.defaultStoreName) else { return }
        do { try SDKEngine.current.sdk.setUpUserStore(store.engine) } catch {
            SDKProcess.warn("SmartStoreSDKManager could not set up \(store.name) from userstore.json: \(error)")
        }
    }

    /// Registers the soups of the bundle's `globalstore.json` in the default global store.
    public func setupGlobalStoreFromDefaultConfig() {
        let store = SmartStore.sharedGlobal(withName: SmartStore.defaultStoreName)
        do { try SDKEngine.current.sdk.setUpGlobalStore(store.engine) } catch {
            SDKProcess.warn("SmartStoreSDKManager could not set up \(store.name) from globalstore.json: \(error)")
        }
    }
}
