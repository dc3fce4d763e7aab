import Foundation
import SourceReader

// How long doctor and import take to read a developer's file (issue 34: reading is bounded and linear), against
// the compiler's own parser on the same file in the same run: `swiftc -parse` for Swift, `clang -fsyntax-only`
// for Objective-C. The inputs are the issue's: arrays nested 20 deep (73 bytes), a large file (1.9 MB, under the
// 2 MB the readers take), Swift nested 2,000 deep (refused by name), an 80 KB nested Objective-C send.
// Medians of 5 rounds each; a ratio is the reader's median over the compiler's.

func runReadingBenchmark() throws {
    let dir = FileManager.default.temporaryDirectory.appendingPathComponent("appgroupsim-readbench-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: dir) }
    let function = "func f%d() { let a = UserDefaults.standard; a.set(true, forKey: \"k\"); DataSharingHelper.shared.appGroupName = \"g\" }\n"
    var large = ""
    var n = 0
    while large.utf8.count < 1_900_000 {
        large += String(format: function, n)
        n += 1
    }
    let nestedSend = "- (void)f { [" + String(repeating: "[", count: 4_000) + "NSUserDefaults standardUserDefaults]"
        + String(repeating: " boolForKey:@\"k\"]", count: 4_000) + " setBool:YES forKey:@\"k\"]; }\n"
    let cases: [(name: String, file: String, text: String)] = [
        ("arrays nested 20 deep (73 bytes)", "nested.swift", "let x = " + String(repeating: "[", count: 20) + "1" + String(repeating: "]", count: 20) + "\n"),
        ("a 1.9 MB Swift file (\(n) functions)", "large.swift", large),
        ("Swift nested 2,000 deep (refused)", "deep.swift", "let x = " + String(repeating: "(", count: 2_000) + "1" + String(repeating: ")", count: 2_000) + "\n"),
        ("an Objective-C send nested 4,000 deep (\(nestedSend.utf8.count / 1024) KB)", "send.m", nestedSend),
    ]
    let swiftc = URL(fileURLWithPath: "/usr/bin/env")
    print("reading a developer's file (doctor and import), release build, median of 5 rounds, against the compiler's parser")
    for item in cases {
        let url = dir.appendingPathComponent(item.file)
        try Data(item.text.utf8).write(to: url)
        var reader: [Double] = []
        var outcome = ""
        for _ in 0..<5 {
            let t0 = Date()
            do {
                let facts = try SourceReader.read(fileAt: url, name: item.file)
                outcome = "\(facts.sites.count) sites"
            } catch {
                outcome = "refused: \(String("\(error)".prefix(70)))…"
            }
            reader.append(Date().timeIntervalSince(t0))
        }
        let compiler = item.file.hasSuffix(".m") ? ["clang", "-fsyntax-only", "-x", "objective-c", url.path] : ["swiftc", "-parse", url.path]
        var baseline: [Double] = []
        for _ in 0..<5 {
            let p = Process()
            p.executableURL = swiftc
            p.arguments = compiler
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            let t0 = Date()
            try p.run()
            p.waitUntilExit()
            baseline.append(Date().timeIntervalSince(t0))
        }
        let r = median(reader), b = median(baseline)
        let ms = { (t: Double) in String(format: "%.1f ms", t * 1000) }
        print("  \(item.name.padding(toLength: 56, withPad: " ", startingAt: 0)) reader \(ms(r)), \(compiler[0]) \(ms(b)), ratio \(String(format: "%.3f", r / b))x (\(outcome))")
    }
}
