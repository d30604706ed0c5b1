extension Publishers {
    /// A publisher that delivers elements to its downstream subscriber on a specific scheduler.
    ///
    /// Values and the completion are delivered by actions scheduled on the scheduler; the
    /// subscription, requests and cancellation pass through synchronously, as in Combine since
    /// iOS 13.3 and macOS 10.15.2 (the first releases handed the subscription over from a
    /// scheduled action). Unlike Combine, the
    /// order of values is kept even on a concurrent scheduler, and the downstream never
    /// receives two at once. Values that arrive while a delivery is already scheduled go with
    /// it, up to 64 per action, rather than costing a scheduled action each (Combine schedules
    /// one per value); work enqueued on the same queue between two sends can therefore run after
    /// both values.
    public struct ReceiveOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher is to use for element delivery.
        public let scheduler: Context
        /// Scheduler options that customize the delivery of elements.
        public let options: Context.SchedulerOptions?

        @inlinable
        public init(upstream: Upstream, scheduler: Context, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.scheduler = scheduler
            self.options = options
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            upstream.receive(subscriber: ReceiveOnSubscription(downstream: subscriber, scheduler: scheduler, options: options))
        }
    }
}

extension Publisher {
    /// Specifies the scheduler on which to receive elements from the publisher.
    ///
    /// Everything downstream of this operator runs on the scheduler. The hop is asynchronous
    /// even when the value is sent on the scheduler already (`DispatchQueue.main` delivers on a
    /// later turn of the main queue); `ImmediateScheduler` delivers synchronously.
    @inlinable
    public func receive<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.ReceiveOn<Self, S> {
        Publishers.ReceiveOn(upstream: self, scheduler: scheduler, options: options)
    }
}

@usableFromInline
internal final class ReceiveOnSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    DescribedByName, @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    /// The link (upstream and downstream) and the delivery, under one lock.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let scheduler: Context
    @usableFromInline
    internal let options: Context.SchedulerOptions?

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: ReceiveOnSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: ReceiveOnSubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        // Refused before the subscription (a misbehaving upstream), after the completion and
        // after a cancel.
        let action = delivery.lock.locked { () -> HopDelivery<Downstream>.DrainAction? in
            guard delivery.isUpstreamLive else { return nil }
            return delivery.enqueueForDrainLocked(.value(input))
        }
        schedule(action)
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let action = delivery.lock.locked { () -> HopDelivery<Downstream>.DrainAction? in
            guard delivery.detachUpstreamLocked() != nil else { return nil }
            return delivery.enqueueForDrainLocked(.completion(completion))
        }
        schedule(action)
    }

    @inlinable
    internal func schedule(_ action: HopDelivery<Downstream>.DrainAction?) {
        switch action {
        case .drain?: scheduleDrain()
        case .nested?:
            scheduler.schedule(options: options) {
                self.delivery.deliverNested { demand in self.delivery.upstreamSubscription?.request(demand) }
            }
        case .none?, nil: break
        }
    }

    @inlinable
    internal func scheduleDrain() {
        scheduler.schedule(options: options) { self.drain() }
    }

    @inlinable
    internal func drain() {
        let more = delivery.drain { demand in
            delivery.upstreamSubscription?.request(demand)
        }
        if more { scheduleDrain() }
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
        delivery.cancel()
    }

    @usableFromInline
    internal var description: String { "ReceiveOn" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
