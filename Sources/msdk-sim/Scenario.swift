import ArgumentParser
import Diagnostics
import Foundation

struct Scenario: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Reproduce a failure Mobile SDK users reported, with the real binaries on a fresh device (msdk-sim scenario list).",
        discussion: """
            Each run gets a fresh device, its own sf-simulator and its own private keyring (a dbus-run-session with \
            gnome-keyring, like scripts/with-keyring), so it never touches yours. Exit status 0 when the failure \
            happened as described.
            """)

    static let innerKey = "APPGROUPSIM_SCENARIO_KEYRING"

    @Argument(help: "A scenario name, or list.") var name: String
    @Flag(help: "Recover the way the real SDK does (delete what cannot be read) instead of AppGroupSim's default (keep the files).")
    var sdkRecovery = false
    @Option(help: "The app bundle to start from (default: Fixtures/MobileSyncExplorer/MobileSyncExplorer.app of this checkout).")
    var app: String?

    func run() async throws {
        if name == "list" {
            let width = Scenarios.all.map(\.name.count).max() ?? 0
            for s in Scenarios.all { print("\(s.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(s.title)") }
            return
        }
        guard Scenarios.all.contains(where: { $0.name == name }) else { throw Failure("no scenario \(name); msdk-sim scenario list names them") }
        // This executable's own path (the binaries beside it run the scenario): /proc/self/exe, since argv[0] is
        // only a name when msdk-sim was found on PATH.
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().standardizedFileURL
        guard ProcessInfo.processInfo.environment[Self.innerKey] == "1" else {
            return try Self.reexecInPrivateKeyring(executable)
        }
        guard let fixture = app.map({ URL(fileURLWithPath: $0) }) ?? Self.findFixture(from: executable) else {
            throw Failure("cannot find Fixtures/MobileSyncExplorer/MobileSyncExplorer.app; pass --app")
        }
        do {
            try await Scenarios.run(
                name, binDirectory: executable.deletingLastPathComponent(), fixtureApp: fixture, sdkRecovery: sdkRecovery,
                print: { line in
                    print(line)
                    fflush(nil)
                })
        } catch let failure as Scenarios.Failure {
            throw Failure("\(failure)")
        }
    }

    /// The checkout's fixture: up from the binary (.build/<config>/msdk-sim), then the working directory.
    static func findFixture(from executable: URL) -> URL? {
        var dir = executable.deletingLastPathComponent()
        var candidates: [URL] = [URL(fileURLWithPath: FileManager.default.currentDirectoryPath)]
        for _ in 0..<6 {
            candidates.append(dir)
            dir = dir.deletingLastPathComponent()
        }
        return candidates.map { $0.appendingPathComponent("Fixtures/MobileSyncExplorer/MobileSyncExplorer.app") }
            .first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("Info.plist").path) }
    }

    /// Runs this same command again inside a private D-Bus session with a fresh, unlocked gnome-keyring.
    /// `sessionTemporaryFiles`: the session's TMPDIR is inside its folder, so that what it leaves in temporary
    /// files goes with it however it ends (an exploration's orgs and devices: a SIGTERM ends the explorer where
    /// it stands). A scenario removes its own device and keeps the paths it prints short.
    /// `root`: where the session's folder goes (the temporary directory when nil; an exploration's is
    /// `Explorer.scratchRoot`).
    static func reexecInPrivateKeyring(_ executable: URL, sessionTemporaryFiles: Bool = false, root: URL? = nil) throws {
        for tool in ["dbus-run-session", "gnome-keyring-daemon"] {
            let found = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
                .contains { FileManager.default.isExecutableFile(atPath: "\($0)/\(tool)") }
            guard found else { throw Failure("\(tool) is not installed; run scripts/test once or apt-get install gnome-keyring dbus-x11") }
        }
        let root = root ?? FileManager.default.temporaryDirectory
        let tmp = root.appendingPathComponent("appgroupsim-scenario-keyring-\(UUID().uuidString.prefix(8))")
        for sub in ["home", "run", "tmp"] {
            try FileManager.default.createDirectory(at: tmp.appendingPathComponent(sub), withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        setenv(Self.innerKey, "1", 1)
        setenv("HOME", tmp.appendingPathComponent("home").path, 1)
        setenv("XDG_RUNTIME_DIR", tmp.appendingPathComponent("run").path, 1)
        if sessionTemporaryFiles { setenv("TMPDIR", tmp.appendingPathComponent("tmp").path, 1) }
        setenv("APPGROUPSIM_SCENARIO_TMP", tmp.path, 1)
        // The keyring's password only protects this throwaway keyring; it is never printed.
        setenv("APPGROUPSIM_SCENARIO_PASSWORD", "scenario-\(UUID().uuidString)", 1)
        for key in ["DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "GNOME_KEYRING_CONTROL"] { unsetenv(key) }
        // exec, not a child process: this process becomes the session; bash removes the temporary home at the end and
        // drops only dbus-daemon's complaint about its fd limit from stderr.
        let script = """
            # The bus and the keyring daemon can outlive dbus-run-session here: every process of this session
            # (found by its HOME) ends with the scenario, and so does its folder.
            end_session() {
              pids=""
              for p in /proc/[0-9]*; do
                [ "${p#/proc/}" = "$$" ] && continue
                grep -qzx "HOME=$APPGROUPSIM_SCENARIO_TMP/home" "$p/environ" 2>/dev/null && pids="$pids ${p#/proc/}"
              done
              if [ -n "$pids" ]; then
                kill -TERM $pids 2>/dev/null
                for i in 1 2 3 4 5 6 7 8 9 10; do kill -0 $pids 2>/dev/null || break; sleep 0.1; done
                kill -KILL $pids 2>/dev/null
              fi
            }
            # Interrupted (Ctrl-C, a CI job's timeout): what was printed so far, then every process of the session
            # ends and its folder goes.
            interrupted() {
              cat "$APPGROUPSIM_SCENARIO_TMP/stdout" 2>/dev/null
              grep -v "Failed to set fd limit" "$APPGROUPSIM_SCENARIO_TMP/stderr" >&2 2>/dev/null
              end_session
              rm -rf "$APPGROUPSIM_SCENARIO_TMP"
              echo "msdk-sim: interrupted ($1); every process it started has ended and its temporary files are removed" >&2
              exit "$2"
            }
            trap 'interrupted SIGINT 130' INT
            trap 'interrupted SIGTERM 143' TERM
            trap 'interrupted SIGHUP 129' HUP
            # Files, not our pipes: here the session's dbus-daemon can outlive dbus-run-session and would keep a
            # pipe open (and a caller's `| tail` waiting) forever. In the background, so that a signal runs its trap
            # at once (bash runs a trap only once the command in the foreground has ended).
            dbus-run-session -- bash -c '
              printf %s "$APPGROUPSIM_SCENARIO_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null 2>&1
              "$@"' scenario "$@" > "$APPGROUPSIM_SCENARIO_TMP/stdout" 2> "$APPGROUPSIM_SCENARIO_TMP/stderr" < /dev/null &
            wait $!
            status=$?
            cat "$APPGROUPSIM_SCENARIO_TMP/stdout"
            grep -v "Failed to set fd limit" "$APPGROUPSIM_SCENARIO_TMP/stderr" >&2
            end_session
            rm -rf "$APPGROUPSIM_SCENARIO_TMP"
            exit $status
            """
        let args = ["bash", "-c", script, "scenario", executable.path] + Array(CommandLine.arguments.dropFirst())
        var cArgs = args.map { strdup($0) } + [nil]
        // A signal mask outlives exec, and this thread's blocks SIGINT and SIGTERM (set by the runtime beneath
        // us): the session's bash would inherit it, never see Ctrl-C or a CI job's SIGTERM, and never run its traps.
        var none = sigset_t()
        sigemptyset(&none)
        pthread_sigmask(SIG_SETMASK, &none, nil)
        execv("/bin/bash", &cArgs)
        throw Failure("cannot run /bin/bash: \(String(cString: strerror(errno)))")
    }

}
