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
    public final class Autoconnect<Upstream: ConnectablePublisher>: Publisher, @unchecked Sendable {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public final let upstream: Upstream

        @usableFromInline
        internal let lock = Lock()
        @usableFromInline @exclusivity(unchecked)
        internal var connection: Cancellable?
        /// A `connect()` is under way (it runs outside the lock): later first subscribers wait
        /// for it instead of connecting a second time.
        @usableFromInline @exclusivity(unchecked)
        internal var connecting = false
        @usableFromInline @exclusivity(unchecked)
        internal var subscriberCount = 0

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            let first = lock.locked { () -> Bool in
                subscriberCount += 1
                guard subscriberCount == 1, connection == nil, !connecting else { return false }
                connecting = true
                return true
            }
            upstream.receive(subscriber: AutoconnectInner(downstream: subscriber, parent: self))
            guard first else { return }
            let newConnection = upstream.connect()
            // Keep the connection if anyone is still subscribed; the last one may have left
            // while it was being made.
            let unwanted = lock.locked { () -> Cancellable? in
                connecting = false
                guard subscriberCount > 0 else { return newConnection }
                connection = newConnection
                return nil
            }
            unwanted?.cancel()
        }

        @inlinable
        internal func subscriberCancelled() {
            let ended = lock.locked { () -> Cancellable? in
                subscriberCount -= 1
                guard subscriberCount == 0 else { return nil }
                defer { connection = nil }
                return connection
            }
            ended?.cancel()
        }
    }
}

/// Sits between the connectable publisher and one subscriber: it counts the subscriber out when
/// it cancels. The downstream sees the upstream's subscription (by description), as in Combine.
@usableFromInline
internal final class AutoconnectInner<Downstream: Subscriber, Upstream: ConnectablePublisher>: Subscriber,
    CustomStringConvertible, @unchecked Sendable
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
    internal final class CountedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        @usableFromInline
        internal let lock = Lock()
        @usableFromInline @exclusivity(unchecked)
        internal var upstream: Subscription?
        @usableFromInline
        internal let parent: Publishers.Autoconnect<Upstream>

        @inlinable
        internal init(_ upstream: Subscription, parent: Publishers.Autoconnect<Upstream>) {
            self.upstream = upstream
            self.parent = parent
        }

        @inlinable
        internal func request(_ demand: Subscribers.Demand) {
            lock.locked { upstream }?.request(demand)
        }

        @inlinable
        internal func cancel() {
            guard let upstream = lock.locked({ () -> Subscription? in
                defer { self.upstream = nil }
                return self.upstream
            }) else { return }
            upstream.cancel()
            parent.subscriberCancelled()
        }

        @usableFromInline
        internal var description: String {
            lock.locked { upstream }.map { String(describing: $0) } ?? "Autoconnect"
        }
    }
}
