import Foundation

/// One claim from a seed, run live on this machine.
struct Scenario {
    /// Short name for `--only`.
    var id: String
    /// "000", "001", ... and the seed's section heading.
    var seed: String
    var section: String
    /// The claim, in one line.
    var claim: String
    /// Runs the claim; called on the main thread.
    var run: () -> Outcome
}

/// What a scenario measured, whether the claim held, and what to draw.
struct Outcome {
    var measured: String
    var holds: Bool
    /// A note printed under the row (e.g. where Sluice deliberately differs from Combine).
    var note: String?
    /// Marble diagram of the scenario, for `--html`.
    var svg: String?
    /// Text marble diagram, printed under the row.
    var marbles: String?

    init(_ measured: String, holds: Bool, note: String? = nil, svg: String? = nil, marbles: String? = nil) {
        self.measured = measured
        self.holds = holds
        self.note = note
        self.svg = svg
        self.marbles = marbles
    }
}

struct Result {
    var scenario: Scenario
    var outcome: Outcome
    var seconds: Double
}

enum Report {
    static func table(_ results: [Result]) -> String {
        var lines: [String] = []
        let claimWidth = 58
        lines.append("seed  " + "claim".padding(toLength: claimWidth, withPad: " ", startingAt: 0) + " verdict  measured here")
        lines.append(String(repeating: "─", count: 120))
        for result in results {
            let verdict = result.outcome.holds ? "holds  " : "FAILS  "
            let claimLines = wrap(result.scenario.claim, width: claimWidth)
            let measuredLines = wrap(result.outcome.measured, width: 52)
            for index in 0..<max(claimLines.count, measuredLines.count) {
                let seed = index == 0 ? result.scenario.seed : ""
                let claim = index < claimLines.count ? claimLines[index] : ""
                let measured = index < measuredLines.count ? measuredLines[index] : ""
                let verdictColumn = index == 0 ? verdict : "       "
                lines.append(seed.padding(toLength: 6, withPad: " ", startingAt: 0)
                             + claim.padding(toLength: claimWidth, withPad: " ", startingAt: 0) + " "
                             + verdictColumn + "  " + measured)
            }
            if let note = result.outcome.note {
                for line in wrap("note: " + note, width: 112) { lines.append("      " + line) }
            }
            if let marbles = result.outcome.marbles {
                for line in marbles.split(separator: "\n") { lines.append("      " + line) }
            }
        }
        return lines.joined(separator: "\n")
    }

    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for word in text.split(separator: " ") {
            if current.isEmpty {
                current = String(word)
            } else if current.count + 1 + word.count <= width {
                current += " " + word
            } else {
                lines.append(current)
                current = String(word)
            }
        }
        if !current.isEmpty { lines.append(current) }
        return lines.isEmpty ? [""] : lines
    }

    static func html(_ results: [Result], machine: String) -> String {
        func escape(_ text: String) -> String {
            text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;")
        }
        let held = results.filter(\.outcome.holds).count
        var rows = ""
        for result in results {
            let verdict = result.outcome.holds ? "<span class=\"ok\">holds</span>" : "<span class=\"bad\">fails</span>"
            rows += """
            <tr><td class="seed">\(escape(result.scenario.seed))</td>
            <td><div class="claim">\(escape(result.scenario.claim))</div><div class="section">\(escape(result.scenario.section))</div></td>
            <td>\(verdict)</td><td>\(escape(result.outcome.measured))\(result.outcome.note.map { "<div class=\"note\">\(escape($0))</div>" } ?? "")</td></tr>

            """
        }
        var diagrams = ""
        for result in results {
            guard let svg = result.outcome.svg else { continue }
            diagrams += """
            <figure><figcaption><b>seed \(escape(result.scenario.seed))</b> · \(escape(result.scenario.claim))</figcaption>
            \(svg)
            </figure>

            """
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Sluice scheduler tour</title>
        <style>
        body { font: 15px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 32px auto; max-width: 1180px; color: #1d1d1f; padding: 0 20px; }
        h1 { font-size: 26px; margin-bottom: 4px; } .sub { color: #555; margin-top: 0; }
        table { border-collapse: collapse; width: 100%; margin: 18px 0 30px; }
        th, td { text-align: left; vertical-align: top; padding: 8px 10px; border-bottom: 1px solid #e3e3e8; }
        th { background: #f5f5f7; font-weight: 600; }
        td.seed { font-family: ui-monospace, Menlo, monospace; color: #555; }
        .claim { font-weight: 500; } .section { color: #777; font-size: 13px; }
        .ok { color: #fff; background: #2e8540; border-radius: 4px; padding: 2px 8px; font-size: 13px; }
        .bad { color: #fff; background: #c0392b; border-radius: 4px; padding: 2px 8px; font-size: 13px; }
        .note { color: #6a4c00; background: #fff8e1; border-left: 3px solid #f0b400; padding: 4px 8px; margin-top: 6px; font-size: 13px; }
        figure { margin: 0 0 26px; } figcaption { margin-bottom: 6px; color: #333; }
        </style></head><body>
        <h1>Sluice scheduler tour</h1>
        <p class="sub">Every behaviour the seeds describe, run live: \(held) of \(results.count) claims hold on \(escape(machine)).</p>
        <table><tr><th>seed</th><th>claim</th><th>verdict</th><th>measured here</th></tr>
        \(rows)</table>
        <h2>Timelines</h2>
        \(diagrams)
        </body></html>
        """
    }
}
