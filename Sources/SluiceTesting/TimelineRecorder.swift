import Sluice

/// A subscriber that records each signal with the virtual time it arrived on a
/// `TestScheduler`, producing a ``Timeline``.
///
/// Times are measured from the scheduler's origin (the instant its clock started at), not from
/// the recorder's creation: a recorder made after the test has advanced the clock by 1.4 s
/// records its subscription at 1.4 s, so several recorders of one run, made at different times,
/// read one clock. It asks for `initialDemand` when subscribed (`.unlimited` by default,
/// `.none` for none) and for more whenever the test calls ``request(_:)``; ``cancel()`` cancels
/// and records the cancel. It records whatever arrives, even after a completion or cancel, so a
/// publisher that breaks the contract shows it. With each event it notes the scheduler action
/// it happened in (``Timeline/actions``).
///
/// ```swift
/// let scheduler = DispatchQueue.test
/// let recorder = TimelineRecorder(recording: query.debounce(for: .milliseconds(300), scheduler: scheduler),
///                                 on: scheduler)
/// query.send("swift")
/// scheduler.advance(by: .seconds(1))
/// #expect(recorder.timeline == [.subscription(at: .zero), .value(at: .milliseconds(300), "swift")])
/// ```
public final class TimelineRecorder<Output, Failure: Error>: Subscriber, Cancellable, CustomStringConvertible,
    @unchecked Sendable
{
    private let lock = Lock()
    private var events: [Timeline<Output, Failure>.Event] = []
    private var stamps: [RecordingStamp] = []
    private var subscriptions: [Subscription] = []
    private let initialDemand: Subscribers.Demand
    /// The scheduler's clock, read for each event.
    let clock: VirtualClock

    /// A recorder timing signals on `scheduler`; subscribe it to a publisher yourself.
    public init<Time, Options>(scheduler: TestScheduler<Time, Options>, initialDemand: Subscribers.Demand = .unlimited) {
        clock = VirtualClock(scheduler)
        self.initialDemand = initialDemand
    }

    /// A recorder subscribed to `publisher` at once, timing signals on `scheduler`.
    public convenience init<P: Publisher, Time, Options>(recording publisher: P, on scheduler: TestScheduler<Time, Options>,
                                                         initialDemand: Subscribers.Demand = .unlimited)
        where P.Output == Output, P.Failure == Failure
    {
        self.init(scheduler: scheduler, initialDemand: initialDemand)
        publisher.subscribe(self)
    }

    /// The earlier spelling of `init(scheduler:initialDemand:)`.
    @available(*, deprecated, renamed: "init(scheduler:initialDemand:)")
    public convenience init<Time, Options>(scheduler: TestScheduler<Time, Options>, demand: Subscribers.Demand) {
        self.init(scheduler: scheduler, initialDemand: demand)
    }

    /// The earlier spelling of `init(recording:on:initialDemand:)`.
    @available(*, deprecated, renamed: "init(recording:on:initialDemand:)")
    public convenience init<P: Publisher, Time, Options>(recording publisher: P, on scheduler: TestScheduler<Time, Options>,
                                                         demand: Subscribers.Demand)
        where P.Output == Output, P.Failure == Failure
    {
        self.init(recording: publisher, on: scheduler, initialDemand: demand)
    }

    /// Everything recorded so far.
    public var timeline: Timeline<Output, Failure> {
        lock.locked { Timeline(events, stamps: stamps) }
    }

    /// The scheduler's time now, since its origin.
    public var now: Duration { clock.elapsed() }

    /// Whether a completion has arrived.
    public var isCompleted: Bool { timeline.completion != nil }

    /// Asks the current subscription for more.
    public func request(_ demand: Subscribers.Demand) {
        lock.locked { subscriptions.last }?.request(demand)
    }

    /// Cancels the current subscription, recording the cancel.
    public func cancel() {
        let (time, stamp) = clock.stamp()
        guard let subscription = lock.locked({ () -> Subscription? in
            guard let last = subscriptions.last else { return nil }
            record(.cancel(at: time), stamp)
            return last
        }) else { return }
        subscription.cancel()
    }

    public func receive(subscription: Subscription) {
        let (time, stamp) = clock.stamp()
        lock.locked {
            record(.subscription(at: time), stamp)
            subscriptions.append(subscription)
        }
        if initialDemand > 0 {
            subscription.request(initialDemand)
        }
    }

    public func receive(_ input: Output) -> Subscribers.Demand {
        let (time, stamp) = clock.stamp()
        lock.locked { record(.value(at: time, input), stamp) }
        return .none
    }

    public func receive(completion: Subscribers.Completion<Failure>) {
        let (time, stamp) = clock.stamp()
        lock.locked {
            switch completion {
            case .finished: record(.finished(at: time), stamp)
            case .failure(let error): record(.failure(at: time, error), stamp)
            }
        }
    }

    /// Appends an event; called with the lock held.
    private func record(_ event: Timeline<Output, Failure>.Event, _ stamp: RecordingStamp) {
        events.append(event)
        stamps.append(stamp)
    }

    /// `TimelineRecorder` and its timeline.
    public var description: String { "TimelineRecorder\(timeline)" }
}

extension Publisher {
    /// Subscribes a ``TimelineRecorder`` timing signals on `scheduler`, and returns it.
    public func recordTimeline<Time, Options>(on scheduler: TestScheduler<Time, Options>,
                                              initialDemand: Subscribers.Demand = .unlimited)
        -> TimelineRecorder<Output, Failure>
    {
        TimelineRecorder(recording: self, on: scheduler, initialDemand: initialDemand)
    }

    /// The earlier spelling of `recordTimeline(on:initialDemand:)`.
    @available(*, deprecated, renamed: "recordTimeline(on:initialDemand:)")
    public func recordTimeline<Time, Options>(on scheduler: TestScheduler<Time, Options>,
                                              demand: Subscribers.Demand) -> TimelineRecorder<Output, Failure> {
        TimelineRecorder(recording: self, on: scheduler, initialDemand: demand)
    }
}

/// A `TestScheduler`'s clock and scheduling, with its time types erased: what recorders and
/// marble publishers need. Every time here is a duration since the scheduler's origin.
struct VirtualClock: @unchecked Sendable {
    /// The time now.
    let elapsed: () -> Duration
    /// The scheduler action running now, if any.
    let runningAction: () -> TestSchedulerAction?
    /// Runs an action at a time (one in the past runs at the next advance); the result
    /// cancels it, removing it from the scheduler.
    let schedule: (Duration, @escaping () -> Void) -> Cancellable

    init<Time, Options>(_ scheduler: TestScheduler<Time, Options>) {
        let origin = scheduler.origin
        elapsed = { scheduler.elapsed }
        runningAction = { scheduler.runningAction }
        schedule = { time, action in
            scheduler.scheduleCancellable(after: origin.advanced(by: VirtualTime.stride(of: time)), action)
        }
    }

    /// The time now and a stamp for an event recorded now.
    func stamp() -> (Duration, RecordingStamp) {
        (elapsed(), RecordingStamp.now(in: runningAction()))
    }
}
