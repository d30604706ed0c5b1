extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this connectable publisher.
    ///
    /// The first subscriber connects it; when the last subscriber cancels, the connection is
    /// cancelled, and the next subscriber connects again.
    @inlinable
    public func autoconnect() -> Publishers.Autoconnect<Self> {
        Publishers.Autoconnect(upstream: self)
    }
}

extension Publishers {
    /// A publisher that automatically connects to an upstream connectable publisher.
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        @usableFromInline
        internal let lock = Lock()
        @usableFromInline @exclusivity(unchecked)
        internal var connection: Cancellable?
        /// One thread at a time connects or disconnects (outside the lock); the others only
        /// change the count, which that thread looks at again when it is done.
        @usableFromInline @exclusivity(unchecked)
        internal var transitioning = false
        @usableFromInline @exclusivity(unchecked)
        internal var subscriberCount = 0

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            let reconciles = lock.locked { () -> Bool in
                subscriberCount += 1
                guard subscriberCount == 1, !transitioning else { return false }
                transitioning = true
                return true
            }
            upstream.receive(subscriber: AutoconnectInner(downstream: subscriber, parent: self))
            if reconciles { reconcile() }
        }

        @inlinable
        internal func subscriberCancelled() {
            let reconciles = lock.locked { () -> Bool in
                subscriberCount -= 1
                guard subscriberCount == 0, !transitioning else { return false }
                transitioning = true
                return true
            }
            if reconciles { reconcile() }
        }

        /// Connects while someone is subscribed and disconnects once no one is, until the
        /// connection matches the count: a connection is never made while the previous one is
        /// still being cancelled, nor two at once, however subscribers come and go meanwhile.
        @inlinable
        internal func reconcile() {
            while true {
                let step = lock.locked { () -> (connect: Bool, disconnect: Cancellable?)? in
                    if subscriberCount > 0, connection == nil { return (true, nil) }
                    if subscriberCount == 0, let current = connection {
                        connection = nil
                        return (false, current)
                    }
                    transitioning = false
                    return nil
                }
                guard let step else { return }
                if step.connect {
                    let newConnection = upstream.connect()
                    lock.locked { connection = newConnection }
                } else {
                    step.disconnect?.cancel()
                }
            }
        }
    }
}

/// Sits between the connectable publisher and one subscriber: it counts the subscriber out when
/// it cancels. The downstream sees the upstream's subscription (by description), as in Combine.
@usableFromInline
internal final class AutoconnectInner<Downstream: Subscriber, Upstream: ConnectablePublisher>: Subscriber,
    DescribedByName, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let downstream: Downstream
    @usableFromInline
    internal let parent: Publishers.Autoconnect<Upstream>

    @inlinable
    internal init(downstream: Downstream, parent: Publishers.Autoconnect<Upstream>) {
        self.downstream = downstream
        self.parent = parent
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        downstream.receive(subscription: CountedSubscription(subscription, parent: parent))
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    @usableFromInline
    internal var description: String { "Autoconnect" }

    @usableFromInline
    internal var customMirror: Mirror {
        Mirror(self, children: ["parent": parent, "downstream": downstream])
    }

    /// Stands in for the upstream's subscription: it has the upstream's identity and
    /// description, as Combine's does, and is not reflected. Like Combine's, it passes every
    /// request and cancel on to the upstream's subscription, a repeated cancel included, and
    /// keeps describing itself as that subscription after a cancel; it counts its subscriber
    /// out of the connection once.
    @usableFromInline
    internal final class CountedSubscription: Subscription, CustomStringConvertible,
        CustomPlaygroundDisplayConvertible, @unchecked Sendable
    {
        @usableFromInline
        internal let lock = Lock()
        @usableFromInline @exclusivity(unchecked)
        internal var countedOut = false
        @usableFromInline
        internal let upstream: Subscription
        @usableFromInline
        internal let parent: Publishers.Autoconnect<Upstream>

        @inlinable
        internal init(_ upstream: Subscription, parent: Publishers.Autoconnect<Upstream>) {
            self.upstream = upstream
            self.parent = parent
        }

        @inlinable
        internal var combineIdentifier: CombineIdentifier { upstream.combineIdentifier }

        @inlinable
        internal func request(_ demand: Subscribers.Demand) {
            upstream.request(demand)
        }

        @inlinable
        internal func cancel() {
            let first = lock.locked { () -> Bool in
                defer { countedOut = true }
                return !countedOut
            }
            upstream.cancel()
            if first { parent.subscriberCancelled() }
        }

        @usableFromInline
        internal var description: String { String(describing: upstream) }

        @usableFromInline
        internal var playgroundDescription: Any { description }
    }
}
