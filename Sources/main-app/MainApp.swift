import AppGroup
import ArgumentParser
import Foundation
import MobileSync
import RestClient
import SalesforceSDK
import SmartStore

/// The MobileSyncExplorer app. Every launch applies the bundle's app-group settings before
/// `initializeSDK`, as the sample's AppDelegate does, and keeps `userLoggedIn` equal to
/// "there is a current user" on every current-user change.
@main
struct MainApp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "main-app",
        abstract: "The simulated Mobile SDK app its bundle configures (the sample: MobileSyncExplorer).",
        subcommands: [
            Login.self, Logout.self, SwitchUser.self, Sync.self, Records.self, Contacts.self, Status.self, AppGroupCommand.self, Shell.self,
        ])

    @Option(help: "The app bundle (.app directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Option(help: "The org's URL for login (the sf-simulator's 'listening on' address).") var org: String?
    @Option(help: "Write the launch steps and SDK notifications as JSON lines to this file.") var trace: String?
    @Option(help: "The screen-lock passcode: set at the login of an org whose connected app requires one, asked for again at later launches once the app has been idle longer than the policy's timeout.")
    var passcode: String?
    @Flag(help: "Recover as the real SDK does: delete accounts that cannot be read at launch (keychain locked) instead of keeping them.")
    var sdkRecovery = false

    /// Runs the command, then checkpoints every store this process opened, so that a clean exit leaves
    /// no committed data only in a `-wal` file.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand { try await async.run() } else { try command.run() }
            SmartStore.checkpointOpenStores()
        } catch {
            SmartStore.checkpointOpenStores()
            exit(withError: error)
        }
    }

    /// One launch. `unlock`: the screen lock is shown (and must be passed with --passcode) when a policy applies.
    /// `requireKeychain`: false only for `status`, which reports a keychain it cannot use instead of stopping.
    /// Before anything changes, the launch waits for any other instance of this app on the device, then
    /// checks the keychain: unusable, it stops with one message and nothing changed (unless --sdk-recovery).
    func start(unlock: Bool = true, requireKeychain: Bool = true) async throws -> AppContext {
        let context = try AppContext(self)
        try await LaunchPreparation.run(
            context.launch, accounts: context.accounts, recovery: sdkRecovery ? .sdkDestructive : .keepFiles, requireKeychain: requireKeychain,
            note: warn)
        guard requireKeychain else { return context }
        if unlock { try await context.unlockIfNeeded(passcode) }
        return context
    }
}

/// One launch of the app: app group applied, SDK initialized, the sample's userLoggedIn handler registered.
struct AppContext {
    let launch: ProcessLaunch
    let events: SDKEvents
    let sdk: MobileSyncSDKManager
    let auth: AuthHelper
    let org: URL?
    /// Held for the life of the process: one instance of the app per device.
    let instance: AppInstanceLock

    init(_ app: MainApp) throws {
        events = SDKEvents(traceFile: app.trace)
        // Taken before ProcessLaunch, which already writes (it applies the bundle's app-group settings).
        let bundle = try AppBundle(at: URL(fileURLWithPath: app.bundle))
        instance = try AppInstanceLock(sandbox: AppSandbox(device: try Device.resolve(path: app.device), bundle: bundle))
        launch = try ProcessLaunch(bundlePath: app.bundle, devicePath: app.device)
        events.step("appGroupConfigApplied", ["enabled": String(try launch.dataSharing.appGroupEnabled())])
        sdk = MobileSyncSDKManager.initializeSDK(launch: launch, events: events)
        org = app.org.flatMap(URL.init(string:)) ?? (try? BootConfig.load(from: launch.sandbox.bundle))?.loginHost
        auth = AuthHelper(sdk: sdk)
        let accounts = sdk.userAccountManager
        let launch = self.launch
        events.observe(.didChangeCurrentUser) { _, _ in
            let loggedIn = (try? accounts.currentUser()) != nil
            try? launch.dataSharing.msdkUserDefaults().set(.bool(loggedIn), forKey: launch.userLogInStatusKey)
        }
    }

    var accounts: UserAccountManager { sdk.userAccountManager }

    func currentAccount() throws -> UserAccount {
        guard let account = try accounts.currentUser() else { throw SDKError.notLoggedIn }
        return account
    }

    var screenLock: ScreenLock { ScreenLock(accounts: accounts) }

    /// The screen lock at launch: when a policy applies and the app has been idle past its timeout.
    func unlockIfNeeded(_ passcode: String?) async throws {
        if try screenLock.isLocked() { try await screenLock.unlock(passcode, events: events) } else { try screenLock.touch() }
    }

    /// Runs `body`; a session revoked at the org logs the user out (SDK order; AuthHelper's handleLogout
    /// then runs on did-logout) and says so.
    func withSession<T>(_ account: UserAccount, _ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch RestError.sessionRevoked {
            try await accounts.logout(account, reason: "refreshTokenRevoked")
            throw Failure("\(SDKError.sessionRevoked(username: account.username)); \(describe(auth.lastLogout))")
        }
    }

    /// What `AuthHelper.handleLogout` decided, in words.
    func describe(_ outcome: AuthHelper.LogoutOutcome?) -> String {
        switch outcome {
        case .switched(let who): return "switched to \(who)"
        case .userPicker(let left): return "accounts left: \(left.joined(separator: ", ")); choose one with main-app switch-user"
        case .loginRequired, nil: return "no account left; log in with main-app login"
        }
    }
}

/// The login screen on a terminal: the configured bar, then username and password read from stdin.
/// Typing `settings` as the username (when the settings icon is shown) changes the login host.
struct LoginPrompt {
    let config: LoginViewConfig
    var loginHost: URL

    mutating func ask(username given: String?, passcode: String?) throws -> AuthHelper.LoginEntry? {
        print(config.renderBar(loginHost: loginHost, ansi: isatty(1) == 1))
        var username = given
        while username == nil {
            print("  username: ", terminator: "")
            fflush(nil)
            guard let line = readLine(), !line.isEmpty else { return nil }
            if isatty(0) != 1 { print("") }
            if line == "settings" && config.showsSettingsIcon {
                print("  login host: ", terminator: "")
                fflush(nil)
                guard let host = readLine().flatMap(URL.init(string:)), host.scheme != nil else {
                    throw Failure("that is not a login host URL; give one like http://127.0.0.1:8080")
                }
                loginHost = host
                print("  login host is now \(host.absoluteString)")
                continue
            }
            username = line
        }
        print("  password: ", terminator: "")
        fflush(nil)
        guard let password = Terminal.readSecretLine(), !password.isEmpty else { return nil }
        if isatty(0) != 1 { print("") }
        return AuthHelper.LoginEntry(loginHost: loginHost, username: username!, password: password, passcode: passcode)
    }
}

enum Terminal {
    /// A line from stdin without echo when stdin is a terminal.
    static func readSecretLine() -> String? {
        guard isatty(0) == 1 else { return readLine() }
        var old = termios()
        tcgetattr(0, &old)
        var silent = old
        silent.c_lflag &= ~tcflag_t(ECHO)
        tcsetattr(0, TCSANOW, &silent)
        defer {
            tcsetattr(0, TCSANOW, &old)
            print("")
        }
        return readLine()
    }
}

struct Login: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log in through the org's login page (code flow with PKCE).")
    @ParentCommand var app: MainApp
    @Option(help: "Username (asked on the login screen when missing).") var username: String?
    @Option(help: "Password (asked on the login screen, without echo, when missing).") var password: String?

    func run() async throws {
        let context = try await app.start()
        guard let org = context.org else { throw SDKError.noLoginHost }
        var entry = AuthHelper.LoginEntry(loginHost: org, username: username ?? "", password: password ?? "", passcode: app.passcode)
        if username == nil || password == nil {
            var prompt = LoginPrompt(config: try LoginViewConfig.load(from: context.launch.sandbox.bundle), loginHost: org)
            guard let typed = try prompt.ask(username: username, passcode: app.passcode) else {
                context.events.step("loginCancelled")
                throw SDKError.loginCancelled
            }
            entry = typed
        }
        let account = try await context.accounts.login(org: entry.loginHost, username: entry.username, password: entry.password, passcode: entry.passcode)
        print("logged in as \(account.username) (\(account.displayName)), org \(account.orgId)")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log the current user out (revokes the session at the org).")
    @ParentCommand var app: MainApp

    func run() async throws {
        let context = try await app.start()
        let account = try context.currentAccount()
        let result = try await context.accounts.logout(account)
        if let failure = result.revokeFailure {
            warn("the org was not told to revoke the session (\(failure)); the tokens on this device were emptied")
        }
        print("logged out \(account.username); \(context.describe(context.auth.lastLogout))")
    }
}

struct SwitchUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "switch-user", abstract: "Make another logged-in account the current user.")
    @ParentCommand var app: MainApp
    @Option(help: "Username of an account on this device.") var username: String

    func run() async throws {
        let context = try await app.start()
        guard let account = try context.accounts.account(username: username) else { throw SDKError.noSuchAccount(username) }
        try context.accounts.switchToUser(account)
        print("current user: \(account.username)")
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the named syncs of the bundle's usersyncs.json in file order (the sample: sync up, then sync down contacts).")
    @ParentCommand var app: MainApp
    @Option(help: "Run only the sync of this name.") var name: String?

    func run() async throws {
        let context = try await app.start()
        let account = try context.currentAccount()
        let bar = ProgressBar()
        let results = try await runConfiguredSyncs(context, account: account, only: name) { label, state in bar.show(label, state) }
        bar.finish()
        for line in results { print(line) }
    }
}

/// Runs the syncs of the bundle's `usersyncs.json` (or the one named) in file order, and says what
/// each did: `sync up: DONE, N local change(s)` / `sync down: DONE, N record(s) fetched`.
func runConfiguredSyncs(
    _ context: AppContext, account: UserAccount, only name: String?, progress: @escaping @Sendable (String, SyncState) -> Void
) async throws -> [String] {
    let configURL = context.launch.sandbox.bundle.resourceURL("usersyncs.json")
    let all = try SyncManager.configuredSyncs(configURL)
    guard !all.isEmpty else { throw Failure("\(configURL.path) names no syncs; add the app's usersyncs.json to its bundle") }
    let chosen = name.map { n in all.filter { $0.name == n } } ?? all
    guard !chosen.isEmpty else {
        throw Failure("no sync named \(name ?? "") in \(configURL.lastPathComponent); it has \(all.map(\.name).joined(separator: ", "))")
    }
    let manager = try await context.sdk.syncManager(for: account)
    var lines: [String] = []
    for sync in chosen {
        let label = sync.type == .syncUp ? "up  " : "down"
        let state = try await context.withSession(account) { try await manager.reSync(name: sync.name) { progress(label, $0) } }
        let suffix = chosen.count > 1 || name != nil ? " (\(sync.name))" : ""
        if sync.type == .syncUp {
            let left = try manager.dirtyRecords(sync.soup).count
            lines.append("sync up: \(state.status.rawValue), \(state.totalSize) local change(s)\(left > 0 ? ", \(left) still dirty (see records list --soup \(sync.soup))" : "")\(suffix)")
        } else {
            lines.append("sync down: \(state.status.rawValue), \(max(state.totalSize, 0)) record(s) fetched\(suffix)")
        }
    }
    return lines
}

/// A progress bar on a terminal, one line per step otherwise.
final class ProgressBar: @unchecked Sendable {
    private let tty = isatty(1) == 1
    private let lock = NSLock()
    private var last = ""

    func show(_ label: String, _ state: SyncState) {
        let filled = state.progress / 5
        let line = "\(label) [\(String(repeating: "#", count: filled))\(String(repeating: ".", count: 20 - filled))] \(String(format: "%3d", state.progress))% \(state.status.rawValue)"
        lock.withLock {
            guard line != last else { return }
            last = line
            if tty { FileHandle.standardOutput.write(Data("\r\(line)".utf8)) } else { print(line) }
        }
    }

    func finish() { if tty { print("") } }
}

struct Contacts: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Edit contacts locally (sent at the next sync) and list them.", subcommands: [Add.self, Edit.self, Delete.self, List.self])

    struct Fields: ParsableArguments {
        @Option(help: "First name.") var first: String?
        @Option(help: "Last name.") var last: String?
        @Option(help: "Title.") var title: String?
        @Option(help: "Email.") var email: String?
        @Option(help: "Mobile phone.") var phone: String?

        var entry: SoupEntry {
            var e: SoupEntry = [:]
            if let first { e["FirstName"] = .string(first) }
            if let last { e["LastName"] = .string(last) }
            if let title { e["Title"] = .string(title) }
            if let email { e["Email"] = .string(email) }
            if let phone { e["MobilePhone"] = .string(phone) }
            return e
        }
    }

    static func manager(_ app: MainApp) async throws -> SyncManager {
        let context = try await app.start()
        return try await context.sdk.syncManager(for: try context.currentAccount())
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a contact locally; prints its local id.")
        @ParentCommand var contacts: Contacts
        @OptionGroup var fields: Fields
        func run() async throws {
            let saved = try await Contacts.manager(contacts.app).createLocally(fields.entry, soupName: "contacts")
            print(saved["Id"]?.stringValue ?? "")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a contact locally.")
        @ParentCommand var contacts: Contacts
        @Argument(help: "The contact's Id (or local id).") var id: String
        @OptionGroup var fields: Fields
        func run() async throws {
            try await Contacts.manager(contacts.app).updateLocally(id: id, changes: fields.entry, soupName: "contacts")
            print("edited \(id)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a contact locally.")
        @ParentCommand var contacts: Contacts
        @Argument(help: "The contact's Id (or local id).") var id: String
        func run() async throws {
            try await Contacts.manager(contacts.app).deleteLocally(id: id, soupName: "contacts")
            print("deleted \(id)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the contacts in the store, local flags included.")
        @ParentCommand var contacts: Contacts
        @Flag(help: "Print a JSON array of entries.") var json = false
        func run() async throws {
            let store = try await Contacts.manager(contacts.app).store
            let entries = try store.query(.all(soup: "contacts", orderPath: "LastName", pageSize: 1_000_000)).compactMap(\.objectValue)
            if json {
                print(JSON.array(entries.map(JSON.object)).text)
                return
            }
            for e in entries {
                let flag = e["__local__"]?.boolValue == true ? "*" : " "
                let name = [e["FirstName"]?.stringValue, e["LastName"]?.stringValue].compactMap { $0 }.joined(separator: " ")
                print("\(flag) \(e["Id"]?.stringValue ?? "")  \(name)\(e["__last_error__"]?.stringValue.map { "  (\($0))" } ?? "")")
            }
        }
    }

    @ParentCommand var app: MainApp
}

struct AppGroupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "app-group",
        abstract: "Turn app groups on or off for this app (runs DataSharingHelper's migration; kept for later launches).")

    enum Action: String, ExpressibleByArgument, CaseIterable { case enable, disable }

    @ParentCommand var app: MainApp
    @Argument(help: "enable or disable.") var action: Action

    func run() async throws {
        let launch = try await app.start().launch
        let enabled = action == .enable
        guard try launch.dataSharing.appGroupName() != nil else {
            throw Failure("the bundle has no AppGroupConfig.plist with an appGroupName; add one to \(app.bundle)")
        }
        try launch.dataSharing.setAppGroupEnabled(enabled)
        try launch.sandbox.standardDefaults.set(.bool(enabled), forKey: ProcessLaunch.appGroupsEnabledOverrideKey)
        print("app groups \(enabled ? "enabled" : "disabled"); msdkUserDefaults: \(try launch.dataSharing.msdkUserDefaults().url.path)")
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The app's app-group state, login flag, accounts and current user.")

    @ParentCommand var app: MainApp
    @Flag(help: "Print JSON.") var json = false

    struct Report: Codable {
        var bundleIdentifier: String
        var device: String
        var appGroupName: String?
        var appGroupEnabled: Bool
        var msdkUserDefaults: String
        var userLoggedIn: Bool
        var currentUser: String?
        var accounts: [String]
        var keychainAccessGroups: [String]
        var sdkFeatures: [String]
        var screenLocked: Bool
        /// "ready", or why the keychain cannot be used (then nothing that needs it was read).
        var keychain: String
    }

    func run() async throws {
        let context = try await app.start(unlock: false, requireKeychain: false)
        let launch = context.launch
        let keychain = await launch.keychain.status()
        let msdk = try launch.dataSharing.msdkUserDefaults()
        let report = Report(
            bundleIdentifier: launch.sandbox.bundleIdentifier, device: launch.sandbox.device.root.path,
            appGroupName: try launch.dataSharing.appGroupName(), appGroupEnabled: try launch.dataSharing.appGroupEnabled(),
            msdkUserDefaults: msdk.url.path, userLoggedIn: try msdk.bool(forKey: launch.userLogInStatusKey),
            currentUser: try context.accounts.currentUser()?.username, accounts: try context.accounts.allAccounts().map(\.username),
            keychainAccessGroups: launch.sandbox.keychainAccessGroups, sdkFeatures: context.sdk.features,
            screenLocked: try context.screenLock.isLocked(), keychain: keychain.error?.message ?? "ready")
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print("app:               \(report.bundleIdentifier)")
            print("device:            \(report.device)")
            print("app group:         \(report.appGroupName ?? "(none)") (\(report.appGroupEnabled ? "enabled" : "disabled"))")
            print("msdkUserDefaults:  \(report.msdkUserDefaults)")
            print("userLoggedIn:      \(report.userLoggedIn)")
            print("current user:      \(report.currentUser ?? "(none)")")
            print("accounts:          \(report.accounts.isEmpty ? "(none)" : report.accounts.joined(separator: ", "))")
            print("keychain groups:   \(report.keychainAccessGroups.joined(separator: ", "))")
            print("keychain:          \(report.keychain)")
            if report.screenLocked { print("screen lock:       locked (the next command needs --passcode)") }
        }
    }
}

/// One line on stderr.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
}

/// A failure that is not about the arguments: one line on stderr, exit status 1.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
