import Exploring
import Foundation

/// What `msdk-sim explore` prints: words, or one JSON object.
package enum ExploreReport {
    package static func text(_ summary: Explorer.Summary, seed: UInt64, out: String?) -> String {
        var lines: [String] = []
        lines.append(
            "explored \(summary.runs) runs of \(summary.stepsPerRun) steps (seed \(seed)) in \(String(format: "%.1f", summary.seconds)) s: "
                + "\(String(format: "%.2f", summary.runsPerSecond)) runs/s, \(summary.distinctSchedules) distinct schedules, "
                + "\(summary.coveredTriples) of \(summary.possibleTriples) (actor, action, device state) triples; "
                + (summary.keychain == "memory"
                    ? "in-memory keychain, every violation replayed on the Secret Service"
                        + (summary.memoryOnly > 0 ? " (\(summary.memoryOnly) seen only in memory, not reported)" : "")
                    : "Secret Service keychain"))
        if summary.violations.isEmpty {
            lines.append("no invariant broke (\(Explorer.invariants.map(\.name).joined(separator: ", ")))")
            return lines.joined(separator: "\n")
        }
        for v in summary.violations {
            lines.append("")
            lines.append("BROKEN \(v.invariant): \(v.message)")
            lines.append(
                "  found in run \(v.run ?? 0) (seed \(v.seed ?? 0)); shrunk from \(v.stepsBeforeShrinking) to \(v.steps.count) steps; "
                    + "replayed \(v.replayed.of) times on the Secret Service, broke \(v.replayed.broke)")
            lines += v.narrative.map { "  " + $0 }
        }
        if let out { lines.append("\nthe first schedule is in \(out): msdk-sim explore --replay \(out)") }
        return lines.joined(separator: "\n")
    }

    /// `template`: `--device-template` as given, and its fingerprint.
    package static func json(_ summary: Explorer.Summary, seed: UInt64, sdkRecovery: Bool, template: (path: String, fingerprint: String)? = nil) -> String {
        var object: [String: Any] = [
            "runs": summary.runs, "stepsPerRun": summary.stepsPerRun, "seed": seed, "sdkRecovery": sdkRecovery,
            "seconds": (summary.seconds * 100).rounded() / 100, "runsPerSecond": (summary.runsPerSecond * 100).rounded() / 100,
            "distinctSchedules": summary.distinctSchedules, "keychain": summary.keychain, "memoryOnly": summary.memoryOnly,
            // What the in-memory keychain broke and the Secret Service did not: each a schedule of the run's whole
            // steps, as `--out` writes one, which `--replay` (with `--keychain memory`, in memory) runs again.
            "memoryOnlyRuns": summary.unconfirmed.map { v -> [String: Any] in
                [
                    "format": ExploreSchedule.formatName, "sdkRecovery": sdkRecovery, "invariant": v.invariant, "message": v.message,
                    "run": v.run ?? 0, "seed": v.seed ?? 0, "steps": v.steps.map { ["actor": $0.actor, "action": $0.action] },
                ].merging(template.map { ["deviceTemplate": $0.path, "deviceTemplateFingerprint": $0.fingerprint] } ?? [:]) { a, _ in a }
            },
            "coverage": ["covered": summary.coveredTriples, "possible": summary.possibleTriples, "of": "(actor, action, device state) triples"],
            "invariants": Explorer.invariants.map(\.name),
            "violations": summary.violations.map { v -> [String: Any] in
                [
                    "invariant": v.invariant, "message": v.message, "run": v.run ?? 0, "seed": v.seed ?? 0,
                    "stepsBeforeShrinking": v.stepsBeforeShrinking, "replayed": ["broke": v.replayed.broke, "of": v.replayed.of],
                    "steps": v.steps.map { ["actor": $0.actor, "action": $0.action] }, "narrative": v.narrative,
                ]
            },
        ]
        if let template {
            object["deviceTemplate"] = template.path
            object["deviceTemplateFingerprint"] = template.fingerprint
        }
        return render(object)
    }

    package static func json(replay: Explorer.RunResult, schedule: ExploreSchedule, keychain: String = "secret-service") -> String {
        render([
            "keychain": keychain,
            "steps": schedule.steps.map { ["actor": $0.actor, "action": $0.action] },
            "violations": replay.violations.map { ["invariant": $0.invariant, "message": $0.message, "step": $0.step.map { $0 + 1 } ?? NSNull()] as [String: Any] },
            "narrative": replay.narrative,
        ])
    }

    static func render(_ object: [String: Any]) -> String {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.prettyPrinted, .sortedKeys]) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
