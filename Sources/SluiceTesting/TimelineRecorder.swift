import Sluice

/// A subscriber that records each signal with the virtual time it arrived on a
/// `TestScheduler`, producing a ``Timeline``.
///
/// Times are measured from the recorder's creation. It asks for `demand` when subscribed
/// (`.unlimited` by default, `.none` for none) and for more whenever the test calls
/// ``request(_:)``; ``cancel()`` cancels and records the cancel. It records whatever arrives,
/// even after a completion or cancel, so a publisher that breaks the contract shows it.
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
    private var subscriptions: [Subscription] = []
    private let initialDemand: Subscribers.Demand
    private let elapsed: () -> Duration

    /// A recorder timing signals on `scheduler`; subscribe it to a publisher yourself.
    public init<Time, Options>(scheduler: TestScheduler<Time, Options>, demand: Subscribers.Demand = .unlimited) {
        let start = scheduler.now
        elapsed = { VirtualTime.duration(of: start.distance(to: scheduler.now)) }
        initialDemand = demand
    }

    /// A recorder subscribed to `publisher` at once, timing signals on `scheduler`.
    public convenience init<P: Publisher, Time, Options>(recording publisher: P, on scheduler: TestScheduler<Time, Options>,
                                                         demand: Subscribers.Demand = .unlimited)
        where P.Output == Output, P.Failure == Failure
    {
        self.init(scheduler: scheduler, demand: demand)
        publisher.subscribe(self)
    }

    /// Everything recorded so far.
    public var timeline: Timeline<Output, Failure> { Timeline(lock.locked { events }) }

    /// The time since recording started, on the scheduler's clock.
    public var now: Duration { elapsed() }

    /// Whether a completion has arrived.
    public var isCompleted: Bool { timeline.completion != nil }

    /// Asks the current subscription for more.
    public func request(_ demand: Subscribers.Demand) {
        lock.locked { subscriptions.last }?.request(demand)
    }

    /// Cancels the current subscription, recording the cancel.
    public func cancel() {
        let time = elapsed()
        guard let subscription = lock.locked({ () -> Subscription? in
            guard let last = subscriptions.last else { return nil }
            events.append(.cancel(at: time))
            return last
        }) else { return }
        subscription.cancel()
    }

    public func receive(subscription: Subscription) {
        let time = elapsed()
        lock.locked {
            events.append(.subscription(at: time))
            subscriptions.append(subscription)
        }
        if initialDemand > 0 {
            subscription.request(initialDemand)
        }
    }

    public func receive(_ input: Output) -> Subscribers.Demand {
        let time = elapsed()
        lock.locked { events.append(.value(at: time, input)) }
        return .none
    }

    public func receive(completion: Subscribers.Completion<Failure>) {
        let time = elapsed()
        lock.locked {
            switch completion {
            case .finished: events.append(.finished(at: time))
            case .failure(let error): events.append(.failure(at: time, error))
            }
        }
    }

    /// `TimelineRecorder` and its timeline.
    public var description: String { "TimelineRecorder\(timeline)" }
}

extension Publisher {
    /// Subscribes a ``TimelineRecorder`` timing signals on `scheduler`, and returns it.
    public func recordTimeline<Time, Options>(on scheduler: TestScheduler<Time, Options>,
                                              demand: Subscribers.Demand = .unlimited) -> TimelineRecorder<Output, Failure> {
        TimelineRecorder(recording: self, on: scheduler, demand: demand)
    }
}
