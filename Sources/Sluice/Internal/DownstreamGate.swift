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
package enum GateTicket<Input, Failure: Error, Tag> {
    /// Nothing: the gate is closed, or the event is queued for the thread that is delivering.
    case none
    /// Deliver this event now; `thenDrain` says whether this thread has become the delivering
    /// thread (and must then drain what others queue meanwhile) or is nested inside a delivery
    /// of its own.
    case deliver(GateEvent<Input, Failure, Tag>, thenDrain: Bool)
}

/// The downstream of a ``DownstreamGate``, in a constant of an object of its own, so that the
/// delivering thread calls it in place: a stored variable would be copied for each call (a
/// retain and a release of every reference the subscriber holds; a fifth of the time of a
/// value through `merge`).
@usableFromInline
package final class GateTarget<Downstream: Subscriber> {
    @usableFromInline
    package let downstream: Downstream

    @inlinable
    package init(_ downstream: Downstream) {
        self.downstream = downstream
    }
}

/// The one component that serialises deliveries from several upstreams to one downstream
/// (every ``FanInGate`` operator, `buffer`, SluiceExtras' `Publishers.Observed`), as
/// `SubjectDelivery` does for subjects.
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
/// which case it waits its turn.
///
/// The delivering thread calls the downstream without retaining it. So only the thread that
/// gives the gate back releases the downstream (after the completion, or after a cancel made
/// while it was delivering, its own nested cancel included); a cancel made while nobody is
/// delivering releases it at once. Nothing is released under the lock.
@usableFromInline
package class DownstreamGate<Downstream: Subscriber, Tag>: @unchecked Sendable {
    @usableFromInline
    package typealias Event = GateEvent<Downstream.Input, Downstream.Failure, Tag>
    @usableFromInline
    package typealias Ticket = GateTicket<Downstream.Input, Downstream.Failure, Tag>
    /// What ``terminateLocked()`` detaches, for the caller to release after unlocking.
    @usableFromInline
    package typealias Detached = (GateTarget<Downstream>?, RingBuffer<Event>)

    // The stored properties are `final`: a subclass could otherwise override them, so code
    // specialised in a client module would reach them through the library's unspecialised
    // accessors, which look up the generic class metadata on every access (measured: a fifth
    // of the time of a value through `merge`).
    @usableFromInline
    package let lock = Lock()
    /// The downstream (retained by hand), until the gate is given back after the completion or
    /// a cancel. Written under the lock, and only while nobody is delivering (or by the
    /// delivering thread as it gives the gate back), so the delivering thread reads it without
    /// the lock and uses it at +0: a stored class reference would be retained and released
    /// around each call, since the compiler cannot know that nobody else releases it meanwhile.
    @usableFromInline @exclusivity(unchecked)
    package final var target: Unmanaged<GateTarget<Downstream>>?
    @usableFromInline @exclusivity(unchecked)
    package final var gateQueue = RingBuffer<Event>()
    /// The thread delivering right now (its identity; 0 if nobody is), with the low bit set
    /// when the delivering thread must take the lock before it stops: an event has been queued
    /// since it last looked at the queue, or the gate has closed and the downstream is to be
    /// released.
    ///
    /// Written under the lock, except by the delivering thread when it stops: with the bit
    /// clear it gives the gate back with one compare-and-exchange instead of taking the lock
    /// again (a third of the locks per value of a merge). A thread that sets the bit does so
    /// under the lock with a compare-and-exchange, so either the delivering thread sees the bit,
    /// or it has already stopped and the other thread finds the gate free. The exchanges are
    /// acquire-release: a downstream's calls from one delivering thread happen before those
    /// from the next.
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
        self.target = Unmanaged.passRetained(GateTarget(downstream))
    }

    deinit {
        target?.release()
    }

    /// Takes the downstream out, for the caller to release after unlocking.
    @inlinable
    internal final func takeTargetLocked() -> GateTarget<Downstream>? {
        defer { target = nil }
        return target?.takeRetainedValue()
    }

    /// The downstream, for a description (under the lock).
    @inlinable
    package final var downstreamLocked: Downstream? { target?.takeUnretainedValue().downstream }

    // MARK: Under the lock

    /// Whether the calling thread is the one delivering (so a call now is re-entrant).
    @inlinable
    package final var isDeliveringOnCurrentThread: Bool {
        gateOwner.load(ordering: .relaxed) & ~1 == ThreadIdentity.current.rawValue
    }

    /// Sets the low bit of a taken gate, so that the delivering thread takes the lock before it
    /// stops; does nothing if the gate is free.
    @inlinable
    internal final func markLocked() {
        var owner = gateOwner.load(ordering: .acquiring)
        while owner != 0, owner & 1 == 0 {
            let (exchanged, current) = gateOwner.compareExchange(
                expected: owner, desired: owner | 1, ordering: .acquiringAndReleasing)
            if exchanged { return }
            owner = current
        }
    }

    /// Makes the calling thread the delivering thread; the gate must be free. Only threads
    /// holding the lock move it away from free, so a store suffices. Marked if events wait or
    /// the gate has closed, so that ``drain(after:)`` takes the lock before it stops.
    @inlinable
    internal final func claimFreeGateLocked(_ me: ThreadIdentity) {
        assert(me.rawValue & 1 == 0, "a thread identity is an aligned address")
        let marked = !gateQueue.isEmpty || gateClosed
        gateOwner.store(marked ? me.rawValue | 1 : me.rawValue, ordering: .releasing)
    }

    /// Accepts one event and says what the caller must do after unlocking.
    @inlinable
    package final func submitLocked(_ event: Event) -> Ticket {
        guard !gateClosed, target != nil else { return .none }
        let me = ThreadIdentity.current
        let owner = gateOwner.load(ordering: .acquiring)
        if case .completion = event { gateClosed = true }
        if owner == 0 {
            claimFreeGateLocked(me)
            return .deliver(event, thenDrain: true)
        }
        if owner & ~1 == me.rawValue, gateQueue.isEmpty {
            if case .completion = event { markLocked() }
            return .deliver(event, thenDrain: false)
        }
        gateQueue.append(event)
        markLocked()
        if gateOwner.load(ordering: .acquiring) == 0 {
            // The delivering thread stopped before it could see this event: deliver it here.
            guard let first = gateQueue.popFirst() else { return .none }
            claimFreeGateLocked(me)
            return .deliver(first, thenDrain: true)
        }
        return .none
    }

    /// Queues an event without delivering it; follow with ``claimLocked()``. Returns `false`
    /// if the gate is closed.
    @inlinable
    @discardableResult
    package final func enqueueLocked(_ event: Event) -> Bool {
        guard !gateClosed, target != nil else { return false }
        if case .completion = event { gateClosed = true }
        gateQueue.append(event)
        markLocked()
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

    /// Closes the gate and detaches the queue, and the downstream unless a thread is delivering
    /// to it (that thread releases it when it stops), returning them so that the caller releases
    /// them after unlocking (cancel, or an operator's own termination).
    @inlinable
    package final func terminateLocked() -> Detached {
        gateClosed = true
        let queue = gateQueue
        gateQueue = RingBuffer()
        guard gateOwner.load(ordering: .acquiring) == 0 else {
            markLocked()
            return (nil, queue)
        }
        return (takeTargetLocked(), queue)
    }

    // MARK: After unlocking

    /// Carries out a ticket. `after` runs after each value delivered (with its tag, the demand
    /// the downstream returned, and whether it was the caller's own value), still on the
    /// delivering thread and with no lock held. Returns the demand the downstream returned for
    /// the caller's own value, if it was delivered now.
    @inlinable
    @inline(__always)
    @discardableResult
    package final func run(_ ticket: Ticket, after: (Tag, Subscribers.Demand, Bool) -> Void) -> Subscribers.Demand? {
        guard case .deliver(let event, let thenDrain) = ticket else { return nil }
        let demand = deliver(event, own: true, after: after)
        if thenDrain {
            drain(after: after)
        }
        return demand
    }

    /// ``run(_:after:)`` for an operator that hands the downstream its subscription late:
    /// `subscription` is handed over first if this ticket delivers a completion before that.
    /// (A separate method rather than an optional parameter, whose nil existential each value
    /// would create, test and destroy.)
    @inlinable
    @discardableResult
    package final func run(_ ticket: Ticket, handingOver subscription: Subscription,
                            after: (Tag, Subscribers.Demand, Bool) -> Void) -> Subscribers.Demand? {
        if case .deliver(.completion, _) = ticket {
            handOver(subscription)
        }
        return run(ticket, after: after)
    }

    /// Hands the downstream its subscription unless it already has it. Operators that hand it
    /// over late (after subscribing their upstreams) call this first, and `run` calls it before
    /// delivering a completion that an upstream sent early, so that the downstream never sees a
    /// completion first. Out of line, so that `run`, which delivers every value, stays small
    /// enough to be inlined into the upstreams' deliveries whatever the downstream's
    /// `receive(subscription:)` costs.
    @inlinable
    @inline(never)
    package final func handOver(_ subscription: Subscription) {
        let target = lock.locked { () -> GateTarget<Downstream>? in
            guard !subscriptionHandedOver else { return nil }
            subscriptionHandedOver = true
            return self.target?.takeUnretainedValue()
        }
        target?.downstream.receive(subscription: subscription)
    }

    /// Delivers queued events until the queue is empty, then stops being the delivering thread
    /// (releasing the downstream if the gate has closed). Call only after ``claimLocked()``
    /// returned `true` (or from ``run(_:after:)``).
    @inlinable
    package final func drain(after: (Tag, Subscribers.Demand, Bool) -> Void) {
        let me = ThreadIdentity.current.rawValue
        while true {
            // Not marked since the last look: give the gate back without the lock.
            if gateOwner.compareExchange(expected: me, desired: 0, ordering: .acquiringAndReleasing).exchanged {
                return
            }
            var released: GateTarget<Downstream>?
            let next = lock.locked { () -> Event? in
                guard target != nil, let event = gateQueue.popFirst() else {
                    gateOwner.store(0, ordering: .releasing)
                    if gateClosed {
                        released = takeTargetLocked()
                    }
                    return nil
                }
                // Still marked while events wait or once the completion is out, so that the
                // next look takes the lock again.
                gateOwner.store(gateQueue.isEmpty && !gateClosed ? me : me | 1, ordering: .releasing)
                return event
            }
            guard let event = next else {
                withExtendedLifetime(released) {}
                return
            }
            deliver(event, own: false, after: after)
        }
    }

    /// Delivers one event to the downstream, in place. Only the delivering thread calls it, so
    /// `target` is set and stays alive (see ``target``).
    @inlinable
    @inline(__always)
    @discardableResult
    package final func deliver(_ event: Event, own: Bool,
                                after: (Tag, Subscribers.Demand, Bool) -> Void) -> Subscribers.Demand? {
        target.unsafelyUnwrapped._withUnsafeGuaranteedRef { target in
            switch event {
            case .value(let value, let tag):
                let demand = target.downstream.receive(value)
                after(tag, demand, own)
                return demand
            case .completion(let completion):
                target.downstream.receive(completion: completion)
                return nil
            }
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
