import Foundation

/// One decision of the explorer's scheduler: which actor does what. A schedule is a list of them, and a run is
/// a function of its schedule (and a schedule of its seed): `msdk-sim explore --replay FILE` runs one again.
package struct ExploreStep: Codable, Equatable, Hashable, Sendable {
    /// `app`, `widget`, `notification` (processes), `device` or `org` (the environment).
    package var actor: String
    /// For a process: an action to start (`login USER`, `sync`, `edit`, `logout`, `switch-user USER`, `view`;
    /// `refresh`; `push`), `resume N` (on by N points, or to its end), `until KIND` (on until it stops at a point
    /// of that kind, `store.write` say), `finish` (on to its end) or `kill` (SIGKILL where it stands).
    /// For the device: `lock`, `unlock`, `reboot`. For the org: `offline`, `online`, `expire-tokens`.
    package var action: String

    package init(_ actor: String, _ action: String) {
        self.actor = actor
        self.action = action
    }
}

/// What `--out FILE` writes and `--replay FILE` reads.
package struct ExploreSchedule: Codable, Equatable, Sendable {
    package static let formatName = "appgroupsim-explore-schedule-1"
    package var format = ExploreSchedule.formatName
    /// The invariant the schedule breaks, when it was written for a violation.
    package var invariant: String?
    package var seed: UInt64?
    package var run: Int?
    package var sdkRecovery: Bool
    package var steps: [ExploreStep]

    package init(invariant: String?, seed: UInt64?, run: Int?, sdkRecovery: Bool, steps: [ExploreStep]) {
        self.invariant = invariant
        self.seed = seed
        self.run = run
        self.sdkRecovery = sdkRecovery
        self.steps = steps
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

    static func isKnown(_ step: ExploreStep) -> Bool {
        let verb = step.action.split(separator: " ").first.map(String.init) ?? ""
        switch step.actor {
        case "app": return ["login", "sync", "edit", "logout", "switch-user", "view", "resume", "finish", "until", "kill"].contains(verb)
        case "widget": return ["refresh", "resume", "finish", "until", "kill"].contains(verb)
        case "notification": return ["push", "resume", "finish", "until", "kill"].contains(verb)
        case "device": return ["lock", "unlock", "reboot"].contains(verb)
        case "org": return ["offline", "online", "expire-tokens"].contains(verb)
        default: return false
        }
    }
}

/// SplitMix64: the explorer's only source of choices, so a run is a function of its seed.
struct SeededChoices {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `options`, with the given weights (all positive).
    mutating func pick<T>(_ options: [(T, Int)]) -> T {
        let total = options.reduce(0) { $0 + $1.1 }
        var r = Int(next() % UInt64(total))
        for (value, weight) in options {
            if r < weight { return value }
            r -= weight
        }
        return options[options.count - 1].0
    }

    /// The seed of run `index` of an exploration seeded `seed`.
    static func runSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var g = SeededChoices(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }
}
