import ArgumentParser
import SchedulePoints
import Foundation
import MobileApp
import MobileSyncEngine
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

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
            HandleURL.self, IDPLaunch.self,
        ])

    @Option(help: "The app bundle (.app directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
    @Option(help: "The org's URL for login (the sf-simulator's 'listening on' address).") var org: String?
    @Option(help: "Write the launch steps and SDK notifications as JSON lines to this file.") var trace: String?
    @Option(help: "The screen-lock passcode: set at the login of an org whose connected app requires one, asked for again at later launches once the app has been idle longer than the policy's timeout.")
    var passcode: String?
    @Flag(help: "Recover as the real SDK does: delete accounts that cannot be read at launch (keychain locked) instead of keeping them.")
    var sdkRecovery = false
    @Flag(help: "A background launch (a background fetch, a prewarm): no UI, in any lock state of the device; it reads only what iOS lets it read in that state, and says so in one line when it cannot.")
    var background = false
    @Flag(help: .hidden) var appendTrace = false
    @Flag(name: .customLong("init"), help: "Make --device a device even if it is a directory AppGroupSim did not make (not empty, not private, or another user's).")
    var initDevice = false

    /// Runs the command, then checkpoints every store this process opened, so that a clean exit leaves
    /// no committed data only in a `-wal` file. Under `msdk-sim explore` the process may first be the
    /// executable's fork server (`ForkServer`): each process forked from it goes on from here.
    static func main() async {
        // Done once in a fork server, for every process forked from it: the parser finding its commands' types
        // (3% of an exploration's CPU), and the first look-ups of the protocols that parsing each command the
        // explorer sends, the cast below and `print` ask for (a look-up scans the binary's conformances once, then
        // is cached).
        ForkServer.serveIfAsked {
            _ = try? parseAsRoot(["--help"])
            let launch = ["--bundle", "/", "--device", "/", "--org", "http://127.0.0.1"]
            for command in [
                ["login", "--username", "u", "--password", "p"], ["sync"], ["contacts", "add", "--last", "l"], ["contacts", "list", "--json"],
                ["logout"], ["switch-user", "--username", "u"], ["status", "--json"],
            ] { _ = (try? parseAsRoot(launch + command)) as? AsyncParsableCommand }
            ForkServer.warmUpPrinting()
        }
        do {
            var command = try parseAsRoot()
            if var async = command as? AsyncParsableCommand { try await async.run() } else { try command.run() }
            SmartStore.checkpointOpenStores()
        } catch {
            SmartStore.checkpointOpenStores()
            exit(withError: error)
        }
    }

    var options: AppLaunchOptions {
        var options = AppLaunchOptions(bundle: bundle, device: device, org: org, trace: trace, passcode: passcode, sdkRecovery: sdkRecovery)
        options.appendTrace = appendTrace
        options.initDevice = initDevice
        options.background = background
        return options
    }

    /// One launch of the app (MobileApp's AppSession); warnings of the launch go to stderr.
    func start(unlock: Bool = true, requireKeychain: Bool = true, finishLaunching: Bool = true) async throws -> AppSession {
        try await AppSession.start(options, unlock: unlock, requireKeychain: requireKeychain, finishLaunching: finishLaunching, note: warn)
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
                    throw AppError("that is not a login host URL; give one like http://127.0.0.1:8080")
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
    @Flag(help: "Log in through the identity provider app of bootconfig.plist's idpAppURIScheme (no password here).") var idp = false
    @Option(help: "With --idp: the identity provider app's user to log in as (username, or the SDK's userId:orgId hint).") var user: String?
    @Option(help: "With --idp: seconds to wait for the identity provider app's answer.") var timeout: Double = 60

    func run() async throws {
        let session = try await app.start()
        if idp {
            let urls = AppURLs(session: session)
            let account = try await urls.loginThroughIdentityProvider(userHint: user, timeout: timeout)
            print("logged in as \(account.username) (\(account.displayName)), org \(account.orgId), through the identity provider app")
            return
        }
        guard let org = session.org else { throw SDKError.noLoginHost }
        var entry = AuthHelper.LoginEntry(loginHost: org, username: username ?? "", password: password ?? "", passcode: app.passcode)
        if username == nil || password == nil {
            var prompt = LoginPrompt(config: try LoginViewConfig.load(from: session.launch.sandbox.bundle), loginHost: org)
            guard let typed = try prompt.ask(username: username, passcode: app.passcode) else {
                session.events.step("loginCancelled")
                throw SDKError.loginCancelled
            }
            entry = typed
        }
        let account = try await session.login(username: entry.username, password: entry.password, host: entry.loginHost)
        print("logged in as \(account.username) (\(account.displayName)), org \(account.orgId)")
    }
}

struct Logout: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Log the current user out (revokes the session at the org).")
    @ParentCommand var app: MainApp

    func run() async throws {
        let out = try await app.start().logoutCurrentUser()
        if let failure = out.revokeFailure {
            warn("the org was not told to revoke the session (\(failure)); the tokens on this device were emptied")
        }
        print("logged out \(out.account.username); \(out.next)")
    }
}

struct SwitchUser: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "switch-user", abstract: "Make another logged-in account the current user.")
    @ParentCommand var app: MainApp
    @Option(help: "Username of an account on this device.") var username: String

    func run() async throws {
        let account = try await app.start().switchUser(to: username)
        print("current user: \(account.username)")
    }
}

struct Sync: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the named syncs of the bundle's usersyncs.json in file order (the sample: sync up, then sync down contacts).")
    @ParentCommand var app: MainApp
    @Option(help: "Run only the sync of this name.") var name: String?

    func run() async throws {
        let bar = ProgressBar()
        let outcomes = try await app.start().runConfiguredSyncs(only: name) { label, state in bar.show(label, state) }
        bar.finish()
        for outcome in outcomes { print(outcome) }
    }
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

    static func editor(_ app: MainApp) async throws -> RecordEditor {
        try await RecordEditor(try await app.start(), soup: "contacts")
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a contact locally; prints its local id.")
        @ParentCommand var contacts: Contacts
        @OptionGroup var fields: Fields
        func run() async throws {
            let saved = try await Contacts.editor(contacts.app).add(fields.entry)
            print(saved["Id"]?.stringValue ?? "")
        }
    }

    struct Edit: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Change a contact locally.")
        @ParentCommand var contacts: Contacts
        @Argument(help: "The contact's Id (or local id).") var id: String
        @OptionGroup var fields: Fields
        func run() async throws {
            try await Contacts.editor(contacts.app).edit(id: id, changes: fields.entry)
            print("edited \(id)")
        }
    }

    struct Delete: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a contact locally.")
        @ParentCommand var contacts: Contacts
        @Argument(help: "The contact's Id (or local id).") var id: String
        func run() async throws {
            try await Contacts.editor(contacts.app).delete(id: id)
            print("deleted \(id)")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the contacts in the store, local flags included.")
        @ParentCommand var contacts: Contacts
        @Flag(help: "Print a JSON array of entries.") var json = false
        func run() async throws {
            let entries = try await Contacts.editor(contacts.app).list(orderPath: "LastName")
            if json { return print(RecordEditor.jsonText(entries)) }
            for e in entries { print(RecordEditor.contactLine(e)) }
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
        let enabled = action == .enable
        let path = try await app.start().setAppGroups(enabled: enabled)
        print("app groups \(enabled ? "enabled" : "disabled"); msdkUserDefaults: \(path)")
    }
}

struct Status: AsyncParsableCommand {
    static let configuration = CommandConfiguration(abstract: "The app's app-group state, login flag, accounts and current user.")

    @ParentCommand var app: MainApp
    @Flag(help: "Print JSON.") var json = false

    func run() async throws {
        let report = try await StatusReport(try await app.start(unlock: false, requireKeychain: false))
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            print(String(decoding: try encoder.encode(report), as: UTF8.self))
        } else {
            print(report.lines.joined(separator: "\n"))
        }
    }
}

struct HandleURL: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "handle-url",
        abstract: "Launch the app to handle one URL another app opened (what msdk-sim device open-url runs when the app is not running).",
        discussion: "IDP commands (<scheme>://oauth2/v1.0/authrequest|authresponse|idpinit|error): an identity provider app answers an authrequest; a client app completes or ends its pending login. The app then handles what else arrives in its URL inbox while it waits for an answer.")
    @ParentCommand var app: MainApp
    @Argument(help: "The URL (or --inbox-item).") var url: String?
    @Option(help: "Handle this item of the app's URL inbox on the device (how an app launched for a URL gets it, off its command line).")
    var inboxItem: String?
    @Option(help: "As an identity provider app: the user to log the client app in as (else the hint's, else the current user).") var user: String?
    @Option(help: "Seconds to wait for an answer, when handling the URL asked another app for one.") var timeout: Double = 60

    func validate() throws {
        guard (url == nil) != (inboxItem == nil) else { throw ValidationError("give either a URL or --inbox-item") }
    }

    func run() async throws {
        let urls = AppURLs(session: try await app.start(), screens: .terminal(user: user))
        let source: AppURLs.LaunchURL
        if let inboxItem {
            source = .inboxItem(inboxItem)
        } else {
            guard let text = url, let parsed = URL(string: text), parsed.scheme != nil else { throw AppError("\(url ?? "") is not a URL") }
            source = .url(parsed)
        }
        try await urls.handleLaunch(source, timeout: timeout) { print($0); fflush(nil) }
    }
}

struct IDPLaunch: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "idp-launch",
        abstract: "As the identity provider app: log a client app in with one of this app's users (IDP-initiated login: idpinit).")
    @ParentCommand var app: MainApp
    @Option(name: .customLong("app"), help: "The client app's bundle id (installed on the device: msdk-sim device install).") var clientApp: String
    @Option(help: "The user to log the client app in as (default: the current user).") var user: String?
    @Option(help: "Seconds to wait for the client app's request.") var timeout: Double = 60

    func run() async throws {
        let urls = AppURLs(session: try await app.start(), screens: .terminal(user: user))
        try await urls.logInClientApp(bundleID: clientApp, user: user, timeout: timeout) { print($0); fflush(nil) }
    }
}

/// One line on stderr.
func warn(_ message: String) {
    FileHandle.standardError.write(Data("warning: \(message)\n".utf8))
}
