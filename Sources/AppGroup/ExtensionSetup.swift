import Foundation

/// One problem in an app-extension setup: what, how bad, the exact fix, and the bundle it is about (the app's
/// or an extension's folder name). The one type of both an extension's launch check and `msdk-sim doctor`.
package struct Finding: Codable, Equatable, Sendable {
    package enum Severity: String, Codable, Sendable { case error, warning }

    package var id: String
    package var severity: Severity
    package var message: String
    package var fix: String
    /// The bundle the issue is about, when it is one extension's (`RecentContacts.appex`).
    package var subject: String?

    package init(_ id: String, _ severity: Severity, _ message: String, fix: String, subject: String? = nil) {
        self.id = id
        self.severity = severity
        self.message = message
        self.fix = fix
        self.subject = subject
    }
}

/// "Are this app and its extensions set up consistently?": the one evaluation that both
/// `msdk-sim doctor` and an extension's launch check use. Checks are ordered so that one mistake gives
/// one issue (a typo in the extension's group name is "the names differ", not also "not entitled").
package enum ExtensionSetup {
    package static let teamIdentifierKey = "com.apple.developer.team-identifier"
    /// Resources only the app reads; an extension that carries them was packaged by mistake.
    package static let appOnlyResources = ["bootconfig.plist", "userstore.json", "usersyncs.json", "LoginViewConfig.plist"]

    static func name(_ bundle: AppBundle) -> String { bundle.url.lastPathComponent }

    /// The entitlement that lets iOS give an app an APNs device token.
    package static let apsEnvironmentKey = "aps-environment"
    /// The keychain item a notification service extension reads (the SDK's push key; PushKey.service).
    package static let pushKeyService = "com.salesforce.mobilesdk.notificationKey"

    static func config(_ bundle: AppBundle) -> Result<AppGroupConfig?, any Error> { Result { try AppGroupConfig.load(from: bundle) } }

    package static func evaluate(app: AppBundle, extensions: [AppBundle]) -> [Finding] {
        var out: [Finding] = []
        let all = [app] + extensions
        var seen: [String: String] = [:]
        for bundle in all {
            if let first = seen[bundle.bundleIdentifier] {
                out.append(Finding("duplicate-bundle-id", .error,
                    "\(first) and \(name(bundle)) have the same CFBundleIdentifier \(bundle.bundleIdentifier)",
                    fix: "give \(name(bundle)) its own id under the app's, e.g. \(app.bundleIdentifier).\(bundle.url.deletingPathExtension().lastPathComponent) (Info.plist CFBundleIdentifier)"))
            }
            seen[bundle.bundleIdentifier] = seen[bundle.bundleIdentifier] ?? name(bundle)
        }
        for ext in extensions where ext.bundleIdentifier != app.bundleIdentifier && !ext.bundleIdentifier.hasPrefix(app.bundleIdentifier + ".") {
            out.append(Finding("extension-bundle-id-prefix", .error,
                "\(name(ext))'s CFBundleIdentifier \(ext.bundleIdentifier) does not start with the app's \(app.bundleIdentifier).: iOS refuses to install an app whose extension ids are not under its own",
                fix: "set CFBundleIdentifier in \(name(ext))/Info.plist to \(app.bundleIdentifier).\(ext.url.deletingPathExtension().lastPathComponent)", subject: name(ext)))
        }
        let notificationServices = extensions.filter(\.isNotificationServiceExtension)
        if !notificationServices.isEmpty, app.entitlements.raw[apsEnvironmentKey]?.stringValue == nil {
            out.append(Finding("aps-environment-missing", .error,
                "\(name(app)) carries \(notificationServices.map(name).joined(separator: ", ")) but has no \(apsEnvironmentKey) entitlement: iOS never gives it a device token, so it never registers with the org and no notification reaches the extension",
                fix: "add \(apsEnvironmentKey) (development or production) to \(app.entitlementsURL.lastPathComponent): enable the Push Notifications capability of the app target", subject: name(app)))
        }
        let appTeam = app.entitlements.raw[teamIdentifierKey]?.stringValue
        for ext in extensions {
            let team = ext.entitlements.raw[teamIdentifierKey]?.stringValue
            if let appTeam, let team, team != appTeam {
                out.append(Finding("team-mismatch", .error,
                    "\(name(app)) is signed by team \(appTeam) and \(name(ext)) by team \(team): app groups and keychain groups are shared only within one team",
                    fix: "sign both targets with team \(appTeam) (\(teamIdentifierKey) in \(ext.entitlementsURL.lastPathComponent))"))
            }
        }

        let appConfig: AppGroupConfig?
        switch config(app) {
        case .failure(let error):
            return out + [Finding("config-invalid", .error, "\(error)", fix: "fix \(AppGroupConfig.fileName) in \(name(app))", subject: name(app))]
        case .success(let c): appConfig = c
        }
        // A keychain class an extension or a background launch cannot read while the phone is locked (issue 36):
        // the users of SDK issues #3437, #3477 and #3427 were logged out so.
        for bundle in all {
            guard case .success(let c?) = config(bundle), let name = c.keychainAccessibility, name.hasPrefix("whenUnlocked") || name.hasPrefix("whenPasscodeSet") else { continue }
            out.append(Finding("keychain-class-when-unlocked", .warning,
                "\(self.name(bundle)) gives the SDK's keychain items the class \(name) (keychainAccessibility in \(AppGroupConfig.fileName)): a background launch, a widget refresh or a push while the phone is locked cannot read the tokens or the account key (errSecInteractionNotAllowed), and the SDK then logs the user out",
                fix: "remove keychainAccessibility from \(self.name(bundle))/\(AppGroupConfig.fileName) (the SDK's default is afterFirstUnlockThisDeviceOnly), or set it to afterFirstUnlockThisDeviceOnly; in code, KeychainHelper.setAccessibleAttribute(.afterFirstUnlockThisDeviceOnly)",
                subject: self.name(bundle)))
        }
        // Files of `complete` class cannot be opened while the phone is locked: the widget, a push or a background
        // fetch then cannot read the accounts, and the SDK's persister deletes what it cannot read (issue 36).
        for bundle in all {
            guard case .success(let c?) = config(bundle), let name = c.fileProtection,
                let protection = FileProtectionClass(name: name), protection == .complete || protection == .completeUnlessOpen
            else { continue }
            out.append(Finding("file-protection-complete", .warning,
                "\(self.name(bundle)) gives the SDK's files the class \(protection.rawValue) (fileProtection in \(AppGroupConfig.fileName)): while the phone is locked a widget refresh, a push or a background launch cannot open the account files or the store (EPERM), and the SDK's persister then deletes the account files it cannot read, logging the user out",
                fix: "remove fileProtection from \(self.name(bundle))/\(AppGroupConfig.fileName) (the SDK's default is completeUntilFirstUserAuthentication), or set it to completeUntilFirstUserAuthentication; in code, FileProtectionHelper.shared.defaultMode = .completeUntilFirstUserAuthentication",
                subject: self.name(bundle)))
        }
        guard !extensions.isEmpty else { return out }
        // Targets that share only a keychain group (the SDK's encrypted-notification template): no app group is
        // entitled or named anywhere, and every extension is a notification service extension, whose decryption
        // needs only the push key in the shared keychain group. Valid: no app-group finding, the keychain checked.
        let sharesOnlyKeychain = all.allSatisfy { $0.entitlements.applicationGroups.isEmpty } && extensions.allSatisfy(\.isNotificationServiceExtension)
            && all.allSatisfy { bundle in
                guard case .success(let c) = config(bundle) else { return false }
                return (c?.appGroupName ?? "").isEmpty
            }
        if sharesOnlyKeychain { return out + keychainFindings(app: app, extensions: extensions, team: appTeam ?? Device.defaultTeamID) }
        guard let appConfig else {
            return out + [Finding("config-missing", .error, "\(name(app)) has no \(AppGroupConfig.fileName), so it never sets an app group name and its extensions can never see its login",
                fix: "add \(AppGroupConfig.fileName) to \(name(app)) with appGroupName (one of its com.apple.security.application-groups) and appGroupsEnabled true")]
        }
        let teamForExpansion = appTeam ?? Device.defaultTeamID
        // The group a fix names: the configured one, else the app's first entitled one, else the conventional name
        // (never an empty name).
        let fixGroup = !appConfig.appGroupName.isEmpty ? appConfig.appGroupName
            : app.entitlements.applicationGroups.first ?? "an app group of your team (e.g. group.\(app.bundleIdentifier))"

        if appConfig.appGroupsEnabled == false {
            out.append(Finding("app-groups-disabled", .warning,
                "\(name(app)) turns app groups off (appGroupsEnabled false) but carries \(extensions.map(name).joined(separator: ", ")): the extension will never see the login (the SDK's sample ships this way)",
                fix: "set appGroupsEnabled to true in \(name(app))/\(AppGroupConfig.fileName)"))
        }
        if app.entitlements.applicationGroups.isEmpty {
            out.append(Finding("app-group-entitlement-missing", .error,
                "\(name(app)) has no com.apple.security.application-groups entitlement, so it has no group container",
                fix: "add \(fixGroup) to com.apple.security.application-groups in \(app.entitlementsURL.lastPathComponent)"))
        } else if !app.entitlements.applicationGroups.contains(appConfig.appGroupName) {
            out.append(Finding("app-group-name-not-entitled", .error,
                "\(name(app)) sets app group \(visible(appConfig.appGroupName)) in \(AppGroupConfig.fileName), but its entitlements list \(app.entitlements.applicationGroups.map(visible).joined(separator: ", "))",
                fix: "use one name: put \(visible(appConfig.appGroupName)) in com.apple.security.application-groups, or set appGroupName to \(visible(app.entitlements.applicationGroups[0]))"))
        }

        for ext in extensions {
            let before = out.count
            // Everything this iteration finds is about this extension.
            defer { for i in before..<out.count { out[i].subject = name(ext) } }
            let extConfig: AppGroupConfig?
            switch config(ext) {
            case .failure(let error):
                out.append(Finding("config-invalid", .error, "\(error)", fix: "fix \(AppGroupConfig.fileName) in \(name(ext))"))
                continue
            case .success(let c): extConfig = c
            }
            let groups = ext.entitlements.applicationGroups
            if groups.isEmpty {
                out.append(Finding("app-group-entitlement-missing", .error,
                    "\(name(ext)) has no com.apple.security.application-groups entitlement, so it cannot open the app's group container or suite",
                    fix: "add \(fixGroup) to com.apple.security.application-groups in \(ext.entitlementsURL.lastPathComponent)"))
            } else if Set(groups) != Set(app.entitlements.applicationGroups), !app.entitlements.applicationGroups.isEmpty {
                out.append(Finding("app-group-entitlements-differ", .error,
                    "the app is entitled to \(app.entitlements.applicationGroups.map(visible).joined(separator: ", ")) and \(name(ext)) to \(groups.map(visible).joined(separator: ", "))",
                    fix: "list the same app groups in \(ext.entitlementsURL.lastPathComponent) as in \(app.entitlementsURL.lastPathComponent)"))
            }
            if let extConfig {
                if extConfig.appGroupName != appConfig.appGroupName {
                    out.append(Finding("app-group-names-differ", .error,
                        "the app sets app group \(visible(appConfig.appGroupName)) and \(name(ext)) sets \(visible(extConfig.appGroupName))",
                        fix: "set appGroupName to \(visible(appConfig.appGroupName)) in \(name(ext))/\(AppGroupConfig.fileName)"))
                }
                if let flag = extConfig.appGroupsEnabled {
                    if let appFlag = appConfig.appGroupsEnabled, flag != appFlag {
                        out.append(Finding("app-group-flag-differs", .error,
                            "the app sets appGroupsEnabled \(appFlag) and \(name(ext)) sets \(flag); the flag lives in the group suite, so each launch flips it for both",
                            fix: "remove appGroupsEnabled from \(name(ext))/\(AppGroupConfig.fileName) so the extension follows the app's flag"))
                    } else {
                        out.append(Finding("extension-sets-app-group-flag", .warning,
                            "\(name(ext)) sets appGroupsEnabled \(flag) at every launch: when the app turns app groups off, the extension turns them back on and reads stale data",
                            fix: "remove appGroupsEnabled from \(name(ext))/\(AppGroupConfig.fileName); set only appGroupName and read the flag the app keeps in the group suite"))
                    }
                }
            } else {
                out.append(Finding("config-missing", .error,
                    "\(name(ext)) has no \(AppGroupConfig.fileName), so it never sets the app group name and cannot read msdkUserDefaults",
                    fix: "add \(AppGroupConfig.fileName) to \(name(ext)) with appGroupName \(fixGroup)"))
            }

            out += keychainFindings(app: app, extensions: [ext], team: teamForExpansion)
        }
        return out
    }


    /// The keychain group an extension must share with the app: the push key's for a notification service extension,
    /// the tokens' for any other; and the app-only files an extension should not carry.
    static func keychainFindings(app: AppBundle, extensions: [AppBundle], team teamForExpansion: String) -> [Finding] {
        var out: [Finding] = []
        let appWriteGroup = app.entitlements.effectiveKeychainAccessGroups(teamID: teamForExpansion, bundleID: app.bundleIdentifier).first!
        for ext in extensions {
            let before = out.count
            defer { for i in before..<out.count { out[i].subject = name(ext) } }
            // Expanded with the app's team: a different team is its own finding (team-mismatch), not also this one.
            let extTeam = teamForExpansion
            let extGroups = ext.entitlements.effectiveKeychainAccessGroups(teamID: extTeam, bundleID: ext.bundleIdentifier)
            if ext.isNotificationServiceExtension, !extGroups.contains(appWriteGroup) {
                // What a notification service extension reads from the keychain is the push key, not the tokens.
                let has = ext.entitlements.keychainAccessGroups.isEmpty ? "no keychain-access-groups entitlement" : "only \(extGroups.joined(separator: ", "))"
                out.append(Finding("push-key-group-not-shared", .error,
                    "the app keeps its push key (\(pushKeyService)) in keychain group \(appWriteGroup), but \(name(ext)) has \(has): it cannot decrypt a notification, and every one shows only its fallback alert",
                    fix: "make the first entry of keychain-access-groups in \(ext.entitlementsURL.lastPathComponent) $(AppIdentifierPrefix)\(appWriteGroup.split(separator: ".", maxSplits: 1).last ?? ""), as in the app"))
            } else if ext.entitlements.keychainAccessGroups.isEmpty {
                out.append(Finding("keychain-group-missing", .error,
                    "\(name(ext)) has no keychain-access-groups entitlement, so it cannot read the tokens the app writes to \(appWriteGroup)",
                    fix: "add $(AppIdentifierPrefix)\(appWriteGroup.split(separator: ".", maxSplits: 1).last ?? "") to keychain-access-groups in \(ext.entitlementsURL.lastPathComponent)"))
            } else if !extGroups.contains(appWriteGroup) {
                out.append(Finding("keychain-group-differs", .error,
                    "the app writes its tokens to keychain group \(visible(appWriteGroup)) (the first of its keychain-access-groups, expanded), but \(name(ext)) may only use \(extGroups.map(visible).joined(separator: ", "))",
                    fix: "make the first entry of keychain-access-groups the same in both targets, e.g. $(AppIdentifierPrefix)\(appWriteGroup.split(separator: ".", maxSplits: 1).last ?? "")"))
            }

            let extra = appOnlyResources.filter { FileManager.default.fileExists(atPath: ext.resourceURL($0).path) }
            if !extra.isEmpty {
                out.append(Finding("extension-unused-files", .warning,
                    "\(name(ext)) carries \(extra.joined(separator: ", ")), which an extension never reads (it never logs in and never creates stores or syncs)",
                    fix: "remove \(extra.joined(separator: ", ")) from the extension target's Copy Bundle Resources"))
            }
        }
        return out
    }
}
