extension Publishers {
    /// A publisher that buffers a maximum number of items.
    ///
    /// A request for `.max(n)` arrays becomes a request for `.max(n * count)` elements upstream.
    /// Each full buffer is published as an array; when the upstream finishes, a partial buffer
    /// is published (whatever the downstream's demand) before `.finished`; when it fails, the
    /// partial buffer is dropped and the failure forwarded.
    public struct CollectByCount<Upstream: Publisher>: Publisher {
        public typealias Output = [Upstream.Output]
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of received elements to buffer before publishing.
        public let count: Int

        @inlinable
        public init(upstream: Upstream, count: Int) {
            self.upstream = upstream
            self.count = count
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == [Upstream.Output], S.Failure == Upstream.Failure {
            upstream.receive(subscriber: CollectByCountSubscription<Upstream, S>(downstream: subscriber, count: count))
        }
    }
}

extension Publishers.CollectByCount: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams and the same count.
    @inlinable
    public static func == (lhs: Publishers.CollectByCount<Upstream>, rhs: Publishers.CollectByCount<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.count == rhs.count
    }
}

/// The subscription of `collect(_ count:)`: a buffer between an upstream and a downstream that
/// multiplies demand by `count`.
@usableFromInline
internal final class CollectByCountSubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == [Upstream.Output], Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal enum State {
        case awaitingSubscription(Downstream)
        case subscribed(Subscription, Downstream)
        /// Cancelled before the upstream's subscription arrived. Combine ignores such a cancel,
        /// so the late subscription is neither requested from nor cancelled (what the upstream
        /// observes); nothing is forwarded downstream.
        case cancelledBeforeSubscription
        case terminal
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var state: State
    @usableFromInline @exclusivity(unchecked)
    internal var buffer: [Input]
    @usableFromInline
    internal let count: Int

    @inlinable
    internal init(downstream: Downstream, count: Int) {
        state = .awaitingSubscription(downstream)
        self.count = count
        buffer = [Input]()
        buffer.reserveCapacity(reservation)
    }

    /// How much room to reserve for a batch: the batch size, bounded so that `collect(.max)`
    /// does not allocate everything up front.
    @inlinable
    internal var reservation: Int { Swift.min(Swift.max(count, 0), 1_024) }

    @inlinable
    internal func receive(subscription: Subscription) {
        // (downstream to start, whether to cancel the subscription)
        let (downstream, cancelIt) = lock.locked { () -> (Downstream?, Bool) in
            switch state {
            case .awaitingSubscription(let downstream):
                state = .subscribed(subscription, downstream)
                return (downstream, false)
            case .cancelledBeforeSubscription:
                state = .terminal
                return (nil, false)
            case .subscribed, .terminal:
                return (nil, true)
            }
        }
        if let downstream {
            downstream.receive(subscription: self)
        } else if cancelIt {
            subscription.cancel()
        }
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let full = lock.locked { () -> (Downstream, [Input])? in
            guard case .subscribed(_, let downstream) = state else { return nil }
            buffer.append(input)
            guard buffer.count == count else { return nil }
            var batch = [Input]()
            batch.reserveCapacity(reservation)
            swap(&batch, &buffer)
            return (downstream, batch)
        }
        guard let (downstream, batch) = full else { return .none }
        return downstream.receive(batch) * count
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let ended = lock.locked { () -> (Downstream, [Input])? in
            let downstream: Downstream
            switch state {
            // Combine forwards a completion that arrives before the subscription.
            case .awaitingSubscription(let live), .subscribed(_, let live):
                downstream = live
            case .cancelledBeforeSubscription, .terminal:
                return nil
            }
            state = .terminal
            var rest = [Input]()
            swap(&rest, &buffer)
            return (downstream, rest)
        }
        guard let (downstream, rest) = ended else { return }
        if case .finished = completion, !rest.isEmpty {
            // The partial batch goes out whatever the downstream's demand, as in Combine.
            _ = downstream.receive(rest)
        }
        downstream.receive(completion: completion)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let upstream = lock.locked { () -> Subscription? in
            if case .subscribed(let upstream, _) = state { return upstream }
            return nil
        }
        upstream?.request(demand * count)
    }

    @inlinable
    internal func cancel() {
        let upstream = lock.locked { () -> Subscription? in
            switch state {
            case .awaitingSubscription:
                state = .cancelledBeforeSubscription
                return nil
            case .subscribed(let upstream, _):
                state = .terminal
                buffer = [Input]()
                return upstream
            case .cancelledBeforeSubscription, .terminal:
                return nil
            }
        }
        upstream?.cancel()
    }

    @usableFromInline
    internal var description: String { "CollectByCount" }

    @usableFromInline
    internal var customMirror: Mirror {
        lock.locked { () -> Mirror in
            let downstream: Downstream?
            let upstream: Subscription?
            switch state {
            case .awaitingSubscription(let live): (downstream, upstream) = (live, nil)
            case .subscribed(let subscription, let live): (downstream, upstream) = (live, subscription)
            case .cancelledBeforeSubscription, .terminal: (downstream, upstream) = (nil, nil)
            }
            return Mirror(self, children: [
                "downstream": downstream as Any,
                "upstreamSubscription": upstream as Any,
                "buffer": buffer,
                "count": count,
            ])
        }
    }
}

extension Publisher {
    /// Collects up to the specified number of elements, and then emits a single array of the
    /// collection.
    ///
    /// If the upstream finishes before the buffer is full, the partial array is published
    /// before `.finished`; if it fails, the partial array is dropped. A request for `.max(n)`
    /// arrays asks the upstream for `.max(count * n)` elements.
    @inlinable
    public func collect(_ count: Int) -> Publishers.CollectByCount<Self> {
        Publishers.CollectByCount(upstream: self, count: count)
    }
}
