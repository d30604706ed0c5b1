extension Publishers {
    /// A publisher that uses a subject to deliver elements to multiple subscribers.
    ///
    /// The subject is created once, the first time a subscriber arrives or ``connect()`` is
    /// called, and shared by every subscriber. Nothing flows until ``connect()`` subscribes the
    /// subject to the upstream; each call to `connect()` subscribes it again.
    public final class Multicast<Upstream: Publisher, SubjectType: Subject>: ConnectablePublisher
        where Upstream.Failure == SubjectType.Failure, Upstream.Output == SubjectType.Output
    {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        /// A closure that creates the subject through which elements are delivered.
        public final let createSubject: () -> SubjectType

        @usableFromInline
        internal let lock = Lock()
        @usableFromInline @exclusivity(unchecked)
        internal var subject: SubjectType?

        /// Creates a multicast publisher that applies a closure to create a subject that
        /// delivers elements to subscribers.
        @inlinable
        public init(upstream: Upstream, createSubject: @escaping () -> SubjectType) {
            self.upstream = upstream
            self.createSubject = createSubject
        }

        /// The subject, created on first use. The closure runs without the lock held; if two
        /// threads race to create it, the first one stored is kept.
        @inlinable
        internal final var lazySubject: SubjectType {
            if let existing = lock.locked({ subject }) { return existing }
            let created = createSubject()
            return lock.locked { () -> SubjectType in
                if let existing = subject { return existing }
                subject = created
                return created
            }
        }

        @inlinable
        public final func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            lazySubject.receive(subscriber: MulticastInner(downstream: subscriber))
        }

        /// Subscribes the subject to the upstream; cancelling the result disconnects it.
        @inlinable
        public final func connect() -> Cancellable {
            upstream.subscribe(lazySubject)
        }
    }
}

extension Publisher {
    /// Applies a closure to create a subject that delivers elements to subscribers.
    ///
    /// The subject is created once, when the first subscriber arrives or on `connect()`.
    @inlinable
    public func multicast<S: Subject>(_ createSubject: @escaping () -> S) -> Publishers.Multicast<Self, S>
        where Failure == S.Failure, Output == S.Output
    {
        Publishers.Multicast(upstream: self, createSubject: createSubject)
    }

    /// Provides a subject to deliver elements to multiple subscribers.
    @inlinable
    public func multicast<S: Subject>(subject: S) -> Publishers.Multicast<Self, S>
        where Failure == S.Failure, Output == S.Output
    {
        Publishers.Multicast(upstream: self) { subject }
    }
}

/// Sits between the subject and one subscriber, as Combine's: the subscriber sees a
/// "Multicast" subscription that forwards requests and cancellation to the subject's.
@usableFromInline
internal final class MulticastInner<Downstream: Subscriber>: Subscriber, Subscription,
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

    @inlinable
    internal init(downstream: Downstream) {
        link = .awaitingSubscription(downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        announce(self, to: lock.locked { link.accept(subscription) }, orCancel: subscription)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        guard let (subscription, downstream) = lock.locked({ link.live }) else { return .none }
        let more = downstream.receive(input)
        if more > 0 {
            subscription.request(more)
        }
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let previous = lock.locked { link.terminateIfSubscribed() }
        previous.subscribedDownstream?.receive(completion: completion)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        lock.locked { link.subscription }?.request(demand)
    }

    @inlinable
    internal func cancel() {
        let previous = lock.locked { link.terminateIfSubscribed() }
        previous.subscription?.cancel()
    }

    @usableFromInline
    internal var description: String { "Multicast" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}
