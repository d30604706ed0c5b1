import Sluice

/// A parsed marble diagram: a string such as `"-a-b--c|"` read as events on a time axis.
///
/// Syntax (spaces are ignored, so diagrams can be aligned; every other character is one
/// *tick* of time, a duration chosen by whoever plays the diagram):
///
/// | symbol | meaning |
/// | --- | --- |
/// | `-` | one tick in which nothing happens |
/// | `a` (any other single character) | a value: `values["a"]` |
/// | `'word'` | a value: `values["word"]`; it happens at the opening quote's tick |
/// | `\|` | finished |
/// | `#` | failure with `errors["#"]` (or the only error in `errors`); `#x` or `#'word'` names the error |
/// | `^` | time zero: the subscription point of a hot source, or of the subscriber in an expected diagram |
/// | `!` | the point where the subscriber cancels (expected diagrams only) |
/// | `(ab)` | a group: everything inside happens at the tick of `(` |
/// | `4.9s`, `300ms`, `2m` | time progression: that much time passes (between spaces) |
///
/// Without `^`, time zero is the first tick. A group, like a quoted word, takes as many ticks as
/// it has characters, so that diagrams written one above another stay aligned: in `"-(ab)-|"`,
/// `a` and `b` happen at tick 1 and `|` at tick 6. When `Output` is `String`, a symbol missing
/// from `values` stands for itself.
///
/// A time progression is a number (decimals allowed) and a unit, `ms`, `s` or `m`, with a space
/// (or the diagram's start or end) on each side; it stands for that much time with nothing in it,
/// so a long stretch needs no row of dashes. As in RxJS, the character before it still takes its
/// tick: with 100 ms ticks, `"a 4.9s b"` has `a` at 0 and `b` at 5 s.
public struct MarbleDiagram<Output, Failure: Error> {
    /// What happens at a tick.
    public enum Kind {
        case value(Output)
        case finished
        case failure(Failure)
    }

    /// A place on the diagram's time axis, relative to time zero: whole ticks (one per
    /// character) plus the time written as progressions (`4.9s`) before it.
    public struct Position: Equatable, Sendable {
        /// The ticks (characters) from time zero.
        public var ticks: Int
        /// The time of the progressions between time zero and here.
        public var progression: Duration

        public init(ticks: Int, progression: Duration = .zero) {
            self.ticks = ticks
            self.progression = progression
        }

        /// The time from time zero, with ticks of `tick`.
        public func time(tick: Duration) -> Duration {
            tick * ticks + progression
        }

        static func - (lhs: Position, rhs: Position) -> Position {
            Position(ticks: lhs.ticks - rhs.ticks, progression: lhs.progression - rhs.progression)
        }
    }

    /// An event and where it happens (relative to time zero; before it for a hot source's
    /// history before `^`).
    public struct Event {
        /// Where it happens.
        public var position: Position
        public var kind: Kind
        /// The symbol it was written with (`a`, `'word'`, `|`, `#`), for drawing it back.
        public var symbol: String

        /// Its tick: the whole ticks of its ``position`` (time progressions aside).
        public var tick: Int { position.ticks }

        /// When it happens, after time zero, with ticks of `tick`.
        public func time(tick: Duration) -> Duration { position.time(tick: tick) }
    }

    /// The text as written.
    public let text: String
    /// The events, in order.
    public let events: [Event]
    /// The tick of `^` (always 0 when present: it defines time zero), or `nil`.
    public let subscriptionTick: Int?
    /// Where `!` is, or `nil`.
    public let cancellation: Position?
    /// Just after the diagram's last character or progression.
    public let end: Position
    /// Where the diagram's first character is (before time zero when `^` is not first).
    public let start: Position
    /// The last instant the diagram describes: its last character's tick, or the end of a
    /// progression that ends it.
    public let last: Position

    /// The tick of `!`, or `nil` (time progressions aside: see ``cancellation``).
    public var cancellationTick: Int? { cancellation?.ticks }
    /// The first tick after the diagram's last character (time progressions aside: see ``end``).
    public var endTick: Int { end.ticks }
    /// The tick of the diagram's first character (negative when `^` is not first).
    public var startTick: Int { start.ticks }

    /// Parses `text`, looking values and errors up in the dictionaries.
    public init(_ text: String, values: [String: Output] = [:], errors: [String: Failure] = [:]) throws {
        let symbols = Array(text)
        var parsed: [(column: Position, kind: Kind, symbol: String)] = []
        var column = Position(ticks: 0)
        var endsWithProgression = false
        var zeroColumn: Position?
        var cancelColumn: Position?
        var groupColumn: Position?
        var groupSize = 0
        var terminated = false
        var index = 0

        func fail(_ message: String) -> MarbleSyntaxError {
            MarbleSyntaxError(diagram: text, offset: index, message: message)
        }

        func lookUpValue(_ key: String) throws -> Output {
            if let value = values[key] { return value }
            if Output.self == String.self, let value = key as? Output { return value }
            throw fail("no value for \"\(key)\" in the values dictionary")
        }

        func lookUpError(_ key: String?) throws -> Failure {
            if let key {
                if let error = errors[key] { return error }
                throw fail("no error for \"\(key)\" in the errors dictionary")
            }
            if let error = errors["#"] { return error }
            if errors.count == 1, let error = errors.first?.value { return error }
            throw fail(errors.isEmpty
                ? "\"#\" needs an error: pass errors: [\"#\": yourError]"
                : "\"#\" is ambiguous with several errors: name one, as #x, or add one for \"#\"")
        }

        /// Reads a value key at `index` (a character or a quoted word); returns it and its width.
        func readKey() throws -> (String, Int) {
            if symbols[index] == "'" {
                guard let close = symbols[(index + 1)...].firstIndex(of: "'") else { throw fail("unterminated quoted word") }
                let word = String(symbols[(index + 1)..<close])
                guard !word.isEmpty else { throw fail("empty quoted word") }
                return (word, close - index + 1)
            }
            return (String(symbols[index]), 1)
        }

        func add(_ kind: Kind, symbol: String) throws {
            if terminated { throw fail("nothing can happen after the diagram's completion") }
            parsed.append((groupColumn ?? column, kind, symbol))
            if case .value = kind {} else { terminated = true }
        }

        while index < symbols.count {
            let character = symbols[index]
            var width = 1
            if case let (duration, length)? = MarbleTimeProgression.read(symbols, at: index) {
                if groupColumn != nil { throw fail("a time progression inside a group") }
                column.progression += duration
                endsWithProgression = true
                index += length
                continue
            }
            switch character {
            case " ", "\t", "\n":
                index += 1
                continue
            case "-":
                if groupColumn != nil { throw fail("\"-\" inside a group") }
            case "^":
                if groupColumn != nil { throw fail("\"^\" inside a group") }
                if zeroColumn != nil { throw fail("a second \"^\"") }
                zeroColumn = column
            case "!":
                if groupColumn != nil { throw fail("\"!\" inside a group") }
                if cancelColumn != nil { throw fail("a second \"!\"") }
                if terminated { throw fail("\"!\" after the completion") }
                cancelColumn = column
                terminated = true
            case "(":
                if groupColumn != nil { throw fail("groups cannot nest") }
                groupColumn = column
                groupSize = 0
            case ")":
                guard groupColumn != nil else { throw fail("\")\" without \"(\"") }
                if groupSize == 0 { throw fail("empty group") }
                groupColumn = nil
            case "|":
                try add(.finished, symbol: "|")
                groupSize += 1
            case "#":
                var key: String?
                var symbol = "#"
                if index + 1 < symbols.count, !"-^!|#() \t\n".contains(symbols[index + 1]) {
                    index += 1
                    let (name, nameWidth) = try readKey()
                    key = name
                    symbol += nameWidth == 1 ? name : "'\(name)'"
                    index -= 1
                    width += nameWidth
                }
                try add(.failure(try lookUpError(key)), symbol: symbol)
                groupSize += 1
            default:
                let (key, keyWidth) = try readKey()
                width = keyWidth
                try add(.value(try lookUpValue(key)), symbol: keyWidth == 1 ? key : "'\(key)'")
                groupSize += 1
            }
            endsWithProgression = false
            index += width
            column.ticks += width
        }
        if groupColumn != nil { throw fail("unclosed group") }

        let zero = zeroColumn ?? Position(ticks: 0)
        self.text = text
        events = parsed.map { Event(position: $0.column - zero, kind: $0.kind, symbol: $0.symbol) }
        subscriptionTick = zeroColumn.map { _ in 0 }
        cancellation = cancelColumn.map { $0 - zero }
        end = column - zero
        start = Position(ticks: 0) - zero
        last = (endsWithProgression ? column : Position(ticks: column.ticks - 1, progression: column.progression)) - zero
    }

    /// Whether the diagram ends with a completion.
    public var completes: Bool {
        events.contains { if case .value = $0.kind { return false } else { return true } }
    }
}

/// Time progressions in diagrams: `4.9s`, `300ms`, `1.5m`.
enum MarbleTimeProgression {
    /// Reads a progression starting at `index`, if one starts there: a number and a unit with a
    /// space (or the text's start or end) on each side. Returns its duration and length.
    static func read(_ symbols: [Character], at index: Int) -> (Duration, Int)? {
        guard symbols[index].isASCII, symbols[index].isNumber else { return nil }
        if index > 0, !symbols[index - 1].isWhitespace { return nil }
        var end = index
        while end < symbols.count, !symbols[end].isWhitespace { end += 1 }
        return parse(String(symbols[index..<end])).map { ($0, end - index) }
    }

    /// `4.9s` as a duration; `nil` if the text is not a progression.
    static func parse(_ text: String) -> Duration? {
        let units: [(String, Int)] = [("ms", 1_000_000), ("s", 1_000_000_000), ("m", 60_000_000_000)]
        guard let (name, nanoseconds) = units.first(where: { text.hasSuffix($0.0) }) else { return nil }
        let number = text.dropLast(name.count)
        let parts = number.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard let whole = parts.first, !whole.isEmpty, whole.allSatisfy({ $0.isASCII && $0.isNumber }),
              let wholeValue = Int(whole) else { return nil }
        var total = wholeValue * nanoseconds
        if parts.count == 2 {
            let fraction = parts[1]
            guard !fraction.isEmpty, fraction.count <= 12, fraction.allSatisfy({ $0.isASCII && $0.isNumber }),
                  let fractionValue = Int(fraction) else { return nil }
            var scale = 1
            for _ in 0..<fraction.count { scale *= 10 }
            total += fractionValue * nanoseconds / scale
        }
        return .nanoseconds(total)
    }

    /// The shortest way to write `duration` as a progression: `4.9s`, `50ms`, `0.25ms`.
    static func format(_ duration: Duration) -> String {
        let ns = VirtualTime.nanoseconds(duration)
        if ns % 60_000_000_000 == 0, ns >= 60_000_000_000 { return "\(ns / 60_000_000_000)m" }
        func decimal(_ unit: Int) -> String {
            var fraction = String(ns % unit)
            let digits = String(unit - 1).count
            fraction = String(repeating: "0", count: max(0, digits - fraction.count)) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return fraction.isEmpty ? "\(ns / unit)" : "\(ns / unit).\(fraction)"
        }
        return ns >= 1_000_000_000 ? decimal(1_000_000_000) + "s" : decimal(1_000_000) + "ms"
    }
}

/// A marble diagram that could not be read: what is wrong and where.
public struct MarbleSyntaxError: Error, CustomStringConvertible, Equatable {
    /// The diagram.
    public let diagram: String
    /// The character offset of the problem.
    public let offset: Int
    /// What is wrong.
    public let message: String

    /// The message, the diagram, and a caret under the offending character.
    public var description: String {
        "marble diagram: \(message)\n  \(diagram)\n  " + String(repeating: " ", count: offset) + "^"
    }
}

extension MarbleDiagram.Kind: Equatable where Output: Equatable, Failure: Equatable {}
extension MarbleDiagram.Event: Equatable where Output: Equatable, Failure: Equatable {}
