import Foundation
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine

/// What one configured sync did, as `main-app sync` reports it.
package struct SyncOutcome: Sendable, CustomStringConvertible {
    package var name: String
    package var type: SyncType
    package var soup: String
    package var status: SyncStatus
    /// Sync up: local changes sent; sync down: records fetched.
    package var count: Int
    /// Sync up: entries of the soup still dirty afterwards (their errors are in `__last_error__`).
    package var stillDirty: Int
    /// Whether the line names the sync (several ran, or one was asked for by name).
    package var named: Bool

    /// `sync up: DONE, N local change(s)` / `sync down: DONE, N record(s) fetched`.
    package var description: String {
        let suffix = named ? " (\(name))" : ""
        if type == .syncUp {
            let left = stillDirty > 0 ? ", \(stillDirty) still dirty (see records list --soup \(soup))" : ""
            return "sync up: \(status.rawValue), \(count) local change(s)\(left)\(suffix)"
        }
        return "sync down: \(status.rawValue), \(max(count, 0)) record(s) fetched\(suffix)"
    }
}

extension AppSession {
    /// The bundle's `usersyncs.json`.
    package var syncsConfigURL: URL { launch.sandbox.bundle.resourceURL("usersyncs.json") }

    /// Runs the syncs of the bundle's `usersyncs.json` (or the one named) in file order, as the
    /// current user; a session revoked at the org logs the user out and says so.
    /// `progress` gets a short label (`up  ` / `down`) and each state.
    package func runConfiguredSyncs(
        only name: String? = nil, progress: @escaping @Sendable (String, SyncState) -> Void = { _, _ in }
    ) async throws -> [SyncOutcome] {
        let account = try currentAccount()
        let all = try SyncManager.configuredSyncs(syncsConfigURL)
        guard !all.isEmpty else { throw AppError("\(syncsConfigURL.path) names no syncs; add the app's usersyncs.json to its bundle") }
        let chosen = name.map { n in all.filter { $0.name == n } } ?? all
        guard !chosen.isEmpty else {
            throw AppError("no sync named \(name ?? "") in \(syncsConfigURL.lastPathComponent); it has \(all.map(\.name).joined(separator: ", "))")
        }
        let manager = try await sdk.syncManager(for: account)
        var outcomes: [SyncOutcome] = []
        for sync in chosen {
            let label = sync.type == .syncUp ? "up  " : "down"
            let state = try await withSession(account) { try await manager.reSync(name: sync.name) { progress(label, $0) } }
            outcomes.append(SyncOutcome(
                name: sync.name, type: sync.type, soup: sync.soup, status: state.status, count: state.totalSize,
                stillDirty: sync.type == .syncUp ? try manager.dirtyRecords(sync.soup).count : 0,
                named: chosen.count > 1 || name != nil))
        }
        return outcomes
    }
}
