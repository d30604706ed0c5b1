extension Publishers {
    /// A strategy for collecting received elements.
    public enum TimeGroupingStrategy<Context: Scheduler> {
        /// A grouping that collects and periodically publishes items.
        case byTime(Context, Context.SchedulerTimeType.Stride)
        /// A grouping that collects and publishes items periodically or when a buffer reaches a
        /// maximum size.
        case byTimeOrCount(Context, Context.SchedulerTimeType.Stride, Int)
    }

    /// A publisher that buffers and periodically publishes its items.
    ///
    /// Windows start at subscription and last one stride each; a window with no elements
    /// publishes nothing. With `.byTimeOrCount`, a full buffer is published at once (on the
    /// scheduler) and its window keeps running. On finish the elements collected so far go
    /// out, then the completion; on failure they are discarded. A window that closes while the
    /// downstream has no demand is held until it asks, so nothing is lost; a count below 1 stops
    /// the program at subscription.
    public struct CollectByTime<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = [Upstream.Output]
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The strategy with which to collect and publish elements.
        public let strategy: TimeGroupingStrategy<Context>
        /// Scheduler options to use for the strategy.
        public let options: Context.SchedulerOptions?

        @inlinable
        public init(upstream: Upstream, strategy: TimeGroupingStrategy<Context>, options: Context.SchedulerOptions?) {
            self.upstream = upstream
            self.strategy = strategy
            self.options = options
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, S.Input == [Upstream.Output] {
            upstream.receive(subscriber: CollectByTimeSubscription(downstream: subscriber, publisher: self))
        }
    }
}

extension Publisher {
    /// Collects elements by a given time-grouping strategy, and emits a single array of the
    /// collection.
    @inlinable
    public func collect<S: Scheduler>(_ strategy: Publishers.TimeGroupingStrategy<S>,
                                      options: S.SchedulerOptions? = nil) -> Publishers.CollectByTime<Self, S> {
        Publishers.CollectByTime(upstream: self, strategy: strategy, options: options)
    }
}

@usableFromInline
internal final class CollectByTimeSubscription<Downstream: Subscriber, Upstream: Publisher, Context: Scheduler>:
    Subscriber, Subscription, DescribedByName,
    @unchecked Sendable
    where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline @exclusivity(unchecked)
    internal var buffer: [Input] = []
    /// Closed windows waiting for downstream demand.
    @usableFromInline @exclusivity(unchecked)
    internal var ready: RingBuffer<[Input]> = RingBuffer()
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// The completion to send once every ready window has gone out.
    @usableFromInline @exclusivity(unchecked)
    internal var completion: Subscribers.Completion<Failure>?
    @usableFromInline @exclusivity(unchecked)
    internal var timer = ScheduledTimer()
    /// The link (upstream and downstream) and the delivery; its lock guards this state too.
    @usableFromInline
    internal let delivery: HopDelivery<Downstream>
    @usableFromInline
    internal let scheduler: Context
    @usableFromInline
    internal let stride: Context.SchedulerTimeType.Stride
    /// The buffer size that closes a window early, or nil for `.byTime`.
    @usableFromInline
    internal let count: Int?
    @usableFromInline
    internal let options: Context.SchedulerOptions?

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, publisher: Publishers.CollectByTime<Upstream, Context>) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: CollectByTimeSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: CollectByTimeSubscription.self).cancelSpecialized() })
        delivery = HopDelivery(downstream)
        options = publisher.options
        switch publisher.strategy {
        case .byTime(let scheduler, let stride):
            self.scheduler = scheduler
            self.stride = stride
            count = nil
        case .byTimeOrCount(let scheduler, let stride, let count):
            precondition(count > 0, "collect(.byTimeOrCount(_:_:count)) needs a count of at least 1, got \(count)")
            self.scheduler = scheduler
            self.stride = stride
            self.count = count
        }
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = delivery.lock.locked { delivery.acceptLocked(subscription) }
        guard let downstream else {
            subscription.cancel()
            return
        }
        // Weak, unlike debounce's and timeout's per-value timers: this one lasts as long as the
        // subscription, and would otherwise make the scheduler its owner.
        let newTimer = scheduler.schedule(after: scheduler.now.advanced(by: stride), interval: stride,
                                          tolerance: scheduler.minimumTolerance, options: options) { [weak self] in
            self?.closeWindow()
        }
        delivery.install(newTimer) { timer.exchange(&$0) }
        downstream.receive(subscription: self)
    }

    /// `.byTime` asks for one value at a time, as Combine's does: one for each request of the
    /// downstream, and one more with each value it takes (so the upstream runs free once asked).
    /// `.byTimeOrCount` asks for `count` values per window the downstream requests.
    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let (taken, full) = delivery.lock.locked { () -> (Bool, Bool) in
            guard delivery.isUpstreamLive else { return (false, false) }
            buffer.append(input)
            guard let count, buffer.count >= count else { return (true, false) }
            ready.append(buffer)
            buffer = []
            return (true, true)
        }
        if full {
            scheduler.schedule(options: options) { self.flush() }
        }
        return taken && count == nil ? .max(1) : .none
    }

    @inlinable
    internal func closeWindow() {
        let closed = delivery.lock.locked { () -> Bool in
            guard delivery.isUpstreamLive, !buffer.isEmpty else { return false }
            ready.append(buffer)
            buffer = []
            return true
        }
        if closed { flush() }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        var timerToCancel: Cancellable = NothingScheduled()
        let previous = delivery.lock.locked { () -> Subscription? in
            let previous = delivery.detachUpstreamLocked()
            guard previous != nil else { return previous }
            switch completion {
            case .finished:
                if !buffer.isEmpty { ready.append(buffer) }
            case .failure:
                ready.removeAll()
            }
            buffer = []
            self.completion = completion
            timerToCancel = timer.take()
            return previous
        }
        timerToCancel.cancel()
        guard previous != nil else { return }
        scheduler.schedule(options: options) { self.flush() }
    }

    /// Hands ready windows to the delivery while there is demand, then the completion once no
    /// window is left.
    @inlinable
    internal func flush() {
        while true {
            // Popping and queueing happen in one critical section so that two threads flushing
            // at once cannot swap windows.
            let queued = delivery.lock.locked { () -> Bool in
                if demand > 0, let window = ready.popFirst() {
                    demand -= 1
                    return delivery.enqueueLocked(.value(window))
                }
                if ready.isEmpty, let completion {
                    self.completion = nil
                    return delivery.enqueueLocked(.completion(completion))
                }
                return false
            }
            guard queued else { return }
            delivery.deliverNext { more in
                let upstream = delivery.lock.locked { () -> Subscription? in
                    demand += more
                    return delivery.liveUpstream
                }
                if let count { upstream?.request(more * count) }
            }
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
        demand.assertNonZero()
        let (upstream, held) = delivery.lock.locked { () -> (Subscription?, Bool) in
            self.demand += demand
            return (delivery.liveUpstream, !ready.isEmpty || completion != nil)
        }
        upstream?.request(count.map { demand * $0 } ?? .max(1))
        // Windows held for want of demand go out on the scheduler, like every other window,
        // never on the thread that asked for them.
        if held {
            scheduler.schedule(options: options) { self.flush() }
        }
    }

    @inlinable
    internal func cancelSpecialized() {
        var timerToCancel: Cancellable = NothingScheduled()
        let (previous, dropped) = delivery.lock.locked { () -> (Subscription?, [Input]) in
            defer {
                buffer = []
                ready.removeAll()
                completion = nil
            }
            timerToCancel = timer.take()
            return (delivery.detachUpstreamLocked(), buffer)
        }
        withExtendedLifetime(dropped) {}
        timerToCancel.cancel()
        delivery.cancel()
        previous?.cancel()
    }

    @usableFromInline
    internal var description: String { "CollectByTime" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
