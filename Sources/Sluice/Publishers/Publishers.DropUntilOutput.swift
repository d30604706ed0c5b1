extension Publishers {
    /// A publisher that ignores elements from the upstream publisher until it receives an
    /// element from a second publisher.
    ///
    /// As in Combine: the downstream receives this operator's subscription as soon as it
    /// subscribes; the operator then subscribes to `other` (asking it for one value) and only
    /// then to the upstream. Downstream demand goes to the upstream (what was asked before the
    /// upstream's subscription arrived is requested then); elements that arrive before `other`
    /// has produced a value are dropped and count against that demand. If `other` completes
    /// without a value, the upstream is cancelled and the downstream receives that completion.
    /// A dropped element that arrives without outstanding demand stops the program (a
    /// misbehaving upstream).
    ///
    /// The two publishers may deliver on different threads; the downstream still receives its
    /// signals one at a time.
    public struct DropUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher
        where Upstream.Failure == Other.Failure
    {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A publisher to monitor for its first emitted element.
        public let other: Other

        /// Creates a publisher that ignores elements from the upstream publisher until it
        /// receives an element from another publisher.
        @inlinable
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, Other.Failure == S.Failure {
            let inner = DropUntilOutputInner<Upstream.Output, Other.Output, Failure, S>(downstream: subscriber)
            subscriber.receive(subscription: inner)
            other.receive(subscriber: inner.triggerSubscriber)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publishers.DropUntilOutput: Equatable where Upstream: Equatable, Other: Equatable {
    /// Two `DropUntilOutput` publishers are equal if their upstreams and other publishers are.
    @inlinable
    public static func == (
        lhs: Publishers.DropUntilOutput<Upstream, Other>,
        rhs: Publishers.DropUntilOutput<Upstream, Other>
    ) -> Bool {
        lhs.upstream == rhs.upstream && lhs.other == rhs.other
    }
}

@usableFromInline
internal final class DropUntilOutputInner<Input, TriggerOutput, Failure: Error, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Input, Downstream.Failure == Failure
{
    @usableFromInline
    internal let lock = Lock()
    /// The downstream, until it has received a completion or cancelled.
    @usableFromInline @exclusivity(unchecked)
    internal var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    internal var upstream = SubscriptionStatus.awaitingSubscription
    @usableFromInline @exclusivity(unchecked)
    internal var triggerSubscription: Subscription?
    /// `other` has produced a value: elements now pass.
    @usableFromInline @exclusivity(unchecked)
    internal var triggered = false
    @usableFromInline @exclusivity(unchecked)
    internal var cancelled = false
    /// Downstream demand not yet used by a dropped element.
    @usableFromInline @exclusivity(unchecked)
    internal var pendingDemand = Subscribers.Demand.none

    @inlinable
    internal init(downstream: Downstream) {
        self.downstream = downstream
    }

    /// The subscriber given to `other`; it shares this object's identity and description, as
    /// in Combine.
    @inlinable
    internal var triggerSubscriber: Trigger { Trigger(inner: self) }

    @usableFromInline
    internal struct Trigger: Subscriber, DescribedByName
    {
        @usableFromInline
        internal typealias Input = TriggerOutput

        @usableFromInline
        internal let inner: DropUntilOutputInner

        @inlinable
        internal init(inner: DropUntilOutputInner) {
            self.inner = inner
        }

        @inlinable
        internal var combineIdentifier: CombineIdentifier { inner.combineIdentifier }

        @inlinable
        internal func receive(subscription: Subscription) {
            inner.triggerReceive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: TriggerOutput) -> Subscribers.Demand {
            inner.triggerFired()
            return .none
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            inner.triggerCompleted(completion)
        }

        @usableFromInline
        internal var description: String { "DropUntilOutput" }
    }

    // MARK: Upstream

    @inlinable
    internal func receive(subscription: Subscription) {
        // As in Combine, a subscription that arrives after `other` finished the stream (but
        // before any cancel) is still accepted and given the demand made so far.
        let demand = lock.locked { () -> Subscribers.Demand? in
            guard upstream.isAwaitingSubscription, !cancelled else { return nil }
            upstream = .subscribed(subscription)
            return pendingDemand
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
            if triggered, let downstream { return downstream }
            if !triggered, !cancelled {
                precondition(pendingDemand > 0, "DropUntilOutput received a value without outstanding demand (a misbehaving upstream)")
            }
            if pendingDemand != .unlimited { pendingDemand -= 1 }
            return nil
        }
        return target?.receive(input) ?? .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (target, finishedUpstream, trigger) = lock.locked {
            () -> (Downstream?, SubscriptionStatus, Subscription?) in
            let finishedUpstream = upstream
            upstream = .terminal
            guard let target = downstream else { return (nil, finishedUpstream, nil) }
            downstream = nil
            defer { triggerSubscription = nil }
            return (target, finishedUpstream, triggerSubscription)
        }
        _ = finishedUpstream
        // The stream is over; a trigger that has not fired is no longer needed.
        trigger?.cancel()
        target?.receive(completion: completion)
    }

    // MARK: Trigger

    @inlinable
    internal func triggerReceive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard triggerSubscription == nil, downstream != nil, !cancelled else { return false }
            triggerSubscription = subscription
            return true
        }
        if accepted {
            subscription.request(.max(1))
        } else {
            subscription.cancel()
        }
    }

    @inlinable
    internal func triggerFired() {
        // As in Combine, the trigger's subscription is let go of, not cancelled.
        let released = lock.locked { () -> Subscription? in
            guard downstream != nil else { return nil }
            triggered = true
            defer { triggerSubscription = nil }
            return triggerSubscription
        }
        _ = released
    }

    @inlinable
    internal func triggerCompleted(_ completion: Subscribers.Completion<Failure>) {
        let (target, upstreamSubscription, released) = lock.locked {
            () -> (Downstream?, Subscription?, Subscription?) in
            let released = triggerSubscription
            triggerSubscription = nil
            // A completion after the trigger fired changes nothing.
            guard !triggered, let target = downstream else { return (nil, nil, released) }
            downstream = nil
            let upstreamSubscription = upstream.subscription
            if upstreamSubscription != nil { upstream = .terminal }
            return (target, upstreamSubscription, released)
        }
        _ = released
        upstreamSubscription?.cancel()
        target?.receive(completion: completion)
    }

    // MARK: Subscription

    /// `.none` is accepted (and, adding nothing, not forwarded).
    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        let subscription = lock.locked { () -> Subscription? in
            pendingDemand += demand
            guard demand > 0, downstream != nil else { return nil }
            return upstream.subscription
        }
        subscription?.request(demand)
    }

    /// Cancels the upstream, then the trigger.
    @inlinable
    internal func cancel() {
        let (previous, upstreamSubscription, trigger) = lock.locked {
            () -> (Downstream?, Subscription?, Subscription?) in
            guard !cancelled else { return (nil, nil, nil) }
            cancelled = true
            let previous = downstream
            downstream = nil
            let upstreamSubscription = upstream.subscription
            if upstreamSubscription != nil { upstream = .terminal }
            defer { triggerSubscription = nil }
            return (previous, upstreamSubscription, triggerSubscription)
        }
        _ = previous
        upstreamSubscription?.cancel()
        trigger?.cancel()
    }

    @usableFromInline
    internal var description: String { "DropUntilOutput" }
}

extension Publisher {
    /// Ignores elements from the upstream publisher until it receives an element from a second
    /// publisher, then republishes everything that follows.
    @inlinable
    public func drop<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.DropUntilOutput<Self, P>
        where Failure == P.Failure
    {
        Publishers.DropUntilOutput(upstream: self, other: publisher)
    }
}
