import Sluice

/// When a subscriber of a marble publisher subscribed, and when and how its subscription
/// ended, measured from the test scheduler's origin.
public struct SubscriptionInterval: Equatable, Sendable, CustomStringConvertible {
    /// How a subscription ended.
    public enum Ending: Equatable, Sendable {
        /// The subscriber cancelled.
        case cancelled
        /// The publisher finished.
        case finished
        /// The publisher failed.
        case failed
    }

    /// When it subscribed.
    public var subscribedAt: Duration
    /// When it ended (cancelled, finished or failed), if it has.
    public var endedAt: Duration?
    /// How it ended, if it has.
    public var ending: Ending?

    /// A subscription made at `subscribedAt` and, when `cancelledAt` is given, cancelled then.
    public init(subscribedAt: Duration, cancelledAt: Duration? = nil) {
        self.subscribedAt = subscribedAt
        self.endedAt = cancelledAt
        self.ending = cancelledAt == nil ? nil : .cancelled
    }

    /// A subscription made at `subscribedAt` that ended at `endedAt`, as `ending` says.
    public init(subscribedAt: Duration, endedAt: Duration, by ending: Ending) {
        self.subscribedAt = subscribedAt
        self.endedAt = endedAt
        self.ending = ending
    }

    /// When the subscriber cancelled, if it did (not when the publisher completed).
    public var cancelledAt: Duration? {
        ending == .cancelled ? endedAt : nil
    }

    /// `0 ..< 300 ms (cancelled)`, `0 ..< 400 ms (finished)`, `1.4 s ... (still subscribed)`.
    public var description: String {
        let start = VirtualTime.format(subscribedAt)
        guard let endedAt, let ending else { return "\(start) ... (still subscribed)" }
        return "\(start) ..< \(VirtualTime.format(endedAt)) (\(ending))"
    }

    /// The subscription as a subscription marble diagram, from the scheduler's origin: `^` where
    /// it subscribed and `!` where it ended, for whatever reason (`"--^---!"`, `"(^!)"`).
    public func marbles(tick: Duration = .seconds(1)) -> String {
        var chart = MarbleChart(tick: tick)
        chart.add(subscription: self)
        return chart.text
    }
}

/// The shared list of subscription intervals.
final class SubscriptionLog: @unchecked Sendable {
    private let lock = Lock()
    private var intervals: [SubscriptionInterval] = []

    var all: [SubscriptionInterval] { lock.locked { intervals } }

    func subscribed(at time: Duration) -> Int {
        lock.locked {
            intervals.append(SubscriptionInterval(subscribedAt: time))
            return intervals.count - 1
        }
    }

    /// Records the end of a subscription; only its first end counts.
    func ended(_ index: Int, at time: Duration, by ending: SubscriptionInterval.Ending) {
        lock.locked {
            if intervals[index].ending == nil {
                intervals[index].endedAt = time
                intervals[index].ending = ending
            }
        }
    }
}

/// What a marble publisher plays: each event's time after the publisher's time zero, and what
/// happens then.
struct MarbleScript<Output, Failure: Error> {
    var events: [(time: Duration, kind: MarbleDiagram<Output, Failure>.Kind)]

    init(diagram: MarbleDiagram<Output, Failure>, tick: Duration) {
        events = diagram.events.map { ($0.time(tick: tick), $0.kind) }
    }

    /// The events of `timeline`, or what is wrong with them as a source.
    init(timeline: [Timeline<Output, Failure>.Event]) throws {
        var completed = false
        var previous: Duration?
        events = []
        for event in timeline {
            if completed { throw MarbleSourceError(message: "nothing can happen after the completion (\(event))") }
            if let previous, event.time < previous {
                throw MarbleSourceError(message: "the events are not in time order (\(event) after \(VirtualTime.format(previous)))")
            }
            previous = event.time
            switch event {
            case .value(let time, let value): events.append((time, .value(value)))
            case .finished(let time): events.append((time, .finished)); completed = true
            case .failure(let time, let error): events.append((time, .failure(error))); completed = true
            case .subscription, .cancel:
                throw MarbleSourceError(message: "a source plays values, finished and failure; \(event) is the subscriber's")
            }
        }
    }

    /// The script as a timeline, for the publisher's `timeline` property.
    var timeline: Timeline<Output, Failure> {
        Timeline(events.map { time, kind in
            switch kind {
            case .value(let value): return .value(at: time, value)
            case .finished: return .finished(at: time)
            case .failure(let error): return .failure(at: time, error)
            }
        })
    }
}

/// A list of timed events that cannot be played.
struct MarbleSourceError: Error, CustomStringConvertible {
    let message: String
    var description: String { "marble source: \(message)" }
}

/// A hot publisher played on a `TestScheduler`, from a marble diagram or a list of timed
/// events: it plays them on the scheduler's clock from the moment the publisher is made,
/// whoever is listening, and a subscriber sees only what happens after it subscribes, like a
/// `PassthroughSubject` (a value that finds no demand is dropped).
///
/// Its time zero (a diagram's `^`, or its first tick; time zero of the events) is the moment the
/// publisher is created; what comes before it happened before anyone could subscribe and is
/// never seen. ``subscriptions`` are measured from the scheduler's origin.
public final class HotMarblePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The diagram being played, if the publisher was made from one.
    public let diagram: MarbleDiagram<Output, Failure>?
    /// What it plays, each event at its time after the publisher's time zero (negative for
    /// what a diagram draws before its `^`).
    public let timeline: Timeline<Output, Failure>
    private let subject = PassthroughSubject<Output, Failure>()
    private let clock: VirtualClock
    private let log = SubscriptionLog()
    private let lock = Lock()
    private var scheduled: [Cancellable] = []

    init(diagram: MarbleDiagram<Output, Failure>?, script: MarbleScript<Output, Failure>, clock: VirtualClock) {
        self.diagram = diagram
        self.clock = clock
        timeline = script.timeline
        let zero = clock.elapsed()
        let subject = self.subject
        scheduled = script.events.filter { $0.time >= .zero }.map { time, kind in
            clock.schedule(zero + time) {
                switch kind {
                case .value(let value): subject.send(value)
                case .finished: subject.send(completion: .finished)
                case .failure(let error): subject.send(completion: .failure(error))
                }
            }
        }
    }

    /// When each subscriber subscribed and when its subscription ended.
    public var subscriptions: [SubscriptionInterval] { log.all }

    /// The scheduler's time now, since its origin.
    var now: Duration { clock.elapsed() }

    /// Stops playing: the events still to come are removed from the scheduler (so that
    /// `pendingActionCount` no longer counts them) and never happen. Subscribers stay
    /// subscribed and get nothing more.
    public func stop() {
        let pending = lock.locked { () -> [Cancellable] in
            defer { scheduled = [] }
            return scheduled
        }
        pending.forEach { $0.cancel() }
    }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subject.receive(subscriber: LoggingSubscriber(downstream: subscriber, log: log, clock: clock))
    }
}

/// Passes everything through, recording when the subscription arrived and when it ended.
private struct LoggingSubscriber<Downstream: Subscriber>: Subscriber {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let log: SubscriptionLog
    let clock: VirtualClock
    let combineIdentifier = CombineIdentifier()
    private let index = IndexBox()

    /// Which entry of the log is this subscriber's (set when its subscription arrives).
    private final class IndexBox: @unchecked Sendable {
        var value: Int?
    }

    init(downstream: Downstream, log: SubscriptionLog, clock: VirtualClock) {
        self.downstream = downstream
        self.log = log
        self.clock = clock
    }

    func receive(subscription: Subscription) {
        let entry = log.subscribed(at: clock.elapsed())
        index.value = entry
        downstream.receive(subscription: LoggedSubscription(upstream: subscription) { [log, clock] in
            log.ended(entry, at: clock.elapsed(), by: .cancelled)
        })
    }

    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }

    func receive(completion: Subscribers.Completion<Failure>) {
        if let entry = index.value {
            log.ended(entry, at: clock.elapsed(), by: completion.ending)
        }
        downstream.receive(completion: completion)
    }
}

extension Subscribers.Completion {
    /// How a subscription that got this completion ended.
    var ending: SubscriptionInterval.Ending {
        if case .failure = self { return .failed }
        return .finished
    }
}

/// The upstream's subscription, described as it is, with its cancel recorded.
private final class LoggedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
    let upstream: Subscription
    let onCancel: () -> Void

    init(upstream: Subscription, onCancel: @escaping () -> Void) {
        self.upstream = upstream
        self.onCancel = onCancel
    }

    func request(_ demand: Subscribers.Demand) { upstream.request(demand) }

    func cancel() {
        onCancel()
        upstream.cancel()
    }

    var description: String { String(describing: upstream) }
}

/// A cold publisher played on a `TestScheduler`, from a marble diagram or a list of timed
/// events: each subscriber gets all of it, starting at the moment it subscribes.
///
/// It respects demand: a value that falls due when the subscriber has no demand waits, in
/// order, until it asks, so operators' demand handling can be tested against it. A cancel
/// removes the subscription's events from the scheduler at once, so `pendingActionCount` right
/// after it counts none of them. Its subscriptions are described as `"MarbleSubscription"`;
/// ``subscriptions`` are measured from the scheduler's origin.
public final class ColdMarblePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The diagram being played, if the publisher was made from one.
    public let diagram: MarbleDiagram<Output, Failure>?
    /// What it plays to each subscriber, each event at its time after the subscription.
    public let timeline: Timeline<Output, Failure>
    private let script: MarbleScript<Output, Failure>
    private let clock: VirtualClock
    private let log = SubscriptionLog()

    init(diagram: MarbleDiagram<Output, Failure>?, script: MarbleScript<Output, Failure>, clock: VirtualClock) {
        self.diagram = diagram
        self.script = script
        self.clock = clock
        timeline = script.timeline
    }

    /// When each subscriber subscribed and when its subscription ended.
    public var subscriptions: [SubscriptionInterval] { log.all }

    /// The scheduler's time now, since its origin.
    var now: Duration { clock.elapsed() }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let start = clock.elapsed()
        let index = log.subscribed(at: start)
        let subscription = ColdMarbleSubscription(downstream: subscriber) { [log, clock] ending in
            log.ended(index, at: clock.elapsed(), by: ending)
        }
        subscriber.receive(subscription: subscription)
        subscription.hold(script.events.map { time, kind in
            clock.schedule(start + time) { [weak subscription] in subscription?.due(kind) }
        })
    }
}

private final class ColdMarbleSubscription<Downstream: Subscriber>: Subscription, CustomStringConvertible,
    @unchecked Sendable
{
    typealias Kind = MarbleDiagram<Downstream.Input, Downstream.Failure>.Kind

    private enum Step {
        case idle
        case value(Downstream, Downstream.Input)
        case completion(Downstream, Subscribers.Completion<Downstream.Failure>)
    }

    private let lock = Lock()
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var pending: [Kind] = []
    private var draining = false
    /// The scheduler's actions for the events still to come.
    private var scheduled: [Cancellable] = []
    private let onEnd: (SubscriptionInterval.Ending) -> Void

    init(downstream: Downstream, onEnd: @escaping (SubscriptionInterval.Ending) -> Void) {
        self.downstream = downstream
        self.onEnd = onEnd
    }

    var description: String { "MarbleSubscription" }

    /// Keeps what cancels the scheduled events, or cancels them at once if the subscription
    /// has already ended.
    func hold(_ actions: [Cancellable]) {
        let live = lock.locked { () -> Bool in
            guard downstream != nil else { return false }
            scheduled = actions
            return true
        }
        if !live { actions.forEach { $0.cancel() } }
    }

    func due(_ kind: Kind) {
        lock.locked { if downstream != nil { pending.append(kind) } }
        drain()
    }

    func request(_ more: Subscribers.Demand) {
        precondition(more > .none, "Invalid request for demand: .none (Combine traps on this too)")
        lock.locked { demand += more }
        drain()
    }

    func cancel() {
        let (previous, actions) = lock.locked { () -> (Downstream?, [Cancellable]) in
            defer {
                downstream = nil
                pending.removeAll()
                scheduled = []
            }
            return (downstream, scheduled)
        }
        actions.forEach { $0.cancel() }
        if previous != nil { onEnd(.cancelled) }
        withExtendedLifetime(previous) {}
    }

    private func drain() {
        let start = lock.locked { () -> Bool in
            if draining { return false }
            draining = true
            return true
        }
        guard start else { return }
        while true {
            let step = lock.locked { () -> Step in
                guard let downstream, let first = pending.first else {
                    draining = false
                    return .idle
                }
                switch first {
                case .value(let value):
                    guard demand > 0 else {
                        draining = false
                        return .idle
                    }
                    demand -= 1
                    pending.removeFirst()
                    return .value(downstream, value)
                case .finished, .failure:
                    pending.removeAll()
                    self.downstream = nil
                    draining = false
                    if case .failure(let error) = first { return .completion(downstream, .failure(error)) }
                    return .completion(downstream, .finished)
                }
            }
            switch step {
            case .idle:
                return
            case .value(let downstream, let value):
                let more = downstream.receive(value)
                lock.locked { demand += more }
            case .completion(let downstream, let completion):
                onEnd(completion.ending)
                downstream.receive(completion: completion)
                return
            }
        }
    }
}

extension TestScheduler {
    /// A hot publisher playing `diagram` on this scheduler from now (or from its `^`); each
    /// character names itself as a `String` value.
    public func hot(_ diagram: String, tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                    filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column)
        -> HotMarblePublisher<String, Never>
    {
        hot(diagram, values: [String: String](), errors: [String: Never](), tick: tick,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A hot publisher playing `diagram` on this scheduler from now (or from its `^`), with
    /// values from `values`; it cannot fail.
    public func hot<Output>(_ diagram: String, values: [String: Output], tick: Duration = .seconds(1),
                            fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                            line: UInt = #line, column: UInt = #column) -> HotMarblePublisher<Output, Never> {
        hot(diagram, values: values, errors: [String: Never](), tick: tick,
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A hot publisher playing `diagram` on this scheduler from now (or from its `^`), with
    /// values from `values` and errors for `#` from `errors`.
    ///
    /// The failure type comes from `errors`, from `failure` (`failure: URLError.self`), or from
    /// the context, so a diagram with no `#` needs no errors dictionary. A diagram that does
    /// not parse (or contains `!`) is reported as a test failure here and plays nothing.
    public func hot<Output, Failure: Error>(_ diagram: String, values: [String: Output] = [:],
                                            errors: [String: Failure] = [:], failure: Failure.Type = Failure.self,
                                            tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                                            filePath: StaticString = #filePath, line: UInt = #line,
                                            column: UInt = #column) -> HotMarblePublisher<Output, Failure> {
        let parsed = parseSource(diagram, values: values, errors: errors, allowsZero: true,
                                 fileID: fileID, filePath: filePath, line: line, column: column)
        return HotMarblePublisher(diagram: parsed, script: MarbleScript(diagram: parsed, tick: tick), clock: VirtualClock(self))
    }

    /// A hot publisher playing `events` on this scheduler, each at its time after now (an
    /// event at a negative time happened before anyone could subscribe); it cannot fail.
    ///
    /// ```swift
    /// let ticks = scheduler.hot(events: [.value(at: .seconds(5), 1), .value(at: .seconds(10), 2)])
    /// ```
    public func hot<Output>(events: [Timeline<Output, Never>.Event], fileID: StaticString = #fileID,
                            filePath: StaticString = #filePath, line: UInt = #line,
                            column: UInt = #column) -> HotMarblePublisher<Output, Never> {
        hot(events: events, failure: Never.self, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A hot publisher playing `events` (values, then at most one `.finished(at:)` or
    /// `.failure(at:_:)`, in time order) on this scheduler, each at its time after now.
    ///
    /// Events out of time order, after the completion, or that are not the source's own
    /// (`.subscription`, `.cancel`) are reported as a test failure here, and it plays nothing.
    public func hot<Output, Failure: Error>(events: [Timeline<Output, Failure>.Event], failure: Failure.Type = Failure.self,
                                            fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                                            line: UInt = #line, column: UInt = #column) -> HotMarblePublisher<Output, Failure> {
        HotMarblePublisher(diagram: nil, script: script(events, fileID: fileID, filePath: filePath, line: line, column: column),
                           clock: VirtualClock(self))
    }

    /// A cold publisher playing `diagram` to each subscriber from the moment it subscribes;
    /// each character names itself as a `String` value.
    public func cold(_ diagram: String, tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                     filePath: StaticString = #filePath, line: UInt = #line, column: UInt = #column)
        -> ColdMarblePublisher<String, Never>
    {
        cold(diagram, values: [String: String](), errors: [String: Never](), tick: tick,
             fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A cold publisher playing `diagram` to each subscriber from the moment it subscribes,
    /// with values from `values`; it cannot fail.
    public func cold<Output>(_ diagram: String, values: [String: Output], tick: Duration = .seconds(1),
                             fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                             line: UInt = #line, column: UInt = #column) -> ColdMarblePublisher<Output, Never> {
        cold(diagram, values: values, errors: [String: Never](), tick: tick,
             fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A cold publisher playing `diagram` to each subscriber from the moment it subscribes,
    /// with values from `values` and errors for `#` from `errors`.
    ///
    /// The failure type comes from `errors`, from `failure` (`failure: URLError.self`), or from
    /// the context (a closure returning `AnyPublisher<[String], URLError>`), so a diagram with
    /// no `#` needs no errors dictionary. A diagram that does not parse (or contains `^` or
    /// `!`) is reported as a test failure here and plays nothing.
    public func cold<Output, Failure: Error>(_ diagram: String, values: [String: Output] = [:],
                                             errors: [String: Failure] = [:], failure: Failure.Type = Failure.self,
                                             tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                                             filePath: StaticString = #filePath, line: UInt = #line,
                                             column: UInt = #column) -> ColdMarblePublisher<Output, Failure> {
        let parsed = parseSource(diagram, values: values, errors: errors, allowsZero: false,
                                 fileID: fileID, filePath: filePath, line: line, column: column)
        return ColdMarblePublisher(diagram: parsed, script: MarbleScript(diagram: parsed, tick: tick), clock: VirtualClock(self))
    }

    /// A cold publisher playing `events` to each subscriber, each at its time after the
    /// subscription; it cannot fail.
    ///
    /// ```swift
    /// let fetch = scheduler.cold(events: [.value(at: .milliseconds(100), "page"), .finished(at: .milliseconds(100))])
    /// ```
    public func cold<Output>(events: [Timeline<Output, Never>.Event], fileID: StaticString = #fileID,
                             filePath: StaticString = #filePath, line: UInt = #line,
                             column: UInt = #column) -> ColdMarblePublisher<Output, Never> {
        cold(events: events, failure: Never.self, fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// A cold publisher playing `events` (values, then at most one `.finished(at:)` or
    /// `.failure(at:_:)`, in time order) to each subscriber, each at its time after the
    /// subscription.
    ///
    /// Events out of time order, after the completion, or that are not the source's own
    /// (`.subscription`, `.cancel`) are reported as a test failure here, and it plays nothing.
    public func cold<Output, Failure: Error>(events: [Timeline<Output, Failure>.Event], failure: Failure.Type = Failure.self,
                                             fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                                             line: UInt = #line, column: UInt = #column) -> ColdMarblePublisher<Output, Failure> {
        ColdMarblePublisher(diagram: nil, script: script(events, fileID: fileID, filePath: filePath, line: line, column: column),
                            clock: VirtualClock(self))
    }

    private func script<Output, Failure>(_ events: [Timeline<Output, Failure>.Event], fileID: StaticString,
                                         filePath: StaticString, line: UInt, column: UInt) -> MarbleScript<Output, Failure> {
        do {
            return try MarbleScript(timeline: events)
        } catch {
            TestFailure.report("\(error)", fileID: fileID, filePath: filePath, line: line, column: column)
            return try! MarbleScript(timeline: [])
        }
    }

    private func parseSource<Output, Failure>(_ text: String, values: [String: Output], errors: [String: Failure],
                                              allowsZero: Bool, fileID: StaticString, filePath: StaticString,
                                              line: UInt, column: UInt) -> MarbleDiagram<Output, Failure> {
        do {
            let diagram = try MarbleDiagram(text, values: values, errors: errors)
            if diagram.cancellation != nil {
                throw MarbleSyntaxError(diagram: text, offset: Array(text).firstIndex(of: "!") ?? 0,
                                        message: "\"!\" (the subscriber's cancel) belongs in expected diagrams, not in a source")
            }
            if !allowsZero, diagram.subscriptionTick != nil {
                throw MarbleSyntaxError(diagram: text, offset: Array(text).firstIndex(of: "^") ?? 0,
                                        message: "a cold diagram starts when it is subscribed to; \"^\" belongs in hot diagrams")
            }
            return diagram
        } catch {
            TestFailure.report("\(error)", fileID: fileID, filePath: filePath, line: line, column: column)
            // An empty diagram always parses.
            return try! MarbleDiagram("", values: values, errors: errors)
        }
    }
}
