extension Publishers {
    /// A publisher that receives elements from an upstream publisher on a specific scheduler.
    ///
    /// The subscription to the upstream, every request and the cancellation are scheduled on
    /// the scheduler; values and the completion pass through on whatever thread the upstream
    /// sends them. So the work of a cold publisher (a sequence, a `Deferred`) moves to the
    /// scheduler, while a subject's values do not, and a value sent to a subject right after
    /// subscribing arrives before the subscription exists and is lost.
    public struct SubscribeOn<Upstream: Publisher, Context: Scheduler>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The scheduler the publisher should use to receive elements.
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
            let inner = SubscribeOnSubscription(downstream: subscriber, scheduler: scheduler, options: options)
            let upstream = self.upstream
            scheduler.schedule(options: options) {
                upstream.receive(subscriber: inner)
            }
        }
    }
}

extension Publisher {
    /// Specifies the scheduler on which to perform subscribe, cancel, and request operations.
    @inlinable
    public func subscribe<S: Scheduler>(on scheduler: S, options: S.SchedulerOptions? = nil) -> Publishers.SubscribeOn<Self, S> {
        Publishers.SubscribeOn(upstream: self, scheduler: scheduler, options: options)
    }
}

@usableFromInline
internal final class SubscribeOnSubscription<Downstream: Subscriber, Context: Scheduler>: Subscriber, Subscription,
    DescribedByName, @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    @usableFromInline
    internal let scheduler: Context
    @usableFromInline
    internal let options: Context.SchedulerOptions?

    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(downstream: Downstream, scheduler: Context, options: Context.SchedulerOptions?) {
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: SubscribeOnSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: SubscribeOnSubscription.self).cancelSpecialized() })
        link = .awaitingSubscription(downstream)
        self.scheduler = scheduler
        self.options = options
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let downstream = lock.locked { link.accept(subscription) }
        announce(self, to: downstream, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        guard let downstream = lock.locked({ link.subscribedDownstream }) else { return .none }
        return downstream.receive(input)
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
        guard let upstream = lock.locked({ link.subscription }) else { return }
        scheduler.schedule(options: options) { upstream.request(demand) }
    }

    @inlinable
    internal func cancelSpecialized() {
        guard let (upstream, _) = lock.locked({ link.terminate() }).live else { return }
        scheduler.schedule(options: options) { upstream.cancel() }
    }

    @usableFromInline
    internal var description: String { "SubscribeOn" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
