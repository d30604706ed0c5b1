extension Publishers {
    /// A strategy for filling a buffer.
    public enum PrefetchStrategy: Equatable, Hashable {
        /// A strategy to fill the buffer at subscription time, and keep it full thereafter.
        case keepFull
        /// A strategy that avoids prefetching and instead performs requests on demand. (As in
        /// Combine, the upstream is in fact asked for `.unlimited` at once.)
        case byRequest

        /// Whether the two strategies are the same.
        @inlinable
        public static func == (lhs: PrefetchStrategy, rhs: PrefetchStrategy) -> Bool {
            switch (lhs, rhs) {
            case (.keepFull, .keepFull), (.byRequest, .byRequest): return true
            default: return false
            }
        }

        /// Hashes the strategy.
        @inlinable
        public func hash(into hasher: inout Hasher) {
            hasher.combine(self == .keepFull ? 0 : 1)
        }
    }

    /// A strategy that handles exhaustion of a buffer's capacity.
    public enum BufferingStrategy<Failure: Error> {
        /// When the buffer is full, discard the newly received element.
        case dropNewest
        /// When the buffer is full, discard the oldest element in the buffer.
        case dropOldest
        /// When the buffer is full, cancel the upstream and fail with the error from this
        /// closure, once the values already buffered that fit the downstream's demand have
        /// been delivered.
        case customError(() -> Failure)
    }

    /// A publisher that buffers elements from an upstream publisher.
    ///
    /// The upstream is asked for `size` values (`.keepFull`, refilled as buffered values are
    /// delivered) or `.unlimited` (`.byRequest`) before the downstream gets its subscription.
    /// Values wait in a first-in-first-out buffer of `size` until the downstream asks for them.
    /// After the upstream finishes, the buffered values are still delivered on demand and
    /// `.finished` follows once the buffer is empty and there is demand left; an upstream
    /// failure is delivered at once and drops the values that have no demand.
    public struct Buffer<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream
        /// The maximum number of elements to store.
        public let size: Int
        /// The strategy for initially populating the buffer.
        public let prefetch: Publishers.PrefetchStrategy
        /// The action to take when the buffer becomes full.
        public let whenFull: Publishers.BufferingStrategy<Upstream.Failure>

        /// Creates a publisher that buffers elements received from an upstream publisher.
        @inlinable
        public init(upstream: Upstream, size: Int, prefetch: Publishers.PrefetchStrategy,
                    whenFull: Publishers.BufferingStrategy<Failure>) {
            self.upstream = upstream
            self.size = size
            self.prefetch = prefetch
            self.whenFull = whenFull
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: BufferSubscription(downstream: subscriber, size: size,
                                                            prefetch: prefetch, whenFull: whenFull))
        }
    }
}

extension Publisher {
    /// Buffers elements received from an upstream publisher.
    ///
    /// - Parameters:
    ///   - size: The maximum number of elements to store.
    ///   - prefetch: The strategy to initially populate the buffer.
    ///   - whenFull: The action to take when the buffer becomes full.
    @inlinable
    public func buffer(size: Int, prefetch: Publishers.PrefetchStrategy,
                       whenFull: Publishers.BufferingStrategy<Failure>) -> Publishers.Buffer<Self> {
        Publishers.Buffer(upstream: self, size: size, prefetch: prefetch, whenFull: whenFull)
    }
}

/// The subscription of a buffer. Values go straight through while nothing waits and the
/// downstream has demand; otherwise they wait, and each request delivers what fits.
@usableFromInline
internal final class BufferSubscription<Downstream: Subscriber>: DownstreamGate<Downstream, Void>,
    Subscriber, Subscription, DescribedByName, @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let size: Int
    @usableFromInline
    internal let prefetch: Publishers.PrefetchStrategy
    @usableFromInline
    internal let whenFull: Publishers.BufferingStrategy<Failure>
    /// The upstream, kept after a `customError` cancel: Combine still forwards `.keepFull`
    /// refills to it.
    @usableFromInline @exclusivity(unchecked)
    internal var upstream = GateUpstream.awaitingSubscription
    @usableFromInline @exclusivity(unchecked)
    internal var values = RingBuffer<Input>()
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// The upstream's completion (or the buffer-full error), not yet delivered.
    @usableFromInline @exclusivity(unchecked)
    internal var terminal: Subscribers.Completion<Failure>?
    /// The completion has been handed to the gate, or the subscription cancelled.
    @usableFromInline @exclusivity(unchecked)
    internal var closed = false

    @inlinable
    internal init(downstream: Downstream, size: Int, prefetch: Publishers.PrefetchStrategy,
                  whenFull: Publishers.BufferingStrategy<Failure>) {
        self.size = size
        self.prefetch = prefetch
        self.whenFull = whenFull
        super.init(downstream: downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard !closed, upstream.isAwaitingSubscription else { return false }
            upstream = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        // The upstream is asked before the downstream hears of the subscription, as in Combine.
        switch prefetch {
        case .keepFull: subscription.request(.max(size))
        case .byRequest: subscription.request(.unlimited)
        }
        handOver(self)
    }

    /// What became of one upstream value.
    @usableFromInline
    internal enum Outcome {
        case passed(Ticket)
        case buffered(evicted: Input?)
        case full
        case ignored
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let outcome = lock.locked { () -> Outcome in
            guard !closed, upstream.isSubscribed else { return .ignored }
            // Values after `.finished` are still buffered, as in Combine; not after a failure.
            if case .failure? = terminal { return .ignored }
            if values.isEmpty, demand > 0 {
                demand -= 1
                return .passed(submitLocked(.value(input, ())))
            }
            guard values.count >= size else {
                values.append(input)
                return .buffered(evicted: nil)
            }
            switch whenFull {
            case .dropNewest:
                return .buffered(evicted: input)
            case .dropOldest:
                let evicted = values.popFirst()
                values.append(input)
                return .buffered(evicted: evicted)
            case .customError:
                return .full
            }
        }
        switch outcome {
        case .passed(let ticket):
            var moved = 0
            run(ticket) { _, returned, _ in moved += self.delivered(returned: returned) }
            refill(moved)
            return prefetch == .keepFull ? .max(1) : .none
        case .buffered(let evicted):
            withExtendedLifetime(evicted) {}
            return .none
        case .ignored:
            return .none
        case .full:
            guard case .customError(let makeError) = whenFull else { return .none }
            let subscription = lock.locked { upstream.subscription }
            subscription?.cancel()
            // The closure runs with no lock held; the error waits for the next request.
            let error = makeError()
            lock.locked {
                if terminal == nil { terminal = .failure(error) }
            }
            return .none
        }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        let (ticket, dropped) = lock.locked { () -> (Ticket, RingBuffer<Input>) in
            guard !closed, terminal == nil, !upstream.isDone else { return (.none, RingBuffer()) }
            switch completion {
            case .finished:
                terminal = .finished
                guard values.isEmpty, demand > 0 else { return (.none, RingBuffer()) }
                closed = true
                return (submitLocked(.completion(.finished)), RingBuffer())
            case .failure:
                // Delivered at once: what is buffered has no demand and is dropped.
                closed = true
                let dropped = values
                values = RingBuffer()
                return (submitLocked(.completion(completion)), dropped)
            }
        }
        withExtendedLifetime(dropped) {}
        var moved = 0
        run(ticket) { _, returned, _ in moved += self.delivered(returned: returned) }
        refill(moved)
    }

    /// Moves buffered values to the gate while there is demand, then the completion if it is
    /// due; returns how many values moved. Values dropped by a failure are handed out through
    /// `dropped`, to be released after unlocking.
    @inlinable
    internal func commitLocked(dropped: inout RingBuffer<Input>) -> Int {
        guard !closed else { return 0 }
        var moved = 0
        while demand > 0, let value = values.popFirst() {
            demand -= 1
            moved += 1
            enqueueLocked(.value(value, ()))
        }
        switch terminal {
        case .failure?:
            closed = true
            dropped = values
            values = RingBuffer()
            enqueueLocked(.completion(terminal!))
        case .finished?:
            if values.isEmpty, demand > 0 {
                closed = true
                enqueueLocked(.completion(.finished))
            }
        case nil:
            break
        }
        return moved
    }

    /// Adds what the downstream returned and moves more of the buffer to the gate; returns how
    /// many values moved. The caller asks the upstream for all that a delivery run moved in one
    /// request (``refill(_:)``), as Combine does, not one per returned demand.
    @inlinable
    internal func delivered(returned: Subscribers.Demand) -> Int {
        guard returned > 0 else { return 0 }
        var dropped = RingBuffer<Input>()
        let moved = lock.locked { () -> Int in
            demand += returned
            return commitLocked(dropped: &dropped)
        }
        withExtendedLifetime(dropped) {}
        return moved
    }

    /// With `.keepFull`, asks the upstream for as many values as `moved` took out of the buffer.
    @inlinable
    internal func refill(_ moved: Int) {
        guard prefetch == .keepFull, moved > 0 else { return }
        lock.locked { upstream.subscription }?.request(.max(moved))
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        // Combine's buffer ignores a request for nothing rather than trapping.
        guard demand > 0 else { return }
        var dropped = RingBuffer<Input>()
        let (claimed, moved) = lock.locked { () -> (Bool, Int) in
            guard !closed else { return (false, 0) }
            self.demand += demand
            let moved = commitLocked(dropped: &dropped)
            return (claimLocked(), moved)
        }
        withExtendedLifetime(dropped) {}
        var movedWhileDelivering = 0
        if claimed {
            drain { _, returned, _ in movedWhileDelivering += self.delivered(returned: returned) }
        }
        refill(moved + movedWhileDelivering)
    }

    @inlinable
    internal func cancel() {
        let (previous, dropped, gate) = lock.locked {
            () -> (GateUpstream, RingBuffer<Input>, Detached) in
            closed = true
            let previous = upstream
            upstream = .done
            let dropped = values
            values = RingBuffer()
            return (previous, dropped, terminateLocked())
        }
        previous.subscription?.cancel()
        withExtendedLifetime((dropped, gate)) {}
    }

    @usableFromInline
    internal var description: String { "Buffer" }

    @usableFromInline
    internal var customMirror: Mirror {
        let (values, state, demand, terminal) = lock.locked { () -> ([Input], String, Subscribers.Demand, Subscribers.Completion<Failure>?) in
            let state: String
            switch upstream.phase {
            case .awaitingSubscription: state = "awaitingSubscription"
            case .subscribed: state = closed ? "terminal" : "subscribed"
            case .done: state = "terminal"
            }
            return (self.values.elements, state, self.demand, self.terminal)
        }
        return Mirror(self, children: [
            "values": values,
            "state": state,
            "downstreamDemand": demand,
            "terminal": terminal as Any,
        ])
    }
}
