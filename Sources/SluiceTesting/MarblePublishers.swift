import Sluice

/// When a subscriber of a marble publisher subscribed and cancelled, measured from the
/// publisher's time zero.
public struct SubscriptionInterval: Equatable, Sendable, CustomStringConvertible {
    /// When it subscribed.
    public var subscribedAt: Duration
    /// When it cancelled, if it did.
    public var cancelledAt: Duration?

    public init(subscribedAt: Duration, cancelledAt: Duration? = nil) {
        self.subscribedAt = subscribedAt
        self.cancelledAt = cancelledAt
    }

    /// `0 ..< 3 s`, or `0 ...` while still subscribed.
    public var description: String {
        "\(VirtualTime.format(subscribedAt)) " + (cancelledAt.map { "..< \(VirtualTime.format($0))" } ?? "...")
    }
}

/// The clock and scheduling a marble publisher needs, taken from a `TestScheduler`.
struct MarbleClock: @unchecked Sendable {
    /// Virtual time since the clock's zero.
    let now: () -> Duration
    /// Runs an action at a virtual time (since zero); a time in the past runs at the next advance.
    let schedule: (Duration, @escaping () -> Void) -> Void

    init<Time, Options>(_ scheduler: TestScheduler<Time, Options>) {
        let zero = scheduler.now
        now = { VirtualTime.duration(of: zero.distance(to: scheduler.now)) }
        schedule = { time, action in
            scheduler.schedule(after: zero.advanced(by: VirtualTime.stride(of: time)), tolerance: .zero, options: nil, action)
        }
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

    func cancelled(_ index: Int, at time: Duration) {
        lock.locked {
            if intervals[index].cancelledAt == nil { intervals[index].cancelledAt = time }
        }
    }
}

/// A hot publisher played from a marble diagram on a `TestScheduler`: the diagram runs on the
/// scheduler's clock from the moment the publisher is made, whoever is listening, and a
/// subscriber sees only what happens after it subscribes, like a `PassthroughSubject`
/// (a value that finds no demand is dropped).
///
/// `^` marks time zero, the moment the publisher is created; events before it happened before
/// anyone could subscribe and are never seen.
public final class HotMarblePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The diagram being played.
    public let diagram: MarbleDiagram<Output, Failure>
    private let subject = PassthroughSubject<Output, Failure>()
    private let clock: MarbleClock
    private let log = SubscriptionLog()

    init(diagram: MarbleDiagram<Output, Failure>, clock: MarbleClock, tick: Duration) {
        self.diagram = diagram
        self.clock = clock
        for event in diagram.events where event.tick >= 0 {
            let subject = self.subject
            clock.schedule(tick * event.tick) {
                switch event.kind {
                case .value(let value): subject.send(value)
                case .finished: subject.send(completion: .finished)
                case .failure(let error): subject.send(completion: .failure(error))
                }
            }
        }
    }

    /// When each subscriber subscribed and cancelled.
    public var subscriptions: [SubscriptionInterval] { log.all }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subject.receive(subscriber: LoggingSubscriber(downstream: subscriber, log: log, clock: clock))
    }
}

/// Passes everything through, recording when the subscription arrived and when it is cancelled.
private struct LoggingSubscriber<Downstream: Subscriber>: Subscriber {
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let log: SubscriptionLog
    let clock: MarbleClock
    let combineIdentifier = CombineIdentifier()

    func receive(subscription: Subscription) {
        let index = log.subscribed(at: clock.now())
        downstream.receive(subscription: LoggedSubscription(upstream: subscription) { [log, clock] in
            log.cancelled(index, at: clock.now())
        })
    }

    func receive(_ input: Input) -> Subscribers.Demand { downstream.receive(input) }

    func receive(completion: Subscribers.Completion<Failure>) { downstream.receive(completion: completion) }
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

/// A cold publisher played from a marble diagram on a `TestScheduler`: each subscriber gets the
/// whole diagram, starting at the moment it subscribes.
///
/// It respects demand: a value that falls due when the subscriber has no demand waits, in
/// order, until it asks, so operators' demand handling can be tested against it. Its
/// subscriptions are described as `"MarbleSubscription"`.
public final class ColdMarblePublisher<Output, Failure: Error>: Publisher, @unchecked Sendable {
    /// The diagram being played.
    public let diagram: MarbleDiagram<Output, Failure>
    private let clock: MarbleClock
    private let tick: Duration
    private let log = SubscriptionLog()

    init(diagram: MarbleDiagram<Output, Failure>, clock: MarbleClock, tick: Duration) {
        self.diagram = diagram
        self.clock = clock
        self.tick = tick
    }

    /// When each subscriber subscribed and cancelled.
    public var subscriptions: [SubscriptionInterval] { log.all }

    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        let start = clock.now()
        let index = log.subscribed(at: start)
        let subscription = ColdMarbleSubscription(downstream: subscriber) { [log, clock] in
            log.cancelled(index, at: clock.now())
        }
        subscriber.receive(subscription: subscription)
        for event in diagram.events {
            clock.schedule(start + tick * event.tick) { [weak subscription] in subscription?.due(event.kind) }
        }
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
    private let onCancel: () -> Void

    init(downstream: Downstream, onCancel: @escaping () -> Void) {
        self.downstream = downstream
        self.onCancel = onCancel
    }

    var description: String { "MarbleSubscription" }

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
        let (previous, wasLive) = lock.locked { () -> (Downstream?, Bool) in
            defer {
                downstream = nil
                pending.removeAll()
            }
            return (downstream, downstream != nil)
        }
        if wasLive { onCancel() }
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
    /// A diagram that does not parse (or contains `!`) is reported as a test failure here and
    /// plays nothing.
    public func hot<Output, Failure: Error>(_ diagram: String, values: [String: Output], errors: [String: Failure],
                                            tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                                            filePath: StaticString = #filePath, line: UInt = #line,
                                            column: UInt = #column) -> HotMarblePublisher<Output, Failure> {
        let parsed = parseSource(diagram, values: values, errors: errors, allowsZero: true,
                                 fileID: fileID, filePath: filePath, line: line, column: column)
        return HotMarblePublisher(diagram: parsed, clock: MarbleClock(self), tick: tick)
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
    /// A diagram that does not parse (or contains `^` or `!`) is reported as a test failure
    /// here and plays nothing.
    public func cold<Output, Failure: Error>(_ diagram: String, values: [String: Output], errors: [String: Failure],
                                             tick: Duration = .seconds(1), fileID: StaticString = #fileID,
                                             filePath: StaticString = #filePath, line: UInt = #line,
                                             column: UInt = #column) -> ColdMarblePublisher<Output, Failure> {
        let parsed = parseSource(diagram, values: values, errors: errors, allowsZero: false,
                                 fileID: fileID, filePath: filePath, line: line, column: column)
        return ColdMarblePublisher(diagram: parsed, clock: MarbleClock(self), tick: tick)
    }

    private func parseSource<Output, Failure>(_ text: String, values: [String: Output], errors: [String: Failure],
                                              allowsZero: Bool, fileID: StaticString, filePath: StaticString,
                                              line: UInt, column: UInt) -> MarbleDiagram<Output, Failure> {
        do {
            let diagram = try MarbleDiagram(text, values: values, errors: errors)
            if diagram.cancellationTick != nil {
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
