/// A subject that broadcasts elements to downstream subscribers.
///
/// Unlike ``CurrentValueSubject``, a `PassthroughSubject` doesn't have an initial value or a
/// buffer of the most recently-published element. It drops values for a subscriber that has no
/// demand when they are sent, as Combine does, and it delivers to subscribers in the order they
/// subscribed (Combine leaves that order unspecified).
///
/// `send` is safe from any thread: each subscriber receives its values one at a time, in one
/// order shared by all subscribers, and the completion after every value sent before it. A
/// `send` from inside a subscriber is delivered at once, nested, as in Combine.
public final class PassthroughSubject<Output, Failure: Error>: Subject {
    @usableFromInline
    internal let delivery = SubjectDelivery<Output, Failure>(requestsUpstreamEagerly: false)

    /// Creates a subject.
    @inlinable
    public init() {}

    deinit {
        delivery.cancelUpstreams()
    }

    /// Adopts an upstream subscription; it is asked for `.unlimited` once any subscriber has
    /// asked for values, and cancelled when the subject goes away.
    @inlinable
    public func send(subscription: Subscription) {
        delivery.add(upstream: subscription)
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, Failure == S.Failure {
        let conduit = SubjectConduit(subscriber, parent: self, delivery: delivery,
                                     name: "PassthroughSubject", policy: .dropWithoutDemand)
        if let completion = delivery.attach(conduit) {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        subscriber.receive(subscription: conduit)
    }

    /// Sends a value to the subscribers that have demand for it.
    @inlinable
    public func send(_ input: Output) {
        delivery.send(input)
    }

    /// Sends a completion signal to the subscribers. Later values and completions are ignored.
    @inlinable
    public func send(completion: Subscribers.Completion<Failure>) {
        delivery.send(completion: completion)
    }
}
