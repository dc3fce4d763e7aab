import AppGroup
import CoreEngine
import Foundation
import Keychain

// `msdk-sim device backup` and `restore` of a device holding a 20 MB store and 200 small files, against the named
// baseline: the same archive written and read by Foundation's PropertyListSerialization, as the backup did until
// it had a type of its own (on Linux that path copies every byte of each file through NSData's byte iterator).
// Interleaved, median of 5 rounds each; the ratio is the baseline's median over the archive's.

func runBackupBenchmark() throws {
    let rounds = Int(ProcessInfo.processInfo.environment["BENCH_BACKUP_ROUNDS"] ?? "") ?? 5
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-backupbench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let device = try Device.open(at: dir.appendingPathComponent("phone"), initialize: true)
    let container = device.layout.dataContainer(bundleID: "com.acme.bench")
    var generator = SystemRandomNumberGenerator()
    let store = Data((0..<20_000_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try SecureFiles.writeAtomically(store, to: container.appendingPathComponent("Library/stores/smartstore.sqlite"), protection: .completeUntilFirstUserAuthentication)
    for n in 0..<200 {
        try SecureFiles.writeAtomically(Data(repeating: UInt8(n % 256), count: 1_024), to: container.appendingPathComponent("Documents/file-\(n).dat"))
    }
    let secrets = InMemorySecretStore()

    var backups: [Double] = [], restores: [Double] = [], encodes: [Double] = [], decodes: [Double] = []
    var baselineEncodes: [Double] = [], baselineDecodes: [Double] = []
    var size = 0
    for round in 0..<rounds {
        let file = dir.appendingPathComponent("round-\(round).backup")
        var t0 = Date()
        _ = try DeviceBackup.backup(device, store: secrets, to: file)
        backups.append(Date().timeIntervalSince(t0))
        t0 = Date()
        _ = try DeviceBackup.restore(file, to: dir.appendingPathComponent("restored-\(round)"), store: secrets)
        restores.append(Date().timeIntervalSince(t0))
        try? FileManager.default.removeItem(at: dir.appendingPathComponent("restored-\(round)"))

        // The file alone, both ways: the archive's encoder and decoder against PropertyListSerialization's.
        let bytes = try Data(contentsOf: file)
        size = bytes.count
        guard case .success(let archive) = DeviceBackupArchive.decode(bytes), let contents = archive.Contents else {
            fatalError("the backup just written does not read")
        }
        t0 = Date()
        _ = try archive.encoded()
        encodes.append(Date().timeIntervalSince(t0))
        t0 = Date()
        _ = DeviceBackupArchive.decode(bytes)
        decodes.append(Date().timeIntervalSince(t0))
        let dictionary: [String: Any] = [
            "Format": archive.Format ?? "", "BackupID": archive.BackupID ?? "", "Date": archive.Date ?? Date(),
            "Device": ["ID": archive.Device?.ID ?? ""],
            "Apps": archive.apps.mapValues(\.foundationValue),
            "Files": (archive.Files ?? []).map { ["Path": $0.Path ?? "", "Protection": $0.Protection ?? "", "Size": $0.Size ?? 0, "SHA256": $0.SHA256 ?? ""] },
            "Contents": contents,
            "Keychain": ["Items": 0, "LeftOutThisDeviceOnly": 0],
        ]
        t0 = Date()
        let baseline = try PropertyListSerialization.data(fromPropertyList: dictionary, format: .binary, options: 0)
        baselineEncodes.append(Date().timeIntervalSince(t0))
        t0 = Date()
        let read = try PropertyListSerialization.propertyList(from: baseline, format: nil) as? [String: Any]
        baselineDecodes.append(Date().timeIntervalSince(t0))
        precondition((read?["Contents"] as? [String: Data])?.count == contents.count)
        try FileManager.default.removeItem(at: file)
    }
    func ms(_ xs: [Double]) -> String { String(format: "%.1f ms", median(xs) * 1000) }
    func ratio(_ baseline: [Double], _ ours: [Double]) -> String { String(format: "%.1fx", median(baseline) / median(ours)) }
    print("device backup and restore (a 20 MB store and 200 files of 1 KB; a \(size / 1_000_000) MB archive), release build, median of \(rounds) rounds, against PropertyListSerialization")
    print("  msdk-sim device backup, whole (walk, read, hash, write)   \(ms(backups))")
    print("  msdk-sim device restore, whole (check, write, registry)   \(ms(restores))")
    print("  writing the archive      \(ms(encodes)), PropertyListSerialization \(ms(baselineEncodes)), \(ratio(baselineEncodes, encodes)) faster")
    print("  reading the archive      \(ms(decodes)) (checked first), PropertyListSerialization \(ms(baselineDecodes)), \(ratio(baselineDecodes, decodes)) faster")
}
