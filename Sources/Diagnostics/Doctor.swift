import AppGroup
import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine

/// `msdk-sim doctor`: reads the app bundle, every extension under `PlugIns/`, and (when given) the
/// device, and reports each misconfiguration of the Mobile SDK's app-extension setup once. Checks are
/// ordered so that one mistake gives one finding (a typo in the extension's group name is "the names
/// differ", not also "not entitled").
package enum Doctor {
    package static let teamIdentifierKey = ExtensionSetup.teamIdentifierKey
    package static let appOnlyResources = ExtensionSetup.appOnlyResources

    /// What the doctor says about a device that is not a finding: its stores are not encrypted (the
    /// SDK's SQLCipher cannot be used on this platform; docs/differences.md).
    package static func notes(device path: String) -> [String] {
        guard let device = try? Device.resolve(path: path) else { return [] }
        let stores = device.layout.allSDKRoots().flatMap { $0.storeFiles() }
        guard !stores.isEmpty else { return [] }
        return ["\(stores.count) store(s) on the device are unencrypted: the SDK encrypts SmartStore with SQLCipher 4, which AppGroupSim cannot use on this platform (docs/differences.md)"]
    }

    package static func examine(app appPath: String, device devicePath: String? = nil, secretStore: (any SecretStore)? = nil) async -> [Finding] {
        // The doctor looks at a device from the outside, in any lock state.
        await FileProtection.fromOutside { await examineFromOutside(app: appPath, device: devicePath, secretStore: secretStore) }
    }

    static func examineFromOutside(app appPath: String, device devicePath: String?, secretStore: (any SecretStore)?) async -> [Finding] {
        var findings: [Finding] = []
        let app: AppBundle
        do { app = try AppBundle(at: URL(fileURLWithPath: appPath)) } catch {
            return [Finding("bundle-invalid", .error, "the app bundle cannot be read: \(error)", fix: "fix the file named above; the doctor needs Info.plist and one .entitlements file")]
        }
        var extensions: [AppBundle] = []
        let plugIns = app.url.appendingPathComponent("PlugIns")
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: plugIns.path)) ?? []).sorted() where name.hasSuffix(".appex") {
            do { extensions.append(try AppBundle(at: plugIns.appendingPathComponent(name))) } catch {
                findings.append(Finding("bundle-invalid", .error, "the extension \(name) cannot be read: \(error)", fix: "fix the file named above"))
            }
        }
        findings += bundleFindings(app: app, extensions: extensions)
        findings += teamFindings(app: app, extensions: extensions, device: devicePath.flatMap { try? Device.resolve(path: $0) })
        if let devicePath {
            findings += await deviceFindings(app: app, extensions: extensions, devicePath: devicePath, secretStore: secretStore)
        }
        return findings
    }

    static func name(_ bundle: AppBundle) -> String { bundle.url.lastPathComponent }

    static func config(_ bundle: AppBundle) -> Result<AppGroupConfig?, any Error> { Result { try AppGroupConfig.load(from: bundle) } }

    // MARK: bundles

    static func bundleFindings(app: AppBundle, extensions: [AppBundle]) -> [Finding] {
        ExtensionSetup.evaluate(app: app, extensions: extensions) + identityProviderFindings(app: app)
    }

    /// Groups of another team, which iOS's code signing refuses and the device refuses too: keychain groups not
    /// prefixed by the bundle's team, and (with a device) app groups another team used first on it. A bundle of
    /// another team that names the victim's groups gets none of its accounts, tokens or contacts; this says why.
    /// An extension signed by another team than its app is `team-mismatch` already, and not said twice.
    static func teamFindings(app: AppBundle, extensions: [AppBundle], device: Device?) -> [Finding] {
        var out: [Finding] = []
        for bundle in [app] + extensions {
            if bundle != app, let appTeam = app.teamIdentifier, let team = bundle.teamIdentifier, team != appTeam { continue }
            let team = bundle.teamIdentifier ?? device?.teamID ?? Device.defaultTeamID
            let keychain = bundle.entitlements.effectiveKeychainAccessGroups(teamID: team, bundleID: bundle.bundleIdentifier)
                .filter { !$0.hasPrefix(team + ".") && !bundle.entitlements.applicationGroups.contains($0) }
            let groups = device.map { AppSandbox(device: $0, bundle: bundle).appGroupsOfOtherTeams } ?? []
            guard !keychain.isEmpty || !groups.isEmpty else { continue }
            var parts: [String] = []
            if !keychain.isEmpty { parts.append("keychain group(s) \(keychain.joined(separator: ", ")) not of its team") }
            for (group, owner) in groups { parts.append("app group \(group), which belongs to team \(owner) on this device") }
            out.append(Finding("foreign-team-group", .error,
                "\(name(bundle)) (team \(team)) names \(parts.joined(separator: " and ")): iOS never signs that, and the device refuses them, so this bundle reads none of their accounts, tokens or contacts",
                fix: "use groups of team \(team) (\(bundle.entitlementsURL.lastPathComponent): keychain-access-groups as $(AppIdentifierPrefix)…), or sign the bundle with the team that owns them",
                subject: bundle == app ? nil : name(bundle)))
        }
        return out
    }

    /// A client app of an identity provider app must claim a URL scheme of its own (the IDP answers there),
    /// and must not name one of its own schemes as the IDP's.
    static func identityProviderFindings(app: AppBundle) -> [Finding] {
        guard let idp = (try? IDPConfig.load(from: app))?.idpAppURIScheme else { return [] }
        guard IDPCommand.isUsableScheme(idp) else {
            return [Finding("idp-scheme-invalid", .error,
                "\(name(app))'s idpAppURIScheme \"\(idp.prefix(80))\" is not a URL scheme (letters, digits, '+', '-', '.', starting with a letter), so no login request can be sent",
                fix: "set idpAppURIScheme in bootconfig.plist to the identity provider app's scheme (e.g. companylogin)", subject: name(app))]
        }
        let own = DeviceApps.schemes(of: app)
        if own.isEmpty {
            return [Finding("idp-callback-scheme-missing", .error,
                "\(name(app)) logs in through the identity provider app (idpAppURIScheme \(idp)) but claims no URL scheme, so the identity provider app cannot answer it",
                fix: "add a URL type with a scheme of its own to \(name(app))/Info.plist (CFBundleURLTypes > CFBundleURLSchemes)", subject: name(app))]
        }
        if own.contains(idp) {
            return [Finding("idp-scheme-is-own", .error,
                "\(name(app)) names its own URL scheme \(idp): as the identity provider app's (idpAppURIScheme), so it would send its login requests to itself",
                fix: "set idpAppURIScheme in bootconfig.plist to the identity provider app's scheme (e.g. companylogin)", subject: name(app))]
        }
        return []
    }

    // MARK: device

    static func deviceFindings(app: AppBundle, extensions: [AppBundle], devicePath: String, secretStore: (any SecretStore)?) async -> [Finding] {
        var out: [Finding] = []
        let launch: ProcessLaunch
        do { launch = try ProcessLaunch(bundlePath: app.url.path, devicePath: devicePath, applyConfig: false, secretStore: secretStore) } catch {
            return [Finding("device-invalid", .error, "\(error)", fix: "pass --device with a device directory made by main-app (or omit it)")]
        }
        let deviceRoot = launch.sandbox.device.root
        if let idp = (try? IDPConfig.load(from: app))?.idpAppURIScheme, IDPCommand.isUsableScheme(idp),
            let request = URL(string: "\(idp)://oauth2/v1.0/authrequest")
        {
            let apps = DeviceApps(device: launch.sandbox.device)
            do {
                _ = try apps.app(for: request)
            } catch DeviceApps.Failure.unknownScheme {
                out.append(Finding("idp-app-not-installed", .warning,
                    "no app installed on this device claims \(idp):, the identity provider app of \(name(app)): its IDP login ends with idp_not_installed",
                    fix: "install the identity provider app: msdk-sim device install --device \(devicePath) --app PATH"))
            } catch {
                // Two apps claiming it, or an unreadable registry: open-url says so when it is used.
            }
        }
        let loose = DeviceHygiene.looseModes(under: [deviceRoot])
        if let first = loose.first {
            out.append(Finding("loose-modes", .error,
                "\(loose.count) path(s) on the device can be read by other users (e.g. \(first.path) is \(String(first.mode, radix: 8)), expected \(String(first.expected, radix: 8))): account files, stores and defaults must stay private",
                fix: "chmod -R go-rwx \(deviceRoot.path), or launch the app once (main-app tightens what it owns)"))
        }
        let temps = DeviceHygiene.leftoverTempFiles(under: [deviceRoot])
        if let first = temps.first {
            out.append(Finding("leftover-temp-files", .warning,
                "\(temps.count) temp file(s) of writers that were killed before they renamed them (e.g. \(first))",
                fix: "launch the app once (main-app removes them), or delete them: the real files were never replaced by them"))
        }
        guard let name = (try? launch.dataSharing.appGroupName()) ?? nil ?? launch.config?.appGroupName else { return out }
        let sandbox = launch.sandbox
        let groupDir = sandbox.device.sharedContainer(groupID: name)
        let appLaunched = FileManager.default.fileExists(atPath: sandbox.dataContainer.path)
        guard appLaunched else { return out }
        guard FileManager.default.fileExists(atPath: groupDir.path) else {
            if sandbox.isEntitled(toAppGroup: name) {
                out.append(Finding("group-container-missing", .error,
                    "the app has run on this device but the app group container \(groupDir.path) does not exist: the extension has nothing to read",
                    fix: "launch the app with app groups on (main-app app-group enable); if the container was deleted, restore it from a backup rather than starting over"))
            }
            return out
        }
        let enabled = (try? sandbox.suite(named: name).bool(forKey: DataSharingHelper.appGroupEnabledKey)) ?? false
        if !enabled && !extensions.isEmpty {
            out.append(Finding("device-app-groups-off", .warning,
                "kAccessGroupEnabled is off in the \(name) suite while the app has \(extensions.map(self.name).joined(separator: ", ")): the extension reads only its own defaults and shows nothing",
                fix: "turn app groups on: main-app app-group enable (or appGroupsEnabled true in the app's \(AppGroupConfig.fileName))"))
        }
        let accounts = UserAccountManager(launch: launch, events: SDKEvents())
        let key = await accounts.loadAccountKey()
        let sealedAccounts = (try? launch.dataSharing.sdkRoot().accountFiles().count) ?? 0
        if case .unreadable = key, let error = await launch.keychain.status().error {
            // The account files are sealed with a key the keychain keeps: nothing about them can be checked.
            out.append(Finding("keychain-unavailable", .warning,
                "the keychain cannot be read, so the \(sealedAccounts) account(s) (sealed with a key it keeps) were not checked: \(error.message)",
                fix: "run the doctor inside scripts/with-keyring with the keyring unlocked"))
            return out
        }
        if case .missing = key, sealedAccounts > 0 {
            out.append(Finding("account-key-missing", .error,
                "\(sealedAccounts) account file(s) are sealed with \(AccountEncryption.keyService), which is in no keychain group \(sandbox.bundleIdentifier) is entitled to (\(sandbox.keychainAccessGroups.joined(separator: ", "))): the SDK would make a new key and delete them",
                fix: "restore the keychain group the key was written to in the app's keychain-access-groups, or log in again"))
            return out
        }
        do {
            let msdk = try launch.dataSharing.msdkUserDefaults()
            let flag = try msdk.bool(forKey: launch.userLogInStatusKey)
            if flag, try accounts.currentUser() == nil {
                out.append(Finding("stale-login-flag", .warning,
                    "\(launch.userLogInStatusKey) is true in msdkUserDefaults but there is no current user (the last logout does not reset it): an extension that checks only the flag shows a logged-in state with no user",
                    fix: "write \(launch.userLogInStatusKey) = false on logout too (register for the logout notification), and check the current user in the extension"))
            }
            let stored = try accounts.allAccounts()
            if !stored.isEmpty {
                let status = await launch.keychain.status()
                if let error = status.error {
                    out.append(Finding("keychain-unavailable", .warning,
                        "the keychain cannot be read, so the \(stored.count) account(s) were not checked for tokens: \(error.message)",
                        fix: "run the doctor inside scripts/with-keyring with the keyring unlocked"))
                } else {
                    for account in stored where !((try? await accounts.isLoggedIn(account)) ?? true) {
                        out.append(Finding("account-without-tokens", .error,
                            "\(account.username) has an account file but no refresh token in the keychain: the SDK treats it as logged out",
                            fix: "log \(account.username) in again (main-app login); the keychain items may have been reset or the device restored without its keychain"))
                    }
                }
            }
            if await launch.keychain.status().success, let orphans = try? await accounts.orphanedTokenAccounts(), !orphans.isEmpty {
                out.append(Finding("orphaned-token-items", .error,
                    "\(orphans.count) session(s) have live tokens in the keychain but no account file (a login interrupted after the token exchange, or a previous install of the app: keychain values outlive it): the org still accepts them and nothing on the device will use them",
                    fix: "launch the app once (main-app revokes an interrupted login's tokens at the org, then removes them); for tokens a previous install left, set revokeTokensOfPreviousInstall in AppGroupConfig.plist (in code: at the first launch after an install, remove the SDK's keychain items); or revoke them in the org's connected-app sessions"))
            }
            // Accounts left in the app's own container while app groups are on: stranded by a migration
            // another process ran first.
            if enabled {
                let own = sandbox.device.layout.privateSDKRoot(bundleID: sandbox.bundleIdentifier).library
                let orgs = ((try? FileManager.default.contentsOfDirectory(atPath: own.path)) ?? []).filter { $0.hasPrefix("00D") }
                if !orgs.isEmpty {
                    out.append(Finding("stranded-account-files", .error,
                        "app groups are on, but account files are still in the app's own container (\(own.path)/\(orgs.joined(separator: ", "))): another process ran the one-time migration first",
                        fix: "move them into \(sandbox.device.layout.groupSDKRoot(groupID: name).library.path)/ and relaunch; keep the extension from setting the flag so only the app migrates"))
                }
            }
        } catch {
            out.append(Finding("device-unreadable", .error, "\(error)", fix: "fix or move aside the file named above"))
        }
        return out
    }
}
