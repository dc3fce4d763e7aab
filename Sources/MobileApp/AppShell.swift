import AppExtensions
import AppGroup
import Foundation
import CoreEngine
import CoreNetworkEngine
import SmartStoreEngine

/// `main-app shell`: the app as a long-lived process. It holds scenes (windows) with AuthHelper's
/// scene blocks and says what each scene shows whenever a login, logout or switch in any scene resets
/// them. Login is deferred until `login-if-required`. The executable only reads lines and prints.
package final class AppShell: @unchecked Sendable {
    package static let help = """
        Commands: scene open NAME | scene close NAME | scenes | login-if-required | login USER PASSWORD | logout |
        switch USER | sync | show | status | login-idp SCENE [USER] | wait-url [SECONDS] | help | quit.
        Nothing authenticates until login-if-required. URLs other apps open at this app arrive while it runs
        (its URL inbox on the device) and are handled at once; wait-url waits for the next one.
        """

    /// What the shell needs from a person: the login screen and, when a screen lock asks, the passcode.
    package struct Prompts: Sendable {
        /// The configured login screen at `loginHost`: nil when the person cancels.
        package var login: @Sendable (_ config: LoginViewConfig, _ loginHost: URL) throws -> AuthHelper.LoginEntry?
        /// The passcode of `digits` digits, when the screen lock asks and none was given at launch.
        package var passcode: @Sendable (_ digits: Int) -> String?

        package init(
            login: @escaping @Sendable (LoginViewConfig, URL) throws -> AuthHelper.LoginEntry?,
            passcode: @escaping @Sendable (Int) -> String?
        ) {
            self.login = login
            self.passcode = passcode
        }
    }

    package let session: AppSession
    private let prompts: Prompts
    private let say: @Sendable (String) -> Void
    private let lock = NSLock()
    private var order: [String] = []
    private var roots: [String: String] = [:]
    private var launched = false
    private var handledURLs = 0
    private var waitedURLs = 0
    /// URLs between this app and others on the device (identity provider logins).
    package let urls: AppURLs

    package init(session: AppSession, prompts: Prompts, say: @escaping @Sendable (String) -> Void) {
        self.session = session
        self.prompts = prompts
        self.say = say
        // A shell's stdin is its commands: neither its IDP screens nor the apps it launches read it.
        urls = AppURLs(session: session, screens: .automatic(user: nil), shareStdin: false)
    }

    /// Handles the URLs that arrive in this app's inbox while the shell runs, until the task is cancelled.
    package func watchURLs(every interval: UInt64 = 100_000_000) -> Task<Void, Never> {
        Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let next = try? self.urls.deviceApps.takeNext(bundleID: self.session.launch.sandbox.bundleIdentifier) { name, waited in
                    self.urls.reportExpired(name, waited: waited, say: self.say)
                }
                if let next {
                    await self.handleURL(next)
                } else {
                    try? await Task.sleep(nanoseconds: interval)
                }
            }
        }
    }

    /// One incoming URL, as the scene's delegate hands it to the SDK: a completed login resets every scene.
    func handleURL(_ url: URL) async {
        defer { lock.withLock { handledURLs += 1 } }
        if let command = IDPCommand(url: url), command.name == .authResponse || command.name == .error,
            let scene = command.params[IDPCommand.Param.sceneId], rootOf(scene) == nil
        {
            session.events.step("idpResponseRefused", ["scene": scene, "reason": "unknownScene"])
            return say("url refused: it names scene \(scene), which is not open; nothing was kept")
        }
        do {
            let outcome = try await urls.handle(url)
            if case .loggedIn(let account, let scene) = outcome {
                // Every scene was reset by the current-user change, as after any login.
                lock.withLock { launched = true }
                say("[\(scene)] login completed through the identity provider app: \(account.username)")
            } else {
                say(outcome.description)
            }
        } catch SDKError.idpError(let code, let reason, let description) {
            // The identity provider's error command: shown in the scene that asked.
            let scene = IDPCommand(url: url)?.params[IDPCommand.Param.sceneId] ?? "main"
            say("[\(scene)] \(SDKError.idpError(code: code, reason: reason, description: description))")
        } catch {
            say("url refused: \(error)")
        }
    }

    var accounts: UserAccountManager { session.accounts }

    /// The scenes open, in the order they were opened.
    package var scenes: [String] { lock.withLock { order } }

    /// What a scene shows as its root, from the app's state now.
    package func root() -> String {
        guard lock.withLock({ launched }) else { return "LaunchScreen (login deferred)" }
        if let user = try? accounts.currentUser() {
            let soup = (try? WidgetConfig.listScreen(of: session.launch.sandbox.bundle))?.soup ?? WidgetConfig.sample.soup
            return "\(soup.prefix(1).uppercased() + soup.dropFirst())List(\(user.username))"
        }
        if case .userPicker(let left) = session.auth.lastLogout { return "UserPicker(\(left.joined(separator: ", ")))" }
        return "LoginScreen"
    }

    package func rootOf(_ scene: String) -> String? { lock.withLock { roots[scene] } }

    package func open(_ scene: String, announce: Bool = true) {
        guard lock.withLock({ roots[scene] }) == nil else { return say("scene \(scene) is already open") }
        let shown = root()
        lock.withLock {
            order.append(scene)
            roots[scene] = shown
        }
        // The scene variant: a login, logout or switch in any scene resets this scene's root.
        session.auth.registerBlock(forCurrentUserChangeNotifications: scene) { [weak self] in self?.reset(scene) }
        if announce { say("[\(scene)] opened: \(shown)") }
    }

    package func close(_ scene: String) {
        let removed = lock.withLock { () -> Bool in
            guard roots.removeValue(forKey: scene) != nil else { return false }
            order.removeAll { $0 == scene }
            return true
        }
        guard removed else { return say("no scene \(scene)") }
        session.auth.unregister(scene: scene)
        say("[\(scene)] closed")
    }

    private func reset(_ scene: String) {
        let shown = root()
        lock.withLock { roots[scene] = shown }
        say("[\(scene)] root reset: \(shown)")
    }

    package func sayScenes() {
        for scene in scenes { say("[\(scene)] \(rootOf(scene) ?? "")") }
    }

    /// Runs one command line, split into words.
    package func run(_ words: [String]) async throws {
        guard let first = words.first else { return }
        switch (first, words.count) {
        case ("help", _):
            say(Self.help)
        case ("scenes", _):
            sayScenes()
        case ("scene", 3) where words[1] == "open":
            open(words[2])
        case ("scene", 3) where words[1] == "close":
            close(words[2])
        case ("login-if-required", _):
            try await loginIfRequired()
        case ("login", 3):
            guard lock.withLock({ launched }) else { throw AppError("call login-if-required first (login is deferred until then)") }
            let account = try await session.login(username: words[1], password: words[2])
            say("logged in as \(account.username)")
        case ("logout", 1):
            let out = try await session.logoutCurrentUser()
            say("logged out \(out.account.username); \(out.next)")
        case ("switch", 2):
            _ = try session.switchUser(to: words[1])
        case ("sync", 1):
            say(try await session.runConfiguredSyncs().map(\.description).joined(separator: "; "))
        case ("show", 1):
            try await show()
        case ("status", 1):
            say(try StatusReport.shortLine(session))
        case ("login-idp", 2), ("login-idp", 3):
            let scene = words[1]
            guard rootOf(scene) != nil else { throw AppError("no scene \(scene); open it first (scene open \(scene))") }
            guard let host = session.org else { throw SDKError.noLoginHost }
            lock.withLock { launched = true }
            let request = try await accounts.beginIdentityProviderLogin(scene: scene, loginHost: host, userHint: words.count == 3 ? words[2] : nil)
            do {
                try await urls.send(request)
            } catch let error as SDKError {
                throw AppError("[\(scene)] \(error)")
            }
            say("[\(scene)] asked the identity provider app (\(request.scheme):) to log in; its answer comes to this app")
        case ("wait-url", _):
            // Each wait-url is for one more handled URL than the waits before it (it may have come already).
            let seconds = words.count > 1 ? Double(words[1]) ?? 30 : 30
            let deadline = Date().addingTimeInterval(seconds)
            while lock.withLock({ handledURLs <= waitedURLs }) {
                guard Date() < deadline else { throw AppError("no URL arrived within \(Int(seconds)) s") }
                try await Task.sleep(nanoseconds: 50_000_000)
            }
            lock.withLock { waitedURLs += 1 }
        default:
            throw AppError("unknown command '\(words.joined(separator: " "))'; type help")
        }
    }

    /// AuthHelper.loginIfRequired with the configured login screen; the screen lock asks for the
    /// passcode when none was given at launch.
    private func loginIfRequired() async throws {
        lock.withLock { launched = true }
        let config = try LoginViewConfig.load(from: session.launch.sandbox.bundle)
        let host = session.org ?? URL(string: "https://login.salesforce.com")!
        let passcode = session.options.passcode
        let prompts = self.prompts
        var outcome: AuthHelper.LoginOutcome
        do {
            outcome = try await session.auth.loginIfRequired(passcode: passcode) { try prompts.login(config, host) }
        } catch SDKError.screenLocked(let n) where passcode == nil {
            outcome = try await session.auth.loginIfRequired(passcode: prompts.passcode(n)) { nil }
        }
        switch outcome {
        case .alreadyLoggedIn(let who):
            await session.loginIfRequiredCompleted()
            say("valid token for \(who): authentication skipped")
            for scene in scenes { reset(scene) }
        case .loggedIn(let who): say("logged in as \(who)")
        case .deferred: say("shouldAuthenticate is off in bootconfig.plist: the app logs in later")
        }
    }

    /// Every scene's content: a list scene shows the newest entries by the widget's own query and order
    /// (the sample: the 3 newest contacts).
    private func show() async throws {
        for scene in scenes {
            let root = rootOf(scene) ?? ""
            say("[\(scene)] \(root)")
            guard root.contains("List("), let account = try accounts.currentUser() else { continue }
            let config = try WidgetConfig.listScreen(of: session.launch.sandbox.bundle)
            let store = try await session.sdk.userStore(for: account)
            guard try store.soupExists(config.soup) else {
                say("    (no \(config.soup) yet: sync)")
                continue
            }
            let entries = try config.newestRecords(in: store)
            for entry in entries { say("    " + config.rowText(of: entry)) }
        }
    }
}
