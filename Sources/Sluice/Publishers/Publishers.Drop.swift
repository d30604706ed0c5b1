extension Publishers {
    /// A publisher that omits a specified number of elements before republishing later
    /// elements.
    ///
    /// As in Combine, the downstream receives this operator's subscription as soon as it
    /// subscribes. When the upstream's subscription arrives, the operator requests the
    /// downstream's demand so far plus `count` (the elements it will drop); later requests are
    /// forwarded unchanged. A negative `count` stops the program when a subscriber attaches.
    public struct Drop<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The number of elements to drop.
        public let count: Int

        /// Creates a publisher that omits a specified number of elements before republishing
        /// later elements.
        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            precondition(count >= 0, "dropFirst(_:) requires a non-negative count, got \(count)")
            let inner = DropSubscription<Upstream.Output, Upstream.Failure, S>(downstream: subscriber, count: count)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.Drop: Equatable where Upstream: Equatable {
    /// Two `Drop` publishers are equal if their upstreams and counts are.
    @inlinable
    public static func == (lhs: Publishers.Drop<Upstream>, rhs: Publishers.Drop<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.count == rhs.count
    }
}

@usableFromInline
internal final class DropSubscription<Input, Failure: Error, Downstream: Subscriber>: Subscriber,
    Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Input, Downstream.Failure == Failure
{
    @usableFromInline
    internal let lock = Lock()
    /// The downstream, until it finishes or cancels.
    @usableFromInline @exclusivity(unchecked)
    internal var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    internal var upstream = SubscriptionStatus.awaitingSubscription
    /// Downstream demand made before the upstream's subscription arrived.
    @usableFromInline @exclusivity(unchecked)
    internal var pendingDemand = Subscribers.Demand.none
    /// Elements still to drop.
    @usableFromInline @exclusivity(unchecked)
    internal var remaining: Int

    @inlinable
    internal init(downstream: Downstream, count: Int) {
        self.downstream = downstream
        remaining = count
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        // nil: a duplicate, cancelled; otherwise the demand to request (possibly none).
        let demand = lock.locked { () -> Subscribers.Demand? in
            guard upstream.isAwaitingSubscription else { return nil }
            // Cancelled or completed before the upstream's subscription arrived: Combine neither
            // requests from nor cancels the late subscription.
            guard downstream != nil else { return Subscribers.Demand.none }
            upstream = .subscribed(subscription)
            return pendingDemand + remaining
        }
        guard let demand else {
            subscription.cancel()
            return
        }
        if demand > 0 {
            subscription.request(demand)
        }
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let target = lock.locked { () -> Downstream? in
            guard let downstream else { return nil }
            if remaining > 0 {
                remaining -= 1
                return nil
            }
            return downstream
        }
        return target?.receive(input) ?? .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (target, finishedUpstream) = lock.locked { () -> (Downstream?, SubscriptionStatus) in
            let finishedUpstream = upstream
            if upstream.isSubscribed { upstream = .terminal }
            defer { downstream = nil }
            return (downstream, finishedUpstream)
        }
        _ = finishedUpstream
        target?.receive(completion: completion)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let subscription = lock.locked { () -> Subscription? in
            guard downstream != nil else { return nil }
            guard let subscription = upstream.subscription else {
                pendingDemand += demand
                return nil
            }
            return subscription
        }
        subscription?.request(demand)
    }

    @inlinable
    internal func cancel() {
        let (previous, subscription) = lock.locked { () -> (Downstream?, Subscription?) in
            let previous = downstream
            downstream = nil
            guard previous != nil, let subscription = upstream.subscription else { return (previous, nil) }
            upstream = .terminal
            return (previous, subscription)
        }
        _ = previous
        subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "Drop" }
}

extension Publisher {
    /// Omits the specified number of elements before republishing subsequent elements.
    @inlinable
    public func dropFirst(_ count: Int = 1) -> Publishers.Drop<Self> {
        Publishers.Drop(upstream: self, count: count)
    }
}
