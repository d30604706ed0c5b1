extension Publishers {
    /// A publisher that publishes either the most-recent or first element published by the
    /// upstream publisher in a specified time interval.
    ///
    /// The first value goes out on the scheduler's next turn; later values wait until `interval`
    /// has passed since the previous emission, and of the values that arrive meanwhile the
    /// latest (or, with `latest: false`, the first) is the one sent. A value that arrives while
    /// the downstream has no demand is dropped. A completion waits for a pending value and goes
    /// out right after it.
    public struct Throttle<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The interval in which to find and emit the most recent element.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to publish elements.
        public let scheduler: Context
        /// A Boolean value indicating whether to publish the most recent element.
        public let latest: Bool

        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context, latest: Bool) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.latest = latest
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.receive(subscriber: ThrottleSubscription(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Publishes either the most-recent or first element published by the upstream publisher in
    /// the specified time interval.
    @inlinable
    public func throttle<S: Scheduler>(for interval: S.SchedulerTimeType.Stride, scheduler: S,
                                       latest: Bool) -> Publishers.Throttle<Self, S> {
        Publishers.Throttle(upstream: self, interval: interval, scheduler: scheduler, latest: latest)
    }
}

@usableFromInline
internal final class ThrottleSubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>:
    Subscriber, Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// The value waiting for its emission time.
    @usableFromInline @exclusivity(unchecked)
    internal var pending: Input?
    /// A completion that arrived while a value was pending; it follows that value.
    @usableFromInline @exclusivity(unchecked)
    internal var pendingCompletion: Subscribers.Completion<Failure>?
    @usableFromInline @exclusivity(unchecked)
    internal var lastEmission: Context.SchedulerTimeType?
    /// The link (upstream and downstream) and the delivery; its lock guards this state too.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let publisher: Publishers.Throttle<Upstream, Context>

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, publisher: Publishers.Throttle<Upstream, Context>) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: ThrottleSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: ThrottleSubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        self.publisher = publisher
        // Combine reads the scheduler's time when the subscriber is made, when its subscription
        // arrives, for each value and at the completion (only some of these reads decide
        // anything); a scheduler that counts its reads sees the same from Sluice.
        _ = publisher.scheduler.now
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        guard let downstream else {
            subscription.cancel()
            return
        }
        _ = publisher.scheduler.now
        // The downstream hears of the subscription before the upstream is asked, as in Combine:
        // a value the upstream sends as it is asked (a `CurrentValueSubject`'s, `@Published`'s,
        // `Just`'s) then finds the downstream's demand and goes out, instead of being dropped.
        downstream.receive(subscription: self)
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        // `now` is read for every value while subscribed, also one that is dropped, and never
        // after a cancel or the completion (never under the lock: the scheduler is not ours).
        guard delivery.lock.locked({ delivery.isUpstreamLive }) else { return .none }
        let scheduler = publisher.scheduler
        let now = scheduler.now
        let emission = delivery.lock.locked { () -> Context.SchedulerTimeType? in
            guard delivery.isUpstreamLive else { return nil }
            if pending != nil {
                if publisher.latest { pending = input }
                return nil
            }
            guard demand > 0 else { return nil }
            demand -= 1
            pending = input
            guard let lastEmission else { return now }
            return Swift.max(now, lastEmission.advanced(by: publisher.interval))
        }
        guard let emission else { return .none }
        if emission == now {
            scheduler.schedule { self.emit() }
        } else {
            scheduler.schedule(after: emission) { self.emit() }
        }
        return .none
    }

    @inlinable
    internal func emit() {
        // The emission time is needed only when a value goes out with no completion after it
        // (a cancel clears `pending`): only then is `now` read, as in Combine.
        let needsTime = delivery.lock.locked { pending != nil && pendingCompletion == nil }
        let now = needsTime ? publisher.scheduler.now : nil
        // The value, and a completion that waited for it, are queued in one critical section.
        let (queued, completes) = delivery.lock.locked { () -> (Bool, Bool) in
            guard let value = pending else { return (false, false) }
            pending = nil
            if let now { lastEmission = now }
            defer { pendingCompletion = nil }
            guard delivery.enqueueLocked(.value(value)) else { return (false, false) }
            return (true, pendingCompletion.map { delivery.enqueueLocked(.completion($0)) } ?? false)
        }
        guard queued else { return }
        delivery.deliverNext { more in delivery.lock.locked { demand += more } }
        if completes {
            delivery.deliverNext()
        }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        guard delivery.lock.locked({ delivery.isUpstreamLive }) else { return }
        _ = publisher.scheduler.now
        let (previous, waitsForValue) = delivery.lock.locked { () -> (Subscription?, Bool) in
            let previous = delivery.detachUpstreamLocked()
            guard previous != nil else { return (previous, false) }
            if pending != nil {
                pendingCompletion = completion
                return (previous, true)
            }
            return (previous, false)
        }
        guard previous != nil, !waitsForValue, delivery.enqueue(.completion(completion)) else { return }
        publisher.scheduler.schedule { self.delivery.deliverNext() }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    internal func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    internal func requestSpecialized(_ demand: Subscribers.Demand) {
        // No zero-demand check: Combine's throttle accepts `request(.none)` and ignores it.
        delivery.lock.locked { self.demand += demand }
    }

    @inlinable
    internal func cancelSpecialized() {
        let (previous, dropped) = delivery.lock.locked { () -> (Subscription?, Input?) in
            defer {
                pending = nil
                pendingCompletion = nil
            }
            return (delivery.detachUpstreamLocked(), pending)
        }
        withExtendedLifetime(dropped) {}
        delivery.cancel()
        previous?.cancel()
    }

    @usableFromInline
    internal var description: String { "Throttle" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
