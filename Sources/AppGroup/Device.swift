import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The simulated device: one directory that holds every container of a run (DESIGN.md §2).
///
/// Many devices can live side by side; each keychain item carries the device id so that
/// devices sharing one Secret Service never see each other's items.
package struct Device: Sendable, Equatable {
    /// `--device DIR` falls back to this variable.
    package static let environmentVariable = "APPGROUPSIM_DEVICE"
    /// Team id written into a new device when none is given.
    package static let defaultTeamID = "SIMTEAM001"

    package let root: URL
    package let id: UUID
    package let teamID: String
    package let created: Date

    /// `$(AppIdentifierPrefix)` on this device: the team id and a dot.
    package var appIdentifierPrefix: String { teamID + "." }

    /// Opens the device at `root`, creating it (and `device.json`) if needed.
    /// Two processes creating the same device at once agree on one id.
    ///
    /// A directory that is there but holds no `device.json` becomes a device only when AppGroupSim could have
    /// made it: owned by this user, private (no group or other write, no sticky bit), and empty. Anything else
    /// (another user's, a shared `/tmp`-like 1777 directory, a folder with files in it) is adopted only with
    /// `initialize` (`--init`): otherwise containers and secrets would land in a place others can reach.
    package static func open(at root: URL, teamID: String? = nil, initialize: Bool = false) throws -> Device {
        let file = root.appendingPathComponent("device.json")
        if let existing = try read(file) { return existing }
        var info = stat()
        if stat(root.path, &info) != 0 {
            // Made 0700 by mkdir itself: a process racing this one never sees it with looser modes.
            try SecureFiles.makeDirectory(root.deletingLastPathComponent())
            guard mkdir(root.path, 0o700) == 0 || errno == EEXIST else { throw DeviceError.unwritable(path: root.path) }
        }
        if stat(root.path, &info) == 0 {
            guard info.st_mode & S_IFMT == S_IFDIR else { throw DeviceError.notADevice(path: root.path, reason: "it is not a directory") }
            if let reason = unadoptable(root, info), !initialize {
                // A creator racing this process may have finished in the meantime.
                if let existing = try read(file) { return existing }
                throw DeviceError.notADevice(path: root.path, reason: reason)
            }
            if info.st_mode & 0o7777 != 0o700, chmod(root.path, 0o700) != 0 {
                throw DeviceError.notADevice(path: root.path, reason: "its mode cannot be made 0700 (\(String(cString: strerror(errno))))")
            }
        }
        try SecureFiles.makeDirectory(root)
        if let existing = try read(file) { return existing }
        let new = Manifest(id: UUID(), teamId: teamID ?? defaultTeamID, created: Date())
        let tmp = root.appendingPathComponent(".device.json.tmp-\(getpid())-\(UInt32.random(in: 0 ... .max))")
        let data = try encoder.encode(new)
        // Written with open(2), not FileManager.createFile, whose own temp file (.dat.nosync…) a racing
        // creator would see in the directory and take for someone else's.
        let fd = Glibc.open(tmp.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw DeviceError.unwritable(path: tmp.path) }
        let written = data.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == data.count else {
            unlink(tmp.path)
            throw DeviceError.unwritable(path: tmp.path)
        }
        defer { unlink(tmp.path) }
        // link() never replaces: whoever links first wins and everyone reads the winner's file.
        if link(tmp.path, file.path) != 0 && errno != EEXIST {
            throw DeviceError.unwritable(path: file.path)
        }
        guard let device = try read(file) else { throw DeviceError.unwritable(path: file.path) }
        return device
    }

    /// Why an existing directory without `device.json` is not taken as a new device, or nil when it may be.
    static func unadoptable(_ root: URL, _ info: stat) -> String? {
        if info.st_uid != geteuid() { return "it belongs to another user (uid \(info.st_uid))" }
        if info.st_mode & 0o1000 != 0 || info.st_mode & 0o022 != 0 {
            return "others may write into it (mode \(String(info.st_mode & 0o7777, radix: 8)))"
        }
        // A creator that raced this process may have its temp manifest there; anything else is someone's files.
        let others = ((try? FileManager.default.contentsOfDirectory(atPath: root.path)) ?? []).filter { !$0.hasPrefix(".device.json.tmp-") && $0 != "device.json" }
        if let first = others.sorted().first { return "it already holds files AppGroupSim did not make (\(first)\(others.count > 1 ? " and \(others.count - 1) more" : ""))" }
        return nil
    }

    /// The device named by `--device` or, failing that, `APPGROUPSIM_DEVICE`.
    package static func resolve(path: String?, environment: [String: String] = ProcessInfo.processInfo.environment, initialize: Bool = false)
        throws -> Device
    {
        guard let path = path ?? environment[environmentVariable], !path.isEmpty else {
            throw DeviceError.notGiven
        }
        return try open(at: URL(fileURLWithPath: path).standardizedFileURL, initialize: initialize)
    }

    /// `Containers/Data/<bundle id>`: a process's private container.
    package func dataContainer(bundleID: String) -> URL {
        layout.dataContainer(bundleID: bundleID)
    }

    /// `Containers/Shared/AppGroup/<group id>`: an app group's shared container (open it through `AppSandbox`).
    package func sharedContainer(groupID: String) -> URL {
        layout.sharedContainer(groupID: groupID)
    }

    private struct Manifest: Codable {
        var id: UUID
        var teamId: String
        var created: Date
    }

    private static var encoder: JSONEncoder {
        let e = JSONEncoder()
        e.outputFormatting = [.prettyPrinted, .sortedKeys]
        e.dateEncodingStrategy = .iso8601
        return e
    }

    /// `Manifest` as read: every launch of every process reads it, and JSONDecoder's ISO 8601 dates cost
    /// about 0.6 ms of a process's first decode here; the date is read from its text instead.
    private struct StoredManifest: Decodable {
        var id: String
        var teamId: String
        var created: String
    }

    private static func read(_ file: URL) throws -> Device? {
        guard let data = try SecureFiles.readIfPresent(file) else { return nil }
        guard let m = try? JSONDecoder().decode(StoredManifest.self, from: data), let id = UUID(uuidString: m.id),
            let created = date(iso8601: m.created)
        else {
            throw DeviceError.corruptManifest(path: file.path)
        }
        return Device(root: file.deletingLastPathComponent(), id: id, teamID: m.teamId, created: created)
    }

    /// What `Manifest` is written with (`2026-11-23T07:05:09Z`) through the plist reader's date parser; any
    /// other ISO 8601 form (an edited file) through Foundation's.
    static func date(iso8601 text: String) -> Date? {
        PlistXML.utcDate(text) ?? (try? Date(text, strategy: .iso8601))
    }
}

package enum DeviceError: Error, Equatable, CustomStringConvertible, LocalizedError {
    case notGiven
    case corruptManifest(path: String)
    case unwritable(path: String)
    case notADevice(path: String, reason: String)
    /// A container on the device is a symbolic link: writing through it would write outside the device.
    case containerIsLink(path: String)
    /// Another bundle id that differs only in case is on the device: Apple's bundle ids are case-insensitive.
    case bundleIDCollides(bundleID: String, existing: String)
    /// A file of the device (its lock state) that cannot be read as this version writes it.
    case unreadable(path: String, reason: String)

    package var description: String {
        switch self {
        case .notGiven:
            return "no device given: pass --device DIR or set \(Device.environmentVariable)=DIR (a new directory is created)"
        case .corruptManifest(let path):
            return "\(path) is not a valid device manifest (JSON with id, teamId, created); repair it or use another --device"
        case .unwritable(let path):
            return "cannot write \(path); check the device directory's permissions"
        case .notADevice(let path, let reason):
            return "\(path) is not an AppGroupSim device and was not made one: \(reason); give --device a new directory, or pass --init to make this one a device"
        case .containerIsLink(let path):
            return "\(path) is a symbolic link, not a container: nothing is written through it; remove the link (the device makes the container again)"
        case .bundleIDCollides(let id, let existing):
            return "\(id) is \(existing), which is on this device, in another case: bundle ids are unique without regard to case, as Apple's are; give CFBundleIdentifier another id (nothing was written)"
        case .unreadable(let path, let reason):
            return "\(path) cannot be read: \(reason)"
        }
    }

    package var errorDescription: String? { description }
}

extension Device {
    /// A bundle id already on the device (a container, or an installed app) that equals `bundleID` without regard
    /// to case and differs from it: two such ids are one app to iOS.
    package func collidingBundleID(_ bundleID: String, installed: [String] = []) -> String? {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: layout.dataContainers.path)) ?? []) + installed
        return names.first { $0 != bundleID && $0.lowercased() == bundleID.lowercased() }
    }
}
