import AppGroup
import Foundation
import CoreEngine
import CoreNetworkEngine
#if canImport(Glibc)
import Glibc
#endif

/// The app's side of URLs between apps on the device (issue "IDP"): it opens URL commands at other apps
/// through the device (their inbox when they run, else a launch), and handles the ones it receives, as
/// its `SceneDelegate` hands them to the SDK.
package final class AppURLs: @unchecked Sendable {
    package let session: AppSession
    /// How this app's user answers the identity provider's screens (an IDP app only).
    package let screens: IDPScreens
    private let lock = NSLock()
    private var children: [Process] = []

    /// Whether an app this one launches reads the same stdin (not for a shell, whose stdin is its commands).
    package let shareStdin: Bool

    package init(session: AppSession, screens: IDPScreens = .terminal(user: nil), shareStdin: Bool = true) {
        self.session = session
        self.screens = screens
        self.shareStdin = shareStdin
    }

    var accounts: UserAccountManager { session.accounts }
    package var deviceApps: DeviceApps { DeviceApps(device: session.launch.sandbox.device) }

    /// Opens a command at the app that claims its scheme: its inbox when it runs, else it is launched (the
    /// same `main-app`, in another process, writing into this trace) and not waited for here.
    @discardableResult
    package func open(_ command: IDPCommand) throws -> DeviceApps.Delivery {
        let delivery = try deviceApps.open(try command.url()) { app, url in
            let process = try DeviceApps.launchMainApp(
                app, url: url, device: session.launch.sandbox.device, trace: session.options.trace, shareStdin: shareStdin)
            lock.withLock { children.append(process) }
        }
        var info = command.traceInfo
        switch delivery {
        case .inbox(let id): info["delivery"] = "inbox of \(id)"
        case .launched(let id): info["delivery"] = "launched \(id)"
        }
        session.events.step("urlOpened", info)
        return delivery
    }

    /// What handling one URL came to.
    package enum Outcome: Sendable {
        /// SP: the login pending in `scene` completed.
        case loggedIn(UserAccount, scene: String)
        /// IDP: the answer (authresponse or error) was opened at the SP.
        case answered(IDPCommand)
        /// SP, `idpinit`: the user the IDP named was already here and is now current.
        case switched(UserAccount)
        /// SP, `idpinit`: this app asked the IDP to log the user in (an answer will come).
        case askedIdentityProvider(IDPCommand)

        package var description: String {
            switch self {
            case .loggedIn(let account, let scene): return "[\(scene)] logged in as \(account.username) through the identity provider app"
            case .answered(let answer):
                if answer.name == .error { return "answered error \(answer.params[IDPCommand.Param.errorCode] ?? "") to \(answer.scheme):" }
                return "answered \(answer.name.rawValue) to \(answer.scheme):"
            case .switched(let account): return "switched to \(account.username) (the identity provider app named this user)"
            case .askedIdentityProvider(let request): return "asked the identity provider app (\(request.scheme):) to log the user in"
            }
        }
    }

    /// Handles one incoming URL: as the SDK's URL handlers would, by command.
    package func handle(_ url: URL) async throws -> Outcome {
        guard let command = IDPCommand(url: url) else {
            throw SDKError.idpRefused("\(url.scheme ?? "?"): URL is not a command this app handles (expected \(url.scheme ?? "scheme")://oauth2/v1.0/<command>)")
        }
        switch command.name {
        case .authRequest:
            let host = command.params[IDPCommand.Param.loginHost].flatMap(URL.init(string:))
            let answer = try await accounts.answerAuthRequest(command) { accounts, hint in try await self.screens.choose(accounts, hint, host, self.session) }
            try open(answer)
            return .answered(answer)
        case .authResponse, .error:
            let scene = command.params[IDPCommand.Param.sceneId] ?? "main"
            let account = try await accounts.handleIdentityProviderResponse(
                from: url, with: [UserAccountManager.IDPSceneKey: scene], passcode: session.options.passcode)
            return .loggedIn(account, scene: scene)
        case .idpInit:
            guard let request = try await accounts.handleIdentityProviderInitiated(command, fallbackLoginHost: session.org) else {
                return .switched(try session.currentAccount())
            }
            try await send(request)
            return .askedIdentityProvider(request)
        }
    }

    /// The next URL in this app's inbox, waiting up to `timeout` seconds; nil when none came. Stops early
    /// when `stop` says so (a launched app that exited without answering).
    package func nextURL(timeout: TimeInterval, stop: () -> Bool = { false }) async throws -> URL? {
        let deadline = Date().addingTimeInterval(timeout)
        let id = session.launch.sandbox.bundleIdentifier
        while Date() < deadline {
            let expired: (String, TimeInterval) -> Void = { self.reportExpired($0, waited: $1, say: { _ in }) }
            if let url = try deviceApps.takeNext(bundleID: id, expired: expired) { return url }
            if stop() { return try deviceApps.takeNext(bundleID: id, expired: expired) }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
        return nil
    }

    /// A URL that waited in this app's inbox past `DeviceApps.urlLifetime` was removed unread: traced
    /// (`urlExpired`, the item's name and how long it waited; never the URL, which may hold a code) and said.
    func reportExpired(_ name: String, waited: TimeInterval, say: (String) -> Void) {
        session.events.step("urlExpired", ["item": name, "waitedSeconds": String(Int(waited))])
        say("a URL waited \(Int(waited / 60)) min in this app's inbox (longer than \(Int(DeviceApps.urlLifetime / 60)) min) and was removed unread; open it again if it is still wanted")
    }

    /// Whether this process launched apps and every one has exited (false when it launched none: the
    /// URL then went to a running app, which answers when it will).
    package var launchedAppsExited: Bool { lock.withLock { !children.isEmpty && children.allSatisfy { !$0.isRunning } } }

    /// Waits for the apps this process launched (their output and state are complete when it exits).
    package func waitForLaunchedApps() {
        for child in lock.withLock({ children }) { child.waitUntilExit() }
    }

    /// Where the URL of a launch comes from: given, or an item of the app's URL inbox (how an app launched
    /// by another gets it, off its command line).
    package enum LaunchURL: Sendable {
        case url(URL)
        case inboxItem(String)
    }

    /// `main-app handle-url`: the URL this launch is for, handled; when handling it asked the IDP to log the
    /// user in (`idpinit`), its answer too. `report` gets one line per outcome.
    package func handleLaunch(_ source: LaunchURL, timeout: TimeInterval, report: (String) -> Void) async throws {
        let url: URL
        switch source {
        case .url(let given):
            url = given
        case .inboxItem(let name):
            // A running instance (which this launch waited for) may have handled it from its inbox already.
            guard let item = try deviceApps.take(name, bundleID: session.launch.sandbox.bundleIdentifier) else {
                return report("the URL was handled already (by the instance that was running)")
            }
            url = item
        }
        let outcome = try await handle(url)
        report(outcome.description)
        if case .askedIdentityProvider(let request) = outcome {
            let account = try await awaitAnswer(scene: request.params[IDPCommand.Param.sceneId] ?? "main", timeout: timeout)
            report("logged in as \(account.username) through the identity provider app")
        }
        // An app launched for one URL handles every URL that came meanwhile before it quits: another app's
        // open-url saw it running and left its URL in the inbox (and waits until it is taken).
        let id = session.launch.sandbox.bundleIdentifier
        while let next = try deviceApps.takeNext(bundleID: id, expired: { self.reportExpired($0, waited: $1, say: report) }) {
            do {
                report(try await handle(next).description)
            } catch {
                // Another app's URL: its refusal is said, and the next one is handled.
                report("url refused: \(error)")
            }
        }
        waitForLaunchedApps()
    }

    /// IDP-initiated login (`main-app idp-launch`): `idpinit` naming `user` (default: the current user) to
    /// the client app `bundleID`; then this app answers the client's request (`authrequest`) from its inbox,
    /// until the launched client app exits (or, when it was running, until its request is answered).
    package func logInClientApp(bundleID: String, user: String?, timeout: TimeInterval, report: (String) -> Void) async throws {
        let account: UserAccount
        if let user {
            guard let found = try accounts.account(matchingHint: user) else { throw SDKError.noSuchAccount(user) }
            account = found
        } else {
            account = try session.currentAccount()
        }
        let client = try deviceApps.app(bundleID: bundleID)
        guard let scheme = client.schemes.first else { throw AppError("\(bundleID) claims no URL scheme, so it cannot be sent idpinit") }
        let delivery = try open(accounts.identityProviderInitiated(spScheme: scheme, account: account))
        report("sent idpinit for \(account.username) to \(bundleID)")
        switch delivery {
        case .launched:
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if let url = try await nextURL(timeout: 0.2, stop: { self.launchedAppsExited }) {
                    report(try await handle(url).description)
                } else if launchedAppsExited {
                    break
                }
            }
        case .inbox:
            // A running client app (a shell) that does not have the user asks back at once.
            if let url = try await nextURL(timeout: min(timeout, 10)) { report(try await handle(url).description) }
        }
        waitForLaunchedApps()
    }

    /// SP-initiated login: `authrequest` to the IDP app, then the answer from this app's inbox, handled.
    package func loginThroughIdentityProvider(scene: String = "main", userHint: String?, timeout: TimeInterval = 60) async throws -> UserAccount {
        guard let host = session.org else { throw SDKError.noLoginHost }
        let request = try await accounts.beginIdentityProviderLogin(scene: scene, loginHost: host, userHint: userHint)
        try await send(request)
        return try await awaitAnswer(scene: scene, timeout: timeout)
    }

    /// Opens this app's `authrequest`. When it cannot go (no installed app claims the IDP's scheme any more,
    /// or two do), the login pending for it ends here and nothing of it is kept; no app claiming the scheme
    /// ends it as the SDK does, with `idp_not_installed`.
    package func send(_ request: IDPCommand) async throws {
        do {
            try open(request)
        } catch {
            try await accounts.abandonIdentityProviderLogin(scene: request.params[IDPCommand.Param.sceneId] ?? "main")
            if let failure = error as? DeviceApps.Failure, case .unknownScheme = failure {
                throw SDKError.idpError(code: "idp_not_installed", reason: "Identity provider app not installed", description: failure.description)
            }
            throw error
        }
    }

    /// The answer to this app's pending login, from its inbox; any other URL that comes first is handled too.
    package func awaitAnswer(scene: String, timeout: TimeInterval) async throws -> UserAccount {
        defer { waitForLaunchedApps() }
        while true {
            guard let url = try await nextURL(timeout: timeout, stop: { self.launchedAppsExited }) else {
                try await accounts.abandonIdentityProviderLogin(scene: scene)
                throw SDKError.idpRefused(launchedAppsExited
                    ? "the identity provider app exited without answering"
                    : "no answer from the identity provider app within \(Int(timeout)) s")
            }
            do {
                if case .loggedIn(let account, _) = try await handle(url) { return account }
            } catch SDKError.idpRefused(let detail) {
                // Not the answer to this login (another state, another scene): refused, and the login waits on.
                session.events.step("urlRefused", ["reason": detail])
                FileHandle.standardError.write(Data("warning: \(SDKError.idpRefused(detail))\n".utf8))
            }
        }
    }
}

/// The identity provider app's screens, as a person answers them: which of its users logs the SP in
/// (the current one, the hint's or `user`), its own login when it has no user, or cancel.
package struct IDPScreens: Sendable {
    /// Given the IDP's accounts, the request's user hint and login host, and the app's session.
    package var choose: @Sendable ([UserAccount], String?, URL?, AppSession) async throws -> UserManagerChoice

    package typealias UserManagerChoice = UserAccountManager.IDPUserChoice

    package init(choose: @escaping @Sendable ([UserAccount], String?, URL?, AppSession) async throws -> UserManagerChoice) {
        self.choose = choose
    }

    /// Without asking anyone (a shell, whose stdin is its own commands): `user`, else the hint's user, else
    /// the current user; with none of them here, the login is cancelled (log in to the IDP app first).
    package static func automatic(user: String?) -> IDPScreens {
        IDPScreens { _, hint, _, session in
            if let wanted = user ?? hint {
                guard let account = try session.accounts.account(matchingHint: wanted) else { return .cancelled }
                return .account(account)
            }
            guard let current = try session.accounts.currentUser() else { return .cancelled }
            return .account(current)
        }
    }

    /// On a terminal (or a pipe): the person types a username to pick, `cancel`, or nothing (the default:
    /// `user`, else the hint's user, else the current user). With no user to pick, the IDP's own login
    /// screen reads a username and password. Input is read only when some is there (a pipe or a file
    /// with data, or a terminal): an app launched with nothing to read takes the default.
    package static func terminal(user: String?) -> IDPScreens {
        IDPScreens { accounts, hint, loginHost, session in
            let typed = StdinLine.read(prompt: "  \(session.launch.sandbox.bundle.displayName ?? "identity provider"): log in as (\(accounts.map(\.username).joined(separator: ", "))), or cancel: ")
            if typed?.lowercased() == "cancel" { return .cancelled }
            let wanted = (typed?.isEmpty == false ? typed : nil) ?? user ?? hint
            if let wanted, let account = try session.accounts.account(matchingHint: wanted) { return .account(account) }
            if wanted == nil, let current = try session.accounts.currentUser() { return .account(current) }
            // No such user here: the IDP app's own login first.
            let username = wanted.flatMap { $0.contains(":") ? nil : $0 } ?? StdinLine.read(prompt: "  username: ")
            guard let username, !username.isEmpty, let password = StdinLine.read(prompt: "  password: "), !password.isEmpty else { return .cancelled }
            return .account(try await session.login(username: username, password: password, host: loginHost ?? session.org))
        }
    }
}

/// A line from stdin when there is one to read: a terminal always waits; a pipe or file is read when
/// it has data (or is at its end) within half a second; otherwise nil.
enum StdinLine {
    static func read(prompt: String) -> String? {
        if isatty(0) == 1 {
            FileHandle.standardOutput.write(Data(prompt.utf8))
            return readLine()
        }
        var fds = pollfd(fd: 0, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, 500) > 0 else { return nil }
        return readLine()?.trimmingCharacters(in: .whitespaces)
    }
}
