extension Publishers {
    /// A publisher that replaces any error in the stream with a provided element.
    ///
    /// On an upstream failure it publishes `output` and then finishes normally. As in Combine,
    /// the downstream receives this operator's subscription when the upstream's subscription
    /// arrives, and the operator counts the demand: the replacement waits until the downstream
    /// has outstanding demand, and a value that arrives without demand stops the program (a
    /// misbehaving upstream). A completion that arrives before the upstream's subscription
    /// hands the downstream its subscription first, then ends the stream as it would later; the
    /// subscription that arrives afterwards is cancelled.
    public struct ReplaceError<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Never

        /// The element with which to replace errors from the upstream publisher.
        public let output: Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that replaces any error in the stream with a provided element.
        @inlinable
        public init(upstream: Upstream, output: Output) {
            self.upstream = upstream
            self.output = output
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Never {
            let inner = ReplaceErrorSubscription<Upstream.Output, Upstream.Failure, S>(
                downstream: subscriber, output: output)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.ReplaceError: Equatable where Upstream: Equatable, Upstream.Output: Equatable {
    /// Two `ReplaceError` publishers are equal if their upstreams and outputs are.
    @inlinable
    public static func == (lhs: Publishers.ReplaceError<Upstream>, rhs: Publishers.ReplaceError<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.output == rhs.output
    }
}

@usableFromInline
internal final class ReplaceErrorSubscription<Input, Failure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Input, Downstream.Failure == Never
{
    @usableFromInline
    internal enum DownstreamState {
        case live(Downstream)
        /// The upstream failed; the replacement waits for demand.
        case awaitingDemand(Downstream)
        case terminal
    }

    /// What to do once the lock is released.
    @usableFromInline
    internal enum Action {
        case none
        case request(Subscription, Subscribers.Demand)
        case cancel(Subscription)
        case replace(Downstream)
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var downstreamState: DownstreamState
    @usableFromInline @exclusivity(unchecked)
    internal var upstream = SubscriptionStatus.awaitingSubscription
    /// Demand the downstream has made and the upstream has not yet used.
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    @usableFromInline
    internal let output: Input

    @inlinable
    internal init(downstream: Downstream, output: Input) {
        downstreamState = .live(downstream)
        self.output = output
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { () -> Downstream? in
            guard upstream.isAwaitingSubscription, case .live(let downstream) = downstreamState else { return nil }
            upstream = .subscribed(subscription)
            return downstream
        }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func perform(_ action: Action) {
        switch action {
        case .none:
            break
        case .request(let subscription, let demand):
            subscription.request(demand)
        case .cancel(let subscription):
            subscription.cancel()
        case .replace(let downstream):
            _ = downstream.receive(output)
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = lock.locked { () -> Downstream? in
            guard case .live(let downstream) = downstreamState, upstream.isSubscribed else { return nil }
            precondition(demand > 0, "ReplaceError received a value without outstanding demand (a misbehaving upstream)")
            if demand != .unlimited { demand -= 1 }
            return downstream
        }
        guard let downstream else { return .none }
        let more = downstream.receive(input)
        if more > 0 {
            lock.locked { demand += more }
        }
        return more
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        // `nil`: nothing to deliver now; `false`: forward `.finished`; `true`: send the
        // replacement, then `.finished`. The previous states are released after unlocking.
        let (replace, previous, finishedUpstream, early) = lock.locked {
            () -> (Bool?, DownstreamState, SubscriptionStatus, Bool) in
            let finishedUpstream = upstream
            let early = upstream.isAwaitingSubscription
            upstream = .terminal
            let previous = downstreamState
            guard case .live(let downstream) = downstreamState else { return (nil, previous, finishedUpstream, early) }
            switch completion {
            case .finished:
                downstreamState = .terminal
                return (false, previous, finishedUpstream, early)
            case .failure:
                if demand > 0 {
                    downstreamState = .terminal
                    return (true, previous, finishedUpstream, early)
                }
                downstreamState = .awaitingDemand(downstream)
                return (nil, previous, finishedUpstream, early)
            }
        }
        _ = finishedUpstream
        guard case .live(let downstream) = previous else { return }
        // A completion before the upstream's subscription: the downstream has no subscription
        // yet, and gets this one before anything else (it may ask for the replacement in it).
        if early { downstream.receive(subscription: self) }
        guard let replace else { return }
        if replace {
            _ = downstream.receive(output)
        }
        downstream.receive(completion: Subscribers.Completion<Never>.finished)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let action = lock.locked { () -> Action in
            switch downstreamState {
            case .terminal:
                return .none
            case .awaitingDemand(let downstream):
                downstreamState = .terminal
                return .replace(downstream)
            case .live:
                self.demand += demand
                guard let subscription = upstream.subscription else { return .none }
                return .request(subscription, demand)
            }
        }
        perform(action)
    }

    @inlinable
    internal func cancel() {
        let (previous, subscription) = lock.locked { () -> (DownstreamState, Subscription?) in
            let previous = downstreamState
            if case .terminal = downstreamState { return (previous, nil) }
            downstreamState = .terminal
            let subscription = upstream.subscription
            if subscription != nil { upstream = .terminal }
            return (previous, subscription)
        }
        _ = previous
        subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "ReplaceError" }
}

extension Publisher {
    /// Replaces any error in the stream with the provided element: on failure, this publisher
    /// publishes `output` and finishes normally.
    @inlinable
    public func replaceError(with output: Output) -> Publishers.ReplaceError<Self> {
        Publishers.ReplaceError(upstream: self, output: output)
    }
}
