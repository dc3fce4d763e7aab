import Foundation

/// The SDK's `SFLogger` (`NS_SWIFT_NAME(SalesforceLogger)`): per-component loggers with a level. Lines go to
/// standard error as `[component] LEVEL Class: message`, where the SDK writes to os_log. Nothing here ever
/// logs a token: the SDK-named API passes no secret to it.
public final class SalesforceLogger: NSObject, @unchecked Sendable {
    /// `SFLogLevel`, with os_log's values.
    @objc public enum Level: UInt8, Sendable, Comparable {
        case `default` = 0, info = 1, debug = 2, error = 16, fault = 17

        public static func < (lhs: Level, rhs: Level) -> Bool { lhs.severity < rhs.severity }
        var severity: Int { [Level.debug: 0, .info: 1, .default: 2, .error: 3, .fault: 4][self]! }
        var name: String { [Level.debug: "DEBUG", .info: "INFO", .default: "DEFAULT", .error: "ERROR", .fault: "FAULT"][self]! }
    }

    public let componentName: String
    /// Lines below this level are not written (`level` in Swift, as the SDK names it).
    public var level: Level = .error

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loggers: [String: SalesforceLogger] = [:]
    nonisolated(unsafe) private static var defaultLevel: Level = .error

    public init(component componentName: String) {
        self.componentName = componentName
        level = Self.lock.withLock { Self.defaultLevel }
    }

    public static func logger(forComponent component: String) -> SalesforceLogger {
        if let logger = lock.withLock({ loggers[component] }) { return logger }
        // Made outside the lock: the initialiser takes it too (NSLock is not recursive; the first logger of a
        // process once deadlocked here, found by the SDK's encrypted-notification template logging an error).
        let made = SalesforceLogger(component: component)
        return lock.withLock {
            if let logger = loggers[component] { return logger }
            made.level = defaultLevel
            loggers[component] = made
            return made
        }
    }

    public static var defaultLogger: SalesforceLogger { logger(forComponent: "SalesforceSDK") }

    public class func logLevel() -> Level { lock.withLock { defaultLevel } }
    public class func setLogLevel(_ logLevel: Level) {
        lock.withLock {
            defaultLevel = logLevel
            for logger in loggers.values { logger.level = logLevel }
        }
    }

    public func log(_ cls: AnyClass, level: Level, message: String) {
        guard level >= self.level else { return }
        FileHandle.standardError.write(Data("[\(componentName)] \(level.name) \(String(describing: cls)): \(message)\n".utf8))
    }

    public func e(_ cls: AnyClass, message: String) { log(cls, level: .error, message: message) }
    public func w(_ cls: AnyClass, message: String) { log(cls, level: .default, message: message) }
    public func i(_ cls: AnyClass, message: String) { log(cls, level: .info, message: message) }
    public func d(_ cls: AnyClass, message: String) { log(cls, level: .debug, message: message) }
    public func f(_ cls: AnyClass, message: String) { log(cls, level: .fault, message: message) }
    public func log(_ cls: AnyClass, message: String) { log(cls, level: .default, message: message) }

    public class func e(_ cls: AnyClass, message: String) { defaultLogger.e(cls, message: message) }
    public class func w(_ cls: AnyClass, message: String) { defaultLogger.w(cls, message: message) }
    public class func i(_ cls: AnyClass, message: String) { defaultLogger.i(cls, message: message) }
    public class func d(_ cls: AnyClass, message: String) { defaultLogger.d(cls, message: message) }
    public class func v(_ cls: AnyClass, message: String) { defaultLogger.d(cls, message: message) }
    public class func f(_ cls: AnyClass, message: String) { defaultLogger.f(cls, message: message) }
    public class func log(_ cls: AnyClass, message: String) { defaultLogger.log(cls, message: message) }
    public class func log(_ cls: AnyClass, level: Level, message: String) { defaultLogger.log(cls, level: level, message: message) }
}

/// The SDK's per-library loggers (`MobileSyncLogger`, `SmartStoreLogger`, subclasses of `SFLogger` there):
/// class methods that log under the library's component name.
open class ComponentLogger: NSObject, @unchecked Sendable {
    open class var componentName: String { "SalesforceSDK" }
    static var logger: SalesforceLogger { SalesforceLogger.logger(forComponent: componentName) }
    public class func e(_ cls: AnyClass, message: String) { logger.e(cls, message: message) }
    public class func w(_ cls: AnyClass, message: String) { logger.w(cls, message: message) }
    public class func i(_ cls: AnyClass, message: String) { logger.i(cls, message: message) }
    public class func d(_ cls: AnyClass, message: String) { logger.d(cls, message: message) }
    public class func f(_ cls: AnyClass, message: String) { logger.f(cls, message: message) }
    public class func log(_ cls: AnyClass, level: SalesforceLogger.Level, message: String) { logger.log(cls, level: level, message: message) }
}
