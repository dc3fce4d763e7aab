import Combine
import Foundation
import MobileSync
import WidgetKit

/// The list screen's model: contacts from SmartStore, refreshed by a sync down, published with Combine.
final class ContactsModel: ObservableObject {
    @Published private(set) var contacts: [String] = []
    @Published private(set) var lastSync: String = "never"

    private var cancellables = Set<AnyCancellable>()
    private let store: SmartStore
    private let syncManager: SyncManager

    init?(user: UserAccount) {
        guard let store = SmartStore.shared(withName: SmartStore.defaultStoreName, forUserAccount: user) else { return nil }
        self.store = store
        syncManager = SyncManager.sharedInstance(forUserAccount: user)
    }

    /// Runs the configured sync down, then reloads the list and the widget's timelines.
    func syncDown(named syncName: String) -> AnyPublisher<Int, MobileSyncError> {
        syncManager.publisher(for: syncName)
            .map { $0.totalSize }
            .handleEvents(receiveOutput: { [weak self] total in
                self?.lastSync = "\(syncName): \(total) records"
                self?.reload()
                WidgetCenter.shared.reloadAllTimelines()
            })
            .eraseToAnyPublisher()
    }

    func reload() {
        store.publisher(for: "SELECT {contacts:LastName}, {contacts:FirstName} FROM {contacts} ORDER BY {contacts:LastName}, {contacts:FirstName}")
            .map { rows in rows.compactMap { row -> String? in
                guard let row = row as? [Any], let last = row.first as? String else { return nil }
                return [row.dropFirst().first as? String, last].compactMap { $0 }.joined(separator: " ")
            } }
            .replaceError(with: [])
            .sink { [weak self] in self?.contacts = $0 }
            .store(in: &cancellables)
    }
}
