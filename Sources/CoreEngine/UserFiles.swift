import AppGroup
import Foundation

/// Something in this process that holds files of a user open (SmartStore's stores): it lets go of those under
/// a folder before the folder is deleted, as the SDK's SmartStore closes and removes a user's stores on
/// will-logout.
package protocol UserFileHolder: AnyObject, Sendable {
    func release(filesUnder folder: URL)
}

/// A user's files, as the SDK deletes them at logout and when it cannot read the account: the account's
/// `Library/<orgId>/<userId>` and the user's `Documents/<orgId>/<userId>` (stores included), each removed only
/// inside the folder it belongs in (`SecureFiles.removeTree`), after every holder let go.
package enum UserFiles {
    private final class Holders: @unchecked Sendable {
        let lock = NSLock()
        var weak: [WeakHolder] = []
    }
    private struct WeakHolder { weak var holder: (any UserFileHolder)? }
    private static let holders = Holders()

    /// Registers `holder` for the life of the process (held weakly).
    package static func register(_ holder: any UserFileHolder) {
        holders.lock.withLock {
            holders.weak.removeAll { $0.holder == nil }
            holders.weak.append(WeakHolder(holder: holder))
        }
    }

    /// `Documents/<orgId>/<userId>`: every store and file the SDK keeps for the user, in every community.
    package static func documents(of identity: UserIdentity, in root: DeviceLayout.SDKRoot) -> URL {
        root.userDocuments(orgId: identity.orgId, userId: identity.userId, communityId: nil).deletingLastPathComponent()
    }

    /// Deletes the user's documents, then the account's folder.
    package static func delete(_ identity: UserIdentity, in root: DeviceLayout.SDKRoot) throws {
        let documents = documents(of: identity, in: root)
        for holder in holders.lock.withLock({ holders.weak.compactMap(\.holder) }) { holder.release(filesUnder: documents) }
        try SecureFiles.removeTree(documents, inside: root.documents, depth: 2)
        try SecureFiles.removeTree(root.accountDirectory(orgId: identity.orgId, userId: identity.userId), inside: root.library, depth: 2)
    }
}
