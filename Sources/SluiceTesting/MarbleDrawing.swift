import Sluice

/// One thing to draw on a marble row, already turned into text and placed on the chart's axis.
struct MarbleMark {
    enum Kind: Equatable {
        case value(String)
        case finished
        case failure(String)
        case subscription
        case cancel
    }

    /// Time in ticks from the chart's start (the floor when `exact` is false).
    var tick: Int
    /// Whether the event fell exactly on a tick.
    var exact: Bool = true
    /// The time from the chart's start, for the SVG axis.
    var time: Duration
    /// The event's own time (since the scheduler's origin), for labels.
    var shownTime: Duration
    var kind: Kind
    /// When it was recorded, for a recorded timeline's event.
    var stamp: RecordingStamp?

    var isTerminal: Bool {
        switch kind {
        case .finished, .failure, .cancel: return true
        case .value, .subscription: return false
        }
    }

    /// The text-diagram symbol: `a`, `'word'`, `|`, `#`, `#x`, `^`, `!`; a value whose label
    /// has a key in `keys` is drawn as the key.
    func symbol(keys: [String: String] = [:]) -> String {
        switch kind {
        case .value(let label):
            if let key = keys[label] { return key }
            if label.count == 1 && !"-^!|#()' ".contains(label) { return label }
            return label.count > 2 && label.hasPrefix("'") && label.hasSuffix("'") ? label : "'\(label)'"
        case .finished: return "|"
        case .failure(let label): return label.isEmpty ? "#" : (label.count == 1 ? "#\(label)" : "#'\(label)'")
        case .subscription: return "^"
        case .cancel: return "!"
        }
    }

    /// A value drawn with more than one character.
    var isLongValue: Bool {
        if case .value = kind { return symbol().count > 1 }
        return false
    }

    /// `value swift`, `finished`, `failure timeout`: the event in words.
    var words: String {
        switch kind {
        case .value(let label): return "value \(MarbleMark.unquoted(label))"
        case .finished: return "finished"
        case .failure(let label): return label.isEmpty ? "failure" : "failure \(label)"
        case .subscription: return "subscription"
        case .cancel: return "cancel"
        }
    }

    static func unquoted(_ label: String) -> String {
        label.count > 2 && label.hasPrefix("'") && label.hasSuffix("'") ? String(label.dropFirst().dropLast()) : label
    }
}

/// A named row of marks, placed on the chart's axis, and how far its axis runs when nothing
/// ends it.
struct MarbleRow {
    var name: String
    var marks: [MarbleMark]
    var endTick: Int
}

/// A row as added to a chart: its events at their own times, placed when the chart is drawn.
struct ChartRow {
    struct Event {
        var time: Duration
        var kind: MarbleMark.Kind
        var stamp: RecordingStamp?
    }

    var name: String
    var events: [Event]
    var until: Duration?
}

extension Timeline {
    /// The timeline's events for a chart row, with values drawn by `label` and the error by
    /// `errorLabel` (empty for a plain `#`).
    func chartEvents(includeSubscription: Bool, label: (Output) -> String,
                     errorLabel: (Failure) -> String) -> [ChartRow.Event] {
        events.indices.compactMap { index in
            let event = events[index]
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
            return ChartRow.Event(time: event.time, kind: kind, stamp: stamps.isEmpty ? nil : stamps[index])
        }
    }
}

/// Lays rows out on one shared time axis as text that reads back as what happened.
///
/// A drawn row follows the diagram syntax: every character but a space is one tick, so a
/// label or group `w` characters wide takes `w` ticks, and a dash stands for each tick in which
/// nothing happens. Rows are aligned by instant, so that what happens at one time is in one
/// column in every row, and the axis stays linear:
///
/// - Where a value's label is wider than the time to its own row's next mark, every value drawn
///   with more than one character gets a one-character key instead (`a`, `b`, … skipping the
///   characters the chart already uses), listed in a last line: `keys: a = sw, b = swift`.
/// - Only a group that is still too wide (the syntax cannot express one) stretches the axis,
///   with spaces, which the parser ignores, never with dashes, which it would count as ticks.
/// - A stretch of more than ``longestDrawnGap`` ticks in which nothing happens in any row is
///   written as a time progression (` 4.9s `), which the parser reads back as the same time.
/// - An event between two ticks is drawn at the tick before it, and a line under its row
///   points at it (`↑`) and gives its time, so it never looks like one on the tick.
enum MarbleText {
    /// The longest stretch drawn as dashes; a longer one is written as a time progression.
    static let longestDrawnGap = 20

    /// The marks at one tick of a row, in the order they happened.
    struct Cell {
        var tick: Int
        var marks: [MarbleMark]
    }

    static func cells(of row: MarbleRow) -> [Cell] {
        var byTick: [Int: [MarbleMark]] = [:]
        for mark in row.marks { byTick[mark.tick, default: []].append(mark) }
        return byTick.map { Cell(tick: $0.key, marks: $0.value) }.sorted { $0.tick < $1.tick }
    }

    static func symbol(of cell: Cell, keys: [String: String]) -> String {
        let symbols = cell.marks.map { $0.symbol(keys: keys) }
        return symbols.count == 1 ? symbols[0] : "(" + symbols.joined() + ")"
    }

    /// The keys for long value labels, in the order the values happened, if a long label does
    /// not fit before its row's next mark; none otherwise.
    static func abbreviations(_ rows: [MarbleRow], reserved: Set<String>) -> [(label: String, key: String)] {
        let overflows = rows.contains { row in
            let cells = cells(of: row)
            return zip(cells, cells.dropFirst()).contains { cell, next in
                cell.tick + symbol(of: cell, keys: [:]).count > next.tick && cell.marks.contains(where: \.isLongValue)
            }
        }
        guard overflows else { return [] }
        let marks = rows.enumerated().flatMap { index, row in row.marks.map { (index, $0) } }
            .sorted { ($0.1.time, $0.0) < ($1.1.time, $1.0) }
            .map(\.1)
        let used = reserved.union(marks.filter { if case .value = $0.kind { return !$0.isLongValue } else { return false } }
            .map { $0.symbol() })
        var candidates = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789").map(String.init)
            .filter { !used.contains($0) }[...]
        var result: [(label: String, key: String)] = []
        for mark in marks where mark.isLongValue {
            guard case .value(let label) = mark.kind, !result.contains(where: { $0.label == label }),
                  let key = candidates.popFirst() else { continue }
            result.append((label, key))
        }
        return result
    }

    /// The rows as lines of text; for each row, the line pointing at its events between ticks,
    /// if it has any; and the keys of abbreviated labels, if any.
    static func render(_ rows: [MarbleRow], tick: Duration, reserved: Set<String> = [])
        -> (lines: [String], markers: [String?], legend: String?)
    {
        let abbreviations = abbreviations(rows, reserved: reserved)
        let keys = Dictionary(abbreviations.map { ($0.label, $0.key) }, uniquingKeysWith: { first, _ in first })
        let allMarks = rows.flatMap(\.marks)
        let start = min(0, allMarks.map(\.tick).min() ?? 0)
        let end = max(rows.map(\.endTick).max() ?? 0, (allMarks.map(\.tick).max() ?? -1) + 1, start)
        let rowCells = rows.map(cells(of:))
        // Each row's symbols in time order; marks at one tick form a group.
        let cells: [[(tick: Int, symbol: String)]] = rowCells.map { $0.map { ($0.tick, symbol(of: $0, keys: keys)) } }
        let widths: [[Int: Int]] = cells.map { Dictionary($0.map { ($0.tick, $0.symbol.count) }, uniquingKeysWith: max) }
        // Room a too-wide group needs before the next instant: its width and a space.
        var room: [Int: Int] = [:]
        for row in cells {
            for (cell, next) in zip(row, row.dropFirst()) where cell.tick + cell.symbol.count > next.tick {
                room[cell.tick] = max(room[cell.tick] ?? 0, cell.symbol.count + 1)
            }
        }
        // One column per tick, plus any room, between the instants something happens; a long
        // empty stretch is one progression.
        let instants = Set(allMarks.map(\.tick) + [start, end]).sorted()
        var columns: [Int: Int] = [:]
        var regions: [Int: (end: Int, column: Int, text: String)] = [:]
        var column = 0
        for (index, instant) in instants.enumerated() {
            columns[instant] = column
            guard index + 1 < instants.count else { break }
            let next = instants[index + 1]
            let occupied = widths.map { $0[instant] ?? 0 }.max() ?? 0
            let free = next - instant - occupied
            if free > longestDrawnGap {
                let text = (column + occupied == 0 ? "" : " ") + MarbleTimeProgression.format(tick * free) + " "
                regions[instant + occupied] = (next, column + occupied, text)
                column += occupied + text.count
            } else {
                column += max(next - instant, room[instant] ?? 0)
            }
        }
        /// A tick's column: its instant's, or the column after the previous instant's by the
        /// ticks between them.
        func columnOf(_ tick: Int) -> Int {
            let instant = instants.last { $0 <= tick } ?? start
            return columns[instant]! + (tick - instant)
        }
        let lines = zip(rows, cells).map { row, cells -> String in
            var line: [Character] = []
            func put(_ text: String, at column: Int) {
                let at = max(column, line.count)
                line += repeatElement(" ", count: at - line.count)
                line += text
            }
            var tick = start
            // Ticks before `target` are drawn: a dash each, or a progression for a long stretch.
            func fill(to target: Int) {
                while tick < target {
                    if let region = regions[tick] {
                        put(region.text, at: region.column)
                        tick = region.end
                    } else {
                        put("-", at: columnOf(tick))
                        tick += 1
                    }
                }
            }
            for cell in cells {
                fill(to: cell.tick)
                put(cell.symbol, at: columns[cell.tick]!)
                tick = max(tick, cell.tick + cell.symbol.count)
            }
            if !row.marks.contains(where: \.isTerminal) { fill(to: end) }
            return String(line)
        }
        let markers = rowCells.map { cells -> String? in
            let between = cells.filter { $0.marks.contains { !$0.exact } }
            guard !between.isEmpty else { return nil }
            var line: [Character] = []
            for cell in between {
                line += repeatElement(" ", count: max(0, columns[cell.tick]! - line.count))
                line.append("↑")
            }
            let times = between.flatMap(\.marks).filter { !$0.exact }
                .map { "\($0.symbol(keys: keys)) at \(VirtualTime.format($0.shownTime))" }
            return String(line) + " between ticks, drawn at the tick before: " + times.joined(separator: ", ")
        }
        let legend = abbreviations.isEmpty ? nil
            : "keys: " + abbreviations.map { "\($0.key) = \(MarbleMark.unquoted($0.label))" }.joined(separator: ", ")
        return (lines, markers, legend)
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
///
/// The text keeps one column per tick. A label too wide for the time before its row's next
/// event is abbreviated to a one-character key, listed in a last line (`keys: a = sw`); a
/// stretch of more than 20 empty ticks is written as a time progression (` 4.9s `); an event
/// between two ticks is drawn at the tick before and pointed at (`↑`) in a line under its row,
/// with its time. Every row still reads back, through ``MarbleDiagram``, as what happened.
public struct MarbleChart {
    /// The duration of one tick: one character of the text diagram, one step of the SVG axis.
    public var tick: Duration
    /// An optional title, drawn above the SVG.
    public var title: String?
    /// The time (since the scheduler's origin) at the start of the axis: zero by default.
    /// Events are placed relative to it; the times written in the drawing are their own.
    public var start: Duration = .zero
    var rows: [ChartRow] = []
    /// Symbols an abbreviation must not use: the keys of the `values` dictionaries given.
    var reserved: Set<String> = []

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
        rows.append(ChartRow(name: name, events: timeline.chartEvents(includeSubscription: showsSubscription, label: label,
                                                                       errorLabel: errorLabel),
                             until: until))
    }

    /// Adds a row drawing `timeline`, labelling each value with its key in `values` (its
    /// description when it has none).
    public mutating func add<Output: Equatable, Failure>(_ name: String, _ timeline: Timeline<Output, Failure>,
                                                         values: [String: Output], showsSubscription: Bool = false,
                                                         until: Duration? = nil) {
        reserved.formUnion(values.keys)
        add(name, timeline, showsSubscription: showsSubscription, until: until,
            label: { MarbleLabels.key(for: $0, in: values) })
    }

    /// Adds a row drawing a subscription: `^` where it subscribed, `!` where it ended.
    public mutating func add(_ name: String = "", subscription: SubscriptionInterval) {
        var events = [ChartRow.Event(time: subscription.subscribedAt, kind: .subscription)]
        if let end = subscription.endedAt { events.append(ChartRow.Event(time: end, kind: .cancel)) }
        rows.append(ChartRow(name: name, events: events, until: nil))
    }

    /// The rows placed on the axis.
    var laidOut: [MarbleRow] {
        let tickNanoseconds = max(1, VirtualTime.nanoseconds(tick))
        return rows.map { row in
            let marks = row.events.map { event -> MarbleMark in
                let time = event.time - start
                let nanoseconds = VirtualTime.nanoseconds(time)
                var ticks = nanoseconds / tickNanoseconds
                if nanoseconds < 0, nanoseconds % tickNanoseconds != 0 { ticks -= 1 }
                return MarbleMark(tick: ticks, exact: nanoseconds % tickNanoseconds == 0, time: time,
                                  shownTime: event.time, kind: event.kind, stamp: event.stamp)
            }
            let untilTicks = row.until.map { (VirtualTime.nanoseconds($0 - start) + tickNanoseconds - 1) / tickNanoseconds } ?? 0
            return MarbleRow(name: row.name, marks: marks, endTick: max(untilTicks, (marks.map(\.tick).max() ?? -1) + 1))
        }
    }

    /// The rows as aligned text, each prefixed with its name, followed by the lines that point
    /// at events between ticks and the keys of abbreviated labels.
    public var text: String {
        let rows = laidOut
        let (lines, markers, legend) = MarbleText.render(rows, tick: tick, reserved: reserved)
        let width = rows.map(\.name.count).max() ?? 0
        let blank = String(repeating: " ", count: width == 0 ? 0 : width + 2)
        var out: [String] = []
        for (index, row) in rows.enumerated() {
            out.append(row.name.isEmpty ? lines[index]
                : row.name + ":" + String(repeating: " ", count: width - row.name.count + 1) + lines[index])
            if let marker = markers[index] { out.append((row.name.isEmpty ? "" : blank) + marker) }
        }
        if let legend { out.append(blank + legend) }
        return out.joined(separator: "\n")
    }

    /// The rows as a self-contained SVG document.
    public var svg: String { MarbleSVG.render(rows: laidOut, tick: tick, title: title, start: start) }

    /// For each instant at which the rows' events came from two or more of the scheduler's
    /// actions, the events in the order they happened, with the action each happened in (rows
    /// drawing timelines that a `TimelineRecorder` recorded; others have no actions to show):
    ///
    /// ```
    /// at 30 s: ticks value 6 in action #3 (scheduled at 0, repeating every 5 s), then results failure in action #4 (scheduled at 0 for 30 s)
    /// ```
    ///
    /// Actions due at one instant run in the order they were scheduled (their `#`). Empty when
    /// no instant has events from two actions.
    public var runOrder: String {
        runOrderLines(at: nil).joined(separator: "\n")
    }

    /// The ``runOrder`` lines, for every instant or only for `time`.
    func runOrderLines(at time: Duration?) -> [String] {
        runOrderEntries(at: time).map { "at \(VirtualTime.format($0.time)): \($0.order)" }
    }

    /// Each instant at which events came from two or more actions, with those events in order.
    func runOrderEntries(at time: Duration?) -> [(time: Duration, order: String)] {
        let stamped = rows.flatMap { row in
            row.events.compactMap { event in event.stamp.map { (row: row.name, event: event, stamp: $0) } }
        }
        let byTime = Dictionary(grouping: stamped, by: \.event.time)
        return byTime.keys.sorted().compactMap { instant -> (Duration, String)? in
            if let time, instant != time { return nil }
            let events = byTime[instant]!.sorted { $0.stamp.sequence < $1.stamp.sequence }
            guard Set(events.map { $0.stamp.action?.number ?? 0 }).count >= 2 else { return nil }
            let named = Set(events.map(\.row)).count > 1
            let described = events.map { entry -> String in
                let mark = MarbleMark(tick: 0, time: .zero, shownTime: instant, kind: entry.event.kind)
                let action = entry.stamp.action.map { "in \($0)" } ?? "outside the scheduler's actions"
                return (named && !entry.row.isEmpty ? entry.row + " " : "") + mark.words + " " + action
            }
            return (instant, described.joined(separator: ", then "))
        }
    }
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
    /// character per `tick` from the scheduler's origin; values are drawn with their
    /// description (abbreviated, with a line of keys, when a description does not fit).
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
        var chart = MarbleChart(tick: tick)
        chart.add("", self, values: values)
        return chart.text
    }

    /// The timeline as a self-contained SVG, labelling each value with its key in `values`.
    public func svg(tick: Duration = .seconds(1), title: String? = nil, values: [String: Output]) -> String {
        var chart = MarbleChart(tick: tick, title: title)
        chart.add("", self, values: values)
        return chart.svg
    }
}
