extension Publishers {
    /// A publisher that receives and combines the latest elements from two publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest<A: Publisher, B: Publisher>: Publisher
        where A.Failure == B.Failure
    {
        public typealias Output = (A.Output, B.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// Creates a publisher that combines two upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B) {
            self.a = a
            self.b = b
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            typealias Inner = CombineLatestSubscription<S, A.Output, B.Output, Void, Void>
            let inner = Inner(downstream: subscriber, count: 2, values: LatestValues(a: nil, b: nil, c: (), d: ())) { a, b, _, _ in (a, b) }
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            inner.handOver(inner)
        }
    }

    /// A publisher that receives and combines the latest elements from three publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest3<A: Publisher, B: Publisher, C: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure
    {
        public typealias Output = (A.Output, B.Output, C.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// Creates a publisher that combines three upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C) {
            self.a = a
            self.b = b
            self.c = c
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            typealias Inner = CombineLatestSubscription<S, A.Output, B.Output, C.Output, Void>
            let inner = Inner(downstream: subscriber, count: 3, values: LatestValues(a: nil, b: nil, c: nil, d: ())) { a, b, c, _ in (a, b, c) }
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            c.receive(subscriber: CombineLatestSide(index: 2, parent: inner) { swap(&$0.c, &$1) })
            inner.handOver(inner)
        }
    }

    /// A publisher that receives and combines the latest elements from four publishers.
    ///
    /// It emits a tuple of the latest values whenever any upstream emits, once every upstream has
    /// emitted at least once, and only while the downstream has demand (a value that arrives
    /// without demand only updates the latest values). Requests go to every upstream unchanged.
    /// It finishes when every upstream has finished and fails as soon as one fails.
    public struct CombineLatest4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
        where A.Failure == B.Failure, B.Failure == C.Failure, C.Failure == D.Failure
    {
        public typealias Output = (A.Output, B.Output, C.Output, D.Output)
        public typealias Failure = A.Failure

        /// A publisher to combine.
        public let a: A

        /// A second publisher to combine.
        public let b: B

        /// A third publisher to combine.
        public let c: C

        /// A fourth publisher to combine.
        public let d: D

        /// Creates a publisher that combines four upstream publishers.
        @inlinable
        public init(_ a: A, _ b: B, _ c: C, _ d: D) {
            self.a = a
            self.b = b
            self.c = c
            self.d = d
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Failure == Failure, S.Input == Output {
            typealias Inner = CombineLatestSubscription<S, A.Output, B.Output, C.Output, D.Output>
            let inner = Inner(downstream: subscriber, count: 4, values: LatestValues(a: nil, b: nil, c: nil, d: nil)) { a, b, c, d in (a, b, c, d) }
            a.receive(subscriber: CombineLatestSide(index: 0, parent: inner) { swap(&$0.a, &$1) })
            b.receive(subscriber: CombineLatestSide(index: 1, parent: inner) { swap(&$0.b, &$1) })
            c.receive(subscriber: CombineLatestSide(index: 2, parent: inner) { swap(&$0.c, &$1) })
            d.receive(subscriber: CombineLatestSide(index: 3, parent: inner) { swap(&$0.d, &$1) })
            inner.handOver(inner)
        }
    }

}

extension Publishers.CombineLatest: Equatable where A: Equatable, B: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.CombineLatest3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.CombineLatest4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publisher {
    /// Subscribes to another publisher and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher>(_ other: P) -> Publishers.CombineLatest<Self, P>
        where Failure == P.Failure
    {
        Publishers.CombineLatest(self, other)
    }

    /// Subscribes to another publisher and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest(self, other), transform: transform)
    }

    /// Subscribes to 2 other publishers and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.CombineLatest3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.CombineLatest3(self, publisher1, publisher2)
    }

    /// Subscribes to 2 other publishers and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest3(self, publisher1, publisher2), transform: transform)
    }

    /// Subscribes to 3 other publishers and publishes a tuple upon receiving output from any of them,
    /// once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.CombineLatest4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.CombineLatest4(self, publisher1, publisher2, publisher3)
    }

    /// Subscribes to 3 other publishers and publishes the result of `transform` upon receiving output
    /// from any of them, once each has published at least one element.
    @inlinable
    public func combineLatest<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.CombineLatest4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Map(upstream: Publishers.CombineLatest4(self, publisher1, publisher2, publisher3), transform: transform)
    }

}

/// The latest value of each of up to four upstreams (unused slots hold `()`).
@usableFromInline
internal struct LatestValues<A, B, C, D> {
    @usableFromInline internal var a: A?
    @usableFromInline internal var b: B?
    @usableFromInline internal var c: C?
    @usableFromInline internal var d: D?

    @inlinable
    internal init(a: A?, b: B?, c: C?, d: D?) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
    }

    @inlinable
    internal var all: (A, B, C, D)? {
        guard let a, let b, let c, let d else { return nil }
        return (a, b, c, d)
    }
}

/// The one subscription behind `CombineLatest`, `CombineLatest3` and `CombineLatest4`, with
/// Combine's rules: requests are forwarded unchanged to every upstream; each value replaces
/// that upstream's latest one and, once all have one and the downstream has demand, the
/// combination is delivered (values answer `.none`). A value sent from inside the downstream's
/// own `receive` only updates the latest values, as in Combine. Values arriving from other
/// threads meanwhile are delivered in turn.
@usableFromInline
internal final class CombineLatestSubscription<Downstream: Subscriber, A, B, C, D>:
    DownstreamGate<Downstream, Void>, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    internal let count: Int
    @usableFromInline
    internal let combine: (A, B, C, D) -> Downstream.Input
    @usableFromInline @exclusivity(unchecked)
    internal var values: LatestValues<A, B, C, D>
    @usableFromInline @exclusivity(unchecked)
    internal var upstreams: [GateUpstream]
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked)
    internal var finishedCount = 0
    @usableFromInline @exclusivity(unchecked)
    internal var terminated = false

    @inlinable
    internal init(downstream: Downstream, count: Int, values: LatestValues<A, B, C, D>,
                  combine: @escaping (A, B, C, D) -> Downstream.Input) {
        self.count = count
        self.values = values
        self.combine = combine
        upstreams = Array(repeating: .awaitingSubscription, count: count)
        super.init(downstream: downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription, index: Int) {
        let accepted = lock.locked { () -> Bool in
            guard !terminated, upstreams[index].isAwaitingSubscription else { return false }
            upstreams[index] = .subscribed(subscription)
            return true
        }
        if !accepted {
            subscription.cancel()
        }
    }

    @inlinable
    internal func receive(index: Int, store: (inout LatestValues<A, B, C, D>) -> Void) -> Subscribers.Demand {
        let ticket = lock.locked { () -> Ticket in
            guard !terminated, !upstreams[index].isDone else { return .none }
            store(&values)
            guard demand > 0, !isDeliveringOnCurrentThread, let all = values.all else { return .none }
            demand -= 1
            return submitLocked(.value(combine(all.0, all.1, all.2, all.3), ()))
        }
        run(ticket) { _, returned, _ in self.delivered(returned: returned) }
        return .none
    }

    /// Combine keeps what the downstream returns as its own demand; upstreams are not asked.
    @inlinable
    internal func delivered(returned: Subscribers.Demand) {
        guard returned > 0 else { return }
        lock.locked { demand += returned }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        switch completion {
        case .finished:
            let (ticket, previous, cleared) = lock.locked { () -> (Ticket, GateUpstream?, LatestValues<A, B, C, D>?) in
                guard !terminated, !upstreams[index].isDone else { return (.none, nil, nil) }
                let previous = upstreams[index]
                upstreams[index] = .done
                finishedCount += 1
                guard finishedCount == count else { return (.none, previous, nil) }
                terminated = true
                let cleared = values
                values = LatestValues(a: nil, b: nil, c: nil, d: nil)
                return (submitLocked(.completion(.finished)), previous, cleared)
            }
            withExtendedLifetime((previous, cleared)) {}
            run(ticket, handingOver: self) { _, returned, _ in self.delivered(returned: returned) }
        case .failure:
            let (ticket, others, cleared) = lock.locked { () -> (Ticket, [GateUpstream], LatestValues<A, B, C, D>?) in
                guard !terminated, !upstreams[index].isDone else { return (.none, [], nil) }
                terminated = true
                var others = upstreams
                others[index] = .done
                upstreams = Array(repeating: .done, count: count)
                let cleared = values
                values = LatestValues(a: nil, b: nil, c: nil, d: nil)
                return (submitLocked(.completion(completion)), others, cleared)
            }
            // The failed upstream is not cancelled, the others are, before the failure goes out.
            for upstream in others {
                upstream.subscription?.cancel()
            }
            withExtendedLifetime(cleared) {}
            run(ticket, handingOver: self) { _, returned, _ in self.delivered(returned: returned) }
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let targets = lock.locked { () -> [Subscription] in
            guard !terminated else { return [] }
            self.demand += demand
            return upstreams.compactMap(\.subscription)
        }
        for upstream in targets {
            upstream.request(demand)
        }
    }

    @inlinable
    internal func cancel() {
        let (detached, cleared, gate) = lock.locked {
            () -> ([GateUpstream], LatestValues<A, B, C, D>, (Downstream?, RingBuffer<Event>)) in
            terminated = true
            defer {
                upstreams = Array(repeating: .done, count: count)
                values = LatestValues(a: nil, b: nil, c: nil, d: nil)
            }
            return (upstreams, values, terminateLocked())
        }
        for upstream in detached {
            upstream.subscription?.cancel()
        }
        withExtendedLifetime((cleared, gate)) {}
    }

    @usableFromInline
    internal var description: String { "CombineLatest" }

    @usableFromInline
    internal var customMirror: Mirror {
        let (downstream, subscriptions, demand, values) = lock.locked {
            (self.downstream, upstreams.map(\.subscription), self.demand, self.values)
        }
        let buffers: [Any?] = Array([values.a as Any?, values.b as Any?, values.c as Any?, values.d as Any?].prefix(count))
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "upstreamSubscriptions": subscriptions,
            "demand": demand,
            "buffers": buffers,
        ])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}

/// The subscriber a combineLatest attaches to each upstream.
@usableFromInline
internal struct CombineLatestSide<Downstream: Subscriber, A, B, C, D, Input>: Subscriber,
    CustomStringConvertible
{
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: CombineLatestSubscription<Downstream, A, B, C, D>
    /// Swaps the new value into its slot, leaving the old one to be released after unlocking.
    @usableFromInline
    internal let store: (inout LatestValues<A, B, C, D>, inout Input?) -> Void
    @usableFromInline
    internal let combineIdentifier = CombineIdentifier()

    @inlinable
    internal init(index: Int, parent: CombineLatestSubscription<Downstream, A, B, C, D>,
                  store: @escaping (inout LatestValues<A, B, C, D>, inout Input?) -> Void) {
        self.index = index
        self.parent = parent
        self.store = store
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        parent.receive(subscription: subscription, index: index)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        var slot: Input? = input
        return parent.receive(index: index) { store(&$0, &slot) }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, index: index)
    }

    /// Combine's side subscriber has a description and no mirror or playground text of its own.
    @usableFromInline
    internal var description: String { "CombineLatest" }
}
