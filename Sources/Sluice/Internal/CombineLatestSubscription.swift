/// What a combineLatest keeps of its upstreams' values: ``LatestValues`` for `CombineLatest`,
/// `CombineLatest3` and `CombineLatest4`; SluiceExtras keeps an array for a collection.
@usableFromInline
package protocol CombineLatestStore {
    /// What the downstream receives.
    associatedtype Combination
    /// Every upstream's latest value, once each has sent one.
    var combination: Combination? { get }
    /// Empties the store and returns what it held, to be released after unlocking.
    mutating func takeAll() -> Self
    /// Each upstream's latest value in upstream order, `nil` where none has come (the mirror's
    /// `buffers`).
    var latest: [Any?] { get }
}

/// The latest value of each upstream of `CombineLatest`, `nil` until it has sent one; one type
/// per arity (`LatestValues3`, `LatestValues4`), so that the combination is the downstream's
/// tuple itself (a closure reshaping one four-slot tuple cost a call per value).
@usableFromInline
internal struct LatestValues<A, B>: CombineLatestStore, FixedArityStore {
    @usableFromInline internal var a: A?
    @usableFromInline internal var b: B?

    @inlinable
    internal init() {}

    @inlinable
    internal var combination: (A, B)? {
        guard let a, let b else { return nil }
        return (a, b)
    }

    @inlinable
    internal var latest: [Any?] { [a as Any?, b as Any?] }
}

/// ``LatestValues`` for `CombineLatest3`.
@usableFromInline
internal struct LatestValues3<A, B, C>: CombineLatestStore, FixedArityStore {
    @usableFromInline internal var a: A?
    @usableFromInline internal var b: B?
    @usableFromInline internal var c: C?

    @inlinable
    internal init() {}

    @inlinable
    internal var combination: (A, B, C)? {
        guard let a, let b, let c else { return nil }
        return (a, b, c)
    }

    @inlinable
    internal var latest: [Any?] { [a as Any?, b as Any?, c as Any?] }
}

/// ``LatestValues`` for `CombineLatest4`.
@usableFromInline
internal struct LatestValues4<A, B, C, D>: CombineLatestStore, FixedArityStore {
    @usableFromInline internal var a: A?
    @usableFromInline internal var b: B?
    @usableFromInline internal var c: C?
    @usableFromInline internal var d: D?

    @inlinable
    internal init() {}

    @inlinable
    internal var combination: (A, B, C, D)? {
        guard let a, let b, let c, let d else { return nil }
        return (a, b, c, d)
    }

    @inlinable
    internal var latest: [Any?] { [a as Any?, b as Any?, c as Any?, d as Any?] }
}

/// The one subscription behind `CombineLatest`, `CombineLatest3`, `CombineLatest4` and
/// SluiceExtras' combineLatest of a collection, with Combine's rules: requests are forwarded
/// unchanged to every upstream; each value replaces that upstream's latest one and, once all
/// have one and the downstream has demand, the combination is delivered (values answer
/// `.none`). A value sent from inside the downstream's own `receive` only updates the latest
/// values, as in Combine. Values arriving from other threads meanwhile are delivered in turn.
@usableFromInline
package final class CombineLatestSubscription<Downstream: Subscriber, Store: CombineLatestStore>:
    FanInGate<Downstream, Void>, Subscription, DescribedByName, @unchecked Sendable
    where Store.Combination == Downstream.Input
{
    @usableFromInline @exclusivity(unchecked)
    internal var values: Store
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked)
    internal var finishedCount = 0

    @inlinable
    package init(downstream: Downstream, count: Int, values: Store) {
        self.values = values
        super.init(downstream: downstream, count: count)
    }

    @inlinable
    package func receive(subscription: Subscription, index: Int) {
        if !lock.locked({ acceptLocked(subscription, at: index) }) {
            subscription.cancel()
        }
    }

    @inlinable
    /// `store` is the side's own closure, passed on rather than wrapped: a closure capturing it
    /// made each value retain and release this subscription three times. It swaps the value in;
    /// the one it replaces is released after unlocking.
    package func receive<Input>(_ input: Input, index: Int,
                                store: (inout Store, inout Input?) -> Void) -> Subscribers.Demand {
        var slot: Input? = input
        let ticket = lock.locked { () -> Ticket in
            guard !terminated, !upstreams[index].isDone else { return .none }
            store(&values, &slot)
            let me = ThreadIdentity.current
            guard demand > 0, !isDelivering(on: me), let all = values.combination else { return .none }
            demand -= 1
            return submitLocked(.value(all, ()), by: me)
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
    package func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        switch completion {
        case .finished:
            let (ticket, previous, cleared) = lock.locked { () -> (Ticket, GateUpstream?, Store?) in
                guard let previous = finishLocked(index) else { return (.none, nil, nil) }
                finishedCount += 1
                guard finishedCount == count else { return (.none, previous, nil) }
                terminated = true
                return (submitLocked(.completion(.finished)), previous, values.takeAll())
            }
            withExtendedLifetime((previous, cleared)) {}
            run(ticket, handingOver: self) { _, returned, _ in self.delivered(returned: returned) }
        case .failure:
            let (ticket, others, cleared) = lock.locked { () -> (Ticket, [GateUpstream], Store?) in
                guard !terminated, !upstreams[index].isDone else { return (.none, [], nil) }
                var others = detachAllLocked()
                others[index] = .done
                return (submitLocked(.completion(completion)), others, values.takeAll())
            }
            // The failed upstream is not cancelled, the others are, before the failure goes out.
            others.cancelAll()
            withExtendedLifetime(cleared) {}
            run(ticket, handingOver: self) { _, returned, _ in self.delivered(returned: returned) }
        }
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let targets = lock.locked { () -> [Subscription] in
            guard !terminated else { return [] }
            self.demand += demand
            return liveSubscriptionsLocked
        }
        for upstream in targets {
            upstream.request(demand)
        }
    }

    @inlinable
    package override func takeBuffersLocked() -> Any? { values.takeAll() }

    @usableFromInline
    package var description: String { "CombineLatest" }

    @usableFromInline
    package var customMirror: Mirror {
        let (downstream, subscriptions, demand, latest) = lock.locked {
            (downstreamLocked, upstreams.map(\.subscription), self.demand, values.latest)
        }
        return Mirror(self, children: [
            "downstream": downstream as Any,
            "upstreamSubscriptions": subscriptions,
            "demand": demand,
            "buffers": Array(latest.prefix(count)),
        ])
    }
}

/// The subscriber a combineLatest attaches to each upstream.
@usableFromInline
package struct CombineLatestSide<Downstream: Subscriber, Store: CombineLatestStore, Input>: Subscriber,
    CustomStringConvertible where Store.Combination == Downstream.Input
{
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: CombineLatestSubscription<Downstream, Store>
    /// Swaps the new value into its slot, leaving the old one to be released after unlocking.
    @usableFromInline
    internal let store: (inout Store, inout Input?) -> Void
    @usableFromInline
    package let combineIdentifier = CombineIdentifier()

    @inlinable
    package init(index: Int, parent: CombineLatestSubscription<Downstream, Store>,
                 store: @escaping (inout Store, inout Input?) -> Void) {
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

    /// Combine's side subscriber has a description and no mirror or playground text of its own.
    @usableFromInline
    package var description: String { "CombineLatest" }
}
