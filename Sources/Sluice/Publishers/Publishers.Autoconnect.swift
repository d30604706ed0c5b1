extension ConnectablePublisher {
    /// Automates the process of connecting or disconnecting from this connectable publisher.
    ///
    /// The first subscriber connects it; when the last subscriber cancels, the connection is
    /// cancelled, and the next subscriber connects again.
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

        private let lock = Lock()
        private var connection: Cancellable?
        private var subscriberCount = 0

        /// Creates a publisher that automatically connects to an upstream connectable publisher.
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Output == S.Input {
            let first = lock.locked { () -> Bool in
                subscriberCount += 1
                return subscriberCount == 1 && connection == nil
            }
            upstream.receive(subscriber: AutoconnectInner(downstream: subscriber, parent: self))
            guard first else { return }
            let newConnection = upstream.connect()
            let stale = lock.locked { () -> Cancellable? in
                guard subscriberCount > 0, connection == nil else { return newConnection }
                connection = newConnection
                return nil
            }
            stale?.cancel()
        }

        fileprivate func subscriberCancelled() {
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
private final class AutoconnectInner<Downstream: Subscriber, Upstream: ConnectablePublisher>: Subscriber,
    CustomStringConvertible, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    typealias Input = Downstream.Input
    typealias Failure = Downstream.Failure

    let downstream: Downstream
    let parent: Publishers.Autoconnect<Upstream>

    init(downstream: Downstream, parent: Publishers.Autoconnect<Upstream>) {
        self.downstream = downstream
        self.parent = parent
    }

    func receive(subscription: Subscription) {
        downstream.receive(subscription: CountedSubscription(subscription, parent: parent))
    }

    func receive(_ input: Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    func receive(completion: Subscribers.Completion<Failure>) {
        downstream.receive(completion: completion)
    }

    var description: String { "Autoconnect" }

    final class CountedSubscription: Subscription, CustomStringConvertible, @unchecked Sendable {
        let lock = Lock()
        var upstream: Subscription?
        let parent: Publishers.Autoconnect<Upstream>

        init(_ upstream: Subscription, parent: Publishers.Autoconnect<Upstream>) {
            self.upstream = upstream
            self.parent = parent
        }

        func request(_ demand: Subscribers.Demand) {
            lock.locked { upstream }?.request(demand)
        }

        func cancel() {
            guard let upstream = lock.locked({ () -> Subscription? in
                defer { self.upstream = nil }
                return self.upstream
            }) else { return }
            upstream.cancel()
            parent.subscriberCancelled()
        }

        var description: String {
            lock.locked { upstream }.map { String(describing: $0) } ?? "Autoconnect"
        }
    }
}
