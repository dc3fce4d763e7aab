import AppGroup
import Foundation

extension UserDefaults {
    /// `+[NSUserDefaults msdkUserDefaults]`: the app group's suite when the app group is enabled, the
    /// process's standard defaults otherwise, resolved again on every call. On the simulated device these are
    /// the same property-list files `main-app`, the widget, `inspect` and `doctor` read and write.
    public static func msdk() -> UserDefaults {
        MSDKUserDefaults()
    }
}

/// A `UserDefaults` whose storage is the device's plist suite that `msdkUserDefaults` resolves to at each
/// call (not Foundation's `~/.config` files): every typed getter and setter of `UserDefaults` goes through
/// `object(forKey:)` and `set(_:forKey:)`, which read and write that file under its lock.
final class MSDKUserDefaults: UserDefaults {
    init() {
        // Foundation's own store is never used; the suite name only satisfies its initializer.
        super.init(suiteName: "com.appgroupsim.msdk-\(getpid())")!
    }

    private func suite() -> SharedDefaults? {
        let process = SDKProcess.current
        if let group = try? process.dataSharing.appGroupName(), (try? process.dataSharing.appGroupEnabled()) == true,
           !process.sandbox.isEntitled(toAppGroup: group)
        {
            process.noteNotEntitled(group: group, "UserDefaults.msdk() is a private suite, as on iOS")
        }
        do { return try process.dataSharing.msdkUserDefaults() } catch {
            SDKProcess.warn("msdkUserDefaults cannot be read: \(error)")
            return nil
        }
    }

    override func object(forKey defaultName: String) -> Any? {
        do { return try suite()?.value(forKey: defaultName)?.foundationValue } catch {
            SDKProcess.warn("msdkUserDefaults cannot be read: \(error)")
            return nil
        }
    }

    override func set(_ value: Any?, forKey defaultName: String) { store(value, forKey: defaultName) }

    // Not `set(nil, forKey:)`: a nil literal picks Foundation's `set(_: URL?, forKey:)`, which removes again.
    override func removeObject(forKey defaultName: String) { store(nil, forKey: defaultName) }

    private func store(_ value: Any?, forKey defaultName: String) {
        let stored: PlistValue?
        switch value {
        case nil: stored = nil
        case let url as URL: stored = .string(url.absoluteString)
        case let value?:
            guard let plist = PlistValue(foundation: value) else {
                SDKProcess.warn("msdkUserDefaults: \(type(of: value)) for \(defaultName) is not a property-list value; not stored")
                return
            }
            stored = plist
        }
        do { try suite()?.set(stored, forKey: defaultName) } catch { SDKProcess.warn("msdkUserDefaults cannot be written: \(error)") }
    }

    override func dictionaryRepresentation() -> [String: Any] {
        ((try? suite()?.dictionaryRepresentation()) ?? [:]).mapValues(\.foundationValue)
    }

    override func synchronize() -> Bool { true }
}
