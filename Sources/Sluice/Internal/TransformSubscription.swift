/// What a value-by-value operator decides to do with one upstream value.
@usableFromInline
internal enum TransformStep<Output, Failure: Error> {
    /// Send this value downstream; the downstream's answer is the operator's answer.
    case emit(Output)
    /// Send nothing and ask the upstream for one more value in its place.
    case skip
    /// Send this value, then cancel the upstream and finish.
    case emitAndFinish(Output)
    /// Cancel the upstream and finish without sending anything.
    case finish
    /// Cancel the upstream and fail.
    case fail(Failure)
}

/// The per-value logic of an operator that keeps its own subscription object (a `try` operator,
/// or one that can end the stream early). The logic's state is touched only from
/// `receive(_:)`, which the upstream calls serially, so it needs no lock.
@usableFromInline
internal protocol ValueTransform {
    associatedtype Input
    associatedtype Output
    associatedtype UpstreamFailure: Error
    associatedtype Failure: Error

    /// The subscription's description, as Combine names it ("TryMap", "CompactMap", ...).
    var name: String { get }

    mutating func receive(_ input: Input) -> TransformStep<Output, Failure>

    func convert(_ failure: UpstreamFailure) -> Failure
}

extension ValueTransform where UpstreamFailure == Failure {
    @inlinable
    internal func convert(_ failure: UpstreamFailure) -> Failure { failure }
}

extension ValueTransform where Failure == Error {
    @inlinable
    internal func convert(_ failure: UpstreamFailure) -> Failure { failure }
}

/// One subscription class for every operator built on a ``ValueTransform``: it sits between the
/// upstream and the downstream, forwards demand and cancellation, and ends the stream when the
/// logic says so.
@usableFromInline
internal final class TransformSubscription<Downstream: Subscriber, Transform: ValueTransform>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Transform.Output, Downstream.Failure == Transform.Failure
{
    @usableFromInline
    internal typealias Input = Transform.Input
    @usableFromInline
    internal typealias Failure = Transform.UpstreamFailure

    @usableFromInline
    internal var transform: Transform

    @usableFromInline
    internal let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked)
    internal var link: LinkState<Downstream>

    @usableFromInline
    internal let name: String

    @inlinable
    internal init(downstream: Downstream, transform: Transform) {
        self.transform = transform
        name = transform.name
        link = .awaitingSubscription(downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { link.accept(subscription) }
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = lock.locked { () -> Downstream? in
            if case .awaitingSubscription = link {
                preconditionFailure("\(name) received a value before its subscription (a misbehaving upstream)")
            }
            return link.subscribedDownstream
        }
        guard let downstream else { return .none }
        switch transform.receive(input) {
        case .emit(let output):
            return downstream.receive(output)
        case .skip:
            return .max(1)
        case .emitAndFinish(let output):
            guard let (upstream, downstream) = terminate() else { return .none }
            upstream.cancel()
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
            return .none
        case .finish:
            guard let (upstream, downstream) = terminate() else { return .none }
            upstream.cancel()
            downstream.receive(completion: .finished)
            return .none
        case .fail(let error):
            guard let (upstream, downstream) = terminate() else { return .none }
            upstream.cancel()
            downstream.receive(completion: .failure(error))
            return .none
        }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        if lock.locked({ if case .awaitingSubscription = link { return true } else { return false } }) {
            preconditionFailure("\(name) received a completion before its subscription (a misbehaving upstream)")
        }
        guard let (_, downstream) = terminate() else { return }
        switch completion {
        case .finished:
            downstream.receive(completion: .finished)
        case .failure(let error):
            downstream.receive(completion: .failure(transform.convert(error)))
        }
    }

    @inlinable
    internal func terminate() -> (subscription: Subscription, downstream: Downstream)? {
        lock.locked { link.terminate() }.live
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        lock.locked { link.subscription }?.request(demand)
    }

    /// Cancelling before the subscription arrives ends the link; the subscription that arrives
    /// later is cancelled.

    @inlinable
    internal func cancel() {
        terminate()?.subscription.cancel()
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror {
        Mirror(self, children: ["downstream": lock.locked { link.downstream } as Any])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
