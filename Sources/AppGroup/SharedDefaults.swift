import Foundation
#if canImport(SchedulePoints)
import SchedulePoints  // (scripts/fuzz compiles this file with SchedulePoint.swift in one module)
#endif
#if canImport(Glibc)
import Glibc
#endif

/// A user-defaults suite stored as one XML property list that several processes share safely.
///
/// This is what `UserDefaults(suiteName:)` gives an app and its extension on iOS, made explicit:
/// - every read-modify-write holds an exclusive `flock` on `<file>.lock`, so two processes writing
///   different keys lose nothing, and `update(_:_:)` is a true transaction on one key;
/// - every write replaces the file atomically, so a reader needs no lock and never sees a torn file,
///   even when a writer is killed mid-write;
/// - every call looks at the file on disk: a parsed copy is reused only while the file is the very one
///   it was parsed from (same inode, size and modification time, and that time older than the file
///   system's clock tick when it was kept), so no other process's write is ever missed (Foundation's
///   `UserDefaults` on Linux only sees other writers after `synchronize()`).
///
/// ```swift
/// let suite = SharedDefaults(url: container.appendingPathComponent("Library/Preferences/group.x.plist"))
/// try suite.set(.bool(true), forKey: "userLoggedIn")
/// let launches = try suite.update("launchCount") { value in
///     value = .int((value?.intValue ?? 0) + 1)
///     return value
/// }
/// ```
package final class SharedDefaults: Sendable {
    /// The property-list file.
    package let url: URL
    /// The lock file beside it.
    package var lockURL: URL { url.appendingPathExtension("lock") }

    /// Makes the suffix of a moved-aside corrupt file (`.corrupt-<suffix>`); tests pin it.
    let corruptSuffix: @Sendable () -> String
    /// The last dictionary this process read or wrote of this file, by the file's identity: a read of a file
    /// no process replaced since does not parse it again. One per file in the process, shared by every
    /// instance naming that file (a launch makes several instances of one suite). Under `msdk-sim explore`
    /// each instance keeps its own, as before: a read of a file in a shared container is a point where the
    /// scheduler may let another actor write, and a copy shared by the whole process would answer most reads
    /// without one, so the interleavings around them would never be explored.
    private let cache: ParsedCache

    package init(url: URL) {
        self.url = url
        self.corruptSuffix = SharedDefaults.timestamp
        self.cache = SchedulePoint.isExplored ? ParsedCache() : ParsedCache.forFile(url.path)
    }

    init(url: URL, corruptSuffix: @escaping @Sendable () -> String) {
        self.url = url
        self.corruptSuffix = corruptSuffix
        self.cache = SchedulePoint.isExplored ? ParsedCache() : ParsedCache.forFile(url.path)
    }

    // MARK: Reading

    /// Every key and value. A missing file is an empty store.
    package func dictionaryRepresentation() throws -> [String: PlistValue] {
        switch loadCached() {
        case .success(let dict): return dict
        case .failure(.unreadable(let error)): throw SharedDefaultsError.io(error)
        case .failure(.protected(let error)): throw SharedDefaultsError.protected(error)
        case .failure(.corrupt):
            // Recovery (moving the file aside) writes, so it runs under the lock like any writer.
            return try withLock { try readForWrite() }
        }
    }

    package func value(forKey key: String) throws -> PlistValue? {
        try dictionaryRepresentation()[key]
    }

    /// `false` when the key is missing or not a bool, as `UserDefaults.bool(forKey:)`.
    package func bool(forKey key: String) throws -> Bool {
        try value(forKey: key)?.boolValue ?? false
    }

    package func string(forKey key: String) throws -> String? {
        try value(forKey: key)?.stringValue
    }

    /// Reads without side effects: nil when the file is missing, unreadable or corrupt.
    /// Observers use this so that watching a file never moves it.
    package func peekDictionary() -> [String: PlistValue]? {
        try? Self.load(url).get()
    }

    // MARK: Writing

    /// Sets or (with nil) removes one key.
    package func set(_ value: PlistValue?, forKey key: String) throws {
        try update(key) { $0 = value }
    }

    package func removeObject(forKey key: String) throws {
        try set(nil, forKey: key)
    }

    /// Read-modify-write of one key under the lock. The file is rewritten only if the value changed.
    @discardableResult
    package func update<T>(_ key: String, _ body: (inout PlistValue?) throws -> T) throws -> T {
        try updateAll { dict in
            var value = dict[key]
            let result = try body(&value)
            dict[key] = value
            return result
        }
    }

    /// Read-modify-write of the whole dictionary under the lock, e.g. to set several keys in one write.
    /// An error thrown by `body` leaves the file untouched.
    @discardableResult
    package func updateAll<T>(_ body: (inout [String: PlistValue]) throws -> T) throws -> T {
        SecureFiles.sharedPoint(.defaultsWrite, url)
        let lock: FileLock
        do { lock = try FileLock(exclusive: lockURL) } catch let e as FileError { throw SharedDefaultsError.io(e) }
        defer { withExtendedLifetime(lock) {} }
        let before = try readForWrite()
        var dict = before
        let result = try body(&dict)
        if dict != before {
            try write(dict)
        }
        return result
    }

    // MARK: Observation

    /// Calls `handler` (on a background thread) whenever the value of `key` changes, whichever process changed it.
    /// Rapid changes may be coalesced: the handler gets the latest value. Keep the returned observation alive;
    /// it stops when cancelled or deallocated.
    package func observe(
        _ key: String, handler: @escaping @Sendable (PlistValue?) -> Void
    ) throws -> KeyObservation {
        do {
            return try KeyObservation(defaults: self, key: key, handler: handler)
        } catch let e as FileError {
            throw SharedDefaultsError.io(e)
        } catch {
            throw SharedDefaultsError.io(FileError(path: url.path, reason: "\(error)"))
        }
    }

    // MARK: Internals

    enum LoadFailure: Error {
        case unreadable(FileError)
        case protected(FileProtectionError)
        case corrupt(String)
    }

    static func load(_ url: URL, point: Bool = true) -> Result<[String: PlistValue], LoadFailure> {
        do {
            guard let data = try SecureFiles.readIfPresent(url, point: point) else { return .success([:]) }
            return decode(data)
        } catch let error as FileError {
            return .failure(.unreadable(error))
        } catch let error as FileProtectionError {
            return .failure(.protected(error))
        } catch {
            return .failure(.unreadable(FileError(path: url.path, reason: "cannot read: \(error)")))
        }
    }

    static func decode(_ data: Data) -> Result<[String: PlistValue], LoadFailure> {
        if data.isEmpty { return .failure(.corrupt("the file is empty")) }
        // The fast reader takes the XML that SharedDefaults, Foundation and plistlib write; anything else
        // goes to Foundation, which decides what is valid.
        if !data.starts(with: BinaryPlistCheck.prefix), let dict = PlistXML.decode(data) { return .success(dict) }
        let object: Any
        do {
            object = try PlistValue.foundationPropertyList(from: data)
        } catch let damaged as PlistValue.DamagedPropertyList {
            return .failure(.corrupt(damaged.description))
        } catch {
            return .failure(.corrupt("cannot be parsed"))
        }
        guard let value = PlistValue(foundation: object), case .dictionary(let dict) = value else {
            return .failure(.corrupt("the top level is not a dictionary"))
        }
        return .success(dict)
    }

    static func encode(_ dict: [String: PlistValue]) throws -> Data {
        if let data = PlistXML.encode(dict) { return data }
        return try PropertyListSerialization.data(
            fromPropertyList: dict.mapValues(\.foundationValue), format: .xml, options: 0)
    }

    /// Must be called with the lock held. A corrupt file is moved aside first; only then does the store start empty.
    private func readForWrite() throws -> [String: PlistValue] {
        switch loadCached() {
        case .success(let dict): return dict
        case .failure(.unreadable(let error)): throw SharedDefaultsError.io(error)
        case .failure(.protected(let error)): throw SharedDefaultsError.protected(error)
        case .failure(.corrupt(let detail)):
            let aside = url.path + ".corrupt-" + corruptSuffix()
            guard rename(url.path, aside) == 0 else {
                throw SharedDefaultsError.corruptFileNotMoved(path: url.path, detail: detail, reason: SecureFiles.errnoString())
            }
            throw SharedDefaultsError.corruptFile(path: url.path, movedTo: aside, detail: detail)
        }
    }

    private func write(_ dict: [String: PlistValue]) throws {
        do {
            // Atomic, not fsynced: a writer or reader killed at any point never sees part of a file and
            // never loses an acknowledged write; only a power cut may (as with cfprefsd). docs/device.md, "SharedDefaults".
            let data = try Self.encode(dict)
            try SecureFiles.writeAtomically(data, to: url, durability: .atomic)
            // What a reader gets back (dates to the second), not the values as given.
            let identity = FileIdentity(url)
            cache.store(dict.mapValues(\.asWritten), identity: identity.flatMap { $0.isRacy ? nil : $0 })
        } catch let e as FileError {
            throw SharedDefaultsError.io(e)
        } catch let e as FileProtectionError {
            throw SharedDefaultsError.protected(e)
        } catch {
            throw SharedDefaultsError.io(FileError(path: url.path, reason: "cannot encode property list: \(error)"))
        }
    }

    /// `load`, skipping the parse when the file is the one this process last read or wrote.
    /// The device's data protection is checked first, at every read: a copy this process holds is not given
    /// out while iOS would refuse the file.
    /// Every read is one schedule point, cached or not: whether the copy is used depends on the file's age
    /// by the clock (`FileIdentity.isRacy`), and a run of `msdk-sim explore` must not.
    private func loadCached() -> Result<[String: PlistValue], LoadFailure> {
        SecureFiles.sharedPoint(.fileRead, url)
        do { try FileProtection.check(url) } catch { return .failure(.protected(error)) }
        let before = FileIdentity(url)
        if let before, let dict = cache.lookup(before) { return .success(dict) }
        let result = Self.load(url, point: false)
        // Cached only when the file was not replaced while it was read.
        if case .success(let dict) = result, let before, !before.isRacy, FileIdentity(url) == before { cache.store(dict, identity: before) }
        return result
    }

    private func withLock<T>(_ body: () throws -> T) throws -> T {
        let lock: FileLock
        do { lock = try FileLock(exclusive: lockURL) } catch let e as FileError { throw SharedDefaultsError.io(e) } catch {
            throw SharedDefaultsError.io(FileError(path: lockURL.path, reason: "\(error)"))
        }
        defer { withExtendedLifetime(lock) {} }
        return try body()
    }

    @Sendable static func timestamp() -> String {
        var tv = timeval()
        gettimeofday(&tv, nil)
        var t = time_t(tv.tv_sec)
        var parts = tm()
        gmtime_r(&t, &parts)
        return String(
            format: "%04d%02d%02dT%02d%02d%02d.%03dZ", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday,
            parts.tm_hour, parts.tm_min, parts.tm_sec, Int32(tv.tv_usec / 1000))
    }
}

/// A file's identity: device, inode, size and modification time. Every SharedDefaults write renames a
/// new file into place, so a new inode; equal identities mean the same contents.
struct FileIdentity: Equatable, Sendable {
    let dev: UInt64, ino: UInt64, size: Int64, sec: Int, nsec: Int

    /// Whether a file written later could still carry this identity: file systems stamp modification times
    /// from a coarse clock (a few milliseconds on ext4), and a freed inode can be given again at once, so two
    /// writes of one size within one tick could look the same. A copy is kept only for a file older than that
    /// (git's "racy clean" rule).
    var isRacy: Bool {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let age = Double(now.tv_sec - sec) + Double(now.tv_nsec - nsec) / 1e9
        return age < 0.05
    }

    init?(_ url: URL) {
        var info = stat()
        guard stat(url.path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return nil }
        dev = UInt64(info.st_dev)
        ino = UInt64(info.st_ino)
        size = Int64(info.st_size)
        sec = Int(info.st_mtim.tv_sec)
        nsec = Int(info.st_mtim.tv_nsec)
    }
}

final class ParsedCache: @unchecked Sendable {
    private static let registryLock = NSLock()
    nonisolated(unsafe) private static var registry: [String: ParsedCache] = [:]

    /// At most this many files have a copy in the registry: a long-lived process (`msdk-sim`'s scenarios and
    /// explorer) reads many devices' files, and a copy is only ever a saving, so past the bound it starts again.
    static let registryBound = 256

    /// How many files have a copy in the registry now.
    static var registeredFiles: Int { registryLock.withLock { registry.count } }

    /// The process's cache for the file at `path` (made on first use).
    static func forFile(_ path: String) -> ParsedCache {
        registryLock.withLock {
            if let cache = registry[path] { return cache }
            if registry.count >= registryBound { registry.removeAll(keepingCapacity: true) }
            let cache = ParsedCache()
            registry[path] = cache
            return cache
        }
    }

    private let lock = NSLock()
    private var identity: FileIdentity?
    private var dict: [String: PlistValue] = [:]

    func lookup(_ id: FileIdentity) -> [String: PlistValue]? { lock.withLock { identity == id ? dict : nil } }

    func store(_ dict: [String: PlistValue], identity: FileIdentity?) {
        lock.withLock {
            self.identity = identity
            self.dict = dict
        }
    }
}
