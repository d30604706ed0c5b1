import Sluice
/// A subject that replays its last values to each new subscriber (beyond Combine; RxSwift's
/// `ReplaySubject`).
///
/// It keeps the last `bufferSize` values it sent. A new subscriber starts with those as its
/// backlog and receives them **when its demand arrives**, however long after subscribing that
/// is, then the values sent since. A value sent while a subscriber has no demand is not dropped
/// for it (as `PassthroughSubject` would) but joins its backlog, which keeps the newest
/// `bufferSize` values. After the subject completes, a new subscriber still receives the
/// backlog, then the completion; a completion always waits for the subscriber's backlog to be
/// delivered.
///
/// `send` is safe from any thread: each subscriber receives its values one at a time, in one
/// order shared by all subscribers, and replayed values always come before live ones. An
/// upstream handed to `send(subscription:)` is asked for `.unlimited` at once, so the subject
/// records values even before anyone subscribes.
public final class ReplaySubject<Output, Failure: Error>: Subject, @unchecked Sendable {
    /// How many of the last values are replayed.
    public let bufferSize: Int

    @usableFromInline
    internal let delivery: SubjectDelivery<Output, Failure>

    /// Creates a subject that replays the last `bufferSize` values to new subscribers.
    /// `bufferSize` must not be negative; `0` replays nothing (but still holds a completion back
    /// behind nothing, so it behaves as a `PassthroughSubject`).
    @inlinable
    public init(bufferSize: Int) {
        precondition(bufferSize >= 0, "ReplaySubject requires a non-negative buffer size, got \(bufferSize)")
        self.bufferSize = bufferSize
        delivery = SubjectDelivery(requestsUpstreamEagerly: true, replayCapacity: bufferSize)
    }

    deinit {
        delivery.cancelUpstreams()
    }

    /// Adopts an upstream subscription: asks it for `.unlimited` at once, and cancels it when
    /// the subject goes away.
    @inlinable
    public func send(subscription: Subscription) {
        delivery.add(upstream: subscription)
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery,
                                     name: "ReplaySubject", policy: .replay(capacity: bufferSize))
        let (completion, backlogIsEmpty) = delivery.attachReplaying(conduit)
        if let completion, backlogIsEmpty {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        subscriber.receive(subscription: conduit)
    }

    /// Sends a value to the subscribers (those without demand keep it in their backlog) and
    /// records it for later subscribers.
    @inlinable
    public func send(_ input: Output) {
        delivery.send(input)
    }

    /// Sends a completion signal to the subscribers, each after its backlog. Later values and
    /// completions are ignored.
    @inlinable
    public func send(completion: Subscribers.Completion<Failure>) {
        delivery.send(completion: completion)
    }
}
