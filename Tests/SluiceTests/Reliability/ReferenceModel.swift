import Foundation

/// The differential fuzzer's reference model (DifferentialFuzzTests.swift): what a pipeline of
/// operators should deliver, computed over plain arrays of events, without Sluice.
///
/// A pipeline is a source (a `PassthroughSubject` driven from the `TestScheduler`, or a cold
/// `Record`), a list of ``Step``s, and a subscriber. The model turns the source's events into an
/// array and maps that array through one function per step; the result is what the subscriber
/// must record, each event with the virtual time (in ms) at which it was delivered.
///
/// **Virtual time and ties.** The time operators deliver from actions on the test scheduler, and
/// two actions due at the same instant run in the order they were *scheduled* (the scheduler is
/// FIFO per instant). So the model gives every event the ``Action`` it happens in: the setup
/// (subscribing, before any action runs) or a scheduled action, which records its due time, the
/// action that scheduled it and how many actions that one had scheduled before it. That is
/// enough to order any two actions exactly as the scheduler does (``Action/runsBefore(_:_:)``),
/// which decides the cases that a plain timestamp cannot: a value that arrives at the very
/// instant a debounce timer or a throttle emission is due, a delayed value that lands on the
/// tick of another, and so on.
///
/// **Semantics modelled** (Combine's, as Sluice implements them; see the operator sources and
/// TimeOperatorTests / TimeOperatorEdgeCaseTests):
/// - `map`, `filter`, `scan`, `removeDuplicates`: per value, as on arrays.
/// - `prefix(n)` passes `n` values and finishes right after the `n`th, in its action (`prefix(0)`
///   finishes when the first value arrives); an earlier completion passes through.
/// - `dropFirst(n)` drops `n` values.
/// - `collect(n)` publishes every `n` values as one array (here packed into one Int, ``pack(_:)``),
///   a partial array before `.finished`, and nothing of the partial array before a failure.
/// - `merge(with: cold)`: Merge subscribes its upstream first and the cold source second, so the
///   source's values come after whatever the upstream sent while being subscribed, and before
///   anything the upstream sends later; the merge finishes when both have finished and fails with
///   the first failure (a source that fails at once ends the stream there).
/// - `combineLatest(cold) { x*100+y }` and `zip(cold) { x*100+y }`: both upstreams are
///   subscribed first (a `Fail` source ends a combineLatest there, before the upstream sends
///   anything; zip hands its subscription down as soon as the `Fail` has sent its own, so the
///   upstream's events in the setup come before the failure); then the downstream's request goes
///   to the upstream, then to the source, so the
///   upstream's events in the setup come first, then the source's, then the upstream's later
///   ones. combineLatest sends the pair of the latest of each once both have one and finishes
///   when both have finished; zip pairs the oldest unpaired of each and finishes as soon as a
///   finished side has nothing left to pair. A failure of either ends the stream at once.
/// - `flatMap` over cold, synchronous children (either `maxPublishers`): each child runs to its
///   end inside the upstream's `receive`, so the result is the concatenation in order; a child's
///   failure fails the stream at once.
/// - `debounce(d)`: each value restarts a timer due `d` later; the latest value goes out when its
///   timer fires with no newer value before it; a completion drops the waiting value and is
///   delivered from an action scheduled at once (same instant).
/// - `throttle(d, latest:)`: a value with nothing waiting is scheduled for
///   `max(now, lastEmission + d)` (the next turn, for the first); values arriving before that
///   emission replace it (`latest: true`) or are ignored (`latest: false`). A completion waits
///   for a waiting value and goes out right after it, in the same action; otherwise it is
///   delivered from an action scheduled at once.
/// - `delay(d)`: every value and the completion (a failure too) is delivered from an action
///   scheduled `d` later.
///
/// Demand is not modelled: the fuzzer only uses demand patterns under which every operator here
/// delivers what it would deliver with unlimited demand (see `FuzzDemand` in
/// DifferentialFuzzTests.swift), so the model is the unlimited-demand result.
enum FuzzModel {
    // MARK: Events

    /// What the subscriber receives: a value, or the completion (a failure carries the code of
    /// its `TestError`).
    enum Kind: Hashable, Sendable, CustomStringConvertible {
        case value(Int)
        case finished
        case failure(Int)

        var isValue: Bool {
            if case .value = self { return true }
            return false
        }

        var description: String {
            switch self {
            case .value(let value): return "\(value)"
            case .finished: return "|"
            case .failure(let code): return "#\(code)"
            }
        }
    }

    /// One event the subscriber received and the virtual time, in ms since the start, it was
    /// received at.
    struct Observed: Hashable, Sendable, CustomStringConvertible {
        var kind: Kind
        var time: Int

        var description: String { "\(kind)@\(time)" }
    }

    /// An event inside the model: what it is, and the action it happens in.
    struct Event {
        var action: Action
        var kind: Kind
    }

    /// The setup (subscribing, before any scheduled action runs), or an action on the test
    /// scheduler: its due time, the action that scheduled it, and its place among the actions
    /// that one scheduled.
    ///
    /// The test scheduler runs actions by due time, and actions due at the same time in the
    /// order they were scheduled. An action is scheduled while another runs (or during the
    /// setup), and actions run one at a time, so "scheduled earlier" means "scheduled by an
    /// action that ran earlier, or earlier by the same action": the order of two actions is
    /// their due times, then the order of their parents (recursively), then their places.
    final class Action {
        /// Due time in ms since the start; the setup's is 0.
        let due: Int
        /// The action that scheduled this one; nil for the setup.
        let parent: Action?
        /// How many actions the parent had scheduled before this one.
        let index: Int
        /// How many actions this one has scheduled so far.
        private var scheduledCount = 0

        /// The setup: the root of every run.
        init() {
            due = 0
            parent = nil
            index = 0
        }

        private init(due: Int, parent: Action, index: Int) {
            self.due = due
            self.parent = parent
            self.index = index
        }

        var isSetup: Bool { parent == nil }

        /// An action this one schedules, due at `time` (the current time if `time` is in the
        /// past, as the test scheduler does). Call in the order the real operator calls
        /// `schedule`.
        func schedule(at time: Int) -> Action {
            defer { scheduledCount += 1 }
            return Action(due: Swift.max(time, due), parent: self, index: scheduledCount)
        }

        /// Whether `a` runs before `b` on the test scheduler (the setup runs before everything).
        static func runsBefore(_ a: Action, _ b: Action) -> Bool {
            order(a, b) < 0
        }

        private static func order(_ a: Action, _ b: Action) -> Int {
            if a === b { return 0 }
            guard let parentA = a.parent else { return -1 }
            guard let parentB = b.parent else { return 1 }
            if a.due != b.due { return a.due < b.due ? -1 : 1 }
            let parents = order(parentA, parentB)
            if parents != 0 { return parents }
            return a.index < b.index ? -1 : 1
        }
    }

    // MARK: Pipeline description

    /// A `map` transform.
    enum MapFunction: Hashable, Sendable, CustomStringConvertible {
        case add(Int)
        case multiply(Int)
        case halve
        case remainder(Int)

        /// Wrapping arithmetic: a long `scan` or `pack` may overflow, and a trap is no finding.
        func callAsFunction(_ x: Int) -> Int {
            switch self {
            case .add(let k): return x &+ k
            case .multiply(let k): return x &* k
            case .halve: return x / 2
            case .remainder(let k): return x % k
            }
        }

        var description: String {
            switch self {
            case .add(let k): return "x+\(k)"
            case .multiply(let k): return "x*\(k)"
            case .halve: return "x/2"
            case .remainder(let k): return "x%\(k)"
            }
        }
    }

    /// A `filter` predicate.
    enum Predicate: Hashable, Sendable, CustomStringConvertible {
        case even
        case odd
        case lessThan(Int)
        case greaterThan(Int)

        func callAsFunction(_ x: Int) -> Bool {
            switch self {
            case .even: return x % 2 == 0
            case .odd: return x % 2 != 0
            case .lessThan(let k): return x < k
            case .greaterThan(let k): return x > k
            }
        }

        var description: String {
            switch self {
            case .even: return "even"
            case .odd: return "odd"
            case .lessThan(let k): return "x<\(k)"
            case .greaterThan(let k): return "x>\(k)"
            }
        }
    }

    /// A `scan` accumulator and its initial result.
    enum Accumulator: Hashable, Sendable, CustomStringConvertible {
        case sum(from: Int)
        case maximum(from: Int)
        /// `acc * 2 + x`: order-sensitive, so a reordering shows.
        case horner(from: Int)

        var initial: Int {
            switch self {
            case .sum(let from), .maximum(let from), .horner(let from): return from
            }
        }

        func callAsFunction(_ accumulated: Int, _ x: Int) -> Int {
            switch self {
            case .sum: return accumulated &+ x
            case .maximum: return Swift.max(accumulated, x)
            case .horner: return accumulated &* 2 &+ x
            }
        }

        var description: String {
            switch self {
            case .sum(let from): return "\(from), acc+x"
            case .maximum(let from): return "\(from), max(acc,x)"
            case .horner(let from): return "\(from), acc*2+x"
            }
        }
    }

    /// A cold source merged in with `merge(with:)`.
    enum Source: Hashable, Sendable, CustomStringConvertible {
        /// `Publishers.Sequence<[Int], TestError>`.
        case sequence([Int])
        /// `Just(x).setFailureType(to: TestError.self)`.
        case just(Int)
        /// `Empty<Int, TestError>()`.
        case empty
        /// `Fail<Int, TestError>(error: TestError(code:))`.
        case fail(Int)

        var values: [Int] {
            switch self {
            case .sequence(let values): return values
            case .just(let value): return [value]
            case .empty, .fail: return []
            }
        }

        var failureCode: Int? {
            if case .fail(let code) = self { return code }
            return nil
        }

        var description: String {
            switch self {
            case .sequence(let values): return "\(values)"
            case .just(let value): return "Just(\(value))"
            case .empty: return "Empty()"
            case .fail(let code): return "Fail(#\(code))"
            }
        }
    }

    /// The cold child `flatMap` makes of each value `x`.
    enum Inner: Hashable, Sendable, CustomStringConvertible {
        /// `[x, x+stride, x+2*stride, ...]`, `count` values (none: an empty sequence).
        case run(count: Int, stride: Int)
        /// `Just(x)`.
        case just
        /// `Just(x)` for an even `x`, `Empty()` for an odd one.
        case justWhenEven
        /// `Fail(#code)` for `x == trigger`, `[x, x]` otherwise.
        case failWhen(Int, code: Int)

        /// The child's values and, if it fails, its failure code.
        func child(for x: Int) -> (values: [Int], failureCode: Int?) {
            switch self {
            case .run(let count, let stride):
                return ((0..<count).map { x &+ $0 &* stride }, nil)
            case .just:
                return ([x], nil)
            case .justWhenEven:
                return (x % 2 == 0 ? [x] : [], nil)
            case .failWhen(let trigger, let code):
                if x == trigger { return ([], code) }
                return ([x, x], nil)
            }
        }

        var description: String {
            switch self {
            case .run(let count, let stride):
                return "(0..<\(count)).map { x+$0*\(stride) }"
            case .just:
                return "Just(x)"
            case .justWhenEven:
                return "x even ? Just(x) : Empty()"
            case .failWhen(let trigger, let code):
                return "x == \(trigger) ? Fail(#\(code)) : [x, x]"
            }
        }
    }

    /// One operator of a pipeline, with its parameters.
    enum Step: Hashable, Sendable, CustomStringConvertible {
        case map(MapFunction)
        case filter(Predicate)
        case scan(Accumulator)
        case prefix(Int)
        case dropFirst(Int)
        case removeDuplicates
        /// `collect(n)`, then `map(pack)` so the pipeline stays one of Ints.
        case collect(Int)
        /// `merge(with:)`; `erased` merges an `AnyPublisher` of the source, which is the
        /// upstream's own type and so picks the `MergeMany` overload instead of `Merge`.
        case merge(Source, erased: Bool)
        /// `flatMap(maxPublishers: maxOne ? .max(1) : .unlimited)`.
        case flatMap(maxOne: Bool, Inner)
        /// `combineLatest(source) { pair($0, $1) }`.
        case combineLatest(Source)
        /// `zip(source) { pair($0, $1) }`.
        case zip(Source)
        case debounce(Int)
        case throttle(Int, latest: Bool)
        case delay(Int)

        var isTimed: Bool {
            switch self {
            case .debounce, .throttle, .delay: return true
            default: return false
            }
        }

        var isDelay: Bool {
            if case .delay = self { return true }
            return false
        }

        var isDropFirst: Bool {
            if case .dropFirst = self { return true }
            return false
        }

        var description: String {
            switch self {
            case .map(let function): return "map(\(function))"
            case .filter(let predicate): return "filter(\(predicate))"
            case .scan(let accumulator): return "scan(\(accumulator))"
            case .prefix(let count): return "prefix(\(count))"
            case .dropFirst(let count): return "dropFirst(\(count))"
            case .removeDuplicates: return "removeDuplicates()"
            case .collect(let count): return "collect(\(count)).map(pack)"
            case .merge(let source, let erased):
                return erased ? "merge(with: AnyPublisher(\(source)))" : "merge(with: \(source))"
            case .flatMap(let maxOne, let inner):
                return "flatMap(maxPublishers: \(maxOne ? ".max(1)" : ".unlimited")) { \(inner) }"
            case .combineLatest(let source): return "combineLatest(\(source)) { x*100+y }"
            case .zip(let source): return "zip(\(source)) { x*100+y }"
            case .debounce(let ms): return "debounce(\(ms)ms)"
            case .throttle(let ms, let latest): return "throttle(\(ms)ms, latest: \(latest))"
            case .delay(let ms): return "delay(\(ms)ms)"
            }
        }
    }

    /// How combineLatest and zip combine an upstream value `x` with a source value `y`: an order
    /// that is swapped, or a value paired with the wrong partner, shows.
    static func pair(_ x: Int, _ y: Int) -> Int {
        x &* 100 &+ y
    }

    /// How `collect(n)` arrays become Ints: the count, then each element, in base 1000
    /// (wrapping), so `[3, 4]` is `2_003_004`. Injective enough that a wrong split or order shows.
    static func pack(_ chunk: [Int]) -> Int {
        chunk.reduce(chunk.count) { $0 &* 1_000 &+ $1 }
    }

    // MARK: Inputs

    /// An upstream value and the virtual time (ms) it is sent at.
    struct Tick: Hashable, Sendable {
        var value: Int
        var time: Int
    }

    /// How the upstream ends.
    enum Terminal: Hashable, Sendable {
        case finished
        case failure(Int)

        var kind: Kind {
            switch self {
            case .finished: return .finished
            case .failure(let code): return .failure(code)
            }
        }
    }

    /// The upstream's events: values at ticks, then (optionally, for a subject) a completion.
    struct Input: Hashable, Sendable {
        var ticks: [Tick]
        /// Nil: the subject never completes (timed pipelines only; a `Record` always completes).
        var terminal: Terminal?
        /// When the completion is sent; not before the last tick.
        var terminalTime: Int
    }

    // MARK: Deliberate flaws

    /// Known-wrong variants of the model, to prove that the fuzzer notices a wrong model (and so
    /// would notice a wrong operator) and shrinks what it finds.
    enum Flaw: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// The model as it should be.
        case faithful
        /// `dropFirst(n)` drops only `n - 1` values.
        case dropFirstDropsOneFewer
        /// `delay(d)` delivers at `d + 1`.
        case delayOneTickLate

        var description: String { rawValue }
    }

    // MARK: Running the model

    /// What the subscriber should record for a pipeline on a `PassthroughSubject` whose events
    /// are sent from actions on the test scheduler, each tick (and the completion) its own
    /// action, all scheduled in order *before* the pipeline is subscribed.
    static func expectedTimed(_ steps: [Step], _ input: Input, flaw: Flaw = .faithful) -> [Observed] {
        let setup = Action()
        var events = input.ticks.map { Event(action: setup.schedule(at: $0.time), kind: .value($0.value)) }
        if let terminal = input.terminal {
            events.append(Event(action: setup.schedule(at: input.terminalTime), kind: terminal.kind))
        }
        for step in steps {
            events = apply(step, to: events, setup: setup, flaw: flaw)
        }
        return events.map { Observed(kind: $0.kind, time: $0.action.due) }
    }

    /// What the subscriber should record for a pipeline on a cold `Record` of the input's values
    /// and completion (`.finished` if none): everything happens while subscribing, at time 0.
    static func expectedSynchronous(_ steps: [Step], _ input: Input, flaw: Flaw = .faithful) -> [Observed] {
        let setup = Action()
        var events = input.ticks.map { Event(action: setup, kind: .value($0.value)) }
        events.append(Event(action: setup, kind: (input.terminal ?? .finished).kind))
        for step in steps {
            events = apply(step, to: events, setup: setup, flaw: flaw)
        }
        return events.map { Observed(kind: $0.kind, time: $0.action.due) }
    }

    /// One step over the array of events (in the order they happen; at most one completion,
    /// last).
    static func apply(_ step: Step, to input: [Event], setup: Action, flaw: Flaw) -> [Event] {
        switch step {
        case .map(let function):
            return input.map { (event: Event) -> Event in
                guard case .value(let value) = event.kind else { return event }
                return Event(action: event.action, kind: .value(function(value)))
            }

        case .filter(let predicate):
            return input.filter { (event: Event) -> Bool in
                guard case .value(let value) = event.kind else { return true }
                return predicate(value)
            }

        case .scan(let accumulator):
            var accumulated = accumulator.initial
            return input.map { (event: Event) -> Event in
                guard case .value(let value) = event.kind else { return event }
                accumulated = accumulator(accumulated, value)
                return Event(action: event.action, kind: .value(accumulated))
            }

        case .removeDuplicates:
            var last: Int?
            return input.filter { (event: Event) -> Bool in
                guard case .value(let value) = event.kind else { return true }
                defer { last = value }
                return last != value
            }

        case .prefix(let count):
            var output: [Event] = []
            var passed = 0
            for event in input {
                guard event.kind.isValue else {
                    output.append(event)
                    break
                }
                if passed < count {
                    output.append(event)
                    passed += 1
                    if passed == count {
                        output.append(Event(action: event.action, kind: .finished))
                        break
                    }
                } else {
                    // `prefix(0)`: the first value finishes the stream, in its action.
                    output.append(Event(action: event.action, kind: .finished))
                    break
                }
            }
            return output

        case .dropFirst(let count):
            var remaining = flaw == .dropFirstDropsOneFewer ? Swift.max(count - 1, 0) : count
            return input.filter { (event: Event) -> Bool in
                guard event.kind.isValue, remaining > 0 else { return true }
                remaining -= 1
                return false
            }

        case .collect(let count):
            var output: [Event] = []
            var buffer: [Int] = []
            for event in input {
                switch event.kind {
                case .value(let value):
                    buffer.append(value)
                    if buffer.count == count {
                        output.append(Event(action: event.action, kind: .value(pack(buffer))))
                        buffer = []
                    }
                case .finished:
                    if !buffer.isEmpty {
                        output.append(Event(action: event.action, kind: .value(pack(buffer))))
                    }
                    output.append(event)
                case .failure:
                    output.append(event)
                }
            }
            return output

        case .merge(let source, _):
            // The upstream is subscribed first: what it sends while being subscribed (its
            // events in the setup) comes first.
            var output: [Event] = []
            var index = 0
            var upstreamEnd: Kind?
            while index < input.count, input[index].action === setup {
                if input[index].kind.isValue {
                    output.append(input[index])
                    index += 1
                } else {
                    upstreamEnd = input[index].kind
                    break
                }
            }
            if case .failure? = upstreamEnd {
                // Failed before the source was subscribed: the source is cancelled unheard.
                output.append(input[index])
                return output
            }
            // Then the source, subscribed second, runs to its end within the setup.
            for value in source.values {
                output.append(Event(action: setup, kind: .value(value)))
            }
            if let code = source.failureCode {
                output.append(Event(action: setup, kind: .failure(code)))
                return output
            }
            if upstreamEnd == .finished {
                output.append(Event(action: setup, kind: .finished))
                return output
            }
            // The source has finished: the rest is the upstream's, its completion included.
            output.append(contentsOf: input[index...])
            return output

        case .flatMap(_, let inner):
            var output: [Event] = []
            for event in input {
                guard case .value(let value) = event.kind else {
                    output.append(event)
                    break
                }
                let child = inner.child(for: value)
                for childValue in child.values {
                    output.append(Event(action: event.action, kind: .value(childValue)))
                }
                if let code = child.failureCode {
                    output.append(Event(action: event.action, kind: .failure(code)))
                    break
                }
            }
            return output

        case .combineLatest(let source):
            return combineLatest(input, with: source, setup: setup)

        case .zip(let source):
            return zip(input, with: source, setup: setup)

        case .debounce(let dueTime):
            var output: [Event] = []
            var waiting: (value: Int, timer: Action)?
            for event in input {
                if let pending = waiting, Action.runsBefore(pending.timer, event.action) {
                    output.append(Event(action: pending.timer, kind: .value(pending.value)))
                    waiting = nil
                }
                switch event.kind {
                case .value(let value):
                    // A new timer; the previous one (if it has not fired) is cancelled.
                    waiting = (value, event.action.schedule(at: event.action.due + dueTime))
                case .finished, .failure:
                    // The waiting value is dropped; the completion goes out from an action
                    // scheduled at once.
                    output.append(Event(action: event.action.schedule(at: event.action.due), kind: event.kind))
                    return output
                }
            }
            if let pending = waiting {
                output.append(Event(action: pending.timer, kind: .value(pending.value)))
            }
            return output

        case .throttle(let interval, let latest):
            var output: [Event] = []
            var waiting: (value: Int, emission: Action)?
            var waitingCompletion: Kind?
            var lastEmission: Int?
            for event in input {
                if let pending = waiting, Action.runsBefore(pending.emission, event.action) {
                    output.append(Event(action: pending.emission, kind: .value(pending.value)))
                    lastEmission = pending.emission.due
                    waiting = nil
                }
                switch event.kind {
                case .value(let value):
                    if let pending = waiting {
                        if latest { waiting = (value, pending.emission) }
                    } else {
                        let now = event.action.due
                        let time = lastEmission.map { Swift.max(now, $0 + interval) } ?? now
                        waiting = (value, event.action.schedule(at: time))
                    }
                case .finished, .failure:
                    if waiting != nil {
                        waitingCompletion = event.kind
                    } else {
                        output.append(Event(action: event.action.schedule(at: event.action.due), kind: event.kind))
                        return output
                    }
                }
                if waitingCompletion != nil { break }
            }
            if let pending = waiting {
                output.append(Event(action: pending.emission, kind: .value(pending.value)))
                if let completion = waitingCompletion {
                    // Right after the value, in the same action.
                    output.append(Event(action: pending.emission, kind: completion))
                }
            }
            return output

        case .delay(let interval):
            let shift = flaw == .delayOneTickLate ? interval + 1 : interval
            return input.map { (event: Event) -> Event in
                Event(action: event.action.schedule(at: event.action.due + shift), kind: event.kind)
            }
        }
    }

    /// The upstream's events in the setup: the first index after them, and whether they ended
    /// with its completion (then `output` holds a failure, or the caller decides on `.finished`).
    private static func setupEvents(of input: [Event], setup: Action,
                                    _ body: (Event) -> Bool) -> Int {
        var index = 0
        while index < input.count, input[index].action === setup {
            let event = input[index]
            index += 1
            if !body(event) { break }
        }
        return index
    }

    /// `combineLatest(source)`; see the semantics above.
    static func combineLatest(_ input: [Event], with source: Source, setup: Action) -> [Event] {
        if let code = source.failureCode {
            return [Event(action: setup, kind: .failure(code))]
        }
        var output: [Event] = []
        var latestUpstream: Int?
        var latestSource: Int?
        var upstreamEnd: Kind?
        let index = setupEvents(of: input, setup: setup) { event in
            switch event.kind {
            case .value(let value): latestUpstream = value
            case .finished, .failure: upstreamEnd = event.kind
            }
            return upstreamEnd == nil
        }
        if case .failure? = upstreamEnd {
            return [input[index - 1]]
        }
        for value in source.values {
            latestSource = value
            if let latestUpstream {
                output.append(Event(action: setup, kind: .value(pair(latestUpstream, value))))
            }
        }
        if upstreamEnd == .finished {
            output.append(Event(action: setup, kind: .finished))
            return output
        }
        // The source has finished: the upstream's completion ends the stream.
        for event in input[index...] {
            guard case .value(let value) = event.kind else {
                output.append(event)
                break
            }
            if let latestSource {
                output.append(Event(action: event.action, kind: .value(pair(value, latestSource))))
            }
        }
        return output
    }

    /// `zip(source)`; see the semantics above.
    static func zip(_ input: [Event], with source: Source, setup: Action) -> [Event] {
        var output: [Event] = []
        var upstreamQueue: [Int] = []
        var upstreamEnd: Kind?
        let index = setupEvents(of: input, setup: setup) { event in
            switch event.kind {
            case .value(let value): upstreamQueue.append(value)
            case .finished, .failure: upstreamEnd = event.kind
            }
            return upstreamEnd == nil
        }
        switch upstreamEnd {
        case .failure?:
            return [input[index - 1]]
        case .finished? where upstreamQueue.isEmpty:
            return [Event(action: setup, kind: .finished)]
        default:
            break
        }
        if let code = source.failureCode {
            // Zip hands the downstream its subscription when the `Fail` has sent its own, so
            // the request reaches the upstream before the failure comes.
            return [Event(action: setup, kind: .failure(code))]
        }
        var sourceQueue: [Int] = []
        for value in source.values {
            sourceQueue.append(value)
            guard !upstreamQueue.isEmpty else { continue }
            output.append(Event(action: setup, kind: .value(pair(upstreamQueue.removeFirst(), sourceQueue.removeFirst()))))
            if upstreamEnd == .finished, upstreamQueue.isEmpty {
                output.append(Event(action: setup, kind: .finished))
                return output
            }
        }
        // The source has finished: with nothing left to pair, so has the zip.
        if sourceQueue.isEmpty {
            output.append(Event(action: setup, kind: .finished))
            return output
        }
        for event in input[index...] {
            switch event.kind {
            case .value(let value):
                upstreamQueue.append(value)
                output.append(Event(action: event.action, kind: .value(pair(upstreamQueue.removeFirst(), sourceQueue.removeFirst()))))
                if sourceQueue.isEmpty {
                    output.append(Event(action: event.action, kind: .finished))
                    return output
                }
            case .finished:
                // Every upstream value has been paired (the source still has some).
                output.append(event)
                return output
            case .failure:
                output.append(event)
                return output
            }
        }
        return output
    }
}
