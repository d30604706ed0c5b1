extension Publishers {
    /// A publisher that publishes elements only after a specified time interval elapses between
    /// events.
    ///
    /// Each value restarts the wait; the latest value goes out once `dueTime` passes with no
    /// newer one. A value whose time comes while the downstream has no demand is dropped, and a
    /// value still waiting when the upstream completes is dropped, as in Combine; the
    /// completion is delivered on the scheduler.
    public struct Debounce<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The amount of time the publisher should wait before publishing an element.
        public let dueTime: Context.SchedulerTimeType.Stride
        /// The scheduler on which this publisher delivers elements.
        public let scheduler: Context
        /// Scheduler options that customize this publisher's delivery of elements.
        public let options: Context.SchedulerOptions?

        @inlinable
        public init(upstream: Upstream, dueTime: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.dueTime = dueTime
            self.scheduler = scheduler
            self.options = options
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.receive(subscriber: DebounceSubscription(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Publishes elements only after a specified time interval elapses between events.
    @inlinable
    public func debounce<S: Scheduler>(for dueTime: S.SchedulerTimeType.Stride, scheduler: S,
                                       options: S.SchedulerOptions? = nil) -> Publishers.Debounce<Self, S> {
        Publishers.Debounce(upstream: self, dueTime: dueTime, scheduler: scheduler, options: options)
    }
}

@usableFromInline
internal final class DebounceSubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>:
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
    /// The value waiting for its quiet period, tagged with the generation that scheduled it.
    @usableFromInline @exclusivity(unchecked)
    internal var pending: (value: Input, generation: UInt64)?
    @usableFromInline @exclusivity(unchecked)
    internal var generation: UInt64 = 0
    @usableFromInline @exclusivity(unchecked)
    internal var timer = ScheduledTimer()
    /// The link (upstream and downstream) and the delivery; its lock guards this state too.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let publisher: Publishers.Debounce<Upstream, Context>

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, publisher: Publishers.Debounce<Upstream, Context>) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: DebounceSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: DebounceSubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        self.publisher = publisher
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        guard announce(self, to: downstream, orCancel: subscription) else { return }
        subscription.request(.unlimited)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let scheduler = publisher.scheduler
        guard let current = delivery.lock.locked({ () -> UInt64? in
            guard delivery.isUpstreamLive else { return nil }
            generation += 1
            pending = (input, generation)
            return generation
        }) else { return .none }
        // `now` is read only for a value that is taken, as Combine does: a scheduler that
        // counts its reads sees none for values after a cancel or the completion.
        let due = scheduler.now.advanced(by: publisher.dueTime)
        // A repeating timer, as Combine uses; it is cancelled when it first fires. It holds
        // `self` strongly: every timer is cancelled (by firing, by the next value, by the
        // completion or a cancel), and a weak reference per value cost a tenth of the time.
        let newTimer = scheduler.schedule(after: due, interval: publisher.dueTime, tolerance: scheduler.minimumTolerance,
                                          options: publisher.options) { self.fire(current) }
        // The timer may already have fired (a concurrent queue, a short due time), and the value
        // is then no longer pending: the timer is cancelled instead of stored.
        delivery.install(newTimer) { if pending?.generation == current { timer.exchange(&$0) } }
        return .none
    }

    @inlinable
    internal func fire(_ firing: UInt64) {
        var firedTimer: Cancellable = NothingScheduled()
        let handOver = delivery.lock.locked { () -> HopDelivery<Downstream>.HandOver in
            guard pending?.generation == firing, let pending = pending.take() else { return .refused }
            firedTimer = timer.take()
            guard demand > 0 else { return .refused }
            demand -= 1
            // Delivered by this action at once when nothing else is queued or being delivered.
            return delivery.handOverLocked(.value(pending.value))
        }
        firedTimer.cancel()
        delivery.complete(handOver) { more in delivery.lock.locked { demand += more } }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        var timerToCancel: Cancellable = NothingScheduled()
        let (previous, dropped) = delivery.lock.locked { () -> (Subscription?, Input?) in
            defer { pending = nil }
            timerToCancel = timer.take()
            return (delivery.detachUpstreamLocked(), pending?.value)
        }
        withExtendedLifetime(dropped) {}
        timerToCancel.cancel()
        guard previous != nil, delivery.enqueue(.completion(completion)) else { return }
        // Without the options: as in Combine, those given to `debounce` are for values.
        publisher.scheduler.schedule(options: nil) { self.delivery.deliverNext() }
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
        demand.assertNonZero()
        delivery.lock.locked { self.demand += demand }
    }

    @inlinable
    internal func cancelSpecialized() {
        var timerToCancel: Cancellable = NothingScheduled()
        let (previous, dropped) = delivery.lock.locked { () -> (Subscription?, Input?) in
            defer { pending = nil }
            timerToCancel = timer.take()
            return (delivery.detachUpstreamLocked(), pending?.value)
        }
        withExtendedLifetime(dropped) {}
        timerToCancel.cancel()
        delivery.cancel()
        previous?.cancel()
    }

    @usableFromInline
    internal var description: String { "Debounce" }

    @usableFromInline
    internal var customMirror: Mirror {
        let (downstream, demand, value) = delivery.lock.locked { (delivery.downstream, self.demand, pending?.value) }
        return Mirror(self, children: ["downstream": downstream as Any, "downstreamDemand": demand, "currentValue": value as Any])
    }
}
