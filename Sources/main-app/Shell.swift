import ArgumentParser
import Foundation
import MobileApp
import CoreEngine
import CoreNetworkEngine

/// `main-app shell`: reads commands from stdin and prints what MobileApp's AppShell says; the login
/// screen and the screen lock's passcode are read from stdin too.
struct Shell: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "A long-lived app: reads commands from stdin, holds scenes and notification handlers, prints what each scene shows.",
        discussion: AppShell.help)

    @ParentCommand var app: MainApp
    @Option(name: .customLong("scene"), help: "A scene to open at launch (repeat for more).") var scenes: [String] = ["main"]

    func run() async throws {
        let session = try await app.start(unlock: false, finishLaunching: false)
        let passcode = app.passcode
        let prompts = AppShell.Prompts(
            login: { config, host in
                var prompt = LoginPrompt(config: config, loginHost: host)
                return try prompt.ask(username: nil, passcode: passcode)
            },
            passcode: { digits in
                print("  screen lock: enter your \(digits)-digit passcode: ", terminator: "")
                fflush(nil)
                return Terminal.readSecretLine()
            })
        let shell = AppShell(session: session, prompts: prompts) { print($0) }
        for scene in scenes { shell.open(scene, announce: false) }
        print("main-app shell: \(scenes.count) scene(s) open; nothing authenticates until login-if-required (type help)")
        shell.sayScenes()
        let watcher = shell.watchURLs()
        defer {
            watcher.cancel()
            shell.urls.waitForLaunchedApps()
        }
        var failures = 0
        while let line = readLine() {
            let words = line.split(separator: " ").map(String.init)
            guard !words.isEmpty else { continue }
            if words[0] == "quit" || words[0] == "exit" { break }
            do {
                try await shell.run(words)
            } catch {
                print("error: \(error)")
                failures += 1
            }
            fflush(nil)
        }
        if failures > 0 { throw ExitCode(1) }
    }
}
