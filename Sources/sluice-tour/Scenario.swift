import Foundation

/// The tour's topics, in the order the report shows them.
enum Topic: Int, CaseIterable {
    case threadsAndHops, time, sharing, mainThread, rxSpellings

    /// The heading over the topic's claims.
    var heading: String {
        switch self {
        case .threadsAndHops: "Threads and hops: receive(on:), subscribe(on:), what a hop costs, backlogs"
        case .time: "Time: virtual time, timers, debounce, run-loop modes"
        case .sharing: "Sharing: share(), share(replay:), caches"
        case .mainThread: "The main thread: the main queue, the main actor, the isolation stop, UIScheduler"
        case .rxSpellings: "RxSwift spellings: the same engine through SluiceRx"
        }
    }

    /// The topic's short name, for `--list`.
    var name: String {
        switch self {
        case .threadsAndHops: "threads"
        case .time: "time"
        case .sharing: "sharing"
        case .mainThread: "main thread"
        case .rxSpellings: "RxSwift"
        }
    }
}

/// One behaviour, run live on this machine.
struct Scenario {
    /// Short name for `--only`.
    var id: String
    var topic: Topic
    /// What the claim shows, in a few words.
    var title: String
    /// The essential calls the scenario makes, as a user would write them (2 to 6 lines).
    var code: String
    /// Why it behaves that way, in one sentence.
    var why: String
    /// Runs the claim; called on the main thread.
    var run: () -> Outcome
}

/// What a scenario measured, whether the claim held, and what to draw.
struct Outcome {
    var measured: String
    var holds: Bool
    /// A note printed under the claim (e.g. where Sluice deliberately differs from Combine).
    var note: String?
    /// Marble diagram of the scenario, for `--html`.
    var svg: String?
    /// Text marble diagram, printed with the result.
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
    /// The text report is laid out for a terminal this wide.
    static let columns = 100
    /// Labelled lines ("result", "why"...) start their text at this column.
    private static let labelWidth = 11

    static func heading(_ topic: Topic) -> String {
        let title = topic.heading
        return "\n\(title)\n" + String(repeating: "═", count: min(title.count, columns))
    }

    /// One claim: its title (with its id for `--only` at the right), the code it runs, the
    /// result measured here, the verdict and why.
    static func block(_ result: Result) -> String {
        let scenario = result.scenario, outcome = result.outcome
        var lines: [String] = [""]
        let id = "(\(scenario.id))"
        if scenario.title.count + 2 + id.count <= columns {
            lines.append(scenario.title + String(repeating: " ", count: columns - scenario.title.count - id.count) + id)
        } else {
            lines += wrap(scenario.title, width: columns)
            lines.append(id)
        }
        for line in scenario.code.split(separator: "\n", omittingEmptySubsequences: false) {
            lines.append("    " + line)
        }
        lines += labelled("result", outcome.measured)
        if let marbles = outcome.marbles {
            for (index, line) in marbles.split(separator: "\n").enumerated() {
                lines.append(label(index == 0 ? "timeline" : "") + line)
            }
        }
        lines += labelled("verdict", outcome.holds ? "holds" : "FAILS")
        lines += labelled("why", scenario.why)
        if let note = outcome.note { lines += labelled("note", note) }
        return lines.joined(separator: "\n")
    }

    private static func label(_ name: String) -> String {
        ("  " + name).padding(toLength: labelWidth, withPad: " ", startingAt: 0)
    }

    private static func labelled(_ name: String, _ text: String) -> [String] {
        wrap(text, width: columns - labelWidth).enumerated().map { index, line in
            (index == 0 ? label(name) : String(repeating: " ", count: labelWidth)) + line
        }
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
        var sections = ""
        for topic in Topic.allCases {
            let inTopic = results.filter { $0.scenario.topic == topic }
            guard !inTopic.isEmpty else { continue }
            var rows = ""
            for result in inTopic {
                let scenario = result.scenario, outcome = result.outcome
                let verdict = outcome.holds ? "<span class=\"ok\">holds</span>" : "<span class=\"bad\">FAILS</span>"
                let note = outcome.note.map { "<div class=\"note\">\(escape($0))</div>" } ?? ""
                rows += """
                <tr><td><div class="claim">\(escape(scenario.title))</div><div class="id">--only \(escape(scenario.id))</div>
                <pre><code>\(escape(scenario.code))</code></pre></td>
                <td>\(escape(outcome.measured))\(note)</td><td>\(verdict)</td><td>\(escape(scenario.why))</td></tr>

                """
                if let svg = outcome.svg {
                    rows += "<tr class=\"diagram\"><td colspan=\"4\">\(svg)</td></tr>\n"
                }
            }
            sections += """
            <h2>\(escape(topic.heading))</h2>
            <table><tr><th>claim and the code it runs</th><th>result on this machine</th><th>verdict</th><th>why</th></tr>
            \(rows)</table>

            """
        }
        return """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8"><title>Sluice tour</title>
        <style>
        body { font: 15px/1.45 -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 32px auto; max-width: 1180px; color: #1d1d1f; padding: 0 20px; }
        h1 { font-size: 26px; margin-bottom: 4px; } h2 { font-size: 19px; margin-top: 34px; } .sub { color: #555; margin-top: 0; }
        table { border-collapse: collapse; width: 100%; margin: 12px 0 24px; }
        th, td { text-align: left; vertical-align: top; padding: 8px 10px; border-bottom: 1px solid #e3e3e8; }
        th { background: #f5f5f7; font-weight: 600; }
        td:first-child { width: 44%; }
        .claim { font-weight: 600; } .id { color: #777; font-size: 12px; font-family: ui-monospace, Menlo, monospace; }
        pre { background: #f5f5f7; border-radius: 4px; padding: 6px 8px; margin: 6px 0 0; font-size: 12px; overflow-x: auto; }
        tr.diagram td { border-bottom: 1px solid #e3e3e8; padding-top: 0; }
        .ok { color: #fff; background: #2e8540; border-radius: 4px; padding: 2px 8px; font-size: 13px; }
        .bad { color: #fff; background: #c0392b; border-radius: 4px; padding: 2px 8px; font-size: 13px; }
        .note { color: #6a4c00; background: #fff8e1; border-left: 3px solid #f0b400; padding: 4px 8px; margin-top: 6px; font-size: 13px; }
        </style></head><body>
        <h1>Sluice tour</h1>
        <p class="sub">\(results.count) behaviours of Combine's API, its schedulers and RxSwift's spellings, run live: \(held) of \(results.count) claims hold on \(escape(machine)).</p>
        \(sections)</body></html>
        """
    }
}
