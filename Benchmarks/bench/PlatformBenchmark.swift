import Foundation

// Cross-process numbers of the platform layer: SharedDefaults writers and observation delay.

let binDir = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
let probe = binDir.appendingPathComponent("appgroupsim-probe")
let rounds = Int(ProcessInfo.processInfo.environment["BENCH_ROUNDS"] ?? "") ?? 5
let keysPerWriter = 250

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : (s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2)
}

func percentile(_ xs: [Double], _ p: Double) -> Double {
    let s = xs.sorted()
    return s.isEmpty ? .nan : s[min(s.count - 1, Int((Double(s.count) * p).rounded(.up)) - 1)]
}

func start(_ args: [String], environment: [String: String] = [:]) throws -> (Process, Pipe) {
    let p = Process()
    p.executableURL = probe
    p.arguments = args
    p.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let out = Pipe()
    p.standardOutput = out
    try p.run()
    return (p, out)
}

func tempDir() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func keyCount(_ plist: URL) -> Int {
    guard let data = FileManager.default.contents(atPath: plist.path),
        let dict = try? PropertyListSerialization.propertyList(from: data, options: [], format: nil) as? [String: Any]
    else { return 0 }
    return dict.count
}

/// `writers` processes each writing `perWriter` distinct keys at once; returns (writes/s, keys kept).
func writeRound(writers: Int, perWriter: Int, foundation: Bool) throws -> (Double, Int) {
    let dir = try tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("suite.plist")
    let go = dir.appendingPathComponent("go")
    var procs: [(Process, Pipe)] = []
    for w in 0..<writers {
        var args = ["write-keys", "--file", file.path, "--prefix", "w\(w)-", "--count", "\(perWriter)", "--start-file", go.path]
        if foundation { args.append("--foundation") }
        procs.append(try start(args))
    }
    usleep(200_000)
    let t0 = Date()
    FileManager.default.createFile(atPath: go.path, contents: nil)
    for (p, out) in procs {
        _ = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
    }
    let seconds = Date().timeIntervalSince(t0)
    return (Double(writers * perWriter) / seconds, keyCount(file))
}

/// Two processes each rewriting 25 keys of a 50-key suite `perWriter` times at once, while Python's
/// plistlib parses the file in a loop. Returns each writer's own writes/s, the writes lost (a key whose
/// final value is not its writer's last), and plistlib's reads and failures.
func suiteRound(perWriter: Int, foundation: Bool = false) throws -> (rates: [Double], lost: Int, reads: Int, readFailures: Int) {
    let dir = try tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("suite.plist")
    let go = dir.appendingPathComponent("go"), stop = dir.appendingPathComponent("stop")
    let seed = Dictionary(uniqueKeysWithValues: (0..<2).flatMap { w in (0..<25).map { ("w\(w)-\($0)", -1) } })
    try PropertyListSerialization.data(fromPropertyList: seed, format: .xml, options: 0).write(to: file)
    let reader = Process()
    reader.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    reader.arguments = ["-c", """
        import os, plistlib, sys, time
        reads = failures = 0
        while not os.path.exists(sys.argv[2]):
            try:
                with open(sys.argv[1], 'rb') as f:
                    d = plistlib.load(f)
                if len(d) != 50: failures += 1
            except Exception:
                failures += 1
            reads += 1
            time.sleep(0.0002)
        print(reads, failures)
        """, file.path, stop.path]
    let readerOut = Pipe()
    reader.standardOutput = readerOut
    try reader.run()
    var procs: [(Process, Pipe)] = []
    for w in 0..<2 {
        var args = ["write-keys", "--file", file.path, "--prefix", "w\(w)-", "--count", "\(perWriter)", "--keys", "25", "--start-file", go.path]
        if foundation { args.append("--foundation") }
        procs.append(try start(args))
    }
    usleep(200_000)
    FileManager.default.createFile(atPath: go.path, contents: nil)
    var rates: [Double] = []
    for (p, out) in procs {
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        let ns = text.split(separator: " ").dropFirst(3).first.flatMap { Double($0) } ?? .nan
        rates.append(Double(perWriter) / (ns / 1e9))
    }
    FileManager.default.createFile(atPath: stop.path, contents: nil)
    let readerText = String(decoding: readerOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    reader.waitUntilExit()
    let counts = readerText.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { Int($0) }
    var lost = 0
    let final = (try? PropertyListSerialization.propertyList(from: Data(contentsOf: file), options: [], format: nil)) as? [String: Any] ?? [:]
    for w in 0..<2 {
        for k in 0..<25 {
            let last = (0..<perWriter).last { $0 % 25 == k } ?? -1
            if (final["w\(w)-\(k)"] as? Int) != last { lost += 1 }
        }
    }
    return (rates, lost, counts.first ?? 0, counts.count > 1 ? counts[1] : -1)
}

/// A watcher process and a writer process; returns the delays (ms) from each write to its delivery.
func observationRound(polling: Bool, changes: Int = 30) throws -> [Double] {
    let dir = try tempDir()
    defer { try? FileManager.default.removeItem(at: dir) }
    let file = dir.appendingPathComponent("suite.plist")
    let env = polling ? ["APPGROUPSIM_OBSERVE_POLL": "1"] : [:]
    let (watcher, watchOut) = try start(["watch", "--file", file.path, "--key", "k", "--count", "\(changes)"], environment: env)
    _ = watchOut.fileHandleForReading.availableData  // "ready …"
    let (writer, writeOut) = try start(["set-sequence", "--file", file.path, "--key", "k", "--count", "\(changes)", "--interval-ms", "40"])
    let written = String(decoding: writeOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    writer.waitUntilExit()
    // Polling coalesces changes closer than its period, so the watcher may never count them all:
    // give it time for the last one, then stop it.
    usleep(500_000)
    if watcher.isRunning { watcher.terminate() }
    let seen = String(decoding: watchOut.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    watcher.waitUntilExit()
    func parse(_ text: String) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            if parts.count == 2, let t = UInt64(parts[1]) { out[String(parts[0])] = t }
        }
        return out
    }
    let sent = parse(written)
    return parse(seen).compactMap { value, received in
        sent[value].map { Double(Int64(received) - Int64($0)) / 1e6 }
    }
}


func runPlatformBenchmark() throws {
    print("AppGroupSim platform benchmark: \(rounds) rounds, medians; \(ProcessInfo.processInfo.activeProcessorCount) cores")
    print("")

    var serial: [Double] = [], concurrent: [Double] = [], foundationRate: [Double] = []
    var concurrentKept: [Int] = [], foundationKept: [Int] = []
    for _ in 0..<rounds {
        serial.append(try writeRound(writers: 1, perWriter: 2 * keysPerWriter, foundation: false).0)
        let (rate, kept) = try writeRound(writers: 2, perWriter: keysPerWriter, foundation: false)
        concurrent.append(rate)
        concurrentKept.append(kept)
        let (frate, fkept) = try writeRound(writers: 2, perWriter: keysPerWriter, foundation: true)
        foundationRate.append(frate)
        foundationKept.append(fkept)
    }
    let expected = 2 * keysPerWriter
    print("SharedDefaults writes (\(expected) distinct keys into one suite, each write a locked read-modify-write + rename)")
    print(String(format: "  baseline  one process, serial:            %7.0f writes/s", median(serial)))
    print(String(format: "  measured  two processes, concurrent:      %7.0f writes/s   ratio %.2fx baseline; kept %@ of %d keys",
                 median(concurrent), median(concurrent) / median(serial), concurrentKept.map(String.init).joined(separator: "/"), expected))
    print(String(format: "  baseline  two processes, Foundation UserDefaults + synchronize(), no lock: %7.0f writes/s; kept %@ of %d keys",
                 median(foundationRate), foundationKept.map(String.init).joined(separator: "/"), expected))
    print("")

    var perProcess: [Double] = [], lost: [Int] = [], reads = 0, readFailures = 0
    var foundationPerProcess: [Double] = [], foundationLost: [Int] = []
    for _ in 0..<max(rounds, 15) {
        let r = try suiteRound(perWriter: 1000)
        perProcess += r.rates
        lost.append(r.lost)
        reads += r.reads
        readFailures += max(r.readFailures, 0) + (r.readFailures < 0 ? 1 : 0)
        let f = try suiteRound(perWriter: 300, foundation: true)
        foundationPerProcess += f.rates
        foundationLost.append(f.lost)
    }
    print("SharedDefaults, a 50-key suite: two processes each rewriting 25 keys 1,000 times at once, Python plistlib parsing the file every 0.2 ms meanwhile (\(lost.count) interleaved rounds)")
    print(String(format: "  measured  writes/s per process:  median %6.0f  (min %.0f, max %.0f)   ratio %.2fx the 1,000/s target; lost %d writes in all",
                 median(perProcess), perProcess.min() ?? .nan, perProcess.max() ?? .nan, median(perProcess) / 1000, lost.reduce(0, +)))
    print(String(format: "  baseline  Foundation UserDefaults + synchronize(), no lock: median %6.0f writes/s per process; ratio %.2fx; lost %d writes in all",
                 median(foundationPerProcess), median(perProcess) / median(foundationPerProcess), foundationLost.reduce(0, +)))
    print("  plistlib: \(reads) reads of the file while it was written, \(readFailures) that did not parse to the 50 keys")
    print("")

    var inotify: [Double] = [], polled: [Double] = []
    for _ in 0..<rounds {
        inotify += try observationRound(polling: false)
        polled += try observationRound(polling: true)
    }
    print("Cross-process observation delay (write started in one process -> handler ran in another), \(inotify.count) changes")
    print(String(format: "  measured  inotify:             median %6.2f ms  p90 %6.2f ms  max %6.2f ms   median = %.3fx the 250 ms budget",
                 median(inotify), percentile(inotify, 0.9), inotify.max() ?? .nan, median(inotify) / 250))
    print(String(format: "  baseline  50 ms polling:       median %6.2f ms  p90 %6.2f ms  max %6.2f ms   inotify median = %.3fx polling",
                 median(polled), percentile(polled, 0.9), polled.max() ?? .nan, median(inotify) / median(polled)))
    print("  changes delivered: inotify \(inotify.count) of \(rounds * 30), polling \(polled.count) of \(rounds * 30) (polling coalesces writes 40 ms apart)")

}
