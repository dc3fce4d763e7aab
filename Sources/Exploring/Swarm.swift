/// Swarm testing (Groce, Zhang, Eide, Chen and Regehr, "Swarm Testing", ISSTA 2012): each run leaves out a
/// random share of the optional kinds of step, drawn from the run's seed at its start. A run with no reboot, no
/// widget and no lock spends its steps on what is left, so the long chains a bug needs (log in, edit, sync,
/// wait for the org's answer, kill) come up far more often than when every kind of step competes at every step;
/// across runs every kind is still chosen, in every combination. A run is still a function of its seed.
package struct Swarm: Equatable, Sendable {
    /// The kinds of step that may be left out of a run. The ones a run needs to get anywhere (a login, a sync, an
    /// edit, letting a process go on, an unlock after a lock, the org back online) are always offered.
    package static let optional = [
        "widget", "push", "lock", "reboot", "reinstall", "restore", "offline", "expire-tokens", "logout", "switch-user", "view", "kill",
    ]

    /// The optional kinds this run offers.
    package let offered: Set<String>

    /// Everything offered (a replayed schedule, or an explorer that does not swarm).
    package static let all = Swarm(offered: Set(optional))

    package init(offered: Set<String>) { self.offered = offered }

    /// Each optional kind offered with probability one half, from one draw of the run's choices.
    package init(_ choices: inout SeededChoices) {
        let bits = choices.next()
        offered = Set(Self.optional.enumerated().filter { bits >> UInt64($0.offset) & 1 == 1 }.map(\.element))
    }

    package func offers(_ kind: String) -> Bool { offered.contains(kind) }

    /// `options` without those of a kind this run leaves out (`kind` names each option's kind, nil: always offered).
    package func filter<T>(_ options: [(T, Int)], kind: (T) -> String?) -> [(T, Int)] {
        options.filter { option in kind(option.0).map(offers) ?? true }
    }
}
