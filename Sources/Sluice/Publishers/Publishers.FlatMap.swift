import Synchronization

extension Publishers {
    /// A publisher that transforms elements from an upstream publisher into a new publisher.
    ///
    /// The downstream receives its subscription before the upstream is subscribed to. The
    /// upstream is asked for `maxPublishers` values (even `.none`), and for one more each time
    /// a child publisher finishes when that number is bounded, so `.max(1)` subscribes to one
    /// child at a time, in order. Children are asked for one value at a time (`.unlimited` once
    /// the downstream is); their values are delivered in arrival order, one at a time even when
    /// children send from different threads, and wait in order while the downstream has no
    /// demand. It finishes once the upstream and every child have finished and nothing is left
    /// waiting; a failure of the upstream or any child cancels the children and fails at once.
    public struct FlatMap<NewPublisher: Publisher, Upstream: Publisher>: Publisher
        where NewPublisher.Failure == Upstream.Failure
    {
        public typealias Output = NewPublisher.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The maximum number of concurrent publisher subscriptions.
        public let maxPublishers: Subscribers.Demand

        /// A closure that takes an element as a parameter and returns a publisher that produces
        /// elements of that type.
        public let transform: (Upstream.Output) -> NewPublisher

        /// Creates a publisher that transforms elements from an upstream publisher into a new
        /// publisher.
        @inlinable
        public init(upstream: Upstream, maxPublishers: Subscribers.Demand,
                    transform: @escaping (Upstream.Output) -> NewPublisher) {
            self.upstream = upstream
            self.maxPublishers = maxPublishers
            self.transform = transform
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S)
            where NewPublisher.Output == S.Input, Upstream.Failure == S.Failure
        {
            let inner = FlatMapSubscription<S, NewPublisher, Upstream>(
                downstream: subscriber, maxPublishers: maxPublishers, transform: transform)
            subscriber.receive(subscription: inner)
            upstream.receive(subscriber: inner)
        }
    }
}

extension Publisher {
    /// Transforms all elements from an upstream publisher into a new publisher up to a maximum
    /// number of publishers you specify, and republishes their elements as one stream.
    ///
    /// `maxPublishers: .max(1)` subscribes to one publisher at a time, in order (concatenation).
    @inlinable
    public func flatMap<T, P>(maxPublishers: Subscribers.Demand = .unlimited,
                              _ transform: @escaping (Output) -> P) -> Publishers.FlatMap<P, Self>
        where T == P.Output, P: Publisher, Failure == P.Failure
    {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher where Failure == Never {
    /// Transforms all elements from an upstream publisher that cannot fail into publishers that
    /// can, giving the upstream their failure type.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<P, Publishers.SetFailureType<Self, P.Failure>>
    {
        Publishers.FlatMap(upstream: Publishers.SetFailureType(upstream: self),
                           maxPublishers: maxPublishers, transform: transform)
    }

    /// Transforms all elements from an upstream publisher that cannot fail into publishers that
    /// cannot fail either.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P) -> Publishers.FlatMap<P, Self>
        where P.Failure == Never
    {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers, transform: transform)
    }
}

extension Publisher {
    /// Transforms all elements from an upstream publisher into publishers that cannot fail,
    /// giving them the upstream's failure type.
    @inlinable
    public func flatMap<P: Publisher>(maxPublishers: Subscribers.Demand = .unlimited,
                                      _ transform: @escaping (Output) -> P)
        -> Publishers.FlatMap<Publishers.SetFailureType<P, Failure>, Self>
        where P.Failure == Never
    {
        Publishers.FlatMap(upstream: self, maxPublishers: maxPublishers) {
            Publishers.SetFailureType(upstream: transform($0))
        }
    }
}

/// The subscription of a flatMap: the upstream's subscriber, the downstream's subscription, and
/// the owner of every child subscription, a growing set of upstreams on ``FanInGate`` (the
/// upstream is its outer upstream). Values that arrive while the downstream has no demand wait
/// in one first-in-first-out buffer across children; each one that is later delivered asks its
/// child for one more, as in Combine.
@usableFromInline
internal final class FlatMapSubscription<Downstream: Subscriber, Child: Publisher, Upstream: Publisher>:
    FanInGate<Downstream, Int?>, Subscriber, Subscription, SideParent, DescribedByName, @unchecked Sendable
    where Downstream.Input == Child.Output, Downstream.Failure == Upstream.Failure,
    Child.Failure == Upstream.Failure
{
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal let maxPublishers: Subscribers.Demand
    @usableFromInline
    internal let transform: (Upstream.Output) -> Child
    @usableFromInline @exclusivity(unchecked)
    internal var nextIndex = 0
    @usableFromInline @exclusivity(unchecked)
    internal var buffer = RingBuffer<(Int, Child.Output)>()
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// Which children are live, for a value to see without the lock (``LiveChildren``).
    @usableFromInline
    internal let liveChildren = LiveChildren()

    @inlinable
    internal init(downstream: Downstream, maxPublishers: Subscribers.Demand,
                  transform: @escaping (Upstream.Output) -> Child) {
        self.maxPublishers = maxPublishers
        self.transform = transform
        super.init(growingWith: downstream)
    }

    // MARK: The upstream

    @inlinable
    internal func receive(subscription: Subscription) {
        let accepted = lock.locked { () -> Bool in
            guard !terminated, outer.isAwaitingSubscription else { return false }
            outer = .subscribed(subscription)
            return true
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        subscription.request(maxPublishers)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        let index = lock.locked { () -> Int? in
            guard !terminated, outer.isSubscribed else { return nil }
            let index = nextIndex
            nextIndex += 1
            addLocked(index)
            liveChildren.add(index)
            return index
        }
        guard let index else { return .none }
        transform(input).receive(subscriber: SideSubscriber(parent: self, key: index))
        return .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        switch completion {
        case .finished:
            let (ticket, previous) = lock.locked { () -> (Ticket, GateUpstream?) in
                guard !terminated, !outer.isDone else { return (.none, nil) }
                let previous = outer
                outer = .done
                return (finishIfDoneLocked(), previous)
            }
            withExtendedLifetime(previous) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        case .failure:
            let (ticket, detached, dropped) = lock.locked {
                () -> (Ticket, [GateUpstream], RingBuffer<(Int, Child.Output)>) in
                guard !terminated, !outer.isDone else { return (.none, [], RingBuffer()) }
                let detached = detachAllLocked()
                let dropped = buffer
                buffer = RingBuffer()
                outer = .done
                return (submitLocked(.completion(completion)), detached, dropped)
            }
            // The children are cancelled before the failure goes out.
            detached.cancelAll()
            withExtendedLifetime(dropped) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
    }

    // MARK: Children

    @inlinable
    internal func receive(subscription: Subscription, from index: Int) {
        let request = lock.locked { () -> Subscribers.Demand? in
            guard acceptLocked(subscription, at: index) else { return nil }
            return demand == .unlimited ? .unlimited : .max(1)
        }
        guard let request else {
            subscription.cancel()
            return
        }
        subscription.request(request)
    }

    @inlinable
    internal func receive(_ input: Child.Output, from index: Int) -> Subscribers.Demand {
        if liveChildren.contains(index), claimLockFree() {
            // Unlimited demand, nothing waiting, a live child and nobody delivering: straight
            // through, as merge's values go.
            run(.deliver(.value(input, nil), thenDrain: true)) { tag, demand, _ in
                self.delivered(tag: tag, returned: demand)
            }
            return .none
        }
        let (ticket, answer) = lock.locked { () -> (Ticket, Subscribers.Demand) in
            guard !terminated, position(of: index) != nil else { return (.none, .none) }
            if demand == .unlimited {
                return (submitLocked(.value(input, nil)), .none)
            }
            // Behind values already waiting, or without demand: wait in order.
            if demand == .none || !buffer.isEmpty {
                buffer.append((index, input))
                return (.none, .none)
            }
            demand -= 1
            return (submitLocked(.value(input, nil)), .max(1))
        }
        run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        return answer
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>, from index: Int) {
        switch completion {
        case .finished:
            let (ticket, removed, moreFrom) = lock.locked { () -> (Ticket, GateUpstream?, Subscription?) in
                guard !terminated else { return (.none, nil, nil) }
                let removed = finishLocked(index)
                if removed != nil { liveChildren.remove(index) }
                let ticket = finishIfDoneLocked()
                if case .deliver = ticket { return (ticket, removed, nil) }
                if terminated { return (ticket, removed, nil) }
                // Combine asks for one more publisher on every child completion it sees.
                return (ticket, removed, maxPublishers == .unlimited ? nil : outer.subscription)
            }
            withExtendedLifetime(removed) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
            moreFrom?.request(.max(1))
        case .failure:
            var failed: GateUpstream?
            let (ticket, others, dropped, upstream) = lock.locked {
                () -> (Ticket, [GateUpstream], RingBuffer<(Int, Child.Output)>, GateUpstream) in
                failed = finishLocked(index)
                guard failed != nil else { return (.none, [], RingBuffer(), .done) }
                let others = detachAllLocked()
                let dropped = buffer
                buffer = RingBuffer()
                // As in Combine the upstream is not cancelled; it is only let go.
                let upstream = outer
                outer = .done
                return (submitLocked(.completion(completion)), others, dropped, upstream)
            }
            others.cancelAll()
            withExtendedLifetime((dropped, upstream, failed)) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
    }

    // MARK: Delivery

    /// Finishes if the upstream and every child (pending subscriptions included) are done and
    /// nothing waits.
    @inlinable
    internal func finishIfDoneLocked() -> Ticket {
        guard !terminated, outer.isDone, isEmptyLocked, buffer.isEmpty else { return .none }
        terminated = true
        return submitLocked(.completion(.finished))
    }

    /// Moves waiting values to the gate while there is demand.
    @inlinable
    internal func commitBufferLocked() {
        guard !terminated else { return }
        while demand > 0, let (index, value) = buffer.popFirst() {
            let unlimited = demand == .unlimited
            if !unlimited { demand -= 1 }
            enqueueLocked(.value(value, unlimited ? nil : index))
        }
        if outer.isDone, isEmptyLocked, buffer.isEmpty {
            terminated = true
            enqueueLocked(.completion(.finished))
        }
    }

    /// After each delivery: add what the downstream returned, move waiting values along, and
    /// ask the child a formerly waiting value came from for one more.
    @inlinable
    internal func delivered(tag: Int?, returned: Subscribers.Demand) {
        // Nothing to add and no child to refill: values wait in the buffer only while demand is
        // zero, and a request that adds demand moves them along itself. So no lock (a third of
        // the per-value locks of a flatMap into an unlimited subscriber).
        guard returned > 0 || tag != nil else { return }
        let refill = lock.locked { () -> Subscription? in
            demand += returned
            if demand > 0, !buffer.isEmpty { commitBufferLocked() }
            return tag.flatMap { subscriptionLocked($0) }
        }
        refill?.request(.max(1))
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (claimed, unlimited) = lock.locked { () -> (Bool, [Subscription]) in
            guard !terminated, self.demand != .unlimited else { return (false, []) }
            if demand == .unlimited {
                self.demand = .unlimited
                commitBufferLocked()
                defer { openLockFreeClaimIfReadyLocked() }
                return (claimLocked(), liveSubscriptionsLocked)
            }
            self.demand += demand
            commitBufferLocked()
            return (claimLocked(), [])
        }
        if claimed {
            drain { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
        for child in unlimited {
            child.request(.unlimited)
        }
    }

    /// Opens the gate's lock-free claim once a child's value needs no check but whether its
    /// child is live (``liveChildren``): demand is unlimited, nothing waits and the flatMap is
    /// live. It stays open as children come and go; the gate shuts it when the flatMap ends (a
    /// child's failure ends it too), after which what the table says no longer matters. Opened
    /// by a request for unlimited values only: demand that becomes unlimited by adding up keeps
    /// every value on the locked path, as in merge.
    @inlinable
    internal func openLockFreeClaimIfReadyLocked() {
        guard demand == .unlimited, buffer.isEmpty, !terminated else { return }
        openLockFreeClaimLocked()
    }

    /// The values waiting for demand, released after unlocking at a cancel.
    @inlinable
    override internal func takeBuffersLocked() -> Any? {
        defer { buffer = RingBuffer() }
        return buffer
    }

    @usableFromInline
    internal var description: String { "FlatMap" }

    @usableFromInline
    internal var sideDescription: String { "FlatMap" }

    @usableFromInline
    internal var sideMirrorChildren: [Mirror.Child] { [(label: "parentSubscription", value: combineIdentifier)] }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

/// Which of a flatMap's children are live, readable without the lock, so that a child's value
/// can take the gate's lock-free claim while a finished child's values are still told apart and
/// ignored. Eight words, each holding the index of the live child that has it, or -1: child
/// `index` has word `index % 8` if no other live child has it when the child is added (children
/// that come one after another always find theirs free); a child that finds its word taken is
/// known to be live only under the lock, and its values go that way. Written under the lock.
///
/// Eight stored atomics rather than a buffer: the table costs no allocation of its own (a
/// flatMap inside a flatMap subscribes one per outer value), and Swift 6.0 has no fixed-size
/// array to hold atomics in place; `word(_:_:)` picks one.
@usableFromInline
internal struct LiveChildren: ~Copyable {
    @usableFromInline internal let w0: Atomic<Int>
    @usableFromInline internal let w1: Atomic<Int>
    @usableFromInline internal let w2: Atomic<Int>
    @usableFromInline internal let w3: Atomic<Int>
    @usableFromInline internal let w4: Atomic<Int>
    @usableFromInline internal let w5: Atomic<Int>
    @usableFromInline internal let w6: Atomic<Int>
    @usableFromInline internal let w7: Atomic<Int>

    @inlinable
    internal init() {
        w0 = Atomic(-1)
        w1 = Atomic(-1)
        w2 = Atomic(-1)
        w3 = Atomic(-1)
        w4 = Atomic(-1)
        w5 = Atomic(-1)
        w6 = Atomic(-1)
        w7 = Atomic(-1)
    }

    /// Runs `body` with child `index`'s word.
    @inlinable
    @inline(__always)
    internal func word<Result>(_ index: Int, _ body: (borrowing Atomic<Int>) -> Result) -> Result {
        switch index & 7 {
        case 0: return body(w0)
        case 1: return body(w1)
        case 2: return body(w2)
        case 3: return body(w3)
        case 4: return body(w4)
        case 5: return body(w5)
        case 6: return body(w6)
        default: return body(w7)
        }
    }

    /// Whether child `index` is known to be live (`false`: not known so; ask under the lock).
    /// The word is written under the lock before the child is subscribed and when it finishes,
    /// and a child's own calls come one after another, so the child reads what was last written
    /// for it; indices only grow, so a finished child never finds its index in a reused word.
    @inlinable
    @inline(__always)
    internal func contains(_ index: Int) -> Bool {
        word(index) { $0.load(ordering: .acquiring) } == index
    }

    /// Gives child `index` its word if that is free. Under the lock.
    @inlinable
    internal func add(_ index: Int) {
        replace(-1, with: index, in: index)
    }

    /// Frees child `index`'s word if it has it. Under the lock.
    @inlinable
    internal func remove(_ index: Int) {
        replace(index, with: -1, in: index)
    }

    /// Sets child `index`'s word to `new` if it holds `old`. Only lock holders write the words,
    /// once per child as it comes and as it goes, so a compare-and-exchange costs nothing a
    /// value would notice.
    @inlinable
    internal func replace(_ old: Int, with new: Int, in index: Int) {
        _ = word(index) { $0.compareExchange(expected: old, desired: new, ordering: .releasing) }
    }
}
