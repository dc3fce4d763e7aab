import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Glibc)
import Glibc
#endif

// The widget's cold start: logged in, 10,000 contacts in the shared store, list 3; against a
// hello-world built the same way. Wall time and peak RSS per process, 15 interleaved runs each, every
// run started by bench-launcher (a small C process), so that the peak RSS is the child's own: Linux
// keeps a process's high-water mark across exec, and a child spawned from this benchmark would report
// at least the benchmark's size. Needs a Secret Service: `scripts/with-keyring Benchmarks/run widget`.

private func measure(_ executable: URL, _ arguments: [String]) throws -> (seconds: Double, maxRSSKiB: Int, status: Int32) {
    var pid: pid_t = 0
    let argv = ([executable.path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    defer { posix_spawn_file_actions_destroy(&actions) }
    let t0 = DispatchTime.now().uptimeNanoseconds
    guard posix_spawn(&pid, executable.path, &actions, nil, argv, environ) == 0 else { throw CocoaError(.executableLoad) }
    var status: Int32 = 0
    var usage = rusage()
    wait4(pid, &status, 0, &usage)
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e9
    return (seconds, Int(usage.ru_maxrss), (status >> 8) & 0xff)
}

/// One run through bench-launcher: the child's own wall time, peak RSS and exit status.
private func launched(_ executable: URL, _ arguments: [String], scratch: URL) throws -> (seconds: Double, maxRSSKiB: Int, status: Int32) {
    let result = scratch.appendingPathComponent("launch-result")
    let run = try measure(binDir.appendingPathComponent("bench-launcher"), [result.path, executable.path] + arguments)
    guard run.status == 0, let fields = try? String(contentsOf: result, encoding: .utf8).split(separator: " "), fields.count == 3,
        let seconds = Double(fields[0]), let rss = Int(fields[1]), let status = Int32(fields[2].trimmingCharacters(in: .whitespacesAndNewlines))
    else { throw CocoaError(.executableLoad) }
    return (seconds, rss, status)
}

func runWidgetBenchmark() throws {
    let work = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-bench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: work) }
    let data = try grownFixture(in: work, contacts: 10_000)
    let (org, url) = try startSimulator(data: data)
    defer { org.terminate(); org.waitUntilExit() }

    let root = fixtureOrgDirectory.deletingLastPathComponent().deletingLastPathComponent()
    let app = root.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app")
    let widget = app.appendingPathComponent("PlugIns/RecentContacts.appex")
    let device = work.appendingPathComponent("device").path
    let mainApp = binDir.appendingPathComponent("main-app")
    for command in [["--org", url.absoluteString, "login", "--username", "alice@acme.test", "--password", "alice-pass"], ["sync"]] {
        let run = try measure(mainApp, ["--bundle", app.path, "--device", device] + command)
        guard run.status == 0 else {
            FileHandle.standardError.write(Data("bench: main-app \(command[0]) failed (exit \(run.status)); run under scripts/with-keyring\n".utf8))
            exit(1)
        }
    }
    let mainArgs = ["--bundle", widget.path, "--device", device]
    let emptyDevice = work.appendingPathComponent("empty-device").path
    // The notLoggedIn path: a device where the app ran once (so the group exists) but nobody logged in.
    _ = try measure(mainApp, ["--bundle", app.path, "--device", emptyDevice, "status"])
    var cases: [(label: String, exe: URL, args: [String], expect: Int32, hello: URL)] = [
        ("logged in, list 3, --json", binDir.appendingPathComponent("extension-widget"), mainArgs + ["--json"], 0, binDir.appendingPathComponent("hello")),
        ("logged in, list 3, text", binDir.appendingPathComponent("extension-widget"), mainArgs, 0, binDir.appendingPathComponent("hello")),
        ("notLoggedIn, --json", binDir.appendingPathComponent("extension-widget"), ["--bundle", widget.path, "--device", emptyDevice, "--json"], 10,
         binDir.appendingPathComponent("hello")),
    ]
    // BENCH_STATIC_BIN: a folder with extension-widget and hello built with --static-swift-stdlib.
    if let dir = ProcessInfo.processInfo.environment["BENCH_STATIC_BIN"] {
        let bin = URL(fileURLWithPath: dir)
        cases.append(("static stdlib: logged in, list 3, --json", bin.appendingPathComponent("extension-widget"), mainArgs + ["--json"], 0,
                      bin.appendingPathComponent("hello")))
        cases.append(("static stdlib: notLoggedIn, --json", bin.appendingPathComponent("extension-widget"),
                      ["--bundle", widget.path, "--device", emptyDevice, "--json"], 10, bin.appendingPathComponent("hello")))
    }
    print("extension-widget cold start against a hello-world built the same way: 10,000 contacts in the shared store; 15 interleaved runs, medians (min-max)")
    for c in cases {
        _ = try launched(c.exe, c.args, scratch: work)
        var w: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = [], h: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
        for _ in 0..<15 {
            w.append(try launched(c.exe, c.args, scratch: work))
            h.append(try launched(c.hello, [], scratch: work))
        }
        guard w.allSatisfy({ $0.status == c.expect }) else {
            FileHandle.standardError.write(Data("bench: \(c.label): exit \(w[0].status), expected \(c.expect)\n".utf8))
            exit(1)
        }
        let ws = w.map(\.seconds), hs = h.map(\.seconds)
        let wr = median(w.map { Double($0.maxRSSKiB) }) / 1024, hr = median(h.map { Double($0.maxRSSKiB) }) / 1024
        print("  \(c.label)")
        print(String(format: "    baseline  hello-world:       %6.1f ms (%.1f-%.1f)   peak RSS %5.1f MiB", median(hs) * 1000, hs.min()! * 1000, hs.max()! * 1000, hr))
        print(String(format: "    measured  extension-widget:  %6.1f ms (%.1f-%.1f)   peak RSS %5.1f MiB   ratio %.2fx (target <= 2.0x; <= 30 MiB)",
                     median(ws) * 1000, ws.min()! * 1000, ws.max()! * 1000, wr, median(ws) / median(hs)))
    }
    // The notification service extension's cold start: one encrypted notification for alice, posted
    // through the org's push gateway to the device's inbox once, then decrypted from that file (`--payload`,
    // which leaves the file where it is) in every run.
    let payload = try postedNotification(org: url, device: URL(fileURLWithPath: device), scratch: work)
    let nse = app.appendingPathComponent("PlugIns/NotificationService.appex")
    var n: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = [], nh: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
    let nseArgs = ["--bundle", nse.path, "--device", device, "--payload", payload.path, "--json"]
    _ = try launched(binDir.appendingPathComponent("extension-notification"), nseArgs, scratch: work)
    for _ in 0..<15 {
        n.append(try launched(binDir.appendingPathComponent("extension-notification"), nseArgs, scratch: work))
        nh.append(try launched(binDir.appendingPathComponent("hello"), [], scratch: work))
    }
    guard n.allSatisfy({ $0.status == 0 }) else {
        FileHandle.standardError.write(Data("bench: extension-notification: exit \(n[0].status), expected 0\n".utf8))
        exit(1)
    }
    let ns = n.map(\.seconds), nhs = nh.map(\.seconds)
    print("  extension-notification, one encrypted notification decrypted (the app's push key from the shared keychain group)")
    print(String(format: "    baseline  hello-world:       %6.1f ms (%.1f-%.1f)   peak RSS %5.1f MiB", median(nhs) * 1000, nhs.min()! * 1000,
                 nhs.max()! * 1000, median(nh.map { Double($0.maxRSSKiB) }) / 1024))
    print(String(format: "    measured  extension-notification: %4.1f ms (%.1f-%.1f)   peak RSS %5.1f MiB   ratio %.2fx (no target; it follows the widget's)",
                 median(ns) * 1000, ns.min()! * 1000, ns.max()! * 1000, median(n.map { Double($0.maxRSSKiB) }) / 1024, median(ns) / median(nhs)))

    // The floor under the listing path: a C program that only reads two secrets through libsecret, as the
    // listing launch does (connect, one session, SearchItems and GetSecrets twice). Whatever the widget does,
    // its listing launch cannot start faster than this plus a Swift process's own start.
    let floor = binDir.appendingPathComponent("bench-secret-floor")
    guard try measure(floor, ["setup"]).status == 0 else {
        FileHandle.standardError.write(Data("bench: bench-secret-floor setup failed; run under scripts/with-keyring\n".utf8))
        exit(1)
    }
    let argsFloor = binDir.appendingPathComponent("bench-args-floor")
    var f: [Double] = [], fh: [Double] = [], a: [Double] = []
    for _ in 0..<15 {
        let parsed = try launched(argsFloor, ["--bundle", widget.path, "--device", emptyDevice, "--json"], scratch: work)
        guard parsed.status == 0 else {
            FileHandle.standardError.write(Data("bench: bench-args-floor: exit \(parsed.status)\n".utf8))
            exit(1)
        }
        a.append(parsed.seconds)
        let run = try launched(floor, ["read"], scratch: work)
        guard run.status == 0 else {
            FileHandle.standardError.write(Data("bench: bench-secret-floor read: exit \(run.status)\n".utf8))
            exit(1)
        }
        f.append(run.seconds)
        fh.append(try launched(binDir.appendingPathComponent("hello"), [], scratch: work).seconds)
    }
    _ = try measure(floor, ["cleanup"])
    print("  floors: what the widget cannot avoid (no target; what is left for the widget's own work is the difference)")
    print(String(format: "    baseline  hello-world:       %6.1f ms (%.1f-%.1f)", median(fh) * 1000, fh.min()! * 1000, fh.max()! * 1000))
    print(String(format: "    measured  bench-secret-floor: %5.1f ms (%.1f-%.1f)   ratio %.2fx   C, no Swift: only libsecret reading two secrets (the listing path)",
                 median(f) * 1000, f.min()! * 1000, f.max()! * 1000, median(f) / median(fh)))
    print(String(format: "    measured  bench-args-floor:  %6.1f ms (%.1f-%.1f)   ratio %.2fx   Swift: only the widget's options parsed by swift-argument-parser",
                 median(a) * 1000, a.min()! * 1000, a.max()! * 1000, median(a) / median(fh)))
    var floored: [Int] = []
    for _ in 0..<5 { floored.append(try measure(binDir.appendingPathComponent("hello"), []).maxRSSKiB) }
    print(String(format: "  (hello-world spawned straight from this %.0f MiB benchmark reads %.1f MiB: the floor bench-launcher avoids)",
        Double(selfPeakRSSKiB()) / 1024, median(floored.map(Double.init)) / 1024))
}

/// This process's own peak RSS (VmHWM), KiB.
private func selfPeakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Posts one notification for alice through the org's push gateway and returns a copy of the encrypted
/// payload that arrived in the device's notification inbox.
private func postedNotification(org: URL, device: URL, scratch: URL) throws -> URL {
    var request = URLRequest(url: org.appendingPathComponent("__admin/push"))
    request.setValue(benchAdminToken, forHTTPHeaderField: "X-AppGroupSim-Admin-Token")
    request.httpMethod = "POST"
    request.setValue("application/json", forHTTPHeaderField: "Content-Type")
    request.httpBody = Data(#"{"username": "alice@acme.test", "title": "Case 00001042", "body": "Escalated to you", "fields": {"caseId": "500000000000042"}}"#.utf8)
    let done = DispatchSemaphore(value: 0)
    let status = LockedStatus()
    URLSession.shared.dataTask(with: request) { _, response, _ in
        status.set((response as? HTTPURLResponse)?.statusCode ?? 0)
        done.signal()
    }.resume()
    done.wait()
    guard status.get() == 200 || status.get() == 201 else {
        FileHandle.standardError.write(Data("bench: POST /__admin/push answered \(status.get())\n".utf8))
        exit(1)
    }
    let root = device.appendingPathComponent("Notifications")
    let files = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil)?.compactMap { $0 as? URL } ?? []
    guard let found = files.first(where: { $0.pathExtension == "json" && $0.deletingLastPathComponent().lastPathComponent == "inbox" }) else {
        FileHandle.standardError.write(Data("bench: no notification arrived under \(root.path)\n".utf8))
        exit(1)
    }
    let copy = scratch.appendingPathComponent("notification-payload.json")
    try? FileManager.default.removeItem(at: copy)
    try FileManager.default.copyItem(at: found, to: copy)
    return copy
}

private final class LockedStatus: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0
    func set(_ v: Int) { lock.withLock { value = v } }
    func get() -> Int { lock.withLock { value } }
}
