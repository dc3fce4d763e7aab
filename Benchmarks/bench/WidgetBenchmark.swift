import Foundation
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
    let widgetArgs = ["--bundle", widget.path, "--device", device, "--json"]
    let hello = binDir.appendingPathComponent("hello")
    _ = try launched(binDir.appendingPathComponent("extension-widget"), widgetArgs, scratch: work)
    var widgetRuns: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
    var helloRuns: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
    var floored: [Int] = []
    for _ in 0..<15 {
        widgetRuns.append(try launched(binDir.appendingPathComponent("extension-widget"), widgetArgs, scratch: work))
        helloRuns.append(try launched(hello, [], scratch: work))
        floored.append(try measure(hello, []).maxRSSKiB)
    }
    guard widgetRuns.allSatisfy({ $0.status == 0 }) else {
        FileHandle.standardError.write(Data("bench: the widget did not list (exit \(widgetRuns[0].status))\n".utf8))
        exit(1)
    }
    let w = median(widgetRuns.map(\.seconds)), h = median(helloRuns.map(\.seconds))
    let wr = median(widgetRuns.map { Double($0.maxRSSKiB) }) / 1024, hr = median(helloRuns.map { Double($0.maxRSSKiB) }) / 1024
    print("extension-widget cold start: logged in, 10,000 contacts in the shared store, list 3 (15 runs, medians)")
    print(String(format: "  baseline  hello-world (same build):  %6.1f ms   peak RSS %5.1f MiB", h * 1000, hr))
    print(String(format: "  measured  extension-widget --json:     %6.1f ms   peak RSS %5.1f MiB   ratio %.2fx (targets <= 2.0x, <= 30 MiB)", w * 1000, wr, w / h))
    print(String(format: "  (min-max: widget %.1f-%.1f ms, hello %.1f-%.1f ms; hello-world spawned straight from this %.0f MiB benchmark reads %.1f MiB: the floor bench-launcher avoids)",
        (widgetRuns.map(\.seconds).min() ?? 0) * 1000, (widgetRuns.map(\.seconds).max() ?? 0) * 1000,
        (helloRuns.map(\.seconds).min() ?? 0) * 1000, (helloRuns.map(\.seconds).max() ?? 0) * 1000,
        Double(selfPeakRSSKiB()) / 1024, median(floored.map(Double.init)) / 1024))
}

/// This process's own peak RSS (VmHWM), KiB.
private func selfPeakRSSKiB() -> Int {
    guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
        let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") })
    else { return 0 }
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}
