import Sluice

/// One thing to draw on a marble row, already turned into text.
struct MarbleMark: Equatable {
    enum Kind: Equatable {
        case value(String)
        case finished
        case failure(String)
        case subscription
        case cancel
    }

    /// Time in ticks (the floor when `exact` is false).
    var tick: Int
    /// Whether the event fell exactly on a tick.
    var exact: Bool = true
    /// The event's time, for the SVG axis.
    var time: Duration
    var kind: Kind

    var isTerminal: Bool {
        switch kind {
        case .finished, .failure, .cancel: return true
        case .value, .subscription: return false
        }
    }

    /// The text-diagram symbol: `a`, `'word'`, `|`, `#`, `#x`, `^`, `!`.
    var symbol: String {
        switch kind {
        case .value(let label):
            if label.count == 1 && !"-^!|#()' ".contains(label) { return label }
            return label.count > 2 && label.hasPrefix("'") && label.hasSuffix("'") ? label : "'\(label)'"
        case .finished: return "|"
        case .failure(let label): return label.isEmpty ? "#" : (label.count == 1 ? "#\(label)" : "#'\(label)'")
        case .subscription: return "^"
        case .cancel: return "!"
        }
    }
}

/// A named row of marks, and how far its axis runs when nothing ends it.
struct MarbleRow {
    var name: String
    var marks: [MarbleMark]
    var endTick: Int
}

extension Timeline {
    /// The timeline's events as marks, with values drawn by `label` and the error by `errorLabel`
    /// (empty for a plain `#`).
    func marks(tick: Duration, includeSubscription: Bool, label: (Output) -> String,
               errorLabel: (Failure) -> String) -> [MarbleMark] {
        let tickNanoseconds = max(1, VirtualTime.nanoseconds(tick))
        return events.compactMap { event in
            let nanoseconds = VirtualTime.nanoseconds(event.time)
            var ticks = nanoseconds / tickNanoseconds
            if nanoseconds < 0, nanoseconds % tickNanoseconds != 0 { ticks -= 1 }
            let exact = nanoseconds % tickNanoseconds == 0
            let kind: MarbleMark.Kind
            switch event {
            case .subscription:
                guard includeSubscription else { return nil }
                kind = .subscription
            case .value(_, let value): kind = .value(label(value))
            case .finished: kind = .finished
            case .failure(_, let error): kind = .failure(errorLabel(error))
            case .cancel: kind = .cancel
            }
            return MarbleMark(tick: ticks, exact: exact, time: event.time, kind: kind)
        }
    }
}

/// Lays rows out on one shared time axis as text that reads back as what happened.
///
/// A drawn row follows the diagram syntax: every character but a space is one tick, so a
/// label or group `w` characters wide takes `w` ticks, and a dash stands for each tick in which
/// nothing happens. Rows are aligned by instant, so that what happens at one time is in one
/// column in every row. Where a label is wider than the time to its own row's next mark (which
/// the syntax cannot express: a value with no key drawn as `'42'` one tick before the next
/// value), the axis stretches to keep the marks apart, and the stretch is filled with spaces,
/// which the parser ignores, never with dashes, which it would count as ticks. So
/// `"-a|"` above an actual `"(a|)"` stays `-a|`, not `-----a|`; only the row with the
/// too-wide label reads later than it happened.
enum MarbleText {
    static func render(_ rows: [MarbleRow]) -> [String] {
        let allMarks = rows.flatMap(\.marks)
        let start = min(0, allMarks.map(\.tick).min() ?? 0)
        let end = max(rows.map(\.endTick).max() ?? 0, (allMarks.map(\.tick).max() ?? -1) + 1, start)
        // Each row's symbols in time order; marks at one tick form a group.
        let cells: [[(tick: Int, symbol: String)]] = rows.map { row in
            var byTick: [Int: [String]] = [:]
            for mark in row.marks { byTick[mark.tick, default: []].append(mark.symbol) }
            return byTick.map { (tick: $0.key, symbol: $0.value.count == 1 ? $0.value[0] : "(" + $0.value.joined() + ")") }
                .sorted { $0.tick < $1.tick }
        }
        // Room a too-wide label needs before the next instant: its width and a space.
        var room: [Int: Int] = [:]
        for row in cells {
            for (cell, next) in zip(row, row.dropFirst()) where cell.tick + cell.symbol.count > next.tick {
                room[cell.tick] = max(room[cell.tick] ?? 0, cell.symbol.count + 1)
            }
        }
        // One column per tick, plus any room, between the instants something happens.
        let instants = Set(allMarks.map(\.tick) + [start, end]).sorted()
        var columns: [Int: Int] = [:]
        var column = 0
        for (index, tick) in instants.enumerated() {
            columns[tick] = column
            guard index + 1 < instants.count else { break }
            column += max(instants[index + 1] - tick, room[tick] ?? 0)
        }
        /// A tick's column: its instant's, or the column after the previous instant's by the
        /// ticks between them.
        func columnOf(_ tick: Int) -> Int {
            let instant = instants.last { $0 <= tick } ?? start
            return columns[instant]! + (tick - instant)
        }
        return zip(rows, cells).map { row, cells in
            var line: [Character] = []
            func put(_ text: String, at column: Int) {
                let at = max(column, line.count)
                line += repeatElement(" ", count: at - line.count)
                line += text
            }
            // Ticks before `tick` are drawn: a dash each until the row's next mark, whose
            // label then covers as many ticks as it is wide.
            var tick = start
            for cell in cells {
                while tick < cell.tick {
                    put("-", at: columnOf(tick))
                    tick += 1
                }
                put(cell.symbol, at: columns[cell.tick]!)
                tick = max(tick, cell.tick + cell.symbol.count)
            }
            let terminal = row.marks.filter(\.isTerminal).map(\.tick).min()
            while terminal == nil, tick < end {
                put("-", at: columnOf(tick))
                tick += 1
            }
            return String(line)
        }
    }
}

/// Several timelines drawn on one shared time axis, as text or as SVG: the input and output of
/// an operator, or the expected and actual timelines of a test.
///
/// ```swift
/// var chart = MarbleChart(tick: .milliseconds(100))
/// chart.add("query", queryTimeline, values: ["a": "sw", "b": "swift", "c": "swiftui"])
/// chart.add("debounced", resultTimeline, values: ["b": "swift", "c": "swiftui"])
/// print(chart.text)
/// // query:     (ab)-c---
/// // debounced: ---b----c
/// try chart.svg.write(toFile: "debounce.svg", atomically: true, encoding: .utf8)
/// ```
public struct MarbleChart {
    /// The duration of one tick: one character of the text diagram, one step of the SVG axis.
    public var tick: Duration
    /// An optional title, drawn above the SVG.
    public var title: String?
    var rows: [MarbleRow] = []

    /// An empty chart with this tick.
    public init(tick: Duration = .seconds(1), title: String? = nil) {
        self.tick = tick
        self.title = title
    }

    /// Adds a row drawing `timeline`, labelling values with `label` (their description by
    /// default) and failures with `errorLabel` (none: a plain cross by default). The row's axis
    /// runs at least to `until`, when given.
    public mutating func add<Output, Failure>(_ name: String, _ timeline: Timeline<Output, Failure>,
                                              showsSubscription: Bool = false, until: Duration? = nil,
                                              label: (Output) -> String = { String(describing: $0) },
                                              errorLabel: (Failure) -> String = { _ in "" }) {
        let marks = timeline.marks(tick: tick, includeSubscription: showsSubscription, label: label, errorLabel: errorLabel)
        let tickNanoseconds = max(1, VirtualTime.nanoseconds(tick))
        let untilTicks = until.map { (VirtualTime.nanoseconds($0) + tickNanoseconds - 1) / tickNanoseconds } ?? 0
        rows.append(MarbleRow(name: name, marks: marks, endTick: max(untilTicks, (marks.map(\.tick).max() ?? -1) + 1)))
    }

    /// Adds a row drawing `timeline`, labelling each value with its key in `values` (its
    /// description when it has none).
    public mutating func add<Output: Equatable, Failure>(_ name: String, _ timeline: Timeline<Output, Failure>,
                                                         values: [String: Output], showsSubscription: Bool = false,
                                                         until: Duration? = nil) {
        add(name, timeline, showsSubscription: showsSubscription, until: until,
            label: { MarbleLabels.key(for: $0, in: values) })
    }

    /// The rows as aligned text, each prefixed with its name.
    public var text: String {
        let width = rows.map(\.name.count).max() ?? 0
        return zip(rows, MarbleText.render(rows)).map { row, line in
            row.name.isEmpty ? line : row.name + ":" + String(repeating: " ", count: width - row.name.count + 1) + line
        }.joined(separator: "\n")
    }

    /// The rows as a self-contained SVG document.
    public var svg: String { MarbleSVG.render(rows: rows, tick: tick, title: title) }
}

enum MarbleLabels {
    /// The key `values` gives `value` (the shortest, then the first alphabetically, if several),
    /// or its description.
    ///
    /// A value missing from a non-empty dictionary is quoted even when its description is one
    /// character, so that it cannot be mistaken for a key.
    static func key<Output: Equatable>(for value: Output, in values: [String: Output]) -> String {
        if let key = values.filter({ $0.value == value }).map(\.key).sorted(by: { ($0.count, $0) < ($1.count, $1) }).first {
            return key
        }
        let description = String(describing: value)
        return values.isEmpty ? description : "'\(description)'"
    }
}

extension Timeline {
    /// The timeline as a text marble diagram (see ``MarbleDiagram`` for the symbols), one
    /// character per `tick`; values are drawn with their description.
    public func marbles(tick: Duration = .seconds(1), label: (Output) -> String = { String(describing: $0) }) -> String {
        var chart = MarbleChart(tick: tick)
        chart.add("", self, label: label)
        return chart.text
    }

    /// The timeline as a self-contained SVG: values as marbles on a time axis, a bar for the
    /// completion, a cross for a failure.
    public func svg(tick: Duration = .seconds(1), title: String? = nil,
                    label: (Output) -> String = { String(describing: $0) }) -> String {
        var chart = MarbleChart(tick: tick, title: title)
        chart.add("", self, label: label)
        return chart.svg
    }
}

extension Timeline where Output: Equatable {
    /// The timeline as a text marble diagram, drawing each value as its key in `values`: the
    /// inverse of the diagram syntax.
    public func marbles(tick: Duration = .seconds(1), values: [String: Output]) -> String {
        marbles(tick: tick, label: { MarbleLabels.key(for: $0, in: values) })
    }

    /// The timeline as a self-contained SVG, labelling each value with its key in `values`.
    public func svg(tick: Duration = .seconds(1), title: String? = nil, values: [String: Output]) -> String {
        svg(tick: tick, title: title, label: { MarbleLabels.key(for: $0, in: values) })
    }
}
