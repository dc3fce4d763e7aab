import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The apps installed on a device and the URL schemes they claim (Info.plist `CFBundleURLTypes`), as
/// iOS knows them, kept in `DEVICE/InstalledApps.plist`; and the delivery of a URL to the app that
/// claims its scheme: into the app's URL inbox (`DEVICE/URLs/<bundle id>/inbox/`) when it is running,
/// else by launching it once to handle the URL (the caller says how).
package struct DeviceApps: Sendable {
    package struct App: Sendable, Equatable, Codable {
        package var bundleIdentifier: String
        package var path: String
        /// Lowercased, as iOS compares them.
        package var schemes: [String]
    }

    package enum Failure: Error, Equatable, CustomStringConvertible, LocalizedError {
        case notInstalled(bundleID: String)
        case unknownScheme(String)
        case schemeClaimedTwice(scheme: String, apps: [String])
        case notAURL(String)
        /// The running app did not take a URL from its inbox in time (it is left there for the app).
        case notTaken(bundleID: String, item: String, waited: TimeInterval)

        package var description: String {
            switch self {
            case .notInstalled(let id):
                return "no app \(id) is installed on this device; install it with msdk-sim device install --app PATH"
            case .unknownScheme(let scheme):
                return "no installed app claims the URL scheme \(scheme):; install the app whose Info.plist CFBundleURLTypes lists it (msdk-sim device install)"
            case .schemeClaimedTwice(let scheme, let apps):
                return "the URL scheme \(scheme): is claimed by \(apps.joined(separator: " and ")): iOS would pick one at random; keep it in one app's CFBundleURLTypes"
            case .notAURL(let text):
                return "\(text) is not a URL with a scheme (like companylogin://oauth2/v1.0/authrequest?...)"
            case .notTaken(let id, let item, let waited):
                return "\(id) is running but did not take the URL from its inbox within \(Int(waited)) s (\(item) waits there); it was not delivered yet: check that the running app handles URLs (main-app shell does)"
            }
        }

        package var errorDescription: String? { description }
    }

    package let device: Device

    package init(device: Device) { self.device = device }

    var registry: SharedDefaults { SharedDefaults(url: device.root.appendingPathComponent("InstalledApps.plist")) }

    /// Registers (or updates) the bundle; returns the app as installed. Two apps may be installed with
    /// one scheme, as iOS allows; opening such a URL is then an error that names both.
    @discardableResult
    package func install(_ bundle: AppBundle) throws -> App {
        if let existing = device.collidingBundleID(bundle.bundleIdentifier, installed: try apps().map(\.bundleIdentifier)) {
            throw DeviceError.bundleIDCollides(bundleID: bundle.bundleIdentifier, existing: existing)
        }
        let app = App(bundleIdentifier: bundle.bundleIdentifier, path: bundle.url.path, schemes: Self.schemes(of: bundle))
        try registry.set(.dictionary(["path": .string(app.path), "schemes": .array(app.schemes.map { .string($0) })]), forKey: app.bundleIdentifier)
        return app
    }

    /// `CFBundleURLTypes[*].CFBundleURLSchemes[*]`, lowercased, in order.
    package static func schemes(of bundle: AppBundle) -> [String] {
        var out: [String] = []
        for type in bundle.info["CFBundleURLTypes"]?.arrayValue ?? [] {
            for scheme in type.dictionaryValue?["CFBundleURLSchemes"]?.arrayValue ?? [] {
                if let s = scheme.stringValue?.lowercased(), !s.isEmpty, !out.contains(s) { out.append(s) }
            }
        }
        return out
    }

    package func apps() throws -> [App] {
        try registry.dictionaryRepresentation().compactMap { id, value -> App? in
            guard let d = value.dictionaryValue, let path = d["path"]?.stringValue else { return nil }
            return App(bundleIdentifier: id, path: path, schemes: d["schemes"]?.arrayValue?.compactMap(\.stringValue) ?? [])
        }.sorted { $0.bundleIdentifier < $1.bundleIdentifier }
    }

    package func app(bundleID: String) throws -> App {
        guard let app = try apps().first(where: { $0.bundleIdentifier == bundleID }) else { throw Failure.notInstalled(bundleID: bundleID) }
        return app
    }

    /// The one installed app that claims the URL's scheme.
    package func app(for url: URL) throws -> App {
        guard let scheme = url.scheme?.lowercased(), !scheme.isEmpty else { throw Failure.notAURL(url.absoluteString) }
        let claiming = try apps().filter { $0.schemes.contains(scheme) }
        guard let first = claiming.first else { throw Failure.unknownScheme(scheme) }
        guard claiming.count == 1 else { throw Failure.schemeClaimedTwice(scheme: scheme, apps: claiming.map(\.bundleIdentifier)) }
        return first
    }

    // MARK: URL delivery

    package func urlInbox(bundleID: String) -> URL {
        device.root.appendingPathComponent("URLs").appendingPathComponent(bundleID).appendingPathComponent("inbox")
    }

    /// Whether a process runs the app now (holds its instance lock).
    package func isRunning(bundleID: String) -> Bool {
        let url = device.dataContainer(bundleID: bundleID).appendingPathComponent(AppInstanceLock.fileName)
        let fd = Glibc.open(url.path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        if flock(fd, LOCK_SH | LOCK_NB) == 0 {
            flock(fd, LOCK_UN)
            return false
        }
        return errno == EWOULDBLOCK
    }

    package enum Delivery: Sendable, Equatable {
        /// Into the inbox of the running app.
        case inbox(bundleID: String)
        /// The app was not running: the caller's launcher ran it to handle the URL.
        case launched(bundleID: String)
    }

    /// Delivers `url` to the app that claims its scheme: into its inbox when it runs, and `.inbox` only once
    /// the app took it from there; else `launch(app, url)` runs it once to handle it. A running app that quits
    /// before it takes the URL gets it back by a launch (the item taken back by name: an older one may wait
    /// there too), so no URL is left in an inbox that nobody reads; one the app has not taken within `timeout`
    /// seconds, while it still runs, is an error (and stays for the app).
    @discardableResult
    package func open(_ url: URL, timeout: TimeInterval = 30, launch: (App, URL) throws -> Void) throws -> Delivery {
        let app = try app(for: url)
        guard isRunning(bundleID: app.bundleIdentifier) else {
            try launch(app, url)
            return .launched(bundleID: app.bundleIdentifier)
        }
        let item = try post(url, to: app.bundleIdentifier)
        let file = urlInbox(bundleID: app.bundleIdentifier).appendingPathComponent(item)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if !FileManager.default.fileExists(atPath: file.path) { return .inbox(bundleID: app.bundleIdentifier) }
            if !isRunning(bundleID: app.bundleIdentifier) {
                guard let taken = try take(item, bundleID: app.bundleIdentifier) else { return .inbox(bundleID: app.bundleIdentifier) }
                try launch(app, taken)
                return .launched(bundleID: app.bundleIdentifier)
            }
            guard Date() < deadline else { throw Failure.notTaken(bundleID: app.bundleIdentifier, item: item, waited: timeout) }
            usleep(20_000)
        }
    }

    /// Launches `main-app` (beside this executable, or `$APPGROUPSIM_MAIN_APP`) to handle `url` as `app` on
    /// `device`, sharing this process's stdin, stdout and stderr (and its trace file, appended to). The URL
    /// goes through the app's inbox, not its command line: another user's `ps` never sees a one-time code.
    /// Returns the running process; the caller decides whether to wait.
    package static func launchMainApp(_ app: App, url: URL, device: Device, trace: String?, shareStdin: Bool = true) throws -> Process {
        let binary = ProcessInfo.processInfo.environment["APPGROUPSIM_MAIN_APP"].map(URL.init(fileURLWithPath:))
            ?? Bundle.main.executableURL!.deletingLastPathComponent().appendingPathComponent("main-app")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw FileError(path: binary.path, reason: "is not an executable: build main-app (swift build) or set APPGROUPSIM_MAIN_APP")
        }
        let process = Process()
        process.executableURL = binary
        var arguments = ["--bundle", app.path, "--device", device.root.path]
        if let trace { arguments += ["--trace", trace, "--append-trace"] }
        let item = try DeviceApps(device: device).post(url, to: app.bundleIdentifier)
        process.arguments = arguments + ["handle-url", "--inbox-item", item]
        // The bundle and device also as the SDK-named API reads them (SDKProcess), for an app built from the
        // developer's code that stands in for main-app (APPGROUPSIM_MAIN_APP).
        var environment = ProcessInfo.processInfo.environment
        environment["APPGROUPSIM_BUNDLE"] = app.path
        environment["APPGROUPSIM_DEVICE"] = device.root.path
        process.environment = environment
        // A shell's stdin carries its own commands: the app it launches must not read them.
        if !shareStdin { process.standardInput = FileHandle.nullDevice }
        try process.run()
        return process
    }

    /// Writes the URL into the app's inbox (whole, 0600, named in delivery order); returns the item's name.
    @discardableResult
    package func post(_ url: URL, to bundleID: String) throws -> String {
        let inbox = urlInbox(bundleID: bundleID)
        try SecureFiles.makeDirectory(inbox)
        let name = String(format: "%015.0f", Date().timeIntervalSince1970 * 1000) + "-" + UUID().uuidString.prefix(8) + ".url"
        try SecureFiles.writeAtomically(Data(url.absoluteString.utf8), to: inbox.appendingPathComponent(name), durability: .atomic)
        return name
    }

    /// The inbox item `name` (what an app launched for one URL handles), removed; nil when it is gone.
    package func take(_ name: String, bundleID: String) throws -> URL? {
        guard !name.contains("/"), name.hasSuffix(".url") else { throw Failure.notAURL(name) }
        let file = urlInbox(bundleID: bundleID).appendingPathComponent(name)
        guard let data = try SecureFiles.readIfPresent(file), unlink(file.path) == 0 else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard let url = URL(string: text), url.scheme != nil else { throw Failure.notAURL(text) }
        return url
    }

    /// How long a posted URL waits for its app: 10 minutes. A URL that waited longer (one posted for a launch
    /// that never took it) is no longer delivered: what it carries is stale by then (an authorization code
    /// lives 15 minutes at most, and the login that asked for it has long been abandoned), and on a device
    /// a URL reaches a running app at once or launches it; nothing waits.
    package static let urlLifetime: TimeInterval = 600

    /// When an inbox item was posted, from its name (milliseconds since 1970, then a dash); nil if not ours.
    static func postedAt(_ name: String) -> Date? {
        guard let dash = name.firstIndex(of: "-"), let ms = Double(name[..<dash]) else { return nil }
        return Date(timeIntervalSince1970: ms / 1000)
    }

    /// The oldest URL in the app's inbox, removed from it (URLs may carry one-time codes: none is kept).
    /// Items older than `urlLifetime` are removed unread, each named to `expired` (with how long it waited).
    package func takeNext(bundleID: String, now: Date = Date(), expired: (String, TimeInterval) -> Void = { _, _ in }) throws -> URL? {
        let inbox = urlInbox(bundleID: bundleID)
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: inbox.path)) ?? []).filter { $0.hasSuffix(".url") && !$0.hasPrefix(".") }.sorted()
        for name in names {
            let file = inbox.appendingPathComponent(name)
            if let posted = Self.postedAt(name), now.timeIntervalSince(posted) > Self.urlLifetime {
                if unlink(file.path) == 0 { expired(name, now.timeIntervalSince(posted)) }
                continue
            }
            guard let data = try SecureFiles.readIfPresent(file) else { continue }
            // Removed before it is handled: another reader that raced for it gets ENOENT and goes on.
            guard unlink(file.path) == 0 else { continue }
            let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let url = URL(string: text), url.scheme != nil else { throw Failure.notAURL(text) }
            return url
        }
        return nil
    }
}
