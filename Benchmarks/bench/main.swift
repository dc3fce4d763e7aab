import Foundation

// Cross-process numbers of the platform layer, measured in one run against named baselines.
// Every figure is a median over several rounds: machines here are shared and noisy.
//   swift build -c release --product bench --product appgroupsim-probe && .build/release/bench

let which = CommandLine.arguments.dropFirst().first ?? "all"
guard ["all", "platform", "smartstore", "sdkapi", "simulator", "sync", "widget", "org", "reading", "backup"].contains(which) else {
    FileHandle.standardError.write(Data("usage: bench [all|platform|smartstore|sdkapi|simulator|sync|widget|org|reading|backup]\n".utf8))
    exit(2)
}
if which == "all" || which == "platform" {
    guard FileManager.default.isExecutableFile(atPath: probe.path) else {
        FileHandle.standardError.write(Data("bench: \(probe.path) is missing; build it: swift build -c release --product appgroupsim-probe\n".utf8))
        exit(1)
    }
    try runPlatformBenchmark()
    print("")
}
if which == "all" || which == "smartstore" {
    try runSmartStoreBenchmark()
    print("")
}
if which == "all" || which == "sdkapi" {
    try runSDKAPIBenchmark()
    print("")
}
if which == "all" || which == "simulator" {
    try await runSimulatorBenchmark()
    print("")
}
if which == "all" || which == "reading" {
    try runReadingBenchmark()
    print("")
}
if which == "all" || which == "sync" {
    try await runSyncBenchmark()
    print("")
}
// Minutes, not seconds (a million-row org): only when asked for.
if which == "org" {
    try await runOrgBenchmark()
}
if which == "widget" {
    try runWidgetBenchmark()
}
if which == "backup" {
    try runBackupBenchmark()
}
