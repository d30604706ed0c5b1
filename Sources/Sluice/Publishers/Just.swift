/// A publisher that emits an output to each subscriber just once, and then finishes.
///
/// A `Just` publisher can't fail with an error. It delivers its value when the subscriber's
/// first demand arrives, then finishes.
public struct Just<Output>: Publisher {
    public typealias Failure = Never

    /// The one element that the publisher emits.
    public let output: Output

    /// Initializes a publisher that emits the specified output just once.
    @inlinable
    public init(_ output: Output) {
        self.output = output
    }

    @inlinable
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
        subscriber.receive(subscription: JustSubscription(output, subscriber))
    }
}

extension Just: Equatable where Output: Equatable {}

extension Just: Sendable where Output: Sendable {}

/// Delivers a single value and finished on the first request; shared by `Just` and by
/// `Optional.Publisher` and `Result.Publisher` for their value case.
@usableFromInline
internal final class JustSubscription<Downstream: Subscriber>: Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
{
    @usableFromInline
    internal let output: Downstream.Input

    @usableFromInline
    internal let lock = Lock()

    /// The subscriber until the value is delivered or the subscription cancelled.
    @usableFromInline
    @exclusivity(unchecked)
    internal var downstream: Downstream?

    @usableFromInline
    internal let name: String

    /// Delivery specialised for the concrete downstream (see `SequenceSubscription`).
    @usableFromInline
    internal let deliverSpecialized: (JustSubscription) -> Void

    @inlinable
    internal init(_ output: Downstream.Input, _ downstream: Downstream, name: String = "Just") {
        self.output = output
        self.downstream = downstream
        self.name = name
        deliverSpecialized = { $0.deliver() }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        deliverSpecialized(self)
    }

    @inlinable
    internal func deliver() {
        guard let downstream = lock.locked({ self.downstream.take() }) else { return }
        _ = downstream.receive(output)
        downstream.receive(completion: .finished)
    }

    @inlinable
    internal func cancel() {
        _ = lock.locked { downstream.take() }
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, unlabeledChildren: CollectionOfOne(output)) }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
