import AppGroup
import Foundation

/// The SDK's `SFFileProtectionHelper` (Swift name `FileProtectionHelper`): the file protection class the SDK
/// gives the files it writes (account files, its folders). Translates to the engine's `FileProtectionPolicy`,
/// where the rule lives. Classes are Foundation's names (`FileProtectionType.complete.rawValue`, …), as the
/// SDK's `NSString` properties hold them.
public final class FileProtectionHelper: @unchecked Sendable {
    /// `FileProtectionHelper.shared`.
    public static let shared = FileProtectionHelper()

    private init() {}

    /// The class for a path nothing else names: `NSFileProtectionCompleteUntilFirstUserAuthentication` unless set.
    /// A value that is not one of Foundation's four classes is ignored, with one warning line.
    public var defaultMode: String {
        get { FileProtectionPolicy.shared.defaultMode.foundationName }
        set {
            guard let protection = FileProtectionClass(name: newValue) else {
                return SDKProcess.warn("FileProtectionHelper.defaultMode: \(newValue) is not a file protection class (\(FileProtectionClass.allCases.map(\.foundationName).joined(separator: ", "))); the default stays \(defaultMode)")
            }
            FileProtectionPolicy.shared.defaultMode = protection
        }
    }

    /// The classes added for single paths (`addProtection(_:for:)`).
    public var pathStatusMap: [String: String] { FileProtectionPolicy.shared.pathClasses.mapValues(\.foundationName) }

    /// The class for `path`: the one added for it, else `defaultMode`.
    public static func protection(for path: String) -> String { FileProtectionPolicy.shared.protection(forPath: path).foundationName }

    /// Adds a class for one path; as in the SDK, a value that is not a valid class is ignored.
    public func addProtection(_ fileProtection: String, for path: String) {
        guard let protection = FileProtectionClass(name: fileProtection) else { return }
        FileProtectionPolicy.shared.addProtection(protection, forPath: path)
    }
}

extension FileManager {
    /// `setAttributes([.protectionKey: FileProtectionType.complete], ofItemAtPath:)`, as the SDK and apps protect
    /// a file: on the simulated device the class is kept with the file and enforced in each lock state
    /// (Foundation on Linux accepts the key and ignores it). As on iOS, the class of a file that is not
    /// available now cannot be changed: NSCocoaErrorDomain 513.
    public func setAttributes(_ attributes: [FileAttributeKey: FileProtectionType], ofItemAtPath path: String) throws {
        guard let type = attributes[.protectionKey] else { return }
        guard let protection = FileProtectionClass(name: type.rawValue) else {
            throw NSError(domain: NSCocoaErrorDomain, code: NSFileWriteUnknownError, userInfo: [
                NSFilePathErrorKey: path, NSLocalizedDescriptionKey: "\(type.rawValue) is not a file protection class",
            ])
        }
        do {
            try FileProtection.set(protection, on: URL(fileURLWithPath: path))
        } catch let refusal as FileProtectionError {
            throw NSError(domain: NSCocoaErrorDomain, code: refusal.cocoaCode, userInfo: [NSFilePathErrorKey: path, NSLocalizedDescriptionKey: refusal.description])
        }
    }

    /// The class of the file at `path` on the simulated device (what `attributesOfItem(atPath:)[.protectionKey]`
    /// gives on iOS; Foundation on Linux always gives nil there).
    public func fileProtection(ofItemAtPath path: String) -> FileProtectionType {
        FileProtectionType(rawValue: FileProtection.effectiveClass(of: URL(fileURLWithPath: path)).foundationName)
    }
}

extension Notification.Name {
    /// `UIApplication.protectedDataDidBecomeAvailableNotification`: the device was unlocked; files of class
    /// `complete` open again. Posted on `NotificationCenter.default` in every process of the device that
    /// uses the SDK's API.
    public static let protectedDataDidBecomeAvailable = Notification.Name("UIApplicationProtectedDataDidBecomeAvailable")
    /// `UIApplication.protectedDataWillBecomeUnavailableNotification`: the device was locked (or rebooted).
    public static let protectedDataWillBecomeUnavailable = Notification.Name("UIApplicationProtectedDataWillBecomeUnavailable")
}

extension SDKProcess {
    /// `UIApplication.shared.isProtectedDataAvailable`: the device is unlocked.
    public var isProtectedDataAvailable: Bool { LockStateObservation.isProtectedDataAvailable(sandbox.device) }
}
