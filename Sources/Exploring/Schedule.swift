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

/// What one run does: the steps chosen from a seed as the run goes, or a schedule replayed.
package enum ExplorePlan: Sendable {
    case generate(seed: UInt64, steps: Int)
    case replay([ExploreStep])

    /// Performs the plan's steps: `choose` picks each generated step from the run as it stands.
    package func drive(choose: (inout SeededChoices) -> ExploreStep, perform: (ExploreStep) -> Void) {
        switch self {
        case .replay(let steps):
            for step in steps { perform(step) }
        case .generate(let seed, let count):
            var choices = SeededChoices(seed: seed)
            for _ in 0..<count { perform(choose(&choices)) }
        }
    }
}

/// SplitMix64: the explorer's only source of choices, so a run is a function of its seed.
package struct SeededChoices {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// One of `options`, with the given weights (all positive).
    package mutating func pick<T>(_ options: [(T, Int)]) -> T {
        let total = options.reduce(0) { $0 + $1.1 }
        var r = Int(next() % UInt64(total))
        for (value, weight) in options {
            if r < weight { return value }
            r -= weight
        }
        return options[options.count - 1].0
    }

    /// The seed of run `index` of an exploration seeded `seed`.
    package static func runSeed(_ seed: UInt64, _ index: Int) -> UInt64 {
        var g = SeededChoices(seed: seed ^ (UInt64(index) &* 0xD1B5_4A32_D192_ED03))
        return g.next()
    }
}
