import AppGroup
import ArgumentParser
import Foundation
import Keychain
import CoreEngine
import CoreNetworkEngine

@main
struct MsdkSim: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "msdk-sim",
        abstract: "Look into and change a simulated device as one of its processes would.",
        discussion: """
            doctor finds misconfigured app-extension setups; inspect shows a device at a glance; scenario reproduces \
            failures Mobile SDK users reported; explore finds new ones in an app's own setup. `defaults` and `keychain` act as the process of --bundle on --device: \
            they see what it may see.
            """,
        subcommands: [Doctor.self, Import.self, Inspect.self, Scenario.self, Explore.self, Defaults.self, KeychainCommand.self, DeviceCommand.self])
}

/// `--bundle` and `--device`: which process, on which device.
struct ProcessOptions: ParsableArguments {
    @Option(help: "The bundle to act as (an .app or .appex directory).") var bundle: String
    @Option(help: "The device directory (default: $APPGROUPSIM_DEVICE).") var device: String?
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
}

struct Defaults: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Read, write and watch user defaults (standard, msdkUserDefaults, or a named suite).",
        subcommands: [Read.self, Write.self, Delete.self, Watch.self])

    struct SuiteOptions: ParsableArguments {
        @OptionGroup var process: ProcessOptions
        @Option(help: "standard, msdk (msdkUserDefaults as resolved now) or a suite name.") var suite: String = "msdk"

        func open() throws -> SharedDefaults {
            let launch = try ProcessLaunch(bundlePath: process.bundle, devicePath: process.device, applyConfig: false)
            switch suite {
            case "standard": return launch.sandbox.standardDefaults
            case "msdk": return try launch.dataSharing.msdkUserDefaults()
            default: return launch.sandbox.suite(named: suite)
            }
        }
    }

    struct Read: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print one key or the whole suite.")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key (all keys when omitted).") var key: String?
        @Flag(help: "Print JSON.") var json = false

        func run() throws {
            let suite = try options.open()
            if let key {
                let value = try suite.value(forKey: key)
                if json { try printJSON(value) } else if let value { print(value) } else {
                    throw Failure("no value for \(key) in \(suite.url.path)")
                }
            } else {
                let dict = try suite.dictionaryRepresentation()
                if json {
                    try printJSON(dict)
                } else {
                    print("# \(suite.url.path)")
                    for (k, v) in dict.sorted(by: { $0.key < $1.key }) { print("\(k) = \(v)") }
                }
            }
        }
    }

    struct Write: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set one key.")
        enum Kind: String, ExpressibleByArgument, CaseIterable { case bool, int, double, string }
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String
        @Argument(help: "The value.") var value: String
        @Option(help: "The value's type.") var type: Kind = .string

        func run() throws {
            let parsed: PlistValue
            switch type {
            case .string: parsed = .string(value)
            case .bool:
                guard let b = Bool(value.lowercased()) else { throw ValidationError("\(value) is not true or false") }
                parsed = .bool(b)
            case .int:
                guard let i = Int(value) else { throw ValidationError("\(value) is not an integer") }
                parsed = .int(i)
            case .double:
                guard let d = Double(value) else { throw ValidationError("\(value) is not a number") }
                parsed = .double(d)
            }
            try options.open().set(parsed, forKey: key)
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove one key.")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String
        func run() throws { try options.open().removeObject(forKey: key) }
    }

    struct Watch: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the key's value each time any process changes it.")
        @OptionGroup var options: SuiteOptions
        @Argument(help: "The key.") var key: String
        @Option(help: "Stop after this many changes (0: never).") var count: Int = 0

        func run() throws {
            let suite = try options.open()
            let done = DispatchSemaphore(value: 0)
            let remaining = Countdown(count)
            let observation = try suite.observe(key) { value in
                print("\(key) = \(value.map(String.init(describing:)) ?? "(removed)")")
                fflush(nil)
                if remaining.tick() { done.signal() }
            }
            print("watching \(key) in \(suite.url.path)")
            fflush(nil)
            done.wait()
            observation.cancel()
        }
    }
}

final class Countdown: @unchecked Sendable {
    private let lock = NSLock()
    private var left: Int
    init(_ n: Int) { left = n }
    /// True when the count reaches zero (never for a count of 0).
    func tick() -> Bool { lock.withLock { left -= 1; return left == 0 } }
}

struct KeychainCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keychain",
        abstract: "Use the keychain as the process would. Values are read from stdin and never printed.",
        subcommands: [Status.self, List.self, Write.self, Read.self, Remove.self, Lock.self])

    struct ItemOptions: ParsableArguments {
        @OptionGroup var process: ProcessOptions
        @Option(help: "kSecAttrService.") var service: String
        @Option(help: "kSecAttrAccount.") var account: String?
        @Option(help: "Access group (default: the iOS rules).") var group: String?
    }

    static func keychain(_ p: ProcessOptions) throws -> KeychainHelper {
        try ProcessLaunch(bundlePath: p.bundle, devicePath: p.device, applyConfig: false).keychain
    }

    static func check(_ result: KeychainResult) throws {
        if let error = result.error { throw error }
    }

    struct Status: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Whether the keychain can be used; the process's access groups.")
        @OptionGroup var process: ProcessOptions
        func run() async throws {
            let keychain = try KeychainCommand.keychain(process)
            print("access groups: \(keychain.accessGroups.joined(separator: ", "))")
            try KeychainCommand.check(await keychain.status())
            print("keychain: ready")
        }
    }

    struct Lock: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lock the keyring's default collection, as the device does when it locks (gnome-keyring cannot be unlocked again without a prompt).")
        func run() throws {
            try LibsecretStore().lockDefaultCollection()
            print("keychain: locked")
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "The items the process can see (values redacted).")
        @OptionGroup var process: ProcessOptions
        @Flag(help: "Print JSON.") var json = false
        func run() async throws {
            let items = try await KeychainCommand.keychain(process).items()
            if json { try printJSON(items); return }
            for i in items { print("\(i.accessGroup)  \(i.service)  account=\(i.account)  <\(i.valueLength) bytes>") }
        }
    }

    struct Write: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Store stdin as the item's value.")
        @OptionGroup var item: ItemOptions
        func run() async throws {
            let data = Array(FileHandle.standardInput.readDataToEndOfFile())
            try KeychainCommand.check(
                await KeychainCommand.keychain(item.process).write(
                    data, service: item.service, account: item.account, accessGroup: item.group))
            print("stored \(data.count) bytes")
        }
    }

    struct Read: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Find the item; print its size, or with --expect-stdin whether it equals stdin.")
        @OptionGroup var item: ItemOptions
        @Flag(help: "Compare the value with stdin; exit 1 if they differ.") var expectStdin = false
        func run() async throws {
            let result = try await KeychainCommand.keychain(item.process).read(
                service: item.service, account: item.account, accessGroup: item.group)
            try KeychainCommand.check(result)
            let value = result.data ?? []
            if expectStdin {
                guard value == Array(FileHandle.standardInput.readDataToEndOfFile()) else {
                    throw Failure("the item's value differs from stdin")
                }
                print("found \(value.count) bytes: matches stdin")
            } else {
                print("found \(value.count) bytes")
            }
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete the item.")
        @OptionGroup var item: ItemOptions
        func run() async throws {
            try KeychainCommand.check(
                await KeychainCommand.keychain(item.process).remove(
                    service: item.service, account: item.account, accessGroup: item.group))
            print("removed")
        }
    }
}

/// A failure that is not about the arguments: one line on stderr, exit status 1.
struct Failure: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}
