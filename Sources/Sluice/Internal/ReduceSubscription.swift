/// What an operator that reduces the whole stream to one result decides about one value.
@usableFromInline
internal enum ReduceStep<Failure: Error> {
    /// Keep going.
    case proceed
    /// The result is decided (`first`, `contains`, a false `allSatisfy`): stop the upstream.
    case finish
    /// Stop the upstream and fail.
    case fail(Failure)
}

/// The logic of an operator that consumes its whole upstream and publishes at most one result
/// (`reduce`, `count`, `collect()`, `min`, `first`, `last`, `contains`, `allSatisfy`, ...).
/// Touched only from `receive(_:)` and, once the upstream is done, from completion; both are
/// serial, so it needs no lock.
@usableFromInline
internal protocol ReduceLogic {
    associatedtype Input
    associatedtype Output
    associatedtype UpstreamFailure: Error
    associatedtype Failure: Error

    /// The subscription's description, as Combine names it ("Reduce", "Count", ...).
    var name: String { get }

    mutating func receive(_ input: Input) -> ReduceStep<Failure>

    /// The value to publish when the stream ends, if any.
    var result: Output? { get }

    /// The starting value, shown in the subscription's mirror (`nil` where there is none).
    var initial: Output? { get }

    func convert(_ failure: UpstreamFailure) -> Failure
}

extension ReduceLogic {
    @inlinable
    internal var initial: Output? { nil }
}

/// One subscription class for every ``ReduceLogic`` operator, with Combine's demand behaviour:
/// it hands itself downstream, then asks the upstream for `.unlimited` at once; downstream
/// demand is never forwarded, only remembered. When the upstream finishes, the result (and
/// `.finished`) go out as soon as the downstream has asked for anything, or at once if the
/// upstream produced nothing. A failure goes out at once.
@usableFromInline
internal final class ReduceSubscription<Downstream: Subscriber, Logic: ReduceLogic>:
    Subscriber, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
    where Downstream.Input == Logic.Output, Downstream.Failure == Logic.Failure
{
    @usableFromInline
    internal typealias Input = Logic.Input
    @usableFromInline
    internal typealias Failure = Logic.UpstreamFailure

    @usableFromInline
    internal enum State {
        case awaitingSubscription(Downstream)
        case subscribed(Subscription, Downstream)
        /// The upstream is done and the result is ready, but the downstream has not asked yet.
        case awaitingDemand(Downstream, result: Logic.Output?)
        case terminal
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var state: State
    @usableFromInline @exclusivity(unchecked)
    internal var demanded = false
    @usableFromInline @exclusivity(unchecked)
    internal var receivedValue = false
    @usableFromInline
    internal var logic: Logic
    @usableFromInline
    internal let name: String

    @inlinable
    internal init(downstream: Downstream, logic: Logic) {
        state = .awaitingSubscription(downstream)
        self.logic = logic
        name = logic.name
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { () -> Downstream? in
            guard case .awaitingSubscription(let downstream) = state else { return nil }
            state = .subscribed(subscription, downstream)
            return downstream
        }
        guard let downstream else {
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let live = lock.locked { () -> Bool in
            guard case .subscribed = state else { return false }
            receivedValue = true
            return true
        }
        guard live else { return .none }
        switch logic.receive(input) {
        case .proceed:
            break
        case .finish:
            if let upstream = finishUpstream() {
                upstream.cancel()
                publishResult()
            }
        case .fail(let error):
            if let upstream = finishUpstream() {
                upstream.cancel()
                fail(error)
            }
        }
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        guard finishUpstream() != nil else { return }
        switch completion {
        case .finished:
            publishResult()
        case .failure(let error):
            fail(logic.convert(error))
        }
    }

    /// Detaches from the upstream, returning it if this call ended the subscribed phase.
    @inlinable
    internal func finishUpstream() -> Subscription? {
        lock.locked { () -> Subscription? in
            guard case .subscribed(let upstream, let downstream) = state else { return nil }
            state = .awaitingDemand(downstream, result: nil)
            return upstream
        }
    }

    @inlinable
    internal func publishResult() {
        let result = logic.result
        let ready = lock.locked { () -> Downstream? in
            guard case .awaitingDemand(let downstream, _) = state else { return nil }
            if demanded || !receivedValue {
                state = .terminal
                return downstream
            }
            state = .awaitingDemand(downstream, result: result)
            return nil
        }
        guard let downstream = ready else { return }
        if let result {
            _ = downstream.receive(result)
        }
        downstream.receive(completion: .finished)
    }

    @inlinable
    internal func fail(_ error: Logic.Failure) {
        let downstream = lock.locked { () -> Downstream? in
            guard case .awaitingDemand(let downstream, _) = state else { return nil }
            state = .terminal
            return downstream
        }
        downstream?.receive(completion: .failure(error))
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let ready = lock.locked { () -> (Downstream, Logic.Output?)? in
            demanded = true
            guard case .awaitingDemand(let downstream, let result) = state, receivedValue else { return nil }
            state = .terminal
            return (downstream, result)
        }
        guard let (downstream, result) = ready else { return }
        if let result {
            _ = downstream.receive(result)
        }
        downstream.receive(completion: .finished)
    }

    @inlinable
    internal func cancel() {
        let previous = lock.locked { () -> State in
            defer { state = .terminal }
            return state
        }
        if case .subscribed(let upstream, _) = previous {
            upstream.cancel()
        }
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror {
        let (downstream, status) = lock.locked { () -> (Downstream?, String) in
            switch state {
            case .awaitingSubscription(let downstream): return (downstream, "awaiting subscription")
            case .subscribed(_, let downstream): return (downstream, "subscribed")
            case .awaitingDemand(let downstream, _): return (downstream, "awaiting demand")
            case .terminal: return (nil, "terminal")
            }
        }
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "result": logic.result as Any,
            "initial": logic.initial as Any,
            "status": status,
        ])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}

extension ReduceLogic where UpstreamFailure == Failure {
    @inlinable
    internal func convert(_ failure: UpstreamFailure) -> Failure { failure }
}

extension ReduceLogic where Failure == Error {
    @inlinable
    internal func convert(_ failure: UpstreamFailure) -> Failure { failure }
}
