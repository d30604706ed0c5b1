import Synchronization

/// What a combining operator hands its downstream, in order.
@usableFromInline
package enum GateEvent<Input, Failure: Error, Tag> {
    /// A value the operator has already accounted demand for. The tag travels with it so that
    /// the operator can act once it is delivered (ask the upstream it came from for another).
    case value(Input, Tag)
    case completion(Subscribers.Completion<Failure>)
}

/// What the thread that submitted an event must do once it has released the lock.
@usableFromInline
package enum GateTicket<Downstream: Subscriber, Tag> {
    /// Nothing: the gate is closed, or the event is queued for the thread that is delivering.
    case none
    /// Deliver this event now; `thenDrain` says whether this thread has become the delivering
    /// thread (and must then drain what others queue meanwhile) or is nested inside a delivery
    /// of its own.
    case deliver(Downstream, GateEvent<Downstream.Input, Downstream.Failure, Tag>, thenDrain: Bool)
}

/// The one component that serialises deliveries from several upstreams to one downstream
/// (merge, combineLatest, zip, flatMap, switchToLatest, append, buffer), as `SubjectDelivery`
/// does for subjects.
///
/// An operator's subscription class inherits from it and keeps its own state in its own stored
/// properties, guarded by the same `lock`. Under that lock the operator decides what to deliver
/// (demand is accounted there, once) and submits it with ``submitLocked(_:)`` or
/// ``enqueueLocked(_:)``; after unlocking it calls ``run(_:after:)`` or ``drain(after:)``. So a
/// decision and its place in the delivery order are taken atomically: a completion is always
/// delivered after every value accepted before it, whichever threads they came from.
///
/// Delivery: the thread that finds nobody delivering becomes the delivering thread, delivers,
/// then drains what other threads queued meanwhile; nobody ever waits for another thread, and
/// the downstream is never called from two threads at once. An event submitted by the
/// delivering thread itself (an upstream that sends from inside the downstream's `receive`) is
/// delivered at once, nested, as Combine does, unless earlier events are still queued, in
/// which case it waits its turn. The downstream is released when the completion is delivered
/// or the gate is terminated; nothing is released under the lock.
@usableFromInline
package class DownstreamGate<Downstream: Subscriber, Tag>: @unchecked Sendable {
    @usableFromInline
    package typealias Event = GateEvent<Downstream.Input, Downstream.Failure, Tag>
    @usableFromInline
    package typealias Ticket = GateTicket<Downstream, Tag>

    // The stored properties are `final`: a subclass could otherwise override them, so code
    // specialised in a client module would reach them through the library's unspecialised
    // accessors, which look up the generic class metadata on every access (measured: a fifth
    // of the time of a value through `merge`).
    @usableFromInline
    package let lock = Lock()
    /// The downstream, until the completion is handed to it or the gate is terminated.
    @usableFromInline @exclusivity(unchecked)
    package final var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    package final var gateQueue = RingBuffer<Event>()
    /// The thread delivering right now (its identity; 0 if nobody is), with the low bit set
    /// when an event has been queued since the delivering thread last looked at the queue.
    ///
    /// Written under the lock, except by the delivering thread when it stops: with nothing
    /// queued it gives the gate back with one compare-and-exchange instead of taking the lock
    /// again (a third of the locks per value of a merge). A thread that queues an event under
    /// the lock sets the low bit with a compare-and-exchange, so either the delivering thread
    /// sees the bit and drains, or it has already stopped and the queuing thread finds the gate
    /// free and claims it. The exchanges are acquire-release: a downstream's calls from one
    /// delivering thread happen before those from the next.
    @usableFromInline
    package final let gateOwner = Atomic<UInt>(0)
    /// A completion has been accepted (or the gate terminated): nothing more is accepted.
    @usableFromInline @exclusivity(unchecked)
    package final var gateClosed = false
    /// The operator has ended (finished, failed or cancelled) and ignores its upstreams. Set
    /// under the lock when the operator decides to end, which can be before its completion is
    /// submitted (it cancels its upstreams first), so it is not the gate's own `gateClosed`.
    @usableFromInline @exclusivity(unchecked)
    package final var terminated = false
    /// Whether ``handOver(_:)`` has given the downstream its subscription.
    @usableFromInline @exclusivity(unchecked)
    package final var subscriptionHandedOver = false

    @inlinable
    package init(downstream: Downstream) {
        self.downstream = downstream
    }

    // MARK: Under the lock

    /// Whether the calling thread is the one delivering (so a call now is re-entrant).
    @inlinable
    package final var isDeliveringOnCurrentThread: Bool {
        gateOwner.load(ordering: .relaxed) & ~1 == ThreadIdentity.current.rawValue
    }

    /// Queues an event, telling the delivering thread there is one (or, if it has just stopped,
    /// leaving the gate free for the caller to claim).
    @inlinable
    internal final func appendLocked(_ event: Event) {
        gateQueue.append(event)
        var owner = gateOwner.load(ordering: .acquiring)
        while owner != 0, owner & 1 == 0 {
            let (exchanged, current) = gateOwner.compareExchange(
                expected: owner, desired: owner | 1, ordering: .acquiringAndReleasing)
            if exchanged { return }
            owner = current
        }
    }

    /// Makes the calling thread the delivering thread; the gate must be free. Only threads
    /// holding the lock move it away from free, so a store suffices. Marked if events wait, so
    /// that the first look of ``drain(after:)`` takes them.
    @inlinable
    internal final func claimFreeGateLocked(_ me: ThreadIdentity) {
        assert(me.rawValue & 1 == 0, "a thread identity is an aligned address")
        gateOwner.store(gateQueue.isEmpty ? me.rawValue : me.rawValue | 1, ordering: .releasing)
    }

    /// Accepts one event and says what the caller must do after unlocking.
    @inlinable
    package final func submitLocked(_ event: Event) -> Ticket {
        guard !gateClosed, let downstream else { return .none }
        if case .completion = event { gateClosed = true }
        let me = ThreadIdentity.current
        let owner = gateOwner.load(ordering: .acquiring)
        if owner == 0 {
            claimFreeGateLocked(me)
            if case .completion = event { self.downstream = nil }
            return .deliver(downstream, event, thenDrain: true)
        }
        if owner & ~1 == me.rawValue, gateQueue.isEmpty {
            if case .completion = event { self.downstream = nil }
            return .deliver(downstream, event, thenDrain: false)
        }
        appendLocked(event)
        if gateOwner.load(ordering: .acquiring) == 0 {
            // The delivering thread stopped before it could see this event: deliver it here.
            guard let first = gateQueue.popFirst() else { return .none }
            claimFreeGateLocked(me)
            if case .completion = first { self.downstream = nil }
            return .deliver(downstream, first, thenDrain: true)
        }
        return .none
    }

    /// Queues an event without delivering it; follow with ``claimLocked()``. Returns `false`
    /// if the gate is closed.
    @inlinable
    @discardableResult
    package final func enqueueLocked(_ event: Event) -> Bool {
        guard !gateClosed, downstream != nil else { return false }
        if case .completion = event { gateClosed = true }
        appendLocked(event)
        return true
    }

    /// Makes the calling thread the delivering thread if nobody is delivering and something is
    /// queued; if it returns `true` the caller must call ``drain(after:)`` after unlocking.
    @inlinable
    package final func claimLocked() -> Bool {
        guard gateOwner.load(ordering: .acquiring) == 0, !gateQueue.isEmpty else { return false }
        claimFreeGateLocked(ThreadIdentity.current)
        return true
    }

    /// Closes the gate and detaches the downstream and the queue, returning them so that the
    /// caller releases them after unlocking (cancel, or an operator's own termination).
    @inlinable
    package final func terminateLocked() -> (Downstream?, RingBuffer<Event>) {
        gateClosed = true
        defer {
            downstream = nil
            gateQueue = RingBuffer()
        }
        return (downstream, gateQueue)
    }

    // MARK: After unlocking

    /// Carries out a ticket. `after` runs after each value delivered (with its tag, the demand
    /// the downstream returned, and whether it was the caller's own value), still on the
    /// delivering thread and with no lock held. Returns the demand the downstream returned for
    /// the caller's own value, if it was delivered now.
    /// `handingOver`: for an operator that hands the downstream its subscription late, the
    /// subscription to hand over first if this ticket delivers a completion before that.
    @inlinable
    @discardableResult
    package final func run(_ ticket: Ticket, handingOver subscription: Subscription? = nil,
                            after: (Tag, Subscribers.Demand, Bool) -> Void) -> Subscribers.Demand? {
        guard case .deliver(let downstream, let event, let thenDrain) = ticket else { return nil }
        if let subscription, case .completion = event {
            handOver(subscription, to: downstream)
        }
        let demand = deliver(event, to: downstream, own: true, after: after)
        if thenDrain {
            drain(after: after)
        }
        return demand
    }

    /// Hands the downstream its subscription unless it already has it. Operators that hand it
    /// over late (after subscribing their upstreams) call this first, and `run` calls it with
    /// the downstream it took before delivering a completion that an upstream sent early, so that
    /// the downstream never sees a completion first. Out of line, so that `run`, which delivers
    /// every value, stays small enough to be inlined into the upstreams' deliveries whatever the
    /// downstream's `receive(subscription:)` costs.
    @inlinable
    @inline(never)
    package final func handOver(_ subscription: Subscription, to taken: Downstream? = nil) {
        let target = lock.locked { () -> Downstream? in
            guard !subscriptionHandedOver else { return nil }
            subscriptionHandedOver = true
            return taken ?? downstream
        }
        target?.receive(subscription: subscription)
    }

    /// Delivers queued events until the queue is empty, then stops being the delivering thread.
    /// Call only after ``claimLocked()`` returned `true` (or from ``run(_:after:)``).
    @inlinable
    package final func drain(after: (Tag, Subscribers.Demand, Bool) -> Void) {
        let me = ThreadIdentity.current.rawValue
        while true {
            // Nothing queued since the last look: give the gate back without the lock.
            if gateOwner.compareExchange(expected: me, desired: 0, ordering: .acquiringAndReleasing).exchanged {
                return
            }
            let next = lock.locked { () -> (Downstream, Event)? in
                guard let current = downstream, let event = gateQueue.popFirst() else {
                    gateOwner.store(0, ordering: .releasing)
                    return nil
                }
                // Still marked while events wait, so the next look takes the lock again.
                gateOwner.store(gateQueue.isEmpty ? me : me | 1, ordering: .releasing)
                if case .completion = event { downstream = nil }
                return (current, event)
            }
            guard let (target, event) = next else { return }
            deliver(event, to: target, own: false, after: after)
        }
    }

    @inlinable
    @discardableResult
    package final func deliver(_ event: Event, to target: Downstream, own: Bool,
                                after: (Tag, Subscribers.Demand, Bool) -> Void) -> Subscribers.Demand? {
        switch event {
        case .value(let value, let tag):
            let demand = target.receive(value)
            after(tag, demand, own)
            return demand
        case .completion(let completion):
            target.receive(completion: completion)
            return nil
        }
    }
}

/// Where one of a combining operator's upstreams stands.
///
/// A struct of a plain phase and the subscription rather than an enum with the subscription as
/// its payload: the per-value check reads the phase, and an enum's would go through the
/// existential's value witnesses (measured: a tenth of the time of a value through `merge`).
@usableFromInline
package struct GateUpstream {
    @usableFromInline
    package enum Phase {
        case awaitingSubscription, subscribed
        /// Finished, failed, or detached by the operator's end: its events are ignored.
        case done
    }

    @usableFromInline
    package var phase: Phase
    /// The subscription while ``phase`` is `.subscribed`.
    @usableFromInline
    package var subscription: Subscription?

    @inlinable
    package init(phase: Phase, subscription: Subscription?) {
        self.phase = phase
        self.subscription = subscription
    }

    @inlinable
    package static var awaitingSubscription: GateUpstream { GateUpstream(phase: .awaitingSubscription, subscription: nil) }

    @inlinable
    package static var done: GateUpstream { GateUpstream(phase: .done, subscription: nil) }

    @inlinable
    package static func subscribed(_ subscription: Subscription) -> GateUpstream {
        GateUpstream(phase: .subscribed, subscription: subscription)
    }

    @inlinable
    package var isDone: Bool { phase == .done }

    @inlinable
    package var isSubscribed: Bool { phase == .subscribed }

    @inlinable
    package var isAwaitingSubscription: Bool { phase == .awaitingSubscription }
}
