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
///
/// Without `^`, time zero is the first tick. A group, like a quoted word, takes as many ticks as
/// it has characters, so that diagrams written one above another stay aligned: in `"-(ab)-|"`,
/// `a` and `b` happen at tick 1 and `|` at tick 6. When `Output` is `String`, a symbol missing
/// from `values` stands for itself.
public struct MarbleDiagram<Output, Failure: Error> {
    /// What happens at a tick.
    public enum Kind {
        case value(Output)
        case finished
        case failure(Failure)
    }

    /// An event and its tick (relative to time zero; negative before a hot source's `^`).
    public struct Event {
        public var tick: Int
        public var kind: Kind
        /// The symbol it was written with (`a`, `'word'`, `|`, `#`), for drawing it back.
        public var symbol: String
    }

    /// The text as written.
    public let text: String
    /// The events, in order.
    public let events: [Event]
    /// The tick of `^` (always 0 when present: it defines time zero), or `nil`.
    public let subscriptionTick: Int?
    /// The tick of `!`, or `nil`.
    public let cancellationTick: Int?
    /// The first tick after the diagram's last character.
    public let endTick: Int
    /// The tick of the diagram's first character (negative when `^` is not first).
    public let startTick: Int

    /// Parses `text`, looking values and errors up in the dictionaries.
    public init(_ text: String, values: [String: Output] = [:], errors: [String: Failure] = [:]) throws {
        let symbols = Array(text)
        var parsed: [(column: Int, kind: Kind, symbol: String)] = []
        var column = 0
        var zeroColumn: Int?
        var cancelColumn: Int?
        var groupColumn: Int?
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
            index += width
            column += width
        }
        if groupColumn != nil { throw fail("unclosed group") }

        let zero = zeroColumn ?? 0
        self.text = text
        events = parsed.map { Event(tick: $0.column - zero, kind: $0.kind, symbol: $0.symbol) }
        subscriptionTick = zeroColumn.map { _ in 0 }
        cancellationTick = cancelColumn.map { $0 - zero }
        endTick = column - zero
        startTick = -zero
    }

    /// Whether the diagram ends with a completion.
    public var completes: Bool {
        events.contains { if case .value = $0.kind { return false } else { return true } }
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
