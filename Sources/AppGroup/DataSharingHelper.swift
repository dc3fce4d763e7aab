import Foundation

/// The Mobile SDK's `SFSDKDatasharingHelper` with the real SDK's rules (DESIGN.md §3):
///
/// - `appGroupName` lives in the process's *standard* defaults (`KAppGroupName`), so each process
///   must set it before anything else;
/// - `appGroupEnabled` lives in the *group* suite (`kAccessGroupEnabled`), so it is only readable once
///   the name is set, and only shared if the process is entitled to that group;
/// - `msdkUserDefaults()` is resolved again on every call;
/// - turning the flag on copies the standard defaults into the suite once (marker
///   `kAppDefaultsMigratedToAppGroups` in standard defaults); turning it off copies back and clears the marker.
package struct DataSharingHelper: Sendable {
    package static let appGroupNameKey = "KAppGroupName"
    package static let appGroupEnabledKey = "kAccessGroupEnabled"
    package static let migratedKey = "kAppDefaultsMigratedToAppGroups"
    /// The group suite's one-time marker of the SDK file migration: whichever process turns the flag on
    /// first moves *its own* SDK files into the group container and sets it.
    package static let filesSharedKey = "filesShared"
    /// Bookkeeping keys that the migration does not copy between suites.
    static let bookkeepingKeys: Set<String> = [appGroupNameKey, appGroupEnabledKey, migratedKey, filesSharedKey]

    package let sandbox: AppSandbox
    /// What this process set while the device's data protection refused its defaults (before the first unlock):
    /// kept in memory, as cfprefsd keeps a write it cannot persist, so the process still knows its own group.
    private let memory = SettingsInMemory()

    package init(sandbox: AppSandbox) {
        self.sandbox = sandbox
    }

    /// Keeps `config`'s name and flag in this process's memory only (`ProcessLaunch`, when the device's data
    /// protection refuses the defaults files at launch). Nothing is written.
    package func keepInMemory(_ config: AppGroupConfig) {
        memory.set(name: config.appGroupName, enabled: config.appGroupsEnabled)
    }

    package func appGroupName() throws -> String? {
        if let name = memory.name { return name }
        return try sandbox.standardDefaults.string(forKey: Self.appGroupNameKey)
    }

    package func setAppGroupName(_ name: String?) throws {
        try sandbox.standardDefaults.set(name.map(PlistValue.string), forKey: Self.appGroupNameKey)
    }

    /// False until a name is set. Read from the suite of that name (shared only if entitled).
    package func appGroupEnabled() throws -> Bool {
        guard let name = try appGroupName(), !name.isEmpty else { return false }
        if let enabled = memory.enabled { return enabled }
        return try sandbox.suite(named: name).bool(forKey: Self.appGroupEnabledKey)
    }

    /// Writes the flag into the group suite and runs the one-time migration of defaults in the matching direction.
    /// Without a name set this does nothing, as in the SDK.
    package func setAppGroupEnabled(_ enabled: Bool) throws {
        guard let name = try appGroupName(), !name.isEmpty else { return }
        let suite = sandbox.suite(named: name)
        try suite.set(.bool(enabled), forKey: Self.appGroupEnabledKey)
        let standard = sandbox.standardDefaults
        let migrated = try standard.bool(forKey: Self.migratedKey)
        if enabled && !migrated {
            let values = try standard.dictionaryRepresentation().filter { !Self.bookkeepingKeys.contains($0.key) }
            try suite.updateAll { $0.merge(values) { _, fromStandard in fromStandard } }
            try standard.set(.bool(true), forKey: Self.migratedKey)
        }
        if enabled, try !suite.bool(forKey: Self.filesSharedKey) {
            try moveOwnFilesToGroup(name)
            try suite.set(.bool(true), forKey: Self.filesSharedKey)
        }
        if !enabled && migrated {
            let values = try suite.dictionaryRepresentation().filter { !Self.bookkeepingKeys.contains($0.key) }
            try standard.updateAll { dict in
                dict.merge(values) { _, fromSuite in fromSuite }
                dict[Self.migratedKey] = nil
            }
        }
    }

    /// The SDK's file migration (SFDirectoryManager's `migrateFiles`): this process's `Library/<bundle id>/…`
    /// (accounts, user files) moves to `<group container>/<group name>/Library/`, and `Documents/<bundle id>/…`
    /// (stores) to `<group container>/<group name>/`. Nothing is overwritten: an entry that already exists in
    /// the group stays where it was. Run by the first process that enables app groups; if that is the
    /// extension, the app's files stay behind in the app's container (`msdk-sim scenario extension-migrates-first`).
    func moveOwnFilesToGroup(_ name: String) throws {
        _ = try sandbox.groupContainer(name)
        let own = sandbox.device.layout.privateSDKRoot(bundleID: sandbox.bundleIdentifier)
        let group = sandbox.device.layout.groupSDKRoot(groupID: name)
        let fm = FileManager.default
        // The SDK's own folders only (Library/<bundle id>, Documents/<bundle id>): never Preferences or Caches.
        for (from, into, kept) in [(own.library, group.library, [String]()), (own.documents, group.documents, ["Library"])] {
            guard let entries = try? fm.contentsOfDirectory(atPath: from.path) else { continue }
            for entry in entries.sorted() where !kept.contains(entry) {
                let to = into.appendingPathComponent(entry)
                guard !fm.fileExists(atPath: to.path) else { continue }
                try SecureFiles.makeDirectory(into)
                try fm.moveItem(at: from.appendingPathComponent(entry), to: to)
            }
        }
    }

    /// `NSUserDefaults.msdkUserDefaults`: the group suite when the flag is on, standard defaults otherwise.
    /// Resolved on every call, so a flag flipped by another process takes effect at once.
    package func msdkUserDefaults() throws -> SharedDefaults {
        if try appGroupEnabled(), let name = try appGroupName() {
            return sandbox.suite(named: name)
        }
        return sandbox.standardDefaults
    }

    /// Where the SDK keeps its files: `<group container>/<group name>` when the flag is on,
    /// the process's own container otherwise (an extension has its own, so its own tree).
    package func sdkRootDirectory() throws -> URL { try sdkRoot().url }

    /// `sdkRootDirectory()` with the SDK's folders under it (`DeviceLayout.SDKRoot`).
    package func sdkRoot() throws -> DeviceLayout.SDKRoot {
        if try appGroupEnabled(), let name = try appGroupName() {
            _ = try sandbox.groupContainer(name)
            return sandbox.device.layout.groupSDKRoot(groupID: name)
        }
        return sandbox.device.layout.privateSDKRoot(bundleID: sandbox.bundleIdentifier)
    }

    /// Every SDK root this process can have, whatever the flag says now: its own container and, when it
    /// is entitled to the named group, the group's. A check that must not miss an account file (one
    /// left where the flag pointed before) looks in all of them.
    package func allSDKRootDirectories() throws -> [URL] { try allSDKRoots().map(\.url) }

    /// `allSDKRootDirectories()` with the SDK's folders under each.
    package func allSDKRoots() throws -> [DeviceLayout.SDKRoot] {
        var roots = [sandbox.device.layout.privateSDKRoot(bundleID: sandbox.bundleIdentifier)]
        if let name = try appGroupName(), sandbox.isEntitled(toAppGroup: name) {
            roots.append(sandbox.device.layout.groupSDKRoot(groupID: name))
        }
        return roots
    }
}

/// The sample app's `AppGroupConfig.plist`, which each target applies at launch before `initializeSDK`.
package struct AppGroupConfig: Sendable, Equatable {
    package static let fileName = "AppGroupConfig.plist"

    package var appGroupName: String
    /// The flag this target sets at launch; nil means the target only sets the name and follows the flag
    /// the app keeps in the group suite (what an extension should do: see `msdk-sim doctor`).
    package var appGroupsEnabled: Bool?
    /// The key the app writes its login state under (`userLoggedIn` in the sample).
    package var userLogInStatusKey: String
    /// The keychain accessibility class the target sets at launch (`KeychainHelper.setAccessibleAttribute`), for
    /// the binaries; nil keeps the SDK's default. Checked against the classes by the launch (CoreEngine).
    package var keychainAccessibility: String?
    /// The default file protection class the target sets at launch (`FileProtectionHelper.shared.defaultMode`), for
    /// the binaries; nil keeps the SDK's default (`completeUntilFirstUserAuthentication`). A name of
    /// `FileProtectionClass` or Foundation's (`NSFileProtectionComplete`).
    package var fileProtection: String?
    /// At the app's first launch after an install, revoke at the org and remove the SDK's live tokens that no
    /// account file points to: a previous install left them (keychain values outlive an app; the SDK keeps them).
    package var revokeTokensOfPreviousInstall = false

    package init(
        appGroupName: String, appGroupsEnabled: Bool?, userLogInStatusKey: String = "userLoggedIn", keychainAccessibility: String? = nil,
        fileProtection: String? = nil
    ) {
        self.appGroupName = appGroupName
        self.appGroupsEnabled = appGroupsEnabled
        self.userLogInStatusKey = userLogInStatusKey
        self.keychainAccessibility = keychainAccessibility
        self.fileProtection = fileProtection
    }

    /// The default file protection class this config names (nil: the SDK's default); an unknown name is an
    /// error naming the file and the classes.
    package func fileProtectionClass(bundle: AppBundle) throws -> FileProtectionClass? {
        guard let fileProtection else { return nil }
        guard let protection = FileProtectionClass(name: fileProtection) else {
            throw BundleError.invalidValue(
                path: bundle.resourceURL(Self.fileName).path, key: "fileProtection",
                expected: "one of \(FileProtectionClass.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return protection
    }

    /// Reads the bundle's `AppGroupConfig.plist`; nil when the bundle has none.
    package static func load(from bundle: AppBundle) throws -> AppGroupConfig? {
        guard let plist = try bundle.plistResource(fileName) else { return nil }
        let path = bundle.resourceURL(fileName).path
        guard let name = plist["appGroupName"]?.stringValue else {
            throw BundleError.invalidValue(path: path, key: "appGroupName", expected: "a string")
        }
        let enabled = plist["appGroupsEnabled"]?.boolValue
        if plist["appGroupsEnabled"] != nil, enabled == nil {
            throw BundleError.invalidValue(path: path, key: "appGroupsEnabled", expected: "a bool")
        }
        for key in ["keychainAccessibility", "fileProtection"] where plist[key] != nil && plist[key]?.stringValue == nil {
            throw BundleError.invalidValue(path: path, key: key, expected: "a string")
        }
        if plist["revokeTokensOfPreviousInstall"] != nil, plist["revokeTokensOfPreviousInstall"]?.boolValue == nil {
            throw BundleError.invalidValue(path: path, key: "revokeTokensOfPreviousInstall", expected: "a bool")
        }
        var config = AppGroupConfig(
            appGroupName: name, appGroupsEnabled: enabled,
            userLogInStatusKey: plist["userLogInStatusKey"]?.stringValue ?? "userLoggedIn",
            keychainAccessibility: plist["keychainAccessibility"]?.stringValue, fileProtection: plist["fileProtection"]?.stringValue)
        config.revokeTokensOfPreviousInstall = plist["revokeTokensOfPreviousInstall"]?.boolValue ?? false
        return config
    }

    /// What the sample's AppDelegate does first: name, then flag (when this target sets one).
    package func apply(to helper: DataSharingHelper) throws {
        try helper.setAppGroupName(appGroupName)
        if let appGroupsEnabled { try helper.setAppGroupEnabled(appGroupsEnabled) }
    }
}

/// A process's own data-sharing settings held in memory (`DataSharingHelper.keepInMemory`).
final class SettingsInMemory: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: (name: String?, enabled: Bool?) = (nil, nil)

    var name: String? { lock.withLock { stored.name } }
    var enabled: Bool? { lock.withLock { stored.enabled } }

    func set(name: String, enabled: Bool?) { lock.withLock { stored = (name, enabled) } }
}
