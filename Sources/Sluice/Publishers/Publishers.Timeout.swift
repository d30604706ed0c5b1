extension Publishers {
    /// A publisher that terminates if the upstream does not publish within a specified interval.
    ///
    /// The clock starts at subscription, restarts on the first request and after every value.
    /// When it runs out, the upstream is cancelled and the stream fails with `customError()`,
    /// or finishes if there is none. Values and the upstream's completion are delivered on the
    /// scheduler.
    public struct Timeout<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum time interval the publisher can go without emitting an element.
        public let interval: Context.SchedulerTimeType.Stride
        /// The scheduler on which to deliver events.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?
        /// A closure that executes if the publisher times out, producing its failure.
        public let customError: (() -> Upstream.Failure)?

        @inlinable
        public init(upstream: Upstream, interval: Context.SchedulerTimeType.Stride, scheduler: Context,
                    options: Context.SchedulerOptions?, customError: (() -> Upstream.Failure)?) {
            self.upstream = upstream
            self.interval = interval
            self.scheduler = scheduler
            self.options = options
            self.customError = customError
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.receive(subscriber: TimeoutSubscription(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Terminates publishing if the upstream publisher exceeds the specified time interval
    /// without producing an element.
    @inlinable
    public func timeout<S: Scheduler>(_ interval: S.SchedulerTimeType.Stride, scheduler: S,
                                      options: S.SchedulerOptions? = nil,
                                      customError: (() -> Failure)? = nil) -> Publishers.Timeout<Self, S> {
        Publishers.Timeout(upstream: self, interval: interval, scheduler: scheduler, options: options,
                           customError: customError)
    }
}

@usableFromInline
internal final class TimeoutSubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>:
    Subscriber, Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline @exclusivity(unchecked)
    internal var timer = ScheduledTimer()
    /// Bumped each time the clock restarts, so a timer that fires late does nothing.
    @usableFromInline @exclusivity(unchecked)
    internal var generation: UInt64 = 0
    @usableFromInline @exclusivity(unchecked)
    internal var requested = false
    /// The upstream's subscription from its completion until that completion is delivered: as
    /// in Combine, a cancel meanwhile still cancels the upstream, and demand that values still
    /// being delivered return still goes to it.
    @usableFromInline @exclusivity(unchecked)
    internal var finishedUpstream: Subscription?
    /// The link (upstream and downstream) and the delivery; its lock guards this state too.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let publisher: Publishers.Timeout<Upstream, Context>

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, publisher: Publishers.Timeout<Upstream, Context>) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: TimeoutSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: TimeoutSubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        self.publisher = publisher
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        guard let downstream else {
            subscription.cancel()
            return
        }
        restartClock(delivery.lock.locked { nextGenerationLocked() })
        downstream.receive(subscription: self)
    }

    /// A new generation of the clock: a timer of an older one that fires does nothing.
    @inlinable
    internal func nextGenerationLocked() -> UInt64 {
        generation += 1
        return generation
    }

    /// Schedules the timer of generation `current`, taken under the lock just before (the
    /// scheduler is not called under the lock).
    @inlinable
    internal func restartClock(_ current: UInt64) {
        let scheduler = publisher.scheduler
        let newTimer = scheduler.schedule(after: scheduler.now.advanced(by: publisher.interval),
                                          interval: publisher.interval, tolerance: scheduler.minimumTolerance,
                                          options: publisher.options) { self.timedOut(current) }
        delivery.install(newTimer) { if generation == current { timer.exchange(&$0) } }
    }

    @inlinable
    internal func timedOut(_ firing: UInt64) {
        var timerToCancel: Cancellable = NothingScheduled()
        let previous = delivery.lock.locked { () -> Subscription? in
            guard generation == firing, delivery.isUpstreamLive else { return nil }
            timerToCancel = timer.take()
            return delivery.detachUpstreamLocked()
        }
        timerToCancel.cancel()
        guard let upstream = previous else { return }
        upstream.cancel()
        let completion: Subscribers.Completion<Failure> = publisher.customError.map { .failure($0()) } ?? .finished
        if delivery.enqueue(.completion(completion)) {
            delivery.deliverNext()
        }
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let current = delivery.lock.locked { () -> UInt64? in
            guard delivery.isUpstreamLive, delivery.enqueueLocked(.value(input)) else { return nil }
            return nextGenerationLocked()
        }
        guard let current else { return .none }
        restartClock(current)
        publisher.scheduler.schedule(options: publisher.options) { self.deliver() }
        return .none
    }

    @inlinable
    internal func deliver() {
        delivery.deliverNext { demand in
            delivery.lock.locked { delivery.liveUpstream ?? finishedUpstream }?.request(demand)
        }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        var timerToCancel: Cancellable = NothingScheduled()
        let previous = delivery.lock.locked { () -> Subscription? in
            timerToCancel = timer.take()
            let previous = delivery.detachUpstreamLocked()
            finishedUpstream = previous
            return previous
        }
        timerToCancel.cancel()
        guard previous != nil, delivery.enqueue(.completion(completion)) else { return }
        publisher.scheduler.schedule(options: publisher.options) {
            self.delivery.deliverNext()
            let upstream = self.delivery.lock.locked { () -> Subscription? in
                defer { self.finishedUpstream = nil }
                return self.finishedUpstream
            }
            withExtendedLifetime(upstream) {}
        }
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
        let (upstream, restart) = delivery.lock.locked { () -> (Subscription?, UInt64?) in
            defer { requested = true }
            let upstream = delivery.liveUpstream
            return (upstream, upstream != nil && !requested ? nextGenerationLocked() : nil)
        }
        guard let upstream else { return }
        if let restart { restartClock(restart) }
        upstream.request(demand)
    }

    @inlinable
    internal func cancelSpecialized() {
        var timerToCancel: Cancellable = NothingScheduled()
        let (previous, finished) = delivery.lock.locked { () -> (Subscription?, Subscription?) in
            defer { finishedUpstream = nil }
            timerToCancel = timer.take()
            return (delivery.detachUpstreamLocked(), finishedUpstream)
        }
        timerToCancel.cancel()
        delivery.cancel()
        previous?.cancel()
        // A completion still on its way to the downstream: Combine cancels the upstream then too.
        finished?.cancel()
    }

    @usableFromInline
    internal var description: String { "Timeout" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
