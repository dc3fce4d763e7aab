import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The simulated Salesforce org: an HTTP server on 127.0.0.1 with the OAuth endpoints, the identity
/// URL and the REST API subset Mobile Sync uses (DESIGN.md §6). Routes are grouped by area.
public struct OrgSimulator: Sendable {
    public struct Configuration: Sendable {
        public var port: Int
        public var dataDirectory: URL
        public var stateFile: URL?
        /// Seconds an access token lives.
        public var tokenLifetime: TimeInterval
        public var faults: FaultSettings

        public init(
            port: Int = 0, dataDirectory: URL, stateFile: URL? = nil, tokenLifetime: TimeInterval = 3600, faults: FaultSettings = FaultSettings()
        ) {
            self.port = port
            self.dataDirectory = dataDirectory
            self.stateFile = stateFile
            self.tokenLifetime = tokenLifetime
            self.faults = faults
        }
    }

    public let configuration: Configuration
    let state: OrgState
    let faults: FaultState
    let address = BoundAddress()
    private let group = GroupBox()

    public init(configuration: Configuration) throws {
        self.configuration = configuration
        let fixture = try OrgFixture.load(directory: configuration.dataDirectory)
        state = try OrgState(fixture: fixture, stateURL: configuration.stateFile, tokenLifetime: configuration.tokenLifetime)
        faults = FaultState(configuration.faults)
    }

    /// Serves until SIGTERM, SIGINT or `shutdown()`; `onListening` gets the bound port.
    public func run(onListening: @escaping @Sendable (Int) async -> Void) async throws {
        let router = Router()
        router.add(middleware: FaultMiddleware(faults: faults))
        AdminRoutes(state: state, faults: faults).register(on: router)
        let oauth = OAuthRoutes(state: state, baseURL: { [address] in address.baseURL })
        oauth.register(on: router)
        let queries = QueryRoutes(state: state, auth: oauth)
        let sobjects = SObjectRoutes(state: state, auth: oauth)
        queries.register(on: router)
        sobjects.register(on: router)
        CompositeRoutes(state: state, auth: oauth, sobjects: sobjects, queries: queries).register(on: router)
        var logger = Logger(label: "sf-simulator")
        logger.logLevel = .warning
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: configuration.port), serverName: "sf-simulator"),
            onServerRunning: { [address] channel in
                let port = channel.localAddress?.port ?? 0
                address.set(port: port)
                await onListening(port)
            },
            logger: logger)
        let serviceGroup = ServiceGroup(configuration: .init(
            services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        group.set(serviceGroup)
        try await serviceGroup.run()
    }

    /// Stops serving gracefully: open requests finish, then `run` returns.
    public func shutdown() async {
        await group.get()?.triggerGracefulShutdown()
    }
}

final class GroupBox: @unchecked Sendable {
    private let lock = NSLock()
    private var group: ServiceGroup?
    func set(_ group: ServiceGroup) { lock.withLock { self.group = group } }
    func get() -> ServiceGroup? { lock.withLock { group } }
}

/// The port is known only once the server is bound; token responses and URLs need it.
final class BoundAddress: @unchecked Sendable {
    private let lock = NSLock()
    private var port = 0

    func set(port: Int) { lock.withLock { self.port = port } }
    var baseURL: String { "http://127.0.0.1:\(lock.withLock { port })" }
}
