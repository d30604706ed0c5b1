extension Publishers {
    /// A publisher created by applying the zip function to two upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip<A: Publisher, B: Publisher>: Publisher
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
            typealias Inner = ZipSubscription<S, A.Output, B.Output, Void, Void>
            let inner = Inner(downstream: subscriber, count: 2, queues: ZipQueues(unusedC: (), unusedD: ())) { a, b, _, _ in (a, b) }
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
        }
    }

    /// A publisher created by applying the zip function to three upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip3<A: Publisher, B: Publisher, C: Publisher>: Publisher
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
            typealias Inner = ZipSubscription<S, A.Output, B.Output, C.Output, Void>
            let inner = Inner(downstream: subscriber, count: 3, queues: ZipQueues(unusedC: nil, unusedD: ())) { a, b, c, _ in (a, b, c) }
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
            c.receive(subscriber: ZipSide(index: 2, parent: inner) { $0.c.append($1) })
        }
    }

    /// A publisher created by applying the zip function to four upstream publishers.
    ///
    /// It waits until every upstream has emitted, then emits a tuple of the oldest unconsumed
    /// value of each. Requests go to every upstream unchanged. It finishes as soon as an
    /// upstream has finished and none of its values is left to pair, and fails as soon as one
    /// fails.
    public struct Zip4<A: Publisher, B: Publisher, C: Publisher, D: Publisher>: Publisher
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
            typealias Inner = ZipSubscription<S, A.Output, B.Output, C.Output, D.Output>
            let inner = Inner(downstream: subscriber, count: 4, queues: ZipQueues(unusedC: nil, unusedD: nil)) { a, b, c, d in (a, b, c, d) }
            a.receive(subscriber: ZipSide(index: 0, parent: inner) { $0.a.append($1) })
            b.receive(subscriber: ZipSide(index: 1, parent: inner) { $0.b.append($1) })
            c.receive(subscriber: ZipSide(index: 2, parent: inner) { $0.c.append($1) })
            d.receive(subscriber: ZipSide(index: 3, parent: inner) { $0.d.append($1) })
        }
    }

}

extension Publishers.Zip: Equatable where A: Equatable, B: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b
    }
}

extension Publishers.Zip3: Equatable where A: Equatable, B: Equatable, C: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c
    }
}

extension Publishers.Zip4: Equatable where A: Equatable, B: Equatable, C: Equatable, D: Equatable {
    /// Whether the two publishers combine equal upstreams.
    @inlinable
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.a == rhs.a && lhs.b == rhs.b && lhs.c == rhs.c && lhs.d == rhs.d
    }
}

extension Publisher {
    /// Combines elements from another publisher and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher>(_ other: P) -> Publishers.Zip<Self, P>
        where Failure == P.Failure
    {
        Publishers.Zip(self, other)
    }

    /// Combines elements from another publisher and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, T>(_ other: P, _ transform: @escaping (Output, P.Output) -> T)
        -> Publishers.Map<Publishers.Zip<Self, P>, T>
        where Failure == P.Failure
    {
        Publishers.Map(upstream: Publishers.Zip(self, other), transform: transform)
    }

    /// Combines elements from 2 other publishers and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher, Q: Publisher>(_ publisher1: P, _ publisher2: Q) -> Publishers.Zip3<Self, P, Q>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Zip3(self, publisher1, publisher2)
    }

    /// Combines elements from 2 other publishers and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ transform: @escaping (Output, P.Output, Q.Output) -> T)
        -> Publishers.Map<Publishers.Zip3<Self, P, Q>, T>
        where Failure == P.Failure, P.Failure == Q.Failure
    {
        Publishers.Map(upstream: Publishers.Zip3(self, publisher1, publisher2), transform: transform)
    }

    /// Combines elements from 3 other publishers and delivers pairs of the oldest unconsumed
    /// elements as tuples.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher>(_ publisher1: P, _ publisher2: Q, _ publisher3: R) -> Publishers.Zip4<Self, P, Q, R>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Zip4(self, publisher1, publisher2, publisher3)
    }

    /// Combines elements from 3 other publishers and delivers the result of `transform` applied
    /// to the oldest unconsumed elements of each.
    @inlinable
    public func zip<P: Publisher, Q: Publisher, R: Publisher, T>(_ publisher1: P, _ publisher2: Q, _ publisher3: R, _ transform: @escaping (Output, P.Output, Q.Output, R.Output) -> T)
        -> Publishers.Map<Publishers.Zip4<Self, P, Q, R>, T>
        where Failure == P.Failure, P.Failure == Q.Failure, Q.Failure == R.Failure
    {
        Publishers.Map(upstream: Publishers.Zip4(self, publisher1, publisher2, publisher3), transform: transform)
    }

}

/// The unconsumed values of each of up to four upstreams; an unused slot always yields `()`.
@usableFromInline
internal struct ZipQueues<A, B, C, D> {
    @usableFromInline internal var a = RingBuffer<A>()
    @usableFromInline internal var b = RingBuffer<B>()
    @usableFromInline internal var c = RingBuffer<C>()
    @usableFromInline internal var d = RingBuffer<D>()
    @usableFromInline internal let unusedC: C?
    @usableFromInline internal let unusedD: D?

    @inlinable
    internal init(unusedC: C?, unusedD: D?) {
        self.unusedC = unusedC
        self.unusedD = unusedD
    }

    @inlinable
    internal func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return a.isEmpty
        case 1: return b.isEmpty
        case 2: return unusedC == nil && c.isEmpty
        default: return unusedD == nil && d.isEmpty
        }
    }

    @inlinable
    internal var isReady: Bool {
        !a.isEmpty && !b.isEmpty && (unusedC != nil || !c.isEmpty) && (unusedD != nil || !d.isEmpty)
    }

    @inlinable
    internal mutating func popAll() -> (A, B, C, D) {
        (a.popFirst()!, b.popFirst()!, unusedC ?? c.popFirst()!, unusedD ?? d.popFirst()!)
    }

    @inlinable
    internal mutating func removeAll() -> ZipQueues {
        let old = self
        a.removeAll()
        b.removeAll()
        c.removeAll()
        d.removeAll()
        return old
    }
}

/// The one subscription behind `Zip`, `Zip3` and `Zip4`, with Combine's rules: the downstream
/// gets its subscription once every upstream has sent one; requests go unchanged to every
/// upstream; each upstream's values queue up and a tuple of the oldest of each goes out as soon
/// as all have one. The demand the downstream returns is requested from the other upstreams and
/// returned to the one whose value completed the tuple (a request made from inside `receive` is
/// added to it). It finishes as soon as a finished upstream has nothing left to pair, cancelling
/// the others first.
@usableFromInline
internal final class ZipSubscription<Downstream: Subscriber, A, B, C, D>:
    DownstreamGate<Downstream, Void>, Subscription, CustomStringConvertible, CustomReflectable,
    CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    internal let count: Int
    @usableFromInline
    internal let combine: (A, B, C, D) -> Downstream.Input
    @usableFromInline @exclusivity(unchecked)
    internal var queues: ZipQueues<A, B, C, D>
    @usableFromInline @exclusivity(unchecked)
    internal var upstreams: [GateUpstream]
    @usableFromInline @exclusivity(unchecked)
    internal var finished: [Bool]
    @usableFromInline @exclusivity(unchecked)
    internal var subscribedCount = 0
    /// Requests made from inside the downstream's `receive`, answered with its return value.
    @usableFromInline @exclusivity(unchecked)
    internal var pending = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked)
    internal var terminated = false

    @inlinable
    internal init(downstream: Downstream, count: Int, queues: ZipQueues<A, B, C, D>,
                  combine: @escaping (A, B, C, D) -> Downstream.Input) {
        self.count = count
        self.queues = queues
        self.combine = combine
        upstreams = Array(repeating: .awaitingSubscription, count: count)
        finished = Array(repeating: false, count: count)
        super.init(downstream: downstream)
    }

    @inlinable
    internal func receive(subscription: Subscription, index: Int) {
        let (accepted, complete) = lock.locked { () -> (Bool, Bool) in
            guard !terminated, upstreams[index].isAwaitingSubscription else { return (false, false) }
            upstreams[index] = .subscribed(subscription)
            subscribedCount += 1
            return (true, subscribedCount == count)
        }
        guard accepted else {
            subscription.cancel()
            return
        }
        if complete {
            handOver(self)
        }
    }

    @inlinable
    internal func receive(index: Int, store: (inout ZipQueues<A, B, C, D>) -> Void) -> Subscribers.Demand {
        let (ticket, ending) = lock.locked { () -> (Ticket, Bool) in
            guard !terminated, !finished[index], !upstreams[index].isDone else { return (.none, false) }
            store(&queues)
            guard queues.isReady else { return (.none, false) }
            let values = queues.popAll()
            let ticket = submitLocked(.value(combine(values.0, values.1, values.2, values.3), ()))
            let ending = (0..<count).contains { finished[$0] && queues.isEmpty($0) }
            if ending { terminated = true }
            return (ticket, ending)
        }
        var answer = Subscribers.Demand.none
        run(ticket) { _, returned, own in
            let total = self.delivered(returned: returned, own: own)
            if own { answer = total }
        }
        if ending {
            finish(.finished)
            return .none
        }
        if answer > 0 {
            let others = lock.locked { () -> [Subscription] in
                upstreams.indices.filter { $0 != index }.compactMap { upstreams[$0].subscription }
            }
            for upstream in others {
                upstream.request(answer)
            }
        }
        return answer
    }

    /// Adds the requests made during the delivery to what the downstream returned. For a value
    /// delivered on behalf of another thread, the total is requested from every upstream here.
    @inlinable
    internal func delivered(returned: Subscribers.Demand, own: Bool) -> Subscribers.Demand {
        let (total, targets) = lock.locked { () -> (Subscribers.Demand, [Subscription]) in
            let total = returned + pending
            pending = .none
            guard !own, total > 0, !terminated else { return (total, []) }
            return (total, upstreams.compactMap(\.subscription))
        }
        for upstream in targets {
            upstream.request(total)
        }
        return total
    }

    /// Cancels the upstreams that have not finished, then delivers the completion after
    /// everything already accepted.
    @inlinable
    internal func finish(_ completion: Subscribers.Completion<Downstream.Failure>) {
        let (detached, finishedFlags, dropped) = lock.locked { () -> ([GateUpstream], [Bool], ZipQueues<A, B, C, D>) in
            defer { upstreams = Array(repeating: .done, count: count) }
            return (upstreams, finished, queues.removeAll())
        }
        for (index, upstream) in detached.enumerated() where !finishedFlags[index] {
            upstream.subscription?.cancel()
        }
        withExtendedLifetime((detached, dropped)) {}
        handOver(self)
        let ticket = lock.locked { submitLocked(.completion(completion)) }
        run(ticket) { _, returned, own in _ = self.delivered(returned: returned, own: own) }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        switch completion {
        case .finished:
            let ending = lock.locked { () -> Bool in
                guard !terminated, !finished[index], !upstreams[index].isDone else { return false }
                finished[index] = true
                guard queues.isEmpty(index) else { return false }
                terminated = true
                return true
            }
            if ending {
                finish(.finished)
            }
        case .failure:
            let ending = lock.locked { () -> Bool in
                guard !terminated, !finished[index], !upstreams[index].isDone else { return false }
                terminated = true
                return true
            }
            if ending {
                finish(completion)
            }
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let targets = lock.locked { () -> [Subscription] in
            guard !terminated else { return [] }
            if isDeliveringOnCurrentThread {
                pending += demand
                return []
            }
            return upstreams.compactMap(\.subscription)
        }
        for upstream in targets {
            upstream.request(demand)
        }
    }

    @inlinable
    internal func cancel() {
        let (detached, dropped, gate) = lock.locked {
            () -> ([GateUpstream], ZipQueues<A, B, C, D>, (Downstream?, RingBuffer<Event>)) in
            terminated = true
            defer { upstreams = Array(repeating: .done, count: count) }
            return (upstreams, queues.removeAll(), terminateLocked())
        }
        for upstream in detached {
            upstream.subscription?.cancel()
        }
        withExtendedLifetime((dropped, gate)) {}
    }

    @usableFromInline
    internal var description: String { "Zip" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}

/// The subscriber a zip attaches to each upstream.
@usableFromInline
internal struct ZipSide<Downstream: Subscriber, A, B, C, D, Input>: Subscriber,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible
{
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: ZipSubscription<Downstream, A, B, C, D>
    @usableFromInline
    internal let store: (inout ZipQueues<A, B, C, D>, Input) -> Void
    @usableFromInline
    internal let combineIdentifier = CombineIdentifier()

    @inlinable
    internal init(index: Int, parent: ZipSubscription<Downstream, A, B, C, D>,
                  store: @escaping (inout ZipQueues<A, B, C, D>, Input) -> Void) {
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
        parent.receive(index: index) { store(&$0, input) }
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, index: index)
    }

    @usableFromInline
    internal var description: String { "Zip" }

    @usableFromInline
    internal var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
