import ArgumentParser
import Foundation
import MobileSync
import RestClient
import SalesforceSDK
import SmartStore

/// `main-app shell`: the app as a long-lived process. It reads commands from stdin, holds scenes
/// (windows) with AuthHelper's scene blocks, and prints what each scene shows whenever a login,
/// logout or switch in any scene resets them. Login is deferred until `login-if-required`.
struct Shell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A long-lived app: reads commands from stdin, holds scenes and notification handlers, prints what each scene shows.",
        discussion: """
            Commands: scene open NAME | scene close NAME | scenes | login-if-required | login USER PASSWORD | logout |
            switch USER | sync | show | status | help | quit. Nothing authenticates until login-if-required.
            """)

    @ParentCommand var app: MainApp
    @Option(name: .customLong("scene"), help: "A scene to open at launch (repeat for more).") var scenes: [String] = ["main"]

    func run() async throws {
        let context = try await app.start(unlock: false)
        let session = ShellSession(context: context, passcode: app.passcode)
        for scene in scenes { session.open(scene, announce: false) }
        print("main-app shell: \(scenes.count) scene(s) open; nothing authenticates until login-if-required (type help)")
        session.printScenes()
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            if words[0] == "quit" || words[0] == "exit" { break }
            do {
                try await session.run(words)
            } catch {
                print("error: \(error)")
                session.failures += 1
            }
            fflush(nil)
        }
        if session.failures > 0 { throw ExitCode(1) }
    }
}

final class ShellSession: @unchecked Sendable {
    let context: AppContext
    let passcode: String?
    private(set) var order: [String] = []
    private var roots: [String: String] = [:]
    private var launched = false
    var failures = 0

    init(context: AppContext, passcode: String?) {
        self.context = context
        self.passcode = passcode
    }

    var accounts: UserAccountManager { context.accounts }

    /// What a scene shows as its root, from the app's state now.
    func root() -> String {
        guard launched else { return "LaunchScreen (login deferred)" }
        if let user = try? accounts.currentUser() { return "ContactsList(\(user.username))" }
        if case .userPicker(let left) = context.auth.lastLogout { return "UserPicker(\(left.joined(separator: ", ")))" }
        return "LoginScreen"
    }

    func open(_ scene: String, announce: Bool = true) {
        guard roots[scene] == nil else { return print("scene \(scene) is already open") }
        order.append(scene)
        roots[scene] = root()
        // The scene variant: a login, logout or switch in any scene resets this scene's root.
        context.auth.registerBlock(forCurrentUserChangeNotifications: scene) { [weak self] in self?.reset(scene) }
        if announce { print("[\(scene)] opened: \(roots[scene]!)") }
    }

    func close(_ scene: String) {
        guard roots.removeValue(forKey: scene) != nil else { return print("no scene \(scene)") }
        order.removeAll { $0 == scene }
        context.auth.unregister(scene: scene)
        print("[\(scene)] closed")
    }

    private func reset(_ scene: String) {
        roots[scene] = root()
        print("[\(scene)] root reset: \(roots[scene]!)")
    }

    func printScenes() {
        for scene in order { print("[\(scene)] \(roots[scene]!)") }
    }

    func run(_ words: [String]) async throws {
        switch (words[0], words.count) {
        case ("help", _):
            print(Shell.configuration.discussion)
        case ("scenes", _):
            printScenes()
        case ("scene", 3) where words[1] == "open":
            open(words[2])
        case ("scene", 3) where words[1] == "close":
            close(words[2])
        case ("login-if-required", _):
            try await loginIfRequired()
        case ("login", 3):
            guard launched else { throw Failure("call login-if-required first (login is deferred until then)") }
            guard let org = context.org else { throw SDKError.noLoginHost }
            let account = try await accounts.login(org: org, username: words[1], password: words[2], passcode: passcode)
            print("logged in as \(account.username)")
        case ("logout", 1):
            let account = try context.currentAccount()
            try await accounts.logout(account)
            print("logged out \(account.username); \(context.describe(context.auth.lastLogout))")
        case ("switch", 2):
            guard let account = try accounts.account(username: words[1]) else { throw SDKError.noSuchAccount(words[1]) }
            try accounts.switchToUser(account)
        case ("sync", 1):
            let account = try context.currentAccount()
            print(try await runConfiguredSyncs(context, account: account, only: nil) { _, _ in }.joined(separator: "; "))
        case ("show", 1):
            try await show()
        case ("status", 1):
            let current = try accounts.currentUser()?.username ?? "(none)"
            let all = try accounts.allAccounts().map(\.username)
            let flag = try context.launch.dataSharing.msdkUserDefaults().bool(forKey: context.launch.userLogInStatusKey)
            print("current user: \(current); accounts: \(all.isEmpty ? "(none)" : all.joined(separator: ", ")); userLoggedIn: \(flag)")
        default:
            throw Failure("unknown command '\(words.joined(separator: " "))'; type help")
        }
    }

    /// AuthHelper.loginIfRequired with the configured login screen reading stdin; the screen lock asks for
    /// the passcode on stdin when --passcode was not given.
    private func loginIfRequired() async throws {
        launched = true
        let bundle = context.launch.sandbox.bundle
        var prompt = LoginPrompt(config: try LoginViewConfig.load(from: bundle), loginHost: context.org ?? URL(string: "https://login.salesforce.com")!)
        let passcode = self.passcode
        var outcome: AuthHelper.LoginOutcome
        do {
            outcome = try await context.auth.loginIfRequired(passcode: passcode) { try prompt.ask(username: nil, passcode: passcode) }
        } catch SDKError.screenLocked(let n) where passcode == nil {
            print("  screen lock: enter your \(n)-digit passcode: ", terminator: "")
            fflush(nil)
            outcome = try await context.auth.loginIfRequired(passcode: Terminal.readSecretLine()) { nil }
        }
        switch outcome {
        case .alreadyLoggedIn(let who):
            print("valid token for \(who): authentication skipped")
            for scene in order { reset(scene) }
        case .loggedIn(let who): print("logged in as \(who)")
        case .deferred: print("shouldAuthenticate is off in bootconfig.plist: the app logs in later")
        }
    }

    /// Every scene's content: the contacts list shows the 3 newest, as the app's first screen does.
    private func show() async throws {
        for scene in order {
            let root = roots[scene]!
            print("[\(scene)] \(root)")
            guard root.hasPrefix("ContactsList"), let account = try accounts.currentUser() else { continue }
            let store = try await context.sdk.userStore(for: account)
            guard try store.soupExists("contacts") else {
                print("    (no contacts yet: sync)")
                continue
            }
            let rows = try store.query(.smart("SELECT {contacts:_soup} FROM {contacts} ORDER BY {contacts:_soupLastModifiedDate} DESC", pageSize: 3))
            for row in rows {
                guard let e = row.arrayValue?.first else { continue }
                print("    \([e["FirstName"]?.stringValue, e["LastName"]?.stringValue].compactMap { $0 }.joined(separator: " "))")
            }
        }
    }
}
