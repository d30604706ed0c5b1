extension Publishers {
    /// A publisher that republishes elements until another publisher emits an element.
    ///
    /// The operator subscribes to `other` first and asks it for one value; when that value
    /// arrives, the upstream is cancelled and the stream finishes. If `other` completes without
    /// a value, elements keep flowing. When the upstream completes, `other` is cancelled.
    ///
    /// The two publishers may deliver on different threads: the downstream still receives its
    /// signals one at a time. If `other` fires while the downstream is busy with an element
    /// (on another thread, or from inside that element's delivery), `.finished` is delivered
    /// as soon as the downstream returns.
    public struct PrefixUntilOutput<Upstream: Publisher, Other: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Another publisher, whose first output causes this publisher to finish.
        public let other: Other

        /// Creates a publisher that republishes elements until another publisher emits an
        /// element.
        @inlinable
        public init(upstream: Upstream, other: Other) {
            self.upstream = upstream
            self.other = other
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            let inner = PrefixUntilOutputInner<Upstream.Output, Upstream.Failure, Other.Output, Other.Failure, S>(
                downstream: subscriber)
            other.receive(subscriber: inner.triggerSubscriber)
            upstream.receive(subscriber: inner)
        }
    }
}

/// Combine's inner object for `prefix(untilOutputFrom:)` has no description of its own, so its
/// `String(describing:)` is its type name, which contains "PrefixUntilOutput"; this one is the
/// same (and is deliberately not `CustomStringConvertible`).
@usableFromInline
internal final class PrefixUntilOutputInner<Input, Failure: Error, TriggerOutput, TriggerFailure: Error,
    Downstream: Subscriber>: Subscriber, Subscription, @unchecked Sendable
    where Downstream.Input == Input, Downstream.Failure == Failure
{
    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    @usableFromInline @exclusivity(unchecked)
    internal var triggerStatus = SubscriptionStatus.awaitingSubscription
    /// How many calls into the downstream are under way (the upstream may re-enter).
    @usableFromInline @exclusivity(unchecked)
    internal var deliveries = 0
    /// A `.finished` decided while a delivery was under way, with the downstream to give it to.
    @usableFromInline @exclusivity(unchecked)
    internal var pendingFinish: Downstream?

    @inlinable
    internal init(downstream: Downstream) {
        link = .awaitingSubscription(downstream)
    }

    /// The subscriber given to `other`; it shares this object's identity, as in Combine.
    @inlinable
    internal var triggerSubscriber: Trigger { Trigger(inner: self) }

    @usableFromInline
    internal struct Trigger: Subscriber {
        @usableFromInline
        internal typealias Input = TriggerOutput
        @usableFromInline
        internal typealias Failure = TriggerFailure

        @usableFromInline
        internal let inner: PrefixUntilOutputInner

        @inlinable
        internal init(inner: PrefixUntilOutputInner) {
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
        internal func receive(completion: Subscribers.Completion<TriggerFailure>) {
            inner.triggerCompleted()
        }
    }

    // MARK: Upstream

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { () -> Downstream? in
            guard let downstream = link.accept(subscription) else { return nil }
            deliveries += 1
            return downstream
        }
        guard let downstream else {
            // A duplicate, or the trigger fired (or the downstream cancelled) first.
            subscription.cancel()
            return
        }
        downstream.receive(subscription: self)
        endDelivery()
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let downstream = lock.locked { () -> Downstream? in
            guard case .subscribed(_, let downstream) = link else { return nil }
            deliveries += 1
            return downstream
        }
        guard let downstream else { return .none }
        let demand = downstream.receive(input)
        endDelivery()
        return demand
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (previous, triggerSubscription) = lock.locked { () -> (LinkState<Downstream>, Subscription?) in
            let triggerSubscription = triggerStatus.subscription
            triggerStatus = .terminal
            return (link.terminate(), triggerSubscription)
        }
        // As in Combine, the trigger is cancelled before the completion is delivered, and even
        // for a completion that arrives before the upstream's subscription (which is then
        // ignored, and a subscription arriving later is cancelled).
        triggerSubscription?.cancel()
        if case .subscribed(_, let downstream) = previous {
            downstream.receive(completion: completion)
        }
    }

    /// Ends one call into the downstream, delivering a `.finished` that waited for it.
    @inlinable
    internal func endDelivery() {
        let finish = lock.locked { () -> Downstream? in
            deliveries -= 1
            guard deliveries == 0 else { return nil }
            defer { pendingFinish = nil }
            return pendingFinish
        }
        finish?.receive(completion: .finished)
    }

    // MARK: Trigger

    @inlinable
    internal func triggerReceive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard triggerStatus.isAwaitingSubscription else { return false }
            triggerStatus = .subscribed(subscription)
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
        // The trigger's subscription and the previous link are released after unlocking.
        let (previous, finishNow, released) = lock.locked { () -> (LinkState<Downstream>, Bool, SubscriptionStatus) in
            guard triggerStatus.isSubscribed else { return (.terminal, false, .terminal) }
            let released = triggerStatus
            triggerStatus = .terminal
            let previous = link.terminate()
            guard let downstream = previous.downstream else { return (previous, false, released) }
            if deliveries > 0 {
                pendingFinish = downstream
                return (previous, false, released)
            }
            return (previous, true, released)
        }
        _ = released
        // The upstream is cancelled before the downstream hears of it, as in Combine. A trigger
        // that fires before the upstream's subscription arrives still finishes the downstream
        // (which then never receives a subscription), again as in Combine.
        previous.subscription?.cancel()
        if finishNow, let downstream = previous.downstream {
            downstream.receive(completion: .finished)
        }
    }

    @inlinable
    internal func triggerCompleted() {
        // Without a value from the trigger, elements keep flowing.
        let previous = lock.locked { () -> SubscriptionStatus in
            defer { triggerStatus = .terminal }
            return triggerStatus
        }
        _ = previous
    }

    // MARK: Subscription

    /// Forwarded as is, `.none` included, as Combine does.
    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        lock.locked { link.subscription }?.request(demand)
    }

    /// Cancels the upstream, then the trigger. A `.finished` still waiting for a delivery to
    /// end is dropped: nothing reaches the downstream after it cancels.
    @inlinable
    internal func cancel() {
        let (previous, triggerSubscription, unsent) = lock.locked {
            () -> (LinkState<Downstream>, Subscription?, Downstream?) in
            let triggerSubscription = triggerStatus.subscription
            triggerStatus = .terminal
            defer { pendingFinish = nil }
            return (link.terminate(), triggerSubscription, pendingFinish)
        }
        _ = unsent
        previous.subscription?.cancel()
        triggerSubscription?.cancel()
    }
}

extension Publisher {
    /// Republishes elements until another publisher emits an element, then finishes.
    @inlinable
    public func prefix<P: Publisher>(untilOutputFrom publisher: P) -> Publishers.PrefixUntilOutput<Self, P> {
        Publishers.PrefixUntilOutput(upstream: self, other: publisher)
    }
}
