/// What an operator that reduces the whole stream to one result decides about one value.
@usableFromInline
package enum ReduceStep<Failure: Error> {
    /// Keep going.
    case proceed
    /// The result is decided (`first`, `contains`, a false `allSatisfy`): stop the upstream.
    case finish
    /// Stop the upstream and fail.
    case fail(Failure)

    /// The step `body` decides, or a failure with what it throws. Only the `try` operators'
    /// closures throw, and their `Failure` is `Error`.
    @inlinable
    @inline(__always)
    package static func catching(_ body: () throws -> ReduceStep) -> ReduceStep {
        do {
            return try body()
        } catch {
            return .fail(error as! Failure)
        }
    }
}

/// The logic of an operator that consumes its whole upstream and publishes at most one result
/// (`reduce`, `count`, `collect()`, `min`, `first`, `last`, `contains`, `allSatisfy`, ...).
/// Touched only from `receive(_:)` and, once the upstream is done, from completion; both are
/// serial, so it needs no lock.
///
/// Its `Failure` is the upstream's, or `Error` for a `try` operator.
@usableFromInline
package protocol ReduceLogic {
    associatedtype Upstream: Publisher
    associatedtype Output
    associatedtype Failure: Error

    /// The subscription's description, as Combine names it ("Reduce", "Count", ...).
    var name: String { get }

    mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure>

    /// The value to publish when the stream ends, if any.
    var result: Output? { get }

    /// The starting value, shown in the subscription's mirror (`nil` where there is none).
    var initial: Output? { get }

    /// Mirror children that replace the standard reduce-like set (downstream, result, initial,
    /// status) for an operator whose Combine mirror differs (`collect()` shows only `count`);
    /// `nil` keeps the standard set.
    var mirrorChildren: [(label: String, value: Any)]? { get }

    func convert(_ failure: Upstream.Failure) -> Failure

    /// Whether `receive(_:)` calls user code (a closure, or an `Equatable`/`Comparable`
    /// conformance), which may re-enter the subscription. Default `true`.
    static var runsUserCode: Bool { get }
}

extension ReduceLogic {
    @inlinable
    package static var runsUserCode: Bool { true }

    @inlinable
    package var initial: Output? { nil }

    @inlinable
    package var mirrorChildren: [(label: String, value: Any)]? { nil }

    /// The upstream's failure as this operator's: the same type, or `Error`.
    @inlinable
    package func convert(_ failure: Upstream.Failure) -> Failure {
        failure as! Failure
    }
}

/// One subscription class for every ``ReduceLogic`` operator, with Combine's demand behaviour:
/// it hands itself downstream, then asks the upstream for `.unlimited` at once; downstream
/// demand is never forwarded, only remembered. When the upstream finishes, the result (and
/// `.finished`) go out as soon as the downstream has asked for anything: also when the upstream
/// produced nothing, so an empty upstream's `first()` holds its bare `.finished` until demand
/// arrives, as Combine's does. A failure goes out at once.
///
/// Every decision (deliver now, hold until demand, fail) is taken in the same critical section
/// that leaves `.subscribed`, so a `request` racing with the end of the stream sees either
/// "still running" or the finished result, never a half-finished state.
@usableFromInline
package final class ReduceSubscription<Downstream: Subscriber, Logic: ReduceLogic>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Logic.Output, Downstream.Failure == Logic.Failure
{
    @usableFromInline
    package typealias Input = Logic.Upstream.Output
    @usableFromInline
    package typealias Failure = Logic.Upstream.Failure

    @usableFromInline
    package enum State {
        case awaitingSubscription(Downstream)
        case subscribed(Subscription, Downstream)
        /// The result is decided (the upstream finished, or the logic ended the stream early),
        /// but the downstream has not asked yet.
        case awaitingDemand(Downstream, result: Logic.Output?)
        /// Sending the result and `.finished`; a cancel from inside the downstream's
        /// `receive(_:)` moves on to `terminal`, and then `.finished` is not sent.
        case delivering(Downstream)
        /// Cancelled before the upstream's subscription arrived. Combine ignores such a cancel
        /// and still asks the late subscription for `.unlimited`; Sluice makes that same request
        /// (what the upstream observes) but forwards nothing downstream.
        case cancelledBeforeSubscription
        case terminal
    }

    @usableFromInline
    package let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    package var state: State
    @usableFromInline @exclusivity(unchecked)
    package var demanded = false
    @usableFromInline
    package var logic: Logic
    @usableFromInline
    package let name: String

    @usableFromInline
    package let entryPoints: SpecializedEntryPoints

    @inlinable
    package init(downstream: Downstream, logic: Logic) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: ReduceSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: ReduceSubscription.self).cancelSpecialized() })
        state = .awaitingSubscription(downstream)
        self.logic = logic
        name = logic.name
    }

    @inlinable
    package func receive(subscription: Subscription) {
        // (downstream to start, whether to make the late-subscription request)
        let (downstream, lateRequest) = lock.locked { () -> (Downstream?, Bool) in
            switch state {
            case .awaitingSubscription(let downstream):
                state = .subscribed(subscription, downstream)
                return (downstream, false)
            case .cancelledBeforeSubscription:
                state = .terminal
                return (nil, true)
            case .subscribed, .awaitingDemand, .delivering, .terminal:
                return (nil, false)
            }
        }
        guard let downstream else {
            if lateRequest {
                subscription.request(.unlimited)
            } else {
                subscription.cancel()
            }
            return
        }
        downstream.receive(subscription: self)
        // The downstream may have cancelled from inside receive(subscription:); asking a
        // cancelled upstream for values would only be noise.
        let live = lock.locked { () -> Bool in
            if case .subscribed = state { return true }
            return false
        }
        if live {
            subscription.request(.unlimited)
        }
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
        let live = lock.locked { () -> Bool in
            guard case .subscribed = state else { return false }
            return true
        }
        guard live else { return .none }
        // As in `TransformSubscription`: a user closure may re-enter this method, so it runs on
        // a copy of the logic; the logics that run no user code (`collect()`, `count()`) work in
        // place, so that collecting never copies its buffer.
        let step: ReduceStep<Logic.Failure>
        if Logic.runsUserCode {
            var working = logic
            step = working.receive(input)
            logic = working
        } else {
            step = logic.receive(input)
        }
        switch step {
        case .proceed:
            break
        case .finish:
            let result = logic.result
            let decided = lock.locked { () -> (upstream: Subscription, ready: Downstream?)? in
                guard case .subscribed(let upstream, let downstream) = state else { return nil }
                if demanded {
                    state = .delivering(downstream)
                    return (upstream, downstream)
                }
                state = .awaitingDemand(downstream, result: result)
                return (upstream, nil)
            }
            guard let decided else { break }
            decided.upstream.cancel()
            if let ready = decided.ready {
                deliver(result, to: ready)
            }
        case .fail(let error):
            let ended = lock.locked { () -> (upstream: Subscription, downstream: Downstream)? in
                guard case .subscribed(let upstream, let downstream) = state else { return nil }
                state = .terminal
                return (upstream, downstream)
            }
            guard let ended else { break }
            // Combine cancels the upstream before the failure reaches the downstream.
            ended.upstream.cancel()
            ended.downstream.receive(completion: .failure(error))
        }
        return .none
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            // The upstream is serial, so the logic is no longer being changed.
            let result = logic.result
            let ready = lock.locked { () -> Downstream? in
                guard case .subscribed(_, let downstream) = state else { return nil }
                if demanded {
                    state = .delivering(downstream)
                    return downstream
                }
                state = .awaitingDemand(downstream, result: result)
                return nil
            }
            if let ready {
                deliver(result, to: ready)
            }
        case .failure(let error):
            let downstream = lock.locked { () -> Downstream? in
                guard case .subscribed(_, let downstream) = state else { return nil }
                state = .terminal
                return downstream
            }
            downstream?.receive(completion: .failure(logic.convert(error)))
        }
    }

    /// Sends the result and `.finished`; the state is `.delivering(downstream)`.
    @inlinable
    package func deliver(_ result: Logic.Output?, to downstream: Downstream) {
        if let result {
            _ = downstream.receive(result)
        }
        let finish = lock.locked { () -> Bool in
            guard case .delivering = state else { return false }
            state = .terminal
            return true
        }
        if finish {
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    package func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    package func requestSpecialized(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let ready = lock.locked { () -> (Downstream, Logic.Output?)? in
            demanded = true
            guard case .awaitingDemand(let downstream, let result) = state else { return nil }
            state = .delivering(downstream)
            return (downstream, result)
        }
        guard let (downstream, result) = ready else { return }
        deliver(result, to: downstream)
    }

    @inlinable
    package func cancelSpecialized() {
        // The previous state is returned so that the downstream and any held result are
        // released after unlocking.
        let (upstream, previous) = lock.locked { () -> (Subscription?, State) in
            let previous = state
            switch state {
            case .awaitingSubscription:
                state = .cancelledBeforeSubscription
                return (nil, previous)
            case .subscribed(let upstream, _):
                state = .terminal
                return (upstream, previous)
            case .awaitingDemand, .delivering:
                state = .terminal
                return (nil, previous)
            case .cancelledBeforeSubscription, .terminal:
                return (nil, previous)
            }
        }
        withExtendedLifetime(previous) {
            upstream?.cancel()
        }
    }

    @usableFromInline
    package var description: String { name }

    @usableFromInline
    package var customMirror: Mirror {
        // The upstream's description is read after unlocking: it may take locks of its own.
        let (downstream, status, upstream) = lock.locked { () -> (Downstream?, String, Subscription?) in
            switch state {
            case .awaitingSubscription(let downstream): return (downstream, "awaitingSubscription", nil)
            case .subscribed(let upstream, let downstream): return (downstream, "subscribed", upstream)
            case .awaitingDemand(let downstream, _): return (downstream, "awaitingDemand", nil)
            case .delivering(let downstream): return (downstream, "delivering", nil)
            case .cancelledBeforeSubscription, .terminal: return (nil, "terminal", nil)
            }
        }
        let statusDescription = upstream.map { "\(status)(\($0))" } ?? status
        if let children = logic.mirrorChildren {
            return Mirror(self, children: children.map { (label: Optional($0.label), value: $0.value) })
        }
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "result": logic.result as Any,
            "initial": logic.initial as Any,
            "status": statusDescription,
        ])
    }
}
