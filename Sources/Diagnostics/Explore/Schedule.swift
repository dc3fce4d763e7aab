import Exploring
import Foundation

/// What `--out FILE` writes and `--replay FILE` reads.
package struct ExploreSchedule: Codable, Equatable, Sendable {
    package static let formatName = "appgroupsim-explore-schedule-1"
    package var format = ExploreSchedule.formatName
    /// The invariant the schedule breaks, when it was written for a violation.
    package var invariant: String?
    package var seed: UInt64?
    package var run: Int?
    package var sdkRecovery: Bool
    /// The device every run started from (`--device-template`), as given, and the fingerprint of its files and
    /// apps then (`DeviceBackup.fingerprint`); nil: a new device.
    package var deviceTemplate: String?
    package var deviceTemplateFingerprint: String?
    package var steps: [ExploreStep]

    package init(
        invariant: String?, seed: UInt64?, run: Int?, sdkRecovery: Bool, steps: [ExploreStep], deviceTemplate: String? = nil,
        deviceTemplateFingerprint: String? = nil
    ) {
        self.invariant = invariant
        self.seed = seed
        self.run = run
        self.sdkRecovery = sdkRecovery
        self.steps = steps
        self.deviceTemplate = deviceTemplate
        self.deviceTemplateFingerprint = deviceTemplateFingerprint
    }

    package static func load(_ url: URL) throws -> ExploreSchedule {
        let data: Data
        do { data = try Data(contentsOf: url) } catch { throw ExploreError.badSchedule("\(url.path) cannot be read (\(error.localizedDescription))") }
        let schedule: ExploreSchedule
        do { schedule = try JSONDecoder().decode(ExploreSchedule.self, from: data) } catch {
            throw ExploreError.badSchedule("\(url.path) is not a schedule written by msdk-sim explore --out (\(error))")
        }
        guard schedule.format == formatName else {
            throw ExploreError.badSchedule("\(url.path) is of format \(schedule.format), this msdk-sim reads \(formatName)")
        }
        for step in schedule.steps where !ExploreStep.isKnown(step) {
            throw ExploreError.badSchedule("\(url.path): unknown step \(step.actor) \(step.action)")
        }
        return schedule
    }

    package func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}

extension ExploreStep {
    static let processActors = ["app", "widget", "notification"]

    /// What each actor of msdk-sim explore can be asked to start (the environment's actors: to do): what
    /// `ExploreRun.choose` offers, `ExploreRun.perform` runs and `--replay` accepts.
    static let actions: [String: [String]] = [
        "app": ["login", "sync", "edit", "logout", "switch-user", "view"],
        "widget": ["refresh"],
        "notification": ["push"],
        "device": ["lock", "unlock", "reboot", "reinstall", "restore"],
        "org": ["offline", "online", "expire-tokens"],
    ]

    /// What the scheduler does with a process that stands at a point.
    static let processVerbs = ["resume", "finish", "until", "kill"]

    static func isKnown(_ step: ExploreStep) -> Bool {
        // The device's and the org's steps take no argument: `restore bogus` is no step (it was run as a reboot).
        if step.actor == "device" || step.actor == "org" { return actions[step.actor]!.contains(step.action) }
        let verb = step.action.split(separator: " ").first.map(String.init) ?? ""
        if actions[step.actor]?.contains(verb) == true { return true }
        return processActors.contains(step.actor) && processVerbs.contains(verb)
    }
}
