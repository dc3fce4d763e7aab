import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The simulated Salesforce org: an HTTP server on 127.0.0.1 with the OAuth endpoints, the identity
/// URL and the REST API subset Mobile Sync uses (DESIGN.md §6). Routes are grouped by area.
package struct OrgSimulator: Sendable {
    package struct Configuration: Sendable {
        package var port: Int
        package var dataDirectory: URL
        package var stateFile: URL?
        /// Another backend instead of SQLite (PostgreSQL, made by sf-simulator for `--state postgres://…`).
        package var store: (any SQLStore)?
        /// The URL clients reach this org at when it is not this process's own (instances behind one front):
        /// token responses name it as `instance_url` and in the identity URLs.
        package var publicURL: String?
        /// Seconds an access token lives.
        package var tokenLifetime: TimeInterval
        package var faults: FaultSettings
        /// Connected apps added at start (`--connected-app KEY=REDIRECT_URI`).
        package var connectedApps: [OrgDefinition.ConnectedApp]
        /// CSV files loaded into a new state (`--csv [ORG:]OBJECT=FILE`).
        package var csv: [CSVSource]
        /// The token `/__admin/*` and `/__apns/*` require (`AdminAuthMiddleware`); nil makes a new random one.
        package var adminToken: String?
        /// How long a write waits for a locked record before `UNABLE_TO_LOCK_ROW` (Salesforce: 10 s). A `store`
        /// given here was made with its own.
        package var recordLockTimeout: TimeInterval
        /// An org inside another program (`EmbeddedOrg`: a developer's test, an explorer's runs): it takes no
        /// signal (SIGTERM and SIGINT stay the program's) and logs nothing (the program's output is its own).
        package var embedded = false

        package init(
            port: Int = 0, dataDirectory: URL, stateFile: URL? = nil, tokenLifetime: TimeInterval = 3600, faults: FaultSettings = FaultSettings(),
            connectedApps: [OrgDefinition.ConnectedApp] = [], csv: [CSVSource] = [], adminToken: String? = nil,
            store: (any SQLStore)? = nil, publicURL: String? = nil, recordLockTimeout: TimeInterval = 10
        ) {
            self.recordLockTimeout = recordLockTimeout
            self.store = store
            self.publicURL = publicURL
            self.adminToken = adminToken
            self.port = port
            self.dataDirectory = dataDirectory
            self.stateFile = stateFile
            self.tokenLifetime = tokenLifetime
            self.faults = faults
            self.connectedApps = connectedApps
            self.csv = csv
        }
    }

    package let configuration: Configuration
    /// What `/__admin/*` and `/__apns/*` require in the `X-AppGroupSim-Admin-Token` header.
    package let adminToken: String
    package static let adminTokenHeader = AdminAuthMiddleware.headerName
    let state: OrgState
    let faults: FaultState
    let address = BoundAddress()
    private let group = GroupBox()

    package init(configuration: Configuration) throws {
        self.configuration = configuration
        adminToken = configuration.adminToken ?? OrgState.randomToken(32)
        let definition = try OrgDefinition.load(directory: configuration.dataDirectory, extraApps: configuration.connectedApps)
        let location: StateLocation = configuration.store.map { .store($0) } ?? configuration.stateFile.map { .file($0) } ?? .memory
        state = try OrgState(
            definition: definition, location: location, tokenLifetime: configuration.tokenLifetime, csv: configuration.csv,
            recordLockTimeout: configuration.recordLockTimeout)
        faults = FaultState(configuration.faults)
    }

    /// Serves until SIGTERM, SIGINT or `shutdown()`; `onListening` gets the bound port (again after each
    /// offline period, which closes the listener and reopens it on the same port).
    package func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        var port = configuration.port
        while true {
            let router = Router(context: OrgContext.self)
            router.add(middleware: ErrorShapeMiddleware())
            router.add(middleware: AdminAuthMiddleware(token: adminToken))
            router.add(middleware: FaultMiddleware(faults: faults))
            AdminRoutes(state: state, faults: faults, goOffline: { [group] seconds in
                group.requestOffline(seconds)
                // After the answer is on its way: the graceful shutdown waits for open requests.
                Task { await group.get()?.triggerGracefulShutdown() }
            }).register(on: router)
            PushGateway(state: state).register(on: router)
            let oauth = OAuthRoutes(state: state, baseURL: { [address, configuration] in configuration.publicURL ?? address.baseURL })
            oauth.register(on: router)
            // The REST API: one version and authentication middleware, one route collection per area.
            let api = router.group("/services/data/:version").add(middleware: APIMiddleware(state: state))
            let queries = QueryRoutes(state: state)
            let sobjects = SObjectRoutes(state: state)
            DescribeRoutes(state: state).register(root: router, api: api)
            queries.register(on: api)
            sobjects.register(on: api)
            CompositeRoutes(state: state, sobjects: sobjects, queries: queries).register(on: api)
            BriefcaseRoutes(state: state).register(on: api)
            var logger = configuration.embedded ? Logger(label: "sf-simulator", factory: { _ in SwiftLogNoOpLogHandler() }) : Logger(label: "sf-simulator")
            logger.logLevel = .warning
            let app = Application(
                router: router,
                server: .http1(configuration: .init(additionalChannelHandlers: [ParserErrorShapeHandler()])),
                configuration: .init(address: .hostname("127.0.0.1", port: port), serverName: "sf-simulator"),
                onServerRunning: { [address] channel in
                    let bound = channel.localAddress?.port ?? 0
                    address.set(port: bound)
                    await onListening(bound)
                },
                logger: logger)
            let serviceGroup = ServiceGroup(configuration: .init(
                services: [app], gracefulShutdownSignals: configuration.embedded ? [] : [.sigterm, .sigint], logger: logger))
            group.set(serviceGroup)
            try await serviceGroup.run()
            guard let seconds = group.takeOfflineRequest(), !group.isStopped else { return }
            port = address.port
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            if group.isStopped { return }
        }
    }

    /// Stops serving gracefully: open requests finish, then `run` returns.
    package func shutdown() async {
        group.stop()
        await group.get()?.triggerGracefulShutdown()
    }
}

/// An org served by a task of this process, on a free port of 127.0.0.1: the same server as `sf-simulator`, without
/// a process of its own (a developer's test through AppGroupSimTesting, the runs of `msdk-sim explore`).
package final class EmbeddedOrg: Sendable {
    package let simulator: OrgSimulator
    package let port: Int
    private let task: Task<Void, Never>

    package var url: String { "http://127.0.0.1:\(port)" }
    package var adminToken: String { simulator.adminToken }

    private init(simulator: OrgSimulator, port: Int, task: Task<Void, Never>) {
        self.simulator = simulator
        self.port = port
        self.task = task
    }

    /// Starts the org and returns once it listens; an org that stops before it listens (its port taken) throws
    /// why.
    package static func start(_ configuration: OrgSimulator.Configuration) async throws -> EmbeddedOrg {
        var configuration = configuration
        configuration.embedded = true
        let simulator = try OrgSimulator(configuration: configuration)
        let (ports, continuation) = AsyncStream<Result<Int, any Error>>.makeStream()
        let task = Task {
            do { try await simulator.run { continuation.yield(.success($0)) } } catch { continuation.yield(.failure(error)) }
            continuation.finish()
        }
        for await first in ports { return EmbeddedOrg(simulator: simulator, port: try first.get(), task: task) }
        throw OrgSimulatorError.state("the org on \(configuration.dataDirectory.path) stopped before it listened")
    }

    /// Stops serving (open requests finish) and returns once the server has closed.
    package func stop() async {
        await simulator.shutdown()
        await task.value
        simulator.state.database.store.close()
    }

    /// `start`, for a thread that may wait (not one of Swift concurrency's own: the org's task needs them).
    package static func startWaiting(_ configuration: OrgSimulator.Configuration) throws -> EmbeddedOrg {
        try wait { try await start(configuration) }
    }

    /// `stop`, for a thread that may wait.
    package func stopWaiting() {
        _ = try? EmbeddedOrg.wait { () async throws -> Bool in
            await self.stop()
            return true
        }
    }

    private static func wait<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
        let box = WaitBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            do { box.result = .success(try await body()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

private final class WaitBox<T>: @unchecked Sendable { var result: Result<T, any Error>? }

final class GroupBox: @unchecked Sendable {
    private let lock = NSLock()
    private var group: ServiceGroup?
    private var offline: Double?
    private var stopped = false
    func stop() { lock.withLock { stopped = true } }
    var isStopped: Bool { lock.withLock { stopped } }
    func set(_ group: ServiceGroup) { lock.withLock { self.group = group } }
    func get() -> ServiceGroup? { lock.withLock { group } }
    func requestOffline(_ seconds: Double) { lock.withLock { offline = seconds } }
    func takeOfflineRequest() -> Double? {
        lock.withLock {
            defer { offline = nil }
            return offline
        }
    }
}

/// The port is known only once the server is bound; token responses and URLs need it.
final class BoundAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var bound = 0

    func set(port: Int) { lock.withLock { bound = port } }
    var port: Int { lock.withLock { bound } }
    var baseURL: String { "http://127.0.0.1:\(port)" }
}
