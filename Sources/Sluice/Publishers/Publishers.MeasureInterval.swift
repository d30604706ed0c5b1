extension Publishers {
    /// A publisher that measures and emits the time interval between events received from an
    /// upstream publisher.
    ///
    /// The first interval is measured from the moment of subscription.
    public struct MeasureInterval<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Context.SchedulerTimeType.Stride
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler used for tracking the timing of events.
        public let scheduler: Context

        @inlinable
        public init(upstream: Upstream, scheduler: Context) {
            self.upstream = upstream
            self.scheduler = scheduler
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, S.Input == Context.SchedulerTimeType.Stride {
            upstream.receive(subscriber: MeasureIntervalSubscription<S, Upstream, Context>(downstream: subscriber, scheduler: scheduler))
        }
    }
}

extension Publisher {
    /// Measures and emits the time interval between events received from an upstream publisher.
    @inlinable
    public func measureInterval<S: Scheduler>(using scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.MeasureInterval<Self, S> {
        Publishers.MeasureInterval(upstream: self, scheduler: scheduler)
    }
}

@usableFromInline
internal final class MeasureIntervalSubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>:
    Subscriber, Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Context.SchedulerTimeType.Stride, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    @usableFromInline @exclusivity(unchecked)
    internal var last: Context.SchedulerTimeType?
    @usableFromInline
    internal let scheduler: Context

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, scheduler: Context) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: MeasureIntervalSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: MeasureIntervalSubscription.self).cancelSpecialized() })
        link = .awaitingSubscription(downstream)
        self.scheduler = scheduler
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        // `now` is read only for a subscription that is taken, and for values while subscribed,
        // as Combine does (never under the lock: the scheduler is someone else's code).
        guard lock.locked({ link.isAwaitingSubscription }) else {
            subscription.cancel()
            return
        }
        let now = scheduler.now
        let downstream = lock.locked { () -> Downstream? in
            guard let downstream = link.accept(subscription) else { return nil }
            last = now
            return downstream
        }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        guard lock.locked({ link.isSubscribed }) else { return .none }
        let now = scheduler.now
        guard let (upstream, downstream, previous) = lock.locked({ () -> (Subscription, Downstream, Context.SchedulerTimeType)? in
            guard let (upstream, downstream) = link.live, let previous = last else { return nil }
            last = now
            return (upstream, downstream, previous)
        }) else { return .none }
        let demand = downstream.receive(previous.distance(to: now))
        if demand > 0 { upstream.request(demand) }
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        guard let (_, downstream) = lock.locked({ link.terminate() }).live else { return }
        downstream.receive(completion: completion)
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
        lock.locked { link.subscription }?.request(demand)
    }

    @inlinable
    internal func cancelSpecialized() {
        lock.locked { link.terminate() }.live?.subscription.cancel()
    }

    @usableFromInline
    internal var description: String { "MeasureInterval" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
