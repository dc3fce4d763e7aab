import AppGroup
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine

/// One scenario's fresh device, org and bundles, and the real binaries.
final class Run: @unchecked Sendable {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    struct Notification {
        var status: Int32
        var state: String
        var title: String
        var message: String
        var errorCode: Int?
    }

    struct Widget {
        var status: Int32
        var state: String
        var message: String
        var contacts: Int
    }

    let bin: URL
    let fixtureApp: URL
    let work: URL
    /// The scenario's device; `newDevice()` starts another (a new id: nothing of the first one's keychain).
    private(set) var device: URL
    let say: @Sendable (String) -> Void
    private var org: RunningOrg?
    var orgURL: String { org?.url ?? "" }
    /// sf-simulator's admin token (its second line): for its admin routes, and for the apps' APNs registration.
    var adminToken: String { org?.adminToken ?? "" }

    init(bin: URL, fixtureApp: URL, print: @escaping @Sendable (String) -> Void) throws {
        self.bin = bin
        self.fixtureApp = fixtureApp
        say = print
        work = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-scenario-\(UUID().uuidString.prefix(8))")
        device = work.appendingPathComponent("device")
        try SecureFiles.makeDirectory(work)
        for tool in ["main-app", "extension-widget", "extension-notification", "sf-simulator"] where !FileManager.default.isExecutableFile(atPath: bin.appendingPathComponent(tool).path) {
            throw Scenarios.Failure.setup("\(tool) is not in \(bin.path); build it with swift build")
        }
    }

    func finish() {
        org?.stop()
        try? FileManager.default.removeItem(at: work)
    }

    /// sf-simulator on a free port of 127.0.0.1.
    func startOrg() throws {
        do {
            org = try RunningOrg.start(bin: bin, data: fixtureApp.deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("org"))
        } catch {
            throw Scenarios.Failure.setup("\(error)")
        }
    }

    /// A copy of the fixture app under the scenario's folder, changed by `change`.
    func variant(_ name: String, _ change: (URL) throws -> Void) throws -> URL {
        let url = work.appendingPathComponent("\(name).app")
        try FileManager.default.copyItem(at: fixtureApp, to: url)
        try change(url)
        return url
    }

    /// A fresh device for the next half of a scenario: new containers and a new id, so no keychain item of the
    /// first one is seen.
    func newDevice(_ name: String) {
        device = work.appendingPathComponent(name)
    }

    /// `msdk-sim device lock|unlock|reboot` on the scenario's device.
    func setLockState(_ state: DeviceLockState) throws {
        try Device.open(at: device).setLockState(state)
    }

    func widgetOf(_ app: URL) -> URL { app.appendingPathComponent("PlugIns/RecentContacts.appex") }

    func exec(_ tool: String, _ args: [String]) -> Output {
        let process = Process()
        process.executableURL = bin.appendingPathComponent(tool)
        process.arguments = args
        process.environment = environment
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = FileHandle.nullDevice
        do { try process.run() } catch { return Output(status: 127, stdout: "", stderr: "\(error)") }
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Output(status: process.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// `main-app` started and left running, for a scenario that kills it.
    func spawnApp(_ bundle: URL, _ args: [String]) throws -> Process {
        let process = Process()
        process.executableURL = bin.appendingPathComponent("main-app")
        process.arguments = ["--bundle", bundle.path, "--device", device.path, "--org", orgURL] + args
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return process
    }

    /// What the launched binaries get: this process's environment and the org's admin token (apps register
    /// for push with it, as the device's OS would).
    var environment: [String: String] {
        var env = ProcessInfo.processInfo.environment
        if !adminToken.isEmpty { env["APPGROUPSIM_ADMIN_TOKEN"] = adminToken }
        return env
    }

    /// `POST /__admin/faults` with `change` (GET when empty); the org's answer.
    func admin(_ change: [String: Any]) async throws -> [String: Any] {
        guard let url = URL(string: orgURL + "/__admin/faults") else { throw Scenarios.Failure.setup("no org URL") }
        var request = URLRequest(url: url)
        request.setValue(adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        if !change.isEmpty {
            request.httpMethod = "POST"
            request.httpBody = try JSONSerialization.data(withJSONObject: change)
        }
        let (data, _) = try await URLSession.shared.data(for: request)
        return try Run.json(String(decoding: data, as: UTF8.self))
    }

    func app(_ bundle: URL, _ args: [String]) -> Output {
        exec("main-app", ["--bundle", bundle.path, "--device", device.path, "--org", orgURL] + args)
    }

    func widget(_ bundle: URL) -> Widget {
        let out = exec("extension-widget", ["--bundle", bundle.path, "--device", device.path, "--json"])
        let object = (try? Run.json(out.stdout)) ?? [:]
        return Widget(
            status: out.status, state: object["state"] as? String ?? "(no output: \(out.stderr))",
            message: object["message"] as? String ?? "", contacts: (object["contacts"] as? [Any])?.count ?? 0)
    }

    /// `extension-notification` on the next delivered notification.
    func notification(_ bundle: URL) -> Notification {
        let out = exec("extension-notification", ["--bundle", bundle.path, "--device", device.path, "--json"])
        let object = (try? Run.json(out.stdout)) ?? [:]
        return Notification(
            status: out.status, state: object["state"] as? String ?? "(no output: \(out.stderr))", title: object["title"] as? String ?? "",
            message: object["message"] as? String ?? "", errorCode: (object["error"] as? [String: Any])?["code"] as? Int)
    }

    /// `POST` of a JSON body to the org (its admin routes); the answer's object.
    func post(_ path: String, _ body: [String: Any]) async throws -> [String: Any] {
        guard let url = URL(string: orgURL + path) else { throw Scenarios.Failure.setup("no org URL") }
        var request = URLRequest(url: url)
        request.setValue(adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.httpMethod = "POST"
        request.httpBody = try JSONSerialization.data(withJSONObject: body)
        let (data, _) = try await URLSession.shared.data(for: request)
        return try Run.json(String(decoding: data, as: UTF8.self))
    }

    /// The opening of every scenario: alice logs in through the org's login page and syncs.
    func loginAliceAndSync(_ bundle: URL, _ title: String) throws {
        try step(title, app(bundle, ["login", "--username", "alice@acme.test", "--password", "alice-pass"]), expect: 0)
        try step("", app(bundle, ["sync"]), expect: 0)
    }

    /// Prints the step and its outcome; a different exit status stops the scenario.
    func step(_ title: String, _ output: Output, expect: Int32) throws {
        var first = (output.status == 0 ? output.stdout : output.stderr).split(separator: "\n").last.map(String.init) ?? ""
        if output.status == 0, let object = try? Run.json(output.stdout) {
            // main-app status --json: the part that matters here.
            first = "status: accounts \((object["accounts"] as? [String]) ?? []), current user \(object["currentUser"] as? String ?? "(none)"), userLoggedIn \(object["userLoggedIn"] as? Bool ?? false)"
        }
        say(title.isEmpty ? "      \(first)" : "  \(title):\n      \(first)")
        guard output.status == expect else {
            throw Scenarios.Failure.notReproduced("exit status \(output.status), expected \(expect): \(output.stderr)")
        }
    }

    /// Where everything on the scenario's device is.
    var layout: DeviceLayout { DeviceLayout(root: device) }

    func groupSuite() -> SharedDefaults {
        SharedDefaults(url: layout.groupSuite(groupID: "group.com.salesforce.mobilesdk.MobileSyncExplorer"))
    }

    /// Every store file (store.sqlite) on the device, in every SDK root.
    func storeFiles() throws -> [String] {
        layout.allSDKRoots().flatMap { $0.storeFiles() }.map(\.path).sorted()
    }

    /// Every UserAccount.plist on the device, in every SDK root.
    func accountFiles() throws -> [String] {
        layout.allSDKRoots().flatMap { $0.accountFiles() }.map(\.url.path).sorted()
    }

    static func json(_ text: String) throws -> [String: Any] {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw Scenarios.Failure.setup("not a JSON object: \(text)")
        }
        return object
    }

    static func editPlist(_ url: URL, _ change: (inout [String: Any]) -> Void) throws {
        var plist = try PlistValue.foundationPropertyList(from: Data(contentsOf: url)) as? [String: Any] ?? [:]
        change(&plist)
        try PropertyListSerialization.data(fromPropertyList: plist, format: .xml, options: 0).write(to: url)
    }
}
