extension Publishers {
    /// A publisher that delays delivery of elements and completion to the downstream receiver.
    ///
    /// Each value and the completion (finished or failed) is delivered `interval` after it
    /// arrives. Values keep their order and none is lost, even on a concurrent queue.
    public struct Delay<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream
        /// The amount of time to delay.
        public let interval: Context.SchedulerTimeType.Stride
        /// The allowed tolerance in delivering delayed events.
        public let tolerance: Context.SchedulerTimeType.Stride
        /// The scheduler to deliver the delayed events.
        public let scheduler: Context
        /// Options relevant to the scheduler's behavior.
        public let options: Context.SchedulerOptions?

        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride,
                    tolerance: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions? = nil) {
            self.upstream = upstream
            self.interval = interval
            self.tolerance = tolerance
            self.scheduler = scheduler
            self.options = options
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.receive(subscriber: DelaySubscription(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Delays delivery of all output to the downstream receiver by a specified amount of time on
    /// a particular scheduler.
    @inlinable
    public func delay<S: Scheduler>(for interval: S.SchedulerTimeType.Stride,
                                    tolerance: S.SchedulerTimeType.Stride? = nil, scheduler: S,
                                    options: S.SchedulerOptions? = nil) -> Publishers.Delay<Self, S> {
        Publishers.Delay(upstream: self, interval: interval, tolerance: tolerance ?? scheduler.minimumTolerance,
                         scheduler: scheduler, options: options)
    }
}

/// Combine's delay subscription has no custom description; neither does this one.
@usableFromInline
internal final class DelaySubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>: Subscriber,
    Subscription, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    /// The upstream's subscription from its completion until that completion is delivered: the
    /// demand that values still on their way return goes to it, as in Combine, although the
    /// upstream has finished. (A downstream `request` meanwhile is not forwarded.)
    @usableFromInline @exclusivity(unchecked)
    internal var finishedUpstream: Subscription?
    /// The link (upstream and downstream) and the delivery; its lock guards this state too.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let publisher: Publishers.Delay<Upstream, Context>

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, publisher: Publishers.Delay<Upstream, Context>) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: DelaySubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: DelaySubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        self.publisher = publisher
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        guard delivery.enqueueFromUpstream(input) else { return .none }
        scheduleDelivery()
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let queued = delivery.lock.locked { () -> Bool in
            guard let upstream = delivery.detachUpstreamLocked(),
                  delivery.enqueueLocked(.completion(completion)) else { return false }
            finishedUpstream = upstream
            return true
        }
        guard queued else { return }
        scheduleDelivery()
    }

    @inlinable
    internal func scheduleDelivery() {
        let scheduler = publisher.scheduler
        scheduler.schedule(after: scheduler.now.advanced(by: publisher.interval), tolerance: publisher.tolerance,
                           options: publisher.options) { self.deliver() }
    }

    @inlinable
    internal func deliver() {
        delivery.deliverNext { demand in
            delivery.lock.locked { delivery.liveUpstream ?? finishedUpstream }?.request(demand)
        }
        // Once the completion has been delivered (or the downstream cancelled), the finished
        // upstream's subscription is let go of.
        let finished = delivery.lock.locked { () -> Subscription? in
            guard delivery.downstream == nil else { return nil }
            defer { finishedUpstream = nil }
            return finishedUpstream
        }
        withExtendedLifetime(finished) {}
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
        delivery.upstreamSubscription?.request(demand)
    }

    @inlinable
    internal func cancelSpecialized() {
        let (upstream, released, finished) = delivery.lock.locked {
            () -> (Subscription?, HopDelivery<Downstream>.Released, Subscription?) in
            defer { finishedUpstream = nil }
            let (upstream, released) = delivery.cancelLocked()
            return (upstream, released, finishedUpstream)
        }
        withExtendedLifetime((released, finished)) {}
        upstream?.cancel()
    }
}
