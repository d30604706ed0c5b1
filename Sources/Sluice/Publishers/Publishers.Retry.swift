extension Publishers {
    /// A publisher that attempts to recreate its subscription to a failed upstream publisher.
    ///
    /// After a failure it subscribes to the upstream again and asks the new subscription for the
    /// demand the downstream has not yet received. Once the retries are used up, the next
    /// failure is passed on.
    public struct Retry<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of retry attempts to perform.
        ///
        /// If `nil` (or negative), this publisher attempts to reconnect with the upstream
        /// publisher an unlimited number of times.
        public let retries: Int?

        /// Creates a publisher that attempts to recreate its subscription to a failed upstream
        /// publisher.
        @inlinable
        public init(upstream: Upstream, retries: Int?) {
            self.upstream = upstream
            self.retries = retries
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
            RetrySubscription(upstream: upstream, retries: retries, downstream: subscriber).start()
        }
    }
}

extension Publishers.Retry: Equatable where Upstream: Equatable {
    @inlinable
    public static func == (lhs: Publishers.Retry<Upstream>, rhs: Publishers.Retry<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream && lhs.retries == rhs.retries
    }
}

/// The subscription of `retry`: one object that subscribes itself to the upstream again after
/// each failure. It tracks the downstream's outstanding demand so that a new upstream
/// subscription can be asked for exactly what is still owed.
///
/// Resubscribing is a loop, not a recursion: a failure that arrives while the upstream is
/// being subscribed (a `Fail`, or any upstream that fails synchronously) only asks the running
/// loop to go round once more, so thousands of synchronous retries use constant stack.
///
/// SluiceExtras' `retry(_:delay:scheduler:)` is this subscription with a ``RetryDelay``: after a
/// failure it waits for the delay to call back before subscribing again. Meanwhile the
/// downstream is still owed its demand (asked of the new subscription), and a cancel makes the
/// callback resubscribe nothing.
@usableFromInline
package final class RetrySubscription<Upstream: Publisher, Downstream: Subscriber>:
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
    where Downstream.Input == Upstream.Output, Downstream.Failure == Upstream.Failure
{
    @usableFromInline
    package typealias Input = Upstream.Output
    @usableFromInline
    package typealias Failure = Upstream.Failure

    /// Waits before a retry: called (outside the lock) with the retry's number, from 1, and what
    /// to call when the wait is over.
    @usableFromInline
    package typealias RetryDelay = (_ attempt: Int, _ resubscribe: @escaping () -> Void) -> Void

    /// What an upstream completion leads to, decided under the lock and carried out after it.
    @usableFromInline
    internal enum CompletionAction {
        case ignore
        case forward(LinkState<Downstream>)
        case resubscribe
        /// Wait for the delay before retry number `attempt`.
        case wait(Int)
    }

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var link: LinkState<Downstream>
    /// What the downstream has asked for and not yet received.
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// Retries left; `nil` is unlimited.
    @usableFromInline @exclusivity(unchecked)
    internal var remaining: Int?
    /// The downstream has been given this subscription (only the first upstream subscription
    /// triggers that).
    @usableFromInline @exclusivity(unchecked)
    internal var downstreamSubscribed = false
    /// A subscribe loop is running.
    @usableFromInline @exclusivity(unchecked)
    internal var subscribing = false
    /// A failure arrived while the loop was subscribing: go round again.
    @usableFromInline @exclusivity(unchecked)
    internal var resubscribe = false

    /// Retries made so far (the next one's number, less one), for ``RetryDelay``.
    @usableFromInline @exclusivity(unchecked)
    internal var attempts = 0

    @usableFromInline
    internal let upstream: Upstream
    /// `nil` for Combine's `retry`, which resubscribes at once.
    @usableFromInline
    internal let delay: RetryDelay?

    @inlinable
    internal init(upstream: Upstream, retries: Int?, downstream: Downstream) {
        self.upstream = upstream
        remaining = retries.flatMap { $0 < 0 ? nil : $0 }
        link = .awaitingSubscription(downstream)
        delay = nil
    }

    /// A retry that waits for `delay` before each resubscription.
    @inlinable
    package init(upstream: Upstream, retries: Int?, downstream: Downstream, delay: @escaping RetryDelay) {
        self.upstream = upstream
        remaining = retries.flatMap { $0 < 0 ? nil : $0 }
        link = .awaitingSubscription(downstream)
        self.delay = delay
    }

    @inlinable
    package func start() {
        lock.locked { subscribing = true }
        subscribeLoop()
    }

    /// Subscribes to the upstream until a subscription attempt ends without a synchronous
    /// failure asking for another. Entered with `subscribing` set.
    @inlinable
    internal func subscribeLoop() {
        repeat {
            upstream.receive(subscriber: self)
        } while lock.locked({ () -> Bool in
            if resubscribe {
                resubscribe = false
                return true
            }
            subscribing = false
            return false
        })
    }

    @inlinable
    package func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> (Downstream?, Subscribers.Demand)? in
            guard let downstream = link.accept(subscription) else { return nil }
            let first = !downstreamSubscribed
            downstreamSubscribed = true
            return (first ? downstream : nil, demand)
        }
        guard let (newDownstream, pending) = accepted else {
            subscription.cancel()
            return
        }
        if let newDownstream {
            newDownstream.receive(subscription: self)
        }
        if pending > 0 {
            subscription.request(pending)
        }
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
        let target = lock.locked { () -> Downstream? in
            guard let downstream = link.downstream else { return nil }
            precondition(demand > 0, "Retry received a value it did not request (a misbehaving upstream)")
            demand -= 1
            return downstream
        }
        guard let downstream = target else { return .none }
        let more = downstream.receive(input)
        guard more > 0 else { return .none }
        // Combine passes the downstream's extra demand on through `request`, not as the return.
        let subscription = lock.locked { () -> Subscription? in
            if case .terminal = link { return nil }
            demand += more
            return link.subscription
        }
        subscription?.request(more)
        return .none
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        // `replaced` holds the failed subscription until after unlocking (nothing is released
        // under the lock).
        let (action, replaced) = lock.locked { () -> (CompletionAction, LinkState<Downstream>?) in
            guard let downstream = link.downstream else { return (.ignore, nil) }
            if case .failure = completion, remaining != 0 {
                if let left = remaining { remaining = left - 1 }
                attempts += 1
                let previous = link
                link = .awaitingSubscription(downstream)
                if delay != nil {
                    return (.wait(attempts), previous)
                }
                return (resubscribeLocked() ? .resubscribe : .ignore, previous)
            }
            return (.forward(link.terminate()), nil)
        }
        withExtendedLifetime(replaced) {}
        switch action {
        case .ignore:
            break
        case .forward(let previous):
            previous.downstream?.receive(completion: completion)
        case .resubscribe:
            subscribeLoop()
        case .wait(let attempt):
            delay?(attempt) { self.delayEnded() }
        }
    }

    /// Asks for a resubscription: `true` if the caller must run the subscribe loop, `false` if
    /// the loop already running (this failure arrived while it subscribed) goes round again.
    @inlinable
    internal func resubscribeLocked() -> Bool {
        if subscribing {
            resubscribe = true
            return false
        }
        subscribing = true
        return true
    }

    /// A retry's wait is over: subscribe again, unless the subscription was cancelled meanwhile.
    @inlinable
    internal func delayEnded() {
        let go = lock.locked { () -> Bool in
            guard link.isAwaitingSubscription else { return false }
            return resubscribeLocked()
        }
        if go {
            subscribeLoop()
        }
    }

    @inlinable
    package func request(_ more: Subscribers.Demand) {
        let subscription = lock.locked { () -> Subscription? in
            if case .terminal = link { return nil }
            demand += more
            return link.subscription
        }
        subscription?.request(more)
    }

    @inlinable
    package func cancel() {
        let previous = lock.locked { link.terminate() }
        previous.subscription?.cancel()
    }

    @usableFromInline
    package var description: String { "Retry" }

    @usableFromInline
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

extension Publisher {
    /// Attempts to recreate a failed subscription with the upstream publisher up to the number
    /// of times you specify.
    ///
    /// After exceeding the specified number of retries, the publisher passes the failure to the
    /// downstream receiver. Demand the downstream made and did not receive is requested again
    /// from each new subscription.
    @inlinable
    public func retry(_ retries: Int) -> Publishers.Retry<Self> {
        Publishers.Retry(upstream: self, retries: retries)
    }
}
