/// What a value-by-value operator decides to do with one upstream value.
@usableFromInline
package enum TransformStep<Output, Failure: Error> {
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

    /// The step `body` decides, or a failure with what it throws. Only the `try` operators'
    /// closures throw, and their `Failure` is `Error`.
    @inlinable
    @inline(__always)
    package static func catching(_ body: () throws -> TransformStep) -> TransformStep {
        do {
            return try body()
        } catch {
            return .fail(error as! Failure)
        }
    }
}

/// The per-value logic of an operator that keeps its own subscription object (a `try` operator,
/// or one that can end the stream early). The logic's state is touched only from
/// `receive(_:)`, which the upstream calls serially, so it needs no lock. Its `Failure` is the
/// upstream's, or `Error` for a `try` operator.
@usableFromInline
package protocol ValueTransform {
    associatedtype Upstream: Publisher
    associatedtype Output
    associatedtype Failure: Error

    /// The subscription's description, as Combine names it ("TryMap", "CompactMap", ...).
    var name: String { get }

    mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Failure>

    func convert(_ failure: Upstream.Failure) -> Failure

    /// What Combine's operator does with signals that arrive before the upstream's
    /// subscription (default `.trap`).
    static var beforeSubscription: BeforeSubscriptionPolicy { get }

    /// The children of the subscription's mirror, as Combine's shows them (default: the
    /// downstream alone). `status` names the link's state.
    func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child]
}

/// How a ``TransformSubscription`` treats a value, completion or cancel that arrives before the
/// upstream has sent its subscription. Combine's operators differ here, and tests pin each one.
@usableFromInline
package enum BeforeSubscriptionPolicy {
    /// A value or completion stops the program (a misbehaving upstream), and so does a request
    /// (a subscription that was never handed out cannot be asked legitimately); a cancel ends the
    /// link and the subscription that arrives later is cancelled. Combine's "FilterProducer"
    /// family.
    case trap
    /// A value is dropped (`.none`), a completion ignored, a cancel does nothing. (`DropWhile`)
    case ignore
    /// A value goes through the transform to the downstream; a completion is ignored and a
    /// cancel does nothing. (`TryScan`)
    case process
}

extension ValueTransform {
    @inlinable
    package static var beforeSubscription: BeforeSubscriptionPolicy { .trap }

    @inlinable
    package func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] {
        [(label: "downstream", value: downstream as Any)]
    }

    /// The upstream's failure as this operator's: the same type, or `Error`.
    @inlinable
    package func convert(_ failure: Upstream.Failure) -> Failure {
        failure as! Failure
    }
}

/// One subscription class for every operator built on a ``ValueTransform``: it sits between the
/// upstream and the downstream, forwards demand and cancellation, and ends the stream when the
/// logic says so.
@usableFromInline
package final class TransformSubscription<Downstream: Subscriber, Transform: ValueTransform>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Transform.Output, Downstream.Failure == Transform.Failure
{
    @usableFromInline
    package typealias Input = Transform.Upstream.Output
    @usableFromInline
    package typealias Failure = Transform.Upstream.Failure

    @usableFromInline
    package var transform: Transform

    @usableFromInline
    package let lock = Lock()

    @usableFromInline
    @exclusivity(unchecked)
    package var link: LinkState<Downstream>

    @usableFromInline
    package let name: String

    @usableFromInline
    package let entryPoints: SpecializedEntryPoints

    @inlinable
    package init(downstream: Downstream, transform: Transform) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: TransformSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: TransformSubscription.self).cancelSpecialized() })
        self.transform = transform
        name = transform.name
        link = .awaitingSubscription(downstream)
    }

    @inlinable
    package func receive(subscription: Subscription) {
        let downstream = lock.locked { link.accept(subscription) }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = lock.locked { () -> Downstream? in
            if case .awaitingSubscription(let early) = link {
                switch Transform.beforeSubscription {
                case .trap:
                    preconditionFailure("\(name) received a value before its subscription (a misbehaving upstream)")
                case .ignore:
                    return nil
                case .process:
                    return early
                }
            }
            return link.subscribedDownstream
        }
        guard let downstream else { return .none }
        // The user's closure runs inside `receive(_:)`, and a closure that sends into its own
        // upstream re-enters this method (nested, as Combine allows). So it runs on a copy: no
        // access to `transform` is open while user code runs, a nested call works on a copy of
        // its own, and the outer result is stored last, as Combine's `result = f(result, input)`.
        var working = transform
        let step = working.receive(input)
        transform = working
        switch step {
        case .emit(let output):
            return downstream.receive(output)
        case .skip:
            return .max(1)
        case .emitAndFinish(let output):
            guard let (upstream, downstream) = terminateForEarlyEnd() else { return .none }
            upstream?.cancel()
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
            return .none
        case .finish:
            guard let (upstream, downstream) = terminateForEarlyEnd() else { return .none }
            upstream?.cancel()
            downstream.receive(completion: .finished)
            return .none
        case .fail(let error):
            guard let (upstream, downstream) = terminateForEarlyEnd() else { return .none }
            upstream?.cancel()
            downstream.receive(completion: .failure(error))
            return .none
        }
    }

    /// Ends the link because the logic said so. Under `.process` this can happen before the
    /// upstream's subscription has arrived, when there is no upstream to cancel yet.
    @inlinable
    package func terminateForEarlyEnd() -> (upstream: Subscription?, downstream: Downstream)? {
        let previous = lock.locked { link.terminate() }
        switch previous {
        case .subscribed(let upstream, let downstream):
            return (upstream, downstream)
        case .awaitingSubscription(let downstream) where Transform.beforeSubscription == .process:
            return (nil, downstream)
        default:
            return nil
        }
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        if lock.locked({ link.isAwaitingSubscription }) {
            guard Transform.beforeSubscription == .trap else { return }
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
    package func terminate() -> (subscription: Subscription, downstream: Downstream)? {
        lock.locked { link.terminate() }.live
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    package func cancel() {
        entryPoints.cancel(self)
    }

    /// Under `.trap`, a request before the upstream's subscription has arrived stops the
    /// program, as Combine's "FilterProducer" operators do; the other policies ignore it.
    @inlinable
    package func requestSpecialized(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        var early = false
        let subscription = lock.locked { () -> Subscription? in
            early = link.isAwaitingSubscription
            return link.subscription
        }
        if early, Transform.beforeSubscription == .trap {
            preconditionFailure("\(name) was asked for values before its upstream's subscription arrived")
        }
        subscription?.request(demand)
    }

    /// Under `.trap`, cancelling before the subscription arrives ends the link and the
    /// subscription that arrives later is cancelled; under the other policies such a cancel does
    /// nothing, as in Combine.
    @inlinable
    package func cancelSpecialized() {
        if Transform.beforeSubscription != .trap,
           lock.locked({ link.isAwaitingSubscription }) {
            return
        }
        terminate()?.subscription.cancel()
    }

    @usableFromInline
    package var description: String { name }

    @usableFromInline
    package var customMirror: Mirror {
        let (downstream, status) = lock.locked { () -> (Downstream?, String) in
            switch link {
            case .awaitingSubscription(let downstream): return (downstream, "awaitingSubscription")
            case .subscribed(let upstream, let downstream): return (downstream, "subscribed(\(upstream))")
            case .terminal: return (nil, "terminal")
            }
        }
        return Mirror(self, children: transform.mirrorChildren(downstream: downstream, status: status))
    }
}
