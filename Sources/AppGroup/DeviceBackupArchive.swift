import Foundation

/// The file `msdk-sim device backup` writes (format "AppGroupSim device backup 1"): one binary property list
/// that `plistlib` reads, with the keys `Format`, `BackupID`, `Date`, `Device` (`ID`, `TeamID`), `Apps` (the
/// device's app registry), `Files` (each file's `Path`, `Protection`, `Size` and `SHA256`), `Contents` (path →
/// bytes) and `Keychain` (`Items`, `LeftOutThisDeviceOnly`). `CoreEngine`'s `DeviceBackup` decides what goes in
/// and checks every entry before a restore writes anything; this type only reads and writes the file.
///
/// Written and read with Foundation's `PropertyListEncoder` and `PropertyListDecoder`, not
/// `PropertyListSerialization`: on Linux the latter copies every `Data` byte by byte (NSData bridged through a
/// byte iterator), so a backup of a 100 MB store took 17 s and 630 MB, its restore 6 s; and its binary reader
/// crashes the process on some damaged files, which a backup (outside input) may be. A binary file is walked by
/// `BinaryPlistCheck` first (bounds, references, no cycles, nesting under 512), so the decoder never sees such a
/// file; anything else (an XML list, a text file) is refused by name.
package struct DeviceBackupArchive: Codable, Sendable {
    package struct DeviceInfo: Codable, Sendable {
        package var ID: String?
        package var TeamID: String?
        package init(ID: String?, TeamID: String?) {
            self.ID = ID
            self.TeamID = TeamID
        }
    }

    /// One file's entry. Every field is optional when read, so that `DeviceBackup` names what is missing.
    package struct File: Codable, Sendable {
        package var Path: String?
        package var Protection: String?
        package var Size: Int?
        package var SHA256: String?
        package init(Path: String, Protection: String, Size: Int, SHA256: String) {
            self.Path = Path
            self.Protection = Protection
            self.Size = Size
            self.SHA256 = SHA256
        }
    }

    package struct KeychainCounts: Codable, Sendable {
        package var Items: Int?
        package var LeftOutThisDeviceOnly: Int?
        package init(Items: Int, LeftOutThisDeviceOnly: Int) {
            self.Items = Items
            self.LeftOutThisDeviceOnly = LeftOutThisDeviceOnly
        }
    }

    package var Format: String?
    package var BackupID: String?
    package var Date: Foundation.Date?
    package var Device: DeviceInfo?
    package var Apps: [String: Value]?
    package var Files: [File]?
    package var Contents: [String: Data]?
    package var Keychain: KeychainCounts?

    package init(format: String, backupID: String, date: Foundation.Date, device: DeviceInfo, apps: [String: PlistValue], files: [File],
                 contents: [String: Data], keychain: KeychainCounts) {
        Format = format
        BackupID = backupID
        Date = date
        Device = device
        Apps = apps.mapValues(Value.init)
        Files = files
        Contents = contents
        Keychain = keychain
    }

    /// The registry of installed apps, as the device keeps it.
    package var apps: [String: PlistValue] { (Apps ?? [:]).mapValues(\.plist) }

    /// The file's bytes: a binary property list.
    package func encoded() throws -> Data {
        let encoder = PropertyListEncoder()
        encoder.outputFormat = .binary
        return try encoder.encode(self)
    }

    /// Half the machine's memory: a restore holds every file of the backup at once.
    package static var defaultMemoryBudget: UInt64 { ProcessInfo.processInfo.physicalMemory / 2 }

    /// The archive in `data`, or why it is not one (a reason for a message that names the file). A list whose
    /// values, each reference followed, add up to more than `memoryBudget` bytes is refused before it is decoded:
    /// the format lets many files name one stored value (the encoder stores identical files once), so a small
    /// file can decode to far more than the machine holds.
    package static func decode(_ data: Data, memoryBudget: UInt64 = defaultMemoryBudget) -> Result<DeviceBackupArchive, Refusal> {
        guard data.starts(with: BinaryPlistCheck.prefix) else { return .failure(Refusal(reason: "not a binary property list")) }
        let bytes = [UInt8](data)
        if let problem = BinaryPlistCheck.problem(bytes) { return .failure(Refusal(reason: "a damaged binary property list: \(problem)")) }
        let expanded = BinaryPlistCheck.expandedBytes(bytes)
        guard expanded <= memoryBudget else {
            return .failure(Refusal(tooLarge: true, reason: "its files add up to \(megabytes(expanded)) once each file's bytes are counted (the file is \(megabytes(UInt64(data.count)))), more than the \(megabytes(memoryBudget)) a restore may hold in memory on this machine (half of it)"))
        }
        do {
            return .success(try PropertyListDecoder().decode(DeviceBackupArchive.self, from: data))
        } catch let error as DecodingError {
            return .failure(Refusal(reason: Self.describe(error)))
        } catch {
            return .failure(Refusal(reason: "not readable as a backup"))
        }
    }

    /// A byte count for messages: bytes under a megabyte, else megabytes (10^6 bytes) to one decimal.
    package static func megabytes(_ bytes: UInt64) -> String {
        bytes < 1_000_000 ? "\(bytes) bytes" : String(format: "%.1f MB", Double(bytes) / 1_000_000)
    }

    package struct Refusal: Error, Equatable {
        /// A backup, but more than this machine can restore; otherwise not a backup.
        package var tooLarge = false
        package var reason: String
    }

    /// A decoding error in a few words: the key path and what was wrong, never the bytes.
    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return keys.isEmpty ? "the top level" : keys.joined(separator: ".").replacingOccurrences(of: ".[", with: "[")
        }
        switch error {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context):
            return "\(path(context)) is not of the type a backup has"
        case .dataCorrupted(let context):
            return "\(path(context)) is damaged"
        @unknown default:
            return "not readable as a backup"
        }
    }

    /// A registry value in the archive: a property-list value as itself (data as `<data>`, dates as `<date>`).
    /// Read back, a real with a whole value comes back as an integer (the decoder cannot tell them apart); the
    /// registry holds only strings and arrays of strings.
    package struct Value: Codable, Sendable {
        package var plist: PlistValue
        init(_ plist: PlistValue) { self.plist = plist }

        private struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        package init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                var out: [PlistValue] = []
                while !array.isAtEnd { out.append(try array.decode(Value.self).plist) }
                plist = .array(out)
            } else if let dictionary = try? decoder.container(keyedBy: Key.self) {
                var out: [String: PlistValue] = [:]
                for key in dictionary.allKeys { out[key.stringValue] = try dictionary.decode(Value.self, forKey: key).plist }
                plist = .dictionary(out)
            } else {
                let single = try decoder.singleValueContainer()
                if let b = try? single.decode(Bool.self) {
                    plist = .bool(b)
                } else if let s = try? single.decode(String.self) {
                    plist = .string(s)
                } else if let d = try? single.decode(Data.self) {
                    plist = .data(d)
                } else if let d = try? single.decode(Foundation.Date.self) {
                    plist = .date(d)
                } else if let i = try? single.decode(Int.self) {
                    plist = .int(i)
                } else {
                    plist = .double(try single.decode(Double.self))
                }
            }
        }

        package func encode(to encoder: any Encoder) throws {
            switch plist {
            case .array(let values):
                var c = encoder.unkeyedContainer()
                for value in values { try c.encode(Value(value)) }
            case .dictionary(let values):
                var c = encoder.container(keyedBy: Key.self)
                for (key, value) in values { try c.encode(Value(value), forKey: Key(stringValue: key)) }
            case .bool, .int, .double, .string, .data, .date:
                var c = encoder.singleValueContainer()
                switch plist {
                case .bool(let b): try c.encode(b)
                case .int(let i): try c.encode(i)
                case .double(let d): try c.encode(d)
                case .string(let s): try c.encode(s)
                case .data(let d): try c.encode(d)
                case .date(let d): try c.encode(d)
                case .array, .dictionary: break
                }
            }
        }
    }
}
