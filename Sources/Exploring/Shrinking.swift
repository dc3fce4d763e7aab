/// What both explorers (`msdk-sim explore` and AppGroupSimTesting's `DeviceExploration`) share about choosing
/// and shrinking a schedule.
package enum Scheduling {
    /// The kinds of point an `until KIND` step may wait for (`SchedulePoint.Kind`'s raw values that explorers offer).
    package static let untilKinds = ["keychain.read", "keychain.write", "file.write", "defaults.write", "store.write", "store.read", networkResponse]

    /// What the scheduler may do with a process that stands at a point (of the kind `at`): let it go on to its end,
    /// on by a few points, on to the next point of a kind, or kill it where it stands.
    ///
    /// A kill is rare, except where the process waits for the org: a process spends most of its time there (a
    /// request's round trip against a local file or keychain access), so that is where iOS most often suspends or
    /// ends it, and where the org has done what the app never hears of. So a process that talks to the org
    /// (`meetsOrg`) may also be let go on to the org's next answer, and a process standing at an answer
    /// (`network.response`) is killed as often as it is let go on in each of the other ways.
    package static func going(
        _ actor: String, weight: Int, _ choices: inout SeededChoices, kinds: [String] = untilKinds, at kind: String? = nil,
        meetsOrg: Bool = false
    ) -> [(ExploreStep, Int)] {
        let points = 1 + Int(choices.next() % 8)
        let until = kinds[Int(choices.next() % UInt64(kinds.count))]
        return [
            (ExploreStep(actor, "finish"), 2 * weight), (ExploreStep(actor, "resume \(points)"), 2 * weight),
            (ExploreStep(actor, "until \(until)"), 2 * weight), (ExploreStep(actor, "kill"), kind == networkResponse ? 2 * weight : 1),
        ] + (meetsOrg ? [(ExploreStep(actor, "until \(networkResponse)"), weight)] : [])
    }

    /// The kind of point where a process has the org's answer and has not acted on it yet.
    package static let networkResponse = "network.response"

    /// A stopped process let go `points` points, or on until it stops at a point of the kind `until`, or to its
    /// end, whichever comes first. `step` lets it go from where it stands to its next point or its end and says
    /// what happened (`stopped at KIND DETAIL`, or its end); `isRunning` says whether it still stands at a point.
    package static func resume(points: Int, until kind: String?, isRunning: () -> Bool, step: () -> String) -> String {
        var outcome = ""
        var passed = 0
        while passed < points, isRunning() {
            outcome = step()
            passed += 1
            if let kind, outcome.hasPrefix("stopped at \(kind) ") { break }
        }
        return passed > 1 && isRunning() ? "passed \(passed - 1) point(s); \(outcome)" : outcome
    }

    /// The fewest steps that still break: the schedule cut after the step that broke (`cutAfter`, from 0), then
    /// each step left out in turn, from the last, while it still breaks; then each step that lets a process go
    /// part of the way (`resume N`, `until KIND`) made a `finish` where it still breaks (the steps after it that
    /// only let the same process go on then do nothing, and the next round leaves them out); in rounds until
    /// nothing changes or `budget` replays have been tried.
    package static func shrink(
        _ steps: [ExploreStep], cutAfter: Int?, budget: Int, stillBreaks: ([ExploreStep]) throws -> Bool
    ) rethrows -> [ExploreStep] {
        var best = steps
        var budget = budget
        func tryCandidate(_ candidate: [ExploreStep]) throws -> Bool {
            budget -= 1
            return try stillBreaks(candidate)
        }
        if let cutAfter, cutAfter + 1 < best.count {
            let cut = Array(best.prefix(cutAfter + 1))
            if try tryCandidate(cut) { best = cut }
        }
        var changed = true
        while changed, budget > 0 {
            changed = false
            var i = best.count - 1
            while i >= 0, budget > 0 {
                var candidate = best
                candidate.remove(at: i)
                if try tryCandidate(candidate) {
                    best = candidate
                    changed = true
                }
                i -= 1
            }
            var j = 0
            while j < best.count, budget > 0 {
                let verb = best[j].action.split(separator: " ").first
                if verb == "resume" || verb == "until" {
                    var candidate = best
                    candidate[j] = ExploreStep(best[j].actor, "finish")
                    if try tryCandidate(candidate) {
                        best = candidate
                        changed = true
                    }
                }
                j += 1
            }
        }
        return best
    }
}
