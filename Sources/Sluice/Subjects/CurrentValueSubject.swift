import Synchronization

/// A subject that wraps a single value and publishes a new element whenever the value changes.
///
/// A subscriber receives the current value when its first demand arrives, then every later
/// value it has demand for; a subscriber that missed a value for lack of demand receives the
/// then-current value on its next demand. Setting ``value`` sends it. After the subject
/// completes, `send(_:)` changes nothing, while setting `value` still stores it (nothing is
/// published), as in Combine.
public final class CurrentValueSubject<Output, Failure: Error>: Subject {
    @usableFromInline
    internal let delivery = SubjectDelivery<Output, Failure>(requestsUpstreamEagerly: true)

    @usableFromInline
    internal let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked)
    internal var current: Output

    /// The value wrapped by this subject, published as a new element whenever it changes.
    @inlinable
    public var value: Output {
        get { lock.locked { current } }
        set {
            lock.locked { current = newValue }
            delivery.send(newValue)
        }
    }

    /// Creates a current value subject with the given initial value.
    @inlinable
    public init(_ value: Output) {
        current = value
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
                                     name: "CurrentValueSubject",
                                     policy: .currentValue({ [weak self] in self?.value }))
        if let completion = delivery.attach(conduit) {
            subscriber.receive(subscription: Subscriptions.empty)
            subscriber.receive(completion: completion)
            return
        }
        subscriber.receive(subscription: conduit)
    }

    /// Sends a value to the subscribers, and makes it the current value (unless the subject has
    /// completed).
    @inlinable
    public func send(_ input: Output) {
        let completed = lock.locked { () -> Bool in
            if delivery.completed.load(ordering: .acquiring) { return true }
            current = input
            return false
        }
        if !completed {
            delivery.send(input)
        }
    }

    /// Sends a completion signal to the subscribers. Later values and completions are ignored.
    @inlinable
    public func send(completion: Subscribers.Completion<Failure>) {
        delivery.send(completion: completion)
    }
}
