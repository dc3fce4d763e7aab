import AppGroup
import Foundation
import Keychain

/// Which bundle this process is, on which simulated device (DESIGN.md §12): what the SDK-named API resolves
/// everything through. A process built against these products is the bundle named by `APPGROUPSIM_BUNDLE`
/// (a `.app` or `.appex` directory) on the device named by `APPGROUPSIM_DEVICE` (created if missing, as
/// `main-app` does). Its entitlements decide what it reaches, with the binaries' rules. Tests run closures
/// as one bundle, then another, with `run(as:device:_:)`.
public final class SDKProcess: @unchecked Sendable {
    public static let bundleVariable = "APPGROUPSIM_BUNDLE"
    public static let deviceVariable = "APPGROUPSIM_DEVICE"

    /// The simulated process: its sandbox on the device.
    package let sandbox: AppSandbox
    /// The engine's data sharing helper for this process.
    package let dataSharing: AppGroup.DataSharingHelper
    /// An app's process holds the app's instance lock (as `main-app` does); an extension's does not.
    private var instanceLock: AppInstanceLock?
    /// The engine's keychain, limited to this bundle's keychain groups (of its own team).
    package let keychain: Keychain.KeychainHelper
    /// Posts the protected-data notifications while this process identity lives.
    private var protectedData: LockStateObservation?

    init(bundle: URL, device: URL, secretStore: (any SecretStore)? = nil) throws {
        sandbox = AppSandbox(device: try Device.open(at: device.standardizedFileURL), bundle: try AppBundle(at: bundle))
        try sandbox.checkContainers()
        // iOS runs one instance of an app per device, and its extensions beside it: an app bundle's process
        // waits for (or fails on) another instance, as a second `main-app` does.
        instanceLock = sandbox.bundle.isExtension ? nil : try AppInstanceLock(sandbox: sandbox)
        dataSharing = AppGroup.DataSharingHelper(sandbox: sandbox)
        let device = sandbox.device
        keychain = Keychain.KeychainHelper(
            store: secretStore ?? SecretStores.standard(), deviceID: device.id.uuidString, accessGroups: sandbox.keychainAccessGroups,
            protection: {
                let state = device.lockStateOrStrictest
                return KeychainProtectionState(unlocked: state.isUnlocked, unlockedSinceBoot: state.unlockedSinceBoot)
            })
        // iOS tells a running app when its protected data comes and goes; a device that cannot be watched
        // (no inotify left) only loses the notifications, which one line says.
        do {
            protectedData = try LockStateObservation(device: device) { available in
                NotificationCenter.default.post(name: available ? .protectedDataDidBecomeAvailable : .protectedDataWillBecomeUnavailable, object: nil)
            }
        } catch {
            Self.warn("the protected-data notifications will not be posted: \(error)")
        }
    }

    deinit { protectedData?.cancel() }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var override: SDKProcess?
    nonisolated(unsafe) private static var fromEnvironment: SDKProcess?
    nonisolated(unsafe) private static var generationCounter = 0

    /// Changes whenever the identity changes, so the SDK's singletons are made again for the new one.
    package static var generation: Int { lock.withLock { generationCounter } }

    /// The bundle this process runs as (`run(as:)`, else `APPGROUPSIM_BUNDLE`), or nil, never stopping the process:
    /// `Bundle.main` for the SDK's API that reads the main bundle's resources.
    package static var bundleURL: URL? {
        if let process = lock.withLock({ override ?? fromEnvironment }) { return process.sandbox.bundle.url }
        guard let bundle = ProcessInfo.processInfo.environment[bundleVariable], !bundle.isEmpty else { return nil }
        return URL(fileURLWithPath: bundle)
    }

    /// The current process identity. Without both variables (and outside `run(as:)`), the process stops
    /// with one line naming both: the SDK's API has no error to give back here, as on iOS a process always
    /// has a bundle.
    public static var current: SDKProcess {
        if let process = lock.withLock({ override ?? fromEnvironment }) { return process }
        let env = ProcessInfo.processInfo.environment
        guard let bundle = env[bundleVariable], !bundle.isEmpty, let device = env[deviceVariable], !device.isEmpty else {
            fail("AppGroupSim: this process has no bundle and device: set \(bundleVariable) to the .app or .appex it runs as, and \(deviceVariable) to the device directory")
        }
        do {
            let process = try SDKProcess(bundle: URL(fileURLWithPath: bundle), device: URL(fileURLWithPath: device))
            lock.withLock { fromEnvironment = process }
            return process
        } catch {
            fail("AppGroupSim: \(bundleVariable)=\(bundle) on \(deviceVariable)=\(device) cannot run: \(error)")
        }
    }

    /// The URL another app (or a widget's cell) opened at this app, as iOS hands it to the scene's
    /// `scene(_:openURLContexts:)`: `msdk-sim device open-url` launches the app with `--inbox-item NAME`
    /// (then that item is taken), or posts to a running app's inbox (then the oldest waiting one is taken).
    /// nil when none waits. Taking removes it, as a delivered URL is delivered once.
    public static func takeOpenedURL(arguments: [String] = CommandLine.arguments) throws -> URL? {
        let process = current
        let apps = DeviceApps(device: process.sandbox.device)
        if let flag = arguments.firstIndex(of: "--inbox-item"), flag + 1 < arguments.count {
            return try apps.take(arguments[flag + 1], bundleID: process.sandbox.bundleIdentifier)
        }
        return try apps.takeNext(bundleID: process.sandbox.bundleIdentifier)
    }

    /// Runs `body` as `bundle` on `device`; the SDK's singletons (`DataSharingHelper.shared`, …) are made
    /// again for that identity, and again after it.
    /// - Parameters:
    ///   - bundle: the `.app` or `.appex` directory to run as.
    ///   - device: the device directory (made if missing).
    ///   - body: the code to run as that bundle.
    public static func run<T>(as bundle: URL, device: URL, _ body: () throws -> T) throws -> T {
        try run(as: bundle, device: device, secretStore: nil, body)
    }

    /// `run(as:device:_:)` with another Secret Service than libsecret's (AppGroupSim's tests use an in-memory one).
    package static func run<T>(as bundle: URL, device: URL, secretStore: (any SecretStore)?, _ body: () throws -> T) throws -> T {
        let process = try SDKProcess(bundle: bundle, device: device, secretStore: secretStore)
        let previous = lock.withLock { () -> SDKProcess? in
            defer { override = process; generationCounter += 1 }
            return override
        }
        defer {
            lock.withLock { override = previous; generationCounter += 1 }
            // The app's instance ends with the closure, whoever still holds the process object.
            process.instanceLock = nil
        }
        return try body()
    }

    package static func fail(_ line: String) -> Never {
        FileHandle.standardError.write(Data((line + "\n").utf8))
        exit(78)
    }

    /// One line on stderr for what the SDK's API cannot throw (a corrupt defaults file, a group the bundle is
    /// not entitled to), once per message.
    package static func warn(_ line: String) {
        let first = lock.withLock { warned.insert(line).inserted }
        if first { FileHandle.standardError.write(Data("warning: \(line)\n".utf8)) }
    }
    nonisolated(unsafe) private static var warned = Set<String>()

    /// The bundle is not entitled to the group its code names: one line on stderr and one trace line
    /// (`appGroupNotEntitled`), once, as the binaries report it; the call goes on as on iOS (no container,
    /// a private suite).
    package func noteNotEntitled(group: String, _ consequence: String) {
        let line = "\(sandbox.bundleIdentifier) is not entitled to app group \(group): \(consequence)"
        let first = Self.lock.withLock { Self.warned.insert(line).inserted }
        guard first else { return }
        FileHandle.standardError.write(Data("warning: \(line)\n".utf8))
        Self.traceStep("appGroupNotEntitled", ["bundle": sandbox.bundleIdentifier, "group": group, "consequence": consequence])
    }
}

extension SDKProcess {
    /// Runs one of the engine's `async` operations for the SDK's synchronous API, waiting on a semaphore. The
    /// engine's keychain works on its own dispatch queue, never on Swift's concurrency pool, so this does not
    /// wait on a thread it blocks (call it from the main thread or a plain thread, as SDK code does).
    package static func blocking<T: Sendable>(_ operation: @escaping @Sendable () async throws -> T) throws -> T {
        let box = BlockingBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.result = .success(try await operation()) } catch { box.result = .failure(error) }
            done.signal()
        }
        done.wait()
        return try box.result!.get()
    }
}

private final class BlockingBox<T>: @unchecked Sendable {
    var result: Result<T, any Error>?
}

extension SDKProcess {
    /// `APPGROUPSIM_TRACE`: the file the binaries' `--trace` writes; the SDK-named API adds its steps there.
    public static let traceVariable = "APPGROUPSIM_TRACE"

    /// One trace line, in the binaries' format (`{"info":{…},"step":…,"time":…}`), appended with one write.
    package static func traceStep(_ name: String, _ info: [String: String] = [:]) {
        guard let path = ProcessInfo.processInfo.environment[traceVariable], !path.isEmpty else { return }
        var object: [String: Any] = ["step": name, "time": ISO8601DateFormatter().string(from: Date())]
        if !info.isEmpty { object["info"] = info }
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else { return }
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return }
        defer { close(fd) }
        let line = data + Data("\n".utf8)
        _ = line.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    }
}

/// What the SDK keeps once per process: a `shared` instance or a cache. Here one Swift process can be several
/// simulated ones in turn (`SDKProcess.run(as:)` changes `SDKProcess.generation`), so the value is made again for
/// each: the one home of that rule, for every singleton of the faces.
package final class PerProcess<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var slot: (generation: Int, value: Value)?
    private let make: () -> Value

    package init(_ make: @escaping () -> Value) { self.make = make }

    /// This process's value, made when there is none yet, or when `keep` says the one kept no longer serves (a
    /// manager of another class). Made outside the lock, so that making it may use other singletons; when two
    /// threads make one at once, the first kept is the one both get.
    package func value(keep: (Value) -> Bool = { _ in true }) -> Value {
        let generation = SDKProcess.generation
        if let kept = lock.withLock({ slot.flatMap { $0.generation == generation && keep($0.value) ? $0.value : nil } }) { return kept }
        let made = make()
        return lock.withLock {
            if let slot, slot.generation == generation, keep(slot.value) { return slot.value }
            slot = (generation, made)
            return made
        }
    }

    /// Reads or changes this process's value under the lock (a cache keyed by user or path).
    package func withValue<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        let generation = SDKProcess.generation
        return try lock.withLock {
            var value = slot.flatMap { $0.generation == generation ? $0.value : nil } ?? make()
            defer { slot = (generation, value) }
            return try body(&value)
        }
    }

    /// The next `value` is made again.
    package func reset() { lock.withLock { slot = nil } }
}
