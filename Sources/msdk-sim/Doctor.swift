import AppGroup
import ArgumentParser
import Diagnostics
import Foundation

struct Doctor: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find every misconfiguration of the app-extension setup, one finding each, with its fix.",
        discussion: "Reads the app bundle, every extension under PlugIns/, and the device when given. Exit status 0 only when there is no finding, 1 otherwise.")

    @Option(help: "The app bundle (.app directory).") var app: String?
    @Option(help: "An Xcode project (.xcodeproj) to check instead of a bundle, in its own terms.") var xcodeproj: String?
    @Option(help: "With --xcodeproj: the build configuration.") var configuration: String = "Debug"
    @Option(help: "A device directory to check as well (accounts, flags, keychain, containers).") var device: String?
    @Flag(help: "Print a JSON array of findings (id, severity, message, fix).") var json = false

    func validate() throws {
        guard (app == nil) != (xcodeproj == nil) else { throw ValidationError("give --app BUNDLE or --xcodeproj PROJECT (one of them)") }
        if xcodeproj != nil, device != nil { throw ValidationError("--device goes with --app (a device holds installed bundles, not projects)") }
    }

    func run() async throws {
        let findings: [Finding]
        let subject: String
        if let xcodeproj {
            findings = await ProjectDoctor.examine(xcodeproj: URL(fileURLWithPath: xcodeproj), configuration: configuration)
            subject = "\(URL(fileURLWithPath: xcodeproj).lastPathComponent) (\(configuration))"
        } else {
            findings = await Diagnostics.Doctor.examine(app: app!, device: device)
            subject = URL(fileURLWithPath: app!).lastPathComponent
        }
        if json {
            try printJSON(findings)
        } else {
            print("doctor: \(subject)\(device.map { " on device \($0)" } ?? "")")
            for f in findings {
                print("")
                print("\(f.severity == .error ? "✗ error  " : "! warning") \(f.id)")
                print("    \(f.message)")
                print("    fix: \(f.fix)")
            }
            if let device { for note in Diagnostics.Doctor.notes(device: device) { print("\nnote: \(note)") } }
            let errors = findings.filter { $0.severity == .error }.count
            print(findings.isEmpty ? "no finding: the setup is consistent" : "\n\(findings.count) finding(s): \(errors) error(s), \(findings.count - errors) warning(s)")
        }
        if !findings.isEmpty { throw ExitCode(1) }
    }
}
