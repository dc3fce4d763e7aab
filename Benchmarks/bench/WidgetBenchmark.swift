import Foundation
#if canImport(Glibc)
import Glibc
#endif

// The widget's cold start: logged in, 10,000 contacts in the shared store, list 3; against a
// hello-world built the same way. Wall time and peak RSS per process (wait4's rusage), 15 runs each.
// Needs a Secret Service: run it as `scripts/with-keyring Benchmarks/run widget`.

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
    _ = try measure(binDir.appendingPathComponent("extension-widget"), widgetArgs)
    var widgetRuns: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
    var helloRuns: [(seconds: Double, maxRSSKiB: Int, status: Int32)] = []
    for _ in 0..<15 {
        widgetRuns.append(try measure(binDir.appendingPathComponent("extension-widget"), widgetArgs))
        helloRuns.append(try measure(hello, []))
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
}
