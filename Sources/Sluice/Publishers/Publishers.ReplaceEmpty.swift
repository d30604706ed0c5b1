extension Publishers {
    /// A publisher that replaces an empty stream with a provided element.
    ///
    /// As in Combine, the operator asks its upstream for `.unlimited` as soon as it has handed
    /// its subscription downstream (downstream requests are forwarded too). If the upstream
    /// finishes without publishing anything, `output` and `.finished` are sent as soon as the
    /// downstream has asked for anything; a failure is passed on at once.
    public struct ReplaceEmpty<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The element to deliver when the upstream publisher finishes without delivering any
        /// elements.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces an empty stream with a provided element.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: ReplaceEmptySubscription<S>(downstream: subscriber, output: output))
        }
    }
}

extension Publishers.ReplaceEmpty: Equatable where Upstream: Equatable, Upstream.Output: Equatable {
    /// Two `ReplaceEmpty` publishers are equal if their upstreams and outputs are.
    @inlinable
    public static func == (lhs: Publishers.ReplaceEmpty<Upstream>, rhs: Publishers.ReplaceEmpty<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.output == rhs.output
    }
}

@usableFromInline
internal final class ReplaceEmptySubscription<Downstream: Subscriber>: Subscriber, Subscription,
    DescribedByName, @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal enum State {
        case awaitingSubscription(Downstream)
        case subscribed(Subscription, Downstream)
        /// The upstream finished empty; the replacement waits for the downstream's first request.
        case awaitingDemand(Downstream)
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
    internal let output: Downstream.Input

    @inlinable
    internal init(downstream: Downstream, output: Downstream.Input) {
        state = .awaitingSubscription(downstream)
        self.output = output
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { () -> Downstream? in
            guard case .awaitingSubscription(let downstream) = state else { return nil }
            state = .subscribed(subscription, downstream)
            return downstream
        }
        guard announce(self, to: downstream, orCancel: subscription) else { return }
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = lock.locked { () -> Downstream? in
            guard case .subscribed(_, let downstream) = state else { return nil }
            receivedValue = true
            return downstream
        }
        return downstream?.receive(input) ?? .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        // `previous` is released after unlocking (it holds the upstream's subscription).
        // `replace`: nil = deliver nothing yet, false = forward the completion, true = send the
        // replacement and finish.
        let (previous, replace) = lock.locked { () -> (State, Bool?) in
            let previous = state
            guard case .subscribed(_, let downstream) = state else { return (previous, nil) }
            if case .finished = completion, !receivedValue {
                guard demanded else {
                    state = .awaitingDemand(downstream)
                    return (previous, nil)
                }
                state = .terminal
                return (previous, true)
            }
            state = .terminal
            return (previous, false)
        }
        guard let replace, case .subscribed(_, let downstream) = previous else { return }
        if replace {
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
        } else {
            downstream.receive(completion: completion)
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let previous = lock.locked { () -> State in
            demanded = true
            let previous = state
            if case .awaitingDemand = state {
                state = .terminal
            }
            return previous
        }
        switch previous {
        case .subscribed(let upstream, _):
            upstream.request(demand)
        case .awaitingDemand(let downstream):
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
        case .awaitingSubscription, .terminal:
            break
        }
    }

    /// A cancel before the upstream's subscription arrives does nothing, as in Combine (the
    /// downstream cannot hold this subscription yet).
    @inlinable
    internal func cancel() {
        let previous = lock.locked { () -> State in
            let previous = state
            if case .awaitingSubscription = state { return previous }
            state = .terminal
            return previous
        }
        if case .subscribed(let upstream, _) = previous {
            upstream.cancel()
        }
    }

    @usableFromInline
    internal var description: String { "ReplaceEmpty" }
}

extension Publisher {
    /// Replaces an empty stream with the provided element: if the upstream finishes without
    /// publishing anything, this publisher publishes `output` and then finishes.
    @inlinable
    public func replaceEmpty(with output: Output) -> Publishers.ReplaceEmpty<Self> {
        Publishers.ReplaceEmpty(upstream: self, output: output)
    }
}
