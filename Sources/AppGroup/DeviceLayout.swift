import Foundation

/// Every path on a simulated device, in one place (DESIGN.md §2). The SDK's managers, the launch,
/// `msdk-sim inspect` and the scenarios all ask this type where a file is; none of them builds a
/// path of its own.
///
/// ```
/// DEVICE/device.json
/// DEVICE/Containers/Data/<bundle id>/Library/Preferences/<bundle id>.plist
/// DEVICE/Containers/Shared/AppGroup/<group>/Library/Preferences/<group>.plist
/// <SDK library>/<orgId>/<userId>/UserAccount.plist
/// <SDK library>/<orgId>/<userId>/<community or internal>/…      (SFDirectoryManager, library type)
/// <SDK documents>/<orgId>/<userId>/<community or internal>/stores/<store>/store.sqlite
/// <SDK documents>/stores/<store>/store.sqlite
/// ```
/// The SDK's directories are SFDirectoryManager's: with app groups on, documents are
/// `Containers/Shared/AppGroup/<group>/<group>` and the library is its `Library`; off, the process's own
/// container's `Documents/<bundle id>` and `Library/<bundle id>` (an extension has its own bundle id, so
/// its own tree).
package struct DeviceLayout: Sendable, Equatable {
    package let root: URL

    package init(root: URL) { self.root = root }

    /// `device.json`: id, team, created.
    package var manifest: URL { root.appendingPathComponent("device.json", isDirectory: false) }

    /// Which team each app group used on this device belongs to: the first team to use it (`AppGroupOwners.plist`).
    package var appGroupOwners: URL { root.appendingPathComponent("AppGroupOwners.plist", isDirectory: false) }

    /// `Containers/Data`: one private container per bundle id that ever ran.
    package var dataContainers: URL { root.appendingPathComponent("Containers/Data", isDirectory: true) }

    /// `Containers/Data/<bundle id>`.
    package func dataContainer(bundleID: String) -> URL { dataContainers.appendingPathComponent(bundleID, isDirectory: true) }

    /// `Containers/Shared/AppGroup/<group id>`.
    package func sharedContainer(groupID: String) -> URL {
        root.appendingPathComponent("Containers/Shared/AppGroup", isDirectory: true).appendingPathComponent(groupID, isDirectory: true)
    }

    /// `UserDefaults.standard` of a process: `Library/Preferences/<bundle id>.plist` in its container.
    /// Where the simulated APNs delivers an app's notifications: `Notifications/<bundle id>/inbox/`,
    /// one JSON payload per file, oldest first by name. The app's notification service extension reads it.
    package func notificationInbox(bundleID: String) -> URL {
        root.appendingPathComponent("Notifications").appendingPathComponent(bundleID).appendingPathComponent("inbox")
    }

    /// Where a payload goes once the notification service extension took it from the inbox: kept as it
    /// came (still encrypted), as Notification Center keeps a delivered notification.
    package func deliveredNotifications(bundleID: String) -> URL {
        root.appendingPathComponent("Notifications").appendingPathComponent(bundleID).appendingPathComponent("delivered")
    }

    /// The SHA-256 of every payload shown (one empty-named marker file each): a payload APNs delivers twice is
    /// shown once.
    package func shownNotifications(bundleID: String) -> URL {
        root.appendingPathComponent("Notifications").appendingPathComponent(bundleID).appendingPathComponent("shown")
    }

    package func standardDefaults(bundleID: String) -> URL { Self.preferences(in: dataContainer(bundleID: bundleID), suite: bundleID) }

    /// The shared suite of an app group: `Library/Preferences/<group>.plist` in the group container.
    package func groupSuite(groupID: String) -> URL { Self.preferences(in: sharedContainer(groupID: groupID), suite: groupID) }

    /// A suite a process is not entitled to share: kept in its own container, as iOS does.
    package func privateSuite(_ name: String, bundleID: String) -> URL { Self.preferences(in: dataContainer(bundleID: bundleID), suite: name) }

    /// Where the SDK keeps its files for a process whose app group is on: `<group container>/<group>`.
    package func groupSDKRoot(groupID: String) -> SDKRoot { SDKRoot(sharedContainer(groupID: groupID).appendingPathComponent(groupID, isDirectory: true)) }

    /// Where the SDK keeps its files for a process whose app group is off: its own container, in folders
    /// named after its bundle id.
    package func privateSDKRoot(bundleID: String) -> SDKRoot { SDKRoot(container: dataContainer(bundleID: bundleID), bundleID: bundleID) }

    /// The bundle ids that have a container on this device, sorted.
    package func bundleIDsWithContainers() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dataContainers.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    static func preferences(in container: URL, suite: String) -> URL {
        container.appendingPathComponent("Library/Preferences", isDirectory: true).appendingPathComponent("\(suite).plist", isDirectory: false)
    }

    /// The SDK's path rule for a component it builds from an id: `/\?%*|"<>:@` become `_`. And ours on top:
    /// an empty id, `.` or `..` would name the folder itself or its parent, so it gets a leading `_`. Ids
    /// from outside are checked before they get here (`SalesforceIdentifier`); this is the second line.
    package static func safePathComponent(_ component: String) -> String {
        if component.isEmpty || component == "." || component == ".." { return "_" + component }
        return String(component.map { "/\\?%*|\"<>:@".contains($0) ? "_" : $0 })
    }

    /// The tree the SDK writes under (SFDirectoryManager's): accounts and user files in `library`, stores in
    /// `documents`; `url` names the root (the group's SDK folder, or the process's container).
    package struct SDKRoot: Sendable, Hashable {
        package let url: URL
        /// `NSLibraryDirectory`: one folder per org, one per user inside it.
        package let library: URL
        /// `NSDocumentDirectory`: user and global stores.
        package let documents: URL
        /// The process's bundle id for its own container; nil for a group's SDK folder.
        let bundleID: String?

        /// A group's SDK folder (or any one folder used as a root): documents in it, the library in its `Library`.
        package init(_ url: URL) {
            self.url = Self.directory(url)
            library = self.url.appendingPathComponent("Library", isDirectory: true)
            documents = self.url
            bundleID = nil
        }

        /// A process's own container: each directory type's folder, then the bundle id, as the SDK's
        /// `NSSearchPathForDirectoriesInDomains(type)[0]/<bundle id>`.
        package init(container: URL, bundleID: String) {
            url = Self.directory(container)
            library = url.appendingPathComponent("Library", isDirectory: true).appendingPathComponent(bundleID, isDirectory: true)
            documents = url.appendingPathComponent("Documents", isDirectory: true).appendingPathComponent(bundleID, isDirectory: true)
            self.bundleID = bundleID
        }

        /// Always a directory URL, so that two roots of one path are equal however they were found.
        static func directory(_ url: URL) -> URL { URL(fileURLWithPath: url.standardizedFileURL.path, isDirectory: true) }

        /// The SDK's folder for a directory type other than library and documents (`Library/Caches`,
        /// `Library/Application Support`): in a group, the group's SDK folder; else that folder of the
        /// container, then the bundle id.
        package func other(_ relative: String) -> URL {
            guard let bundleID else { return url }
            return url.appendingPathComponent(relative, isDirectory: true).appendingPathComponent(bundleID, isDirectory: true)
        }

        package static let accountFileName = "UserAccount.plist"
        package static let storeFileName = "store.sqlite"

        /// The SDK's directory types (`NSSearchPathDirectory`) that `SFDirectoryManager` hands out.
        package enum DirectoryType: Sendable {
            case library, documents, caches, applicationSupport, other
        }

        /// `SFDirectoryManager`'s directory: the type's root, then the org, user and community (each made safe for
        /// a path), then `components`. In a group, `documents` is the group's SDK folder and `library` its `Library`;
        /// else each type's folder of the container, then the bundle id.
        package func directory(_ type: DirectoryType, orgId: String?, userId: String?, communityId: String?, components: [String] = []) -> URL {
            var url: URL
            switch type {
            case .library: url = library
            case .documents: url = documents
            case .caches: url = other("Library/Caches")
            case .applicationSupport: url = other("Library/Application Support")
            case .other: url = other("Library")
            }
            if let orgId {
                url.appendPathComponent(safePathComponent(orgId))
                if let userId {
                    url.appendPathComponent(safePathComponent(userId))
                    if let communityId { url.appendPathComponent(safePathComponent(communityId)) }
                }
            }
            for component in components { url.appendPathComponent(component) }
            return url
        }

        /// `Library/<orgId>/<userId>`.
        package func accountDirectory(orgId: String, userId: String) -> URL {
            library.appendingPathComponent(safePathComponent(orgId)).appendingPathComponent(safePathComponent(userId))
        }

        /// `Library/<orgId>/<userId>/UserAccount.plist`.
        package func accountFile(orgId: String, userId: String) -> URL {
            accountDirectory(orgId: orgId, userId: userId).appendingPathComponent(Self.accountFileName)
        }

        /// `Documents/<orgId>/<userId>/<community or internal>`: everything the SDK keeps for one user.
        package func userDocuments(orgId: String, userId: String, communityId: String?) -> URL {
            documents.appendingPathComponent(safePathComponent(orgId)).appendingPathComponent(safePathComponent(userId))
                .appendingPathComponent(safePathComponent(communityId ?? "internal"))
        }

        /// `…/stores`: one folder per named store of that user.
        package func userStores(orgId: String, userId: String, communityId: String?) -> URL {
            userDocuments(orgId: orgId, userId: userId, communityId: communityId).appendingPathComponent("stores")
        }

        /// `Documents/stores`: the global stores.
        package var globalStores: URL { documents.appendingPathComponent("stores") }

        /// `<stores folder>/<name>/store.sqlite`.
        package static func storeFile(in stores: URL, named name: String) -> URL {
            stores.appendingPathComponent(name).appendingPathComponent(storeFileName)
        }

        /// Every account file under `Library/` (org and user folders as found), sorted by path.
        package func accountFiles() -> [(orgId: String, userId: String, url: URL)] {
            // Paths as strings, a URL only for a file found: the explorer lists them after every step, and the
            // URLs of every folder were most of that.
            let fm = FileManager.default
            var out: [(String, String, URL)] = []
            let libraryPath = library.path
            for org in ((try? fm.contentsOfDirectory(atPath: libraryPath)) ?? []).sorted() {
                let orgPath = libraryPath + "/" + org
                for user in ((try? fm.contentsOfDirectory(atPath: orgPath)) ?? []).sorted() {
                    let file = orgPath + "/" + user + "/" + Self.accountFileName
                    if fm.fileExists(atPath: file) { out.append((org, user, URL(fileURLWithPath: file, isDirectory: false))) }
                }
            }
            return out
        }

        /// Every store file under `Documents/`, user and global, sorted by path.
        package func storeFiles() -> [URL] {
            guard let walker = FileManager.default.enumerator(atPath: documents.path) else { return [] }
            return walker.compactMap { $0 as? String }
                .filter { $0 == Self.storeFileName || $0.hasSuffix("/" + Self.storeFileName) }
                .sorted().map(documents.appendingPathComponent)
        }
    }

    /// Whether any account file is on the device (in any container): someone logged in and was not logged out.
    /// With nobody, an app shows its login screen, and there is nothing to sync, edit or view (the explorers
    /// offer no such action then).
    package func hasAnyAccount() -> Bool {
        allSDKRoots().contains { !$0.accountFiles().isEmpty }
    }

    /// Every SDK root on the device: each data container, and each group's SDK root that exists.
    package func allSDKRoots() -> [SDKRoot] {
        var roots = bundleIDsWithContainers().map(privateSDKRoot(bundleID:))
        let groups = root.appendingPathComponent("Containers/Shared/AppGroup")
        for group in ((try? FileManager.default.contentsOfDirectory(atPath: groups.path)) ?? []).sorted() {
            let sdk = groupSDKRoot(groupID: group)
            if FileManager.default.fileExists(atPath: sdk.url.path) { roots.append(sdk) }
        }
        return roots
    }
}

extension Device {
    /// Where everything on this device is.
    package var layout: DeviceLayout { DeviceLayout(root: root) }
}
