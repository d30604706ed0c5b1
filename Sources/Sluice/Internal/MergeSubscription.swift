/// The one subscription behind every merge publisher, as Combine's: each upstream is asked for
/// one value (`.unlimited` if the downstream already is) and runs one ahead; a value that
/// arrives without downstream demand waits in that upstream's one-value slot (a later value from
/// an upstream that ignores demand replaces it, as in Combine) until a request drains the slots
/// in upstream order and asks each drained upstream for one more.
@usableFromInline
internal final class MergeSubscription<Downstream: Subscriber>: FanInGate<Downstream, Int?>,
    Subscription, DescribedByName,
    @unchecked Sendable
{
    @usableFromInline
    internal typealias Input = Downstream.Input

    @usableFromInline @exclusivity(unchecked)
    internal var slots: [Input?]
    /// How many slots hold a value (so that a delivery need not scan them all).
    @usableFromInline @exclusivity(unchecked)
    internal var waiting = 0
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    @usableFromInline @exclusivity(unchecked)
    internal var finishedCount = 0
    /// How many upstreams have not yet sent their subscription.
    @usableFromInline @exclusivity(unchecked)
    internal var awaitingCount: Int

    @inlinable
    internal override init(downstream: Downstream, count: Int) {
        slots = Array(repeating: nil, count: count)
        awaitingCount = count
        super.init(downstream: downstream, count: count)
    }

    @inlinable
    internal func receive(subscription: Subscription, index: Int) {
        let request = lock.locked { () -> Subscribers.Demand? in
            guard acceptLocked(subscription, at: index) else { return nil }
            awaitingCount -= 1
            openLockFreeClaimIfReadyLocked()
            return demand == .unlimited ? .unlimited : .max(1)
        }
        guard let request else {
            subscription.cancel()
            return
        }
        subscription.request(request)
    }

    @inlinable
    internal func receive(_ input: Input, index: Int) -> Subscribers.Demand {
        if claimLockFree() {
            // Unlimited demand and every upstream subscribed, nobody delivering: straight through.
            let returned = run(.deliver(.value(input, nil), thenDrain: true)) { tag, demand, _ in
                self.delivered(tag: tag, returned: demand)
            }
            return returned ?? .none
        }
        let (ticket, answer, replaced) = lock.locked { () -> (Ticket, Subscribers.Demand?, Input?) in
            guard !terminated, upstreams[index].isSubscribed else { return (.none, Subscribers.Demand.none, nil) }
            if demand == .unlimited {
                return (submitLocked(.value(input, nil)), nil, nil)
            }
            if demand == .none {
                let replaced = slots[index]
                slots[index] = input
                if replaced == nil { waiting += 1 }
                return (.none, Subscribers.Demand.none, replaced)
            }
            demand -= 1
            return (submitLocked(.value(input, nil)), .max(1), nil)
        }
        withExtendedLifetime(replaced) {}
        let returned = run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        // Combine answers an unlimited subscriber's upstream with the downstream's own answer.
        return answer ?? returned ?? .none
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Downstream.Failure>, index: Int) {
        switch completion {
        case .finished:
            let (ticket, previous) = lock.locked { () -> (Ticket, GateUpstream?) in
                guard let previous = finishLocked(index) else { return (.none, nil) }
                finishedCount += 1
                guard finishedCount == count, waiting == 0 else { return (.none, previous) }
                terminated = true
                return (submitLocked(.completion(.finished)), previous)
            }
            withExtendedLifetime(previous) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        case .failure:
            let (ticket, detached, dropped) = lock.locked { () -> (Ticket, [GateUpstream], [Input?]) in
                guard !terminated, !upstreams[index].isDone else { return (.none, [], []) }
                return (submitLocked(.completion(completion)), detachAllLocked(), takeSlotsLocked())
            }
            // Combine cancels every upstream, the failed one included, before failing.
            detached.cancelAll()
            withExtendedLifetime(dropped) {}
            run(ticket) { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
    }

    /// After each delivery: add what the downstream returned, move waiting values along, and
    /// ask the upstream a drained value came from for one more.
    @inlinable
    internal func delivered(tag: Int?, returned: Subscribers.Demand) {
        // Nothing to add and no upstream to refill: slots fill only while demand is zero, and a
        // request that adds demand moves them along itself. So no lock (a third of the per-value
        // locks of a merge into an unlimited subscriber).
        guard returned > 0 || tag != nil else { return }
        let refill = lock.locked { () -> Subscription? in
            demand += returned
            if demand > 0, waiting > 0 { commitSlotsLocked() }
            return tag.flatMap { upstreams[$0].subscription }
        }
        refill?.request(.max(1))
    }

    /// Moves slot values to the gate while there is demand, in upstream order, then finishes if
    /// everything is done. The delivering thread drains them.
    @inlinable
    internal func commitSlotsLocked() {
        guard !terminated else { return }
        var index = 0
        while waiting > 0, demand > 0, index < count {
            defer { index += 1 }
            guard let value = slots[index] else { continue }
            slots[index] = nil
            waiting -= 1
            if demand != .unlimited { demand -= 1 }
            enqueueLocked(.value(value, demand == .unlimited ? nil : index))
        }
        if finishedCount == count, waiting == 0 {
            terminated = true
            enqueueLocked(.completion(.finished))
        }
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        // Combine's merge ignores a request for nothing rather than trapping.
        guard demand > 0 else { return }
        let (claimed, unlimited) = lock.locked { () -> (Bool, [Subscription]) in
            guard !terminated, self.demand != .unlimited else { return (false, []) }
            if demand == .unlimited {
                self.demand = .unlimited
                commitSlotsLocked()
                defer { openLockFreeClaimIfReadyLocked() }
                return (claimLocked(), terminated ? [] : liveSubscriptionsLocked)
            }
            self.demand += demand
            commitSlotsLocked()
            return (claimLocked(), [])
        }
        if claimed {
            drain { tag, demand, _ in self.delivered(tag: tag, returned: demand) }
        }
        for upstream in unlimited {
            upstream.request(.unlimited)
        }
    }

    /// Opens the gate's lock-free claim once a value needs no check: demand is unlimited,
    /// every upstream is subscribed, none has ended and none has a value waiting. (The gate
    /// shuts it when an upstream ends and when the merge does.)
    @inlinable
    internal func openLockFreeClaimIfReadyLocked() {
        guard demand == .unlimited, !terminated, finishedCount == 0, waiting == 0, awaitingCount == 0 else { return }
        openLockFreeClaimLocked()
    }

    @inlinable
    internal func takeSlotsLocked() -> [Input?] {
        waiting = 0
        defer { slots = Array(repeating: nil, count: count) }
        return slots
    }

    @inlinable
    internal override func takeBuffersLocked() -> Any? { takeSlotsLocked() }

    @usableFromInline
    internal var description: String { "Merge" }

    @usableFromInline
    internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
}

/// The subscriber a merge attaches to each upstream.
@usableFromInline
internal struct MergeSide<Downstream: Subscriber>: Subscriber, DescribedByName
{
    @usableFromInline
    internal typealias Input = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let index: Int
    @usableFromInline
    internal let parent: MergeSubscription<Downstream>
    @usableFromInline
    internal let combineIdentifier = CombineIdentifier()

    @inlinable
    internal init(index: Int, parent: MergeSubscription<Downstream>) {
        self.index = index
        self.parent = parent
    }

    @inlinable
    internal func receive(subscription: Subscription) {
        parent.receive(subscription: subscription, index: index)
    }

    @inlinable
    internal func receive(_ input: Input) -> Subscribers.Demand {
        parent.receive(input, index: index)
    }

    @inlinable
    internal func receive(completion: Subscribers.Completion<Failure>) {
        parent.receive(completion: completion, index: index)
    }

    @usableFromInline
    internal var description: String { "Merge" }

    @usableFromInline
    internal var customMirror: Mirror {
        Mirror(self, children: ["parentSubscription": parent.combineIdentifier])
    }
}
