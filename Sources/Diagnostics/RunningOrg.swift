#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Exploring
import Foundation

/// An org this program started on a free port of 127.0.0.1, with its admin token: an sf-simulator process, or
/// the same server in this process (`EmbeddedOrgStarter`, given by a program that links the org).
final class RunningOrg: @unchecked Sendable {
    let url: String
    let adminToken: String
    /// Ends the org (the process, or the server in this process) and returns once it has.
    private let end: () -> Void
    /// The state file this org keeps (a copy of a seeded template), removed when it stops.
    private var stateFile: URL?

    private init(url: String, adminToken: String, stateFile: URL?, end: @escaping () -> Void) {
        self.url = url
        self.adminToken = adminToken
        self.stateFile = stateFile
        self.end = end
    }

    /// Starts sf-simulator on `data`; with `state`, the org keeps its changes in that SQLite file (a state
    /// already seeded is not seeded again, which is how an explorer's runs skip seeding). With `embedded`, the
    /// org is served in this process instead (`state` is then required).
    static func start(bin: URL, data: URL, state: URL? = nil, embedded: EmbeddedOrgStarter? = nil) throws -> RunningOrg {
        if let embedded, let state {
            let org = try embedded.start(data, state)
            return RunningOrg(url: org.url, adminToken: org.adminToken, stateFile: state, end: org.stop)
        }
        let process = Process()
        process.executableURL = bin.appendingPathComponent("sf-simulator")
        process.arguments = ["--port", "0", "--data", data.path] + (state.map { ["--state", $0.path] } ?? [])
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        try process.run()
        var lines = Data()
        while lines.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
            let chunk = pipe.fileHandleForReading.availableData
            guard !chunk.isEmpty else { throw ExploreError.setup("sf-simulator exited before listening (its org data: \(data.path))") }
            lines.append(chunk)
        }
        let text = String(decoding: lines, as: UTF8.self).split(separator: "\n")
        return RunningOrg(
            url: text[0].split(separator: " ").last.map(String.init) ?? "", adminToken: text[1].split(separator: " ").last.map(String.init) ?? "",
            stateFile: state,
            end: {
                process.terminate()
                Self.reap(process)
            })
    }

    /// Starts an org on a copy of `template` (a state file seeded once by `seedTemplate`), named `copy`.
    static func start(bin: URL, data: URL, template: URL, copy: URL, embedded: EmbeddedOrgStarter? = nil) throws -> RunningOrg {
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: template.path + suffix) {
            try FileManager.default.copyItem(atPath: template.path + suffix, toPath: copy.path + suffix)
        }
        return try start(bin: bin, data: data, state: copy, embedded: embedded)
    }

    /// Seeds `data` once into the SQLite file `template`: each run's org then starts from a copy of it,
    /// with the same records, instead of seeding its own (about half of an org's start).
    static func seedTemplate(bin: URL, data: URL, template: URL, embedded: EmbeddedOrgStarter? = nil) throws {
        try start(bin: bin, data: data, state: template, embedded: embedded).stop(keepState: true)
    }

    func stop(keepState: Bool = false) {
        end()
        if let file = stateFile, !keepState {
            // With the lock file the org holds while it runs (sf-simulator's `<state>.lock`): an exploration starts
            // an org a run, and left, they were one file a run in its directory until it ended.
            for suffix in ["", "-wal", "-shm", ".lock"] { try? FileManager.default.removeItem(atPath: file.path + suffix) }
        }
    }

    /// Waits for a child that was told to end. Not `waitUntilExit()`: Foundation's `Process` learns of the exit
    /// when the child's end of a socket pair closes, and that end is not close-on-exec; a process spawned by
    /// another thread while the org started kept a copy (the explorer's fork servers live as long as it does), and
    /// in one CI run the explorer waited 37 minutes on an sf-simulator that had exited (a zombie, never reaped).
    /// The explorer's spawns now close what they inherit (`ActorProcess.closeInheritedDescriptors`); and the child
    /// is asked for directly as well, without blocking: while `isRunning` holds, Foundation has not reaped it, so
    /// the pid is still that child's.
    static func reap(_ process: Process) {
        let pid = process.processIdentifier
        while process.isRunning {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid || (reaped < 0 && errno == ECHILD) { return }
            usleep(2_000)
        }
    }

    /// `POST /__admin/faults`; whether the org took it.
    @discardableResult
    func faults(_ body: [String: Any]) -> Bool {
        guard let url = URL(string: url + "/__admin/faults") else { return false }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue(adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.httpBody = try? JSONSerialization.data(withJSONObject: body)
        return send(request)
    }

    /// Sends an admin request and waits for it: whether the org answered 200.
    func send(_ request: URLRequest) -> Bool {
        let done = DispatchSemaphore(value: 0)
        let box = StatusBox()
        URLSession.shared.dataTask(with: request) { _, response, _ in
            box.status = (response as? HTTPURLResponse)?.statusCode ?? 0
            done.signal()
        }.resume()
        done.wait()
        return box.status == 200
    }

    private final class StatusBox: @unchecked Sendable { var status = 0 }
}

/// How a program that links the org (msdk-sim) serves an explorer's orgs in its own process, without an
/// sf-simulator process each run: given the org's definition and its SQLite state file, it starts the org and
/// returns its URL, its admin token, and how to stop it (returning once it has stopped).
package struct EmbeddedOrgStarter: Sendable {
    package typealias Started = (url: String, adminToken: String, stop: @Sendable () -> Void)
    let start: @Sendable (_ data: URL, _ state: URL) throws -> Started

    package init(_ start: @escaping @Sendable (_ data: URL, _ state: URL) throws -> Started) {
        self.start = start
    }
}

extension RunningOrg {
    /// `POST /__admin/push`: a notification for `username`'s registered devices.
    func push(username: String, title: String) -> Bool {
        guard let url = URL(string: url + "/__admin/push") else { return false }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue(adminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
        request.httpBody = try? JSONSerialization.data(withJSONObject: ["username": username, "title": title, "body": "from msdk-sim explore"])
        return send(request)
    }
}

extension RunningOrg {
    /// Whether the org grants an access token for `refreshToken` (a session still live there). The token is sent,
    /// never printed.
    func acceptsRefreshToken(_ refreshToken: String, clientId: String) -> Bool {
        guard let request = Self.refreshRequest(orgURL: url, refreshToken: refreshToken, clientId: clientId) else { return false }
        return send(request)
    }

    /// `POST /services/oauth2/token` with `grant_type=refresh_token`, as a connected app sends it.
    static func refreshRequest(orgURL: String, refreshToken: String, clientId: String) -> URLRequest? {
        guard let url = URL(string: orgURL + "/services/oauth2/token") else { return nil }
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        var form = URLComponents()
        form.queryItems = [URLQueryItem(name: "grant_type", value: "refresh_token"), URLQueryItem(name: "refresh_token", value: refreshToken),
                           URLQueryItem(name: "client_id", value: clientId), URLQueryItem(name: "format", value: "json")]
        request.httpBody = Data((form.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B").utf8)
        return request
    }
}
