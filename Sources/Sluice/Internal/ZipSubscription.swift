/// What a zip keeps of its upstreams' values: ``ZipQueues`` for `Zip`, `Zip3` and `Zip4`;
/// SluiceExtras keeps an array of queues for a collection.
@usableFromInline
package protocol ZipStore {
    /// What the downstream receives.
    associatedtype Combination
    /// Whether upstream `index` has no value waiting to be paired.
    func isEmpty(_ index: Int) -> Bool
    /// Whether every upstream has a value waiting.
    var isReady: Bool { get }
    /// Takes the oldest value of each upstream; call only when ``isReady``.
    mutating func popAll() -> Combination
    /// Empties the store and returns what it held, to be released after unlocking.
    mutating func takeAll() -> Self
}

/// The unconsumed values of each upstream of `Zip`; one type per arity (`ZipQueues3`,
/// `ZipQueues4`), so that the combination is the downstream's tuple itself (a closure
/// reshaping one four-slot tuple cost a call per pair).
@usableFromInline
internal struct ZipQueues<A, B>: ZipStore, FixedArityStore {
    @usableFromInline internal var a = RingBuffer<A>()
    @usableFromInline internal var b = RingBuffer<B>()

    @inlinable
    internal init() {}

    @inlinable
    internal func isEmpty(_ index: Int) -> Bool { index == 0 ? a.isEmpty : b.isEmpty }

    @inlinable
    internal var isReady: Bool { !a.isEmpty && !b.isEmpty }

    @inlinable
    internal mutating func popAll() -> (A, B) { (a.popFirst()!, b.popFirst()!) }
}

/// ``ZipQueues`` for `Zip3`.
@usableFromInline
internal struct ZipQueues3<A, B, C>: ZipStore, FixedArityStore {
    @usableFromInline internal var a = RingBuffer<A>()
    @usableFromInline internal var b = RingBuffer<B>()
    @usableFromInline internal var c = RingBuffer<C>()

    @inlinable
    internal init() {}

    @inlinable
    internal func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return a.isEmpty
        case 1: return b.isEmpty
        default: return c.isEmpty
        }
    }

    @inlinable
    internal var isReady: Bool { !a.isEmpty && !b.isEmpty && !c.isEmpty }

    @inlinable
    internal mutating func popAll() -> (A, B, C) { (a.popFirst()!, b.popFirst()!, c.popFirst()!) }
}

/// ``ZipQueues`` for `Zip4`.
@usableFromInline
internal struct ZipQueues4<A, B, C, D>: ZipStore, FixedArityStore {
    @usableFromInline internal var a = RingBuffer<A>()
    @usableFromInline internal var b = RingBuffer<B>()
    @usableFromInline internal var c = RingBuffer<C>()
    @usableFromInline internal var d = RingBuffer<D>()

    @inlinable
    internal init() {}

    @inlinable
    internal func isEmpty(_ index: Int) -> Bool {
        switch index {
        case 0: return a.isEmpty
        case 1: return b.isEmpty
        case 2: return c.isEmpty
        default: return d.isEmpty
        }
    }

    @inlinable
    internal var isReady: Bool { !a.isEmpty && !b.isEmpty && !c.isEmpty && !d.isEmpty }

    @inlinable
    internal mutating func popAll() -> (A, B, C, D) {
        (a.popFirst()!, b.popFirst()!, c.popFirst()!, d.popFirst()!)
    }
}

/// The one subscription behind `Zip`, `Zip3`, `Zip4` and SluiceExtras' zip of a collection, with
/// Combine's rules: the downstream gets its subscription once every upstream has sent one;
/// requests go unchanged to every upstream; each upstream's values queue up and a tuple of the
/// oldest of each goes out as soon as all have one. The demand the downstream returns is
/// requested from the other upstreams and returned to the one whose value completed the tuple
/// (a request made from inside `receive` is added to it). It finishes as soon as a finished
/// upstream has nothing left to pair, cancelling the others first.
@usableFromInline
package final class ZipSubscription<Downstream: Subscriber, Store: ZipStore>:
    FanInGate<Downstream, Void>, Subscription, DescribedByName, @unchecked Sendable
    where Store.Combination == Downstream.Input
{
    @usableFromInline @exclusivity(unchecked)
    internal var queues: Store
    @usableFromInline @exclusivity(unchecked)
    internal var subscribedCount = 0
    /// How many upstreams have finished: until one has, a value need not look for a finished
    /// upstream with nothing left to pair.
    @usableFromInline @exclusivity(unchecked)
    internal var finishedCount = 0
    /// Requests made from inside the downstream's `receive`, answered with its return value.
    @usableFromInline @exclusivity(unchecked)
    internal var pending = Subscribers.Demand.none

    @inlinable
    package init(downstream: Downstream, count: Int, queues: Store) {
        self.queues = queues
        super.init(downstream: downstream, count: count)
    }

    @inlinable
    package func receive(subscription: Subscription, index: Int) {
        let (accepted, complete) = lock.locked { () -> (Bool, Bool) in
            guard acceptLocked(subscription, at: index) else { return (false, false) }
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

    /// A value: stored by `store`; while it is live, a finished upstream is marked done, so an
    /// upstream that is done and has nothing left to pair ends the zip.
    @inlinable
    /// `store` is the side's own closure, passed on rather than wrapped: a closure capturing it
    /// made each value retain and release this subscription three times.
    package func receive<Input>(_ input: Input, index: Int, store: (inout Store, Input) -> Void) -> Subscribers.Demand {
        let (ticket, ending) = lock.locked { () -> (Ticket, Bool) in
            guard !terminated, !upstreams[index].isDone else { return (.none, false) }
            store(&queues, input)
            guard queues.isReady else { return (.none, false) }
            let ticket = submitLocked(.value(queues.popAll(), ()))
            let ending = finishedCount > 0 && (0..<count).contains { upstreams[$0].isDone && queues.isEmpty($0) }
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
        if own {
            // Only the delivering thread writes `pending` (from inside the downstream's
            // `receive`), and this is it, still delivering: no lock (one of three per value).
            let total = returned + pending
            pending = .none
            return total
        }
        let (total, targets) = lock.locked { () -> (Subscribers.Demand, [Subscription]) in
            let total = returned + pending
            pending = .none
            guard !own, total > 0, !terminated else { return (total, []) }
            return (total, liveSubscriptionsLocked)
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
        let (detached, dropped) = lock.locked { (detachAllLocked(), queues.takeAll()) }
        detached.cancelAll()
        withExtendedLifetime((detached, dropped)) {}
        handOver(self)
        let ticket = lock.locked { submitLocked(.completion(completion)) }
        run(ticket) { _, returned, own in _ = self.delivered(returned: returned, own: own) }
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        let (ending, previous) = lock.locked { () -> (Bool, GateUpstream?) in
            guard !terminated, !upstreams[index].isDone else { return (false, nil) }
            switch completion {
            case .finished:
                // A finished upstream ends the zip once it has nothing left to pair; until
                // then it is done (its subscription released) and the others go on.
                let previous = finishLocked(index)
                finishedCount += 1
                guard queues.isEmpty(index) else { return (false, previous) }
                terminated = true
                return (true, previous)
            case .failure:
                // The failed upstream stays subscribed so that `finish` cancels it, as Combine does.
                terminated = true
                return (true, nil)
            }
        }
        withExtendedLifetime(previous) {}
        if ending {
            finish(completion)
        }
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let targets = lock.locked { () -> [Subscription] in
            guard !terminated else { return [] }
            if isDeliveringOnCurrentThread {
                pending += demand
                return []
            }
            return liveSubscriptionsLocked
        }
        for upstream in targets {
            upstream.request(demand)
        }
    }

    @inlinable
    package override func takeBuffersLocked() -> Any? { queues.takeAll() }

    @usableFromInline
    package var description: String { "Zip" }

    @usableFromInline
    package var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

/// The subscriber a zip attaches to each upstream.
@usableFromInline
package struct ZipSide<Downstream: Subscriber, Store: ZipStore, Input>: Subscriber,
    DescribedByName where Store.Combination == Downstream.Input
{
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: ZipSubscription<Downstream, Store>
    @usableFromInline
    internal let store: (inout Store, Input) -> Void
    @usableFromInline
    package let combineIdentifier = CombineIdentifier()

    @inlinable
    package init(index: Int, parent: ZipSubscription<Downstream, Store>,
                 store: @escaping (inout Store, Input) -> Void) {
        self.index = index
        self.parent = parent
        self.store = store
    }

    @inlinable
    package func receive(subscription: Subscription) {
        parent.receive(subscription: subscription, index: index)
    }

    @inlinable
    package func receive(_ input: Input) -> Subscribers.Demand {
        parent.receive(input, index: index, store: store)
    }

    @inlinable
    package func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, index: index)
    }

    @usableFromInline
    package var description: String { "Zip" }

    @usableFromInline
    package var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
    }
}
