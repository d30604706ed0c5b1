import Synchronization

/// The one delivery state machine of every operator that hops to a scheduler (`receive(on:)`,
/// `delay`, `debounce`, `throttle`, `timeout`, `collect(_:options:)`).
///
/// The operator hands events over with ``enqueue(_:)`` and schedules one action per event, as
/// Combine does; each action calls ``deliverNext(requestingMore:)``, which delivers the *oldest*
/// queued event, not "its own". So whatever order a concurrent scheduler runs the actions in,
/// the downstream sees the events in the order they were handed over, one at a time: if an
/// action finds another delivering, it leaves a debt that the delivering thread pays before it
/// lets go. A completion is always delivered after every value handed over before it, and
/// nothing is delivered after a completion or `cancel()`.
///
/// An action that runs *inside* a delivery, on the delivering thread (a scheduler that runs
/// actions in place, such as `ImmediateScheduler`, and a subscriber that sends upstream), is
/// Combine's nested delivery: it delivers the oldest waiting event there and then, before the
/// delivery it interrupts returns, as Combine's action per event run in place does. Nothing
/// older is waiting then, so the order holds.
///
/// It also holds the operator's link: the upstream's subscription and the one reference to the
/// downstream. The operator keeps its own state under the same ``lock`` and decides and queues
/// an event in one critical section (``enqueueLocked(_:)``), so a value costs one lock on its
/// way in, however the operator is built.
@usableFromInline
package final class HopDelivery<Downstream: Subscriber>: @unchecked Sendable {
    @usableFromInline
    package enum Event {
        case value(Downstream.Input)
        case completion(Subscribers.Completion<Downstream.Failure>)
    }

    /// What a cancel lets go of: the downstream and the events still queued.
    @usableFromInline
    package typealias Released = (Downstream?, RingBuffer<Event>)

    @usableFromInline
    package let lock = Lock()
    /// The downstream, until the completion is delivered or `cancel()`.
    @usableFromInline @exclusivity(unchecked)
    package var downstream: Downstream?
    /// Whether the upstream's subscription has arrived and neither its completion nor a cancel
    /// has come: the per-value check, a plain flag so that the critical section copies no
    /// existential (measured: copying the subscription there made `receive(on:)` half as fast).
    @usableFromInline @exclusivity(unchecked)
    package var isUpstreamLive = false
    /// The upstream's subscription while ``isUpstreamLive``.
    @usableFromInline @exclusivity(unchecked)
    package var liveUpstream: Subscription?
    /// Whether the link has ended (a second subscription is then refused too).
    @usableFromInline @exclusivity(unchecked)
    package var isUpstreamDetached = false
    @usableFromInline @exclusivity(unchecked)
    package var queue: RingBuffer<Event> = RingBuffer()
    /// Whether a completion has been handed over (later events are refused).
    @usableFromInline @exclusivity(unchecked)
    package var completionQueued = false
    @usableFromInline @exclusivity(unchecked)
    package var delivering = false
    /// The thread that set `delivering` (or runs the drain), for nested delivery.
    @usableFromInline @exclusivity(unchecked)
    package var deliveringThread: UInt = 0
    /// How many events of the drain's `batch` are still to be delivered; written and read only
    /// by the draining thread (a nested delivery waits while any is left, to keep the order).
    @usableFromInline @exclusivity(unchecked)
    package var batchRemaining = 0
    /// Scheduled actions that ran while another was delivering; each is owed one delivery.
    @usableFromInline @exclusivity(unchecked)
    package var owed = 0
    /// For batched delivery: a drain action is scheduled and has not finished.
    @usableFromInline @exclusivity(unchecked)
    package var drainPending = false
    /// The events a drain has taken from the queue and is delivering; only the one drain that
    /// holds `drainPending` touches it.
    @usableFromInline @exclusivity(unchecked)
    package var batch: [Event] = []
    /// Set by `cancel()`, read by a drain between deliveries instead of taking the lock.
    @usableFromInline
    package let cancelled = Atomic<Bool>(false)

    @inlinable
    package init(_ downstream: Downstream) {
        self.downstream = downstream
    }

    // MARK: The link, under the lock

    /// Takes the upstream's first subscription and returns the downstream to hand this
    /// operator on to; `nil` (after another subscription, or a cancel) means the caller cancels
    /// it after unlocking.
    @inlinable
    package func acceptLocked(_ subscription: Subscription) -> Downstream? {
        guard !isUpstreamLive, !isUpstreamDetached, let downstream else { return nil }
        isUpstreamLive = true
        liveUpstream = subscription
        return downstream
    }

    /// Ends the link to the upstream (its completion, or a cancel), returning its subscription
    /// if it was live: the caller then goes on to queue the completion, or cancels the
    /// subscription after unlocking.
    @inlinable
    package func detachUpstreamLocked() -> Subscription? {
        isUpstreamLive = false
        isUpstreamDetached = true
        defer { liveUpstream = nil }
        return liveUpstream
    }

    /// The upstream's subscription while the link is live.
    @inlinable
    package var upstreamSubscription: Subscription? {
        lock.locked { liveUpstream }
    }

    /// Queues an event for delivery. Returns `false` (and queues nothing) after a completion has
    /// been queued or after `cancel()`.
    @inlinable
    @discardableResult
    package func enqueueLocked(_ event: Event) -> Bool {
        guard downstream != nil, !completionQueued else { return false }
        if case .completion = event { completionQueued = true }
        queue.append(event)
        return true
    }

    /// ``enqueueLocked(_:)`` in a critical section of its own.
    @inlinable
    @discardableResult
    package func enqueue(_ event: Event) -> Bool {
        lock.locked { enqueueLocked(event) }
    }

    /// Queues a value from the upstream if the link is live: the one lock of a value's way in.
    @inlinable
    package func enqueueFromUpstream(_ value: Downstream.Input) -> Bool {
        lock.locked { isUpstreamLive && enqueueLocked(.value(value)) }
    }

    /// Ends the link for the upstream's completion and queues it, if the link was live; returns
    /// the subscription it held (for an operator that still forwards demand to a finished
    /// upstream), or `nil` if nothing was queued.
    @inlinable
    package func enqueueCompletionFromUpstream(_ completion: Subscribers.Completion<Downstream.Failure>) -> Subscription? {
        lock.locked {
            guard let subscription = detachUpstreamLocked(),
                  enqueueLocked(.completion(completion)) else { return nil }
            return subscription
        }
    }

    /// Whether delivery is over: the completion has been delivered, or `cancel()` was called.
    @inlinable
    package var isOver: Bool {
        lock.locked { downstream == nil }
    }

    /// Delivers the oldest queued event (and any debts), calling `requestingMore` with the
    /// non-zero demand the downstream returns for each value.
    @inlinable
    package func deliverNext(requestingMore: (Subscribers.Demand) -> Void = { _ in }) {
        let me = ThreadIdentity.current.rawValue
        var nested = false
        let next = lock.locked { () -> (Downstream, Event)? in
            if delivering {
                if deliveringThread == me {
                    // Run in place inside the delivery on this thread: Combine's nested delivery.
                    guard let downstream, let event = queue.popFirst() else { return nil }
                    nested = true
                    return (downstream, event)
                }
                owed += 1
                return nil
            }
            guard let downstream, let event = queue.popFirst() else { return nil }
            delivering = true
            deliveringThread = me
            return (downstream, event)
        }
        if nested, let (downstream, event) = next {
            deliver(event, to: downstream, requestingMore: requestingMore)
            return
        }
        keepDelivering(next, requestingMore: requestingMore)
    }

    /// What becomes of an event handed over by ``handOverLocked(_:)``.
    @usableFromInline
    package enum HandOver {
        /// Nothing was queued or being delivered: the caller delivers it at once (see
        /// ``complete(_:requestingMore:)``).
        case deliverNow(Downstream, Event)
        /// Queued behind others, to be delivered as after ``enqueueLocked(_:)``.
        case queued
        /// Refused, after a completion was queued or after `cancel()`.
        case refused
    }

    /// ``enqueueLocked(_:)`` for an operator whose scheduled action hands over its own event
    /// (debounce's timer): when nothing is queued or being delivered, the event is taken for
    /// delivery at once rather than queued and popped again in a second critical section.
    @inlinable
    package func handOverLocked(_ event: Event) -> HandOver {
        guard !delivering, queue.isEmpty, let downstream, !completionQueued else {
            return enqueueLocked(event) ? .queued : .refused
        }
        if case .completion = event { completionQueued = true }
        delivering = true
        deliveringThread = ThreadIdentity.current.rawValue
        return .deliverNow(downstream, event)
    }

    /// After unlocking, carries out what ``handOverLocked(_:)`` decided: delivers the event it
    /// took, then whatever `deliverNext` would after it (debts left by actions that ran
    /// meanwhile), or has the queue delivered.
    @inlinable
    package func complete(_ handOver: consuming HandOver, requestingMore: (Subscribers.Demand) -> Void = { _ in }) {
        switch consume handOver {
        case .deliverNow(let downstream, let event):
            keepDelivering((downstream, event), requestingMore: requestingMore)
        case .queued:
            deliverNext(requestingMore: requestingMore)
        case .refused:
            break
        }
    }

    /// Delivers `first`, if any, then the events owed to actions that found this one
    /// delivering, until none is owed; then lets go of `delivering`.
    @inlinable
    package func keepDelivering(_ first: (Downstream, Event)?, requestingMore: (Subscribers.Demand) -> Void) {
        var next = first
        while let (downstream, event) = next {
            deliver(event, to: downstream, requestingMore: requestingMore)
            next = lock.locked { () -> (Downstream, Event)? in
                guard owed > 0, let downstream = self.downstream, let event = queue.popFirst() else {
                    owed = 0
                    delivering = false
                    return nil
                }
                owed -= 1
                return (downstream, event)
            }
        }
    }

    // MARK: Timers

    /// Stores a timer the operator has just scheduled (outside the lock): `store`, run under the
    /// lock while the link is live, swaps it into the operator's timer slot
    /// (``ScheduledTimer/exchange(_:)``) unless the operator's state says it is already stale
    /// (it has fired or been superseded meanwhile, and a stored repeating timer would go on
    /// firing every interval). Whichever timer comes out, the one replaced or the stale one, is
    /// cancelled after unlocking. The slot is reached only inside `store`, under the lock: an
    /// `inout` argument would be an access to it for the whole call, lock or not.
    @inlinable
    package func install(_ newTimer: consuming Cancellable, store: (inout Cancellable) -> Void) {
        var outgoing = newTimer
        lock.locked {
            guard isUpstreamLive else { return }
            store(&outgoing)
        }
        outgoing.cancel()
    }

    // MARK: Batched delivery (receive(on:))

    /// How many events one drain action delivers before it yields the scheduler to other work
    /// and schedules another: a burst costs one scheduled action per batch rather than per
    /// value, and a long burst still lets other work on the same queue (the main queue's UI
    /// work, say) run between batches.
    @inlinable
    package static var batchSize: Int { 64 }

    /// What the caller of ``enqueueForDrainLocked(_:)`` schedules after unlocking.
    @usableFromInline
    package enum DrainAction {
        /// Nothing: the event rides along with the pending drain.
        case none
        /// A drain (none was pending).
        case drain
        /// ``deliverNested(requestingMore:)``: the event was handed over on the draining thread,
        /// in the middle of a delivery (the downstream's own call), where Combine would
        /// deliver it in place if the scheduler runs actions in place.
        case nested
    }

    /// Queues an event for batched delivery and says what to schedule, or `nil` if the event
    /// was refused (after completion or cancel).
    @inlinable
    package func enqueueForDrainLocked(_ event: Event) -> DrainAction? {
        guard enqueueLocked(event) else { return nil }
        if drainPending {
            return deliveringThread == ThreadIdentity.current.rawValue ? .nested : DrainAction.none
        }
        drainPending = true
        return .drain
    }

    /// The action scheduled for ``DrainAction/nested``: if it runs in place inside the delivery
    /// that handed its event over, with nothing older left in the drain's batch, it delivers the
    /// oldest waiting event there (nested, as Combine's action per value run in place); run
    /// later, or with older events still to go, it leaves the event to the drain.
    @inlinable
    package func deliverNested(requestingMore: (Subscribers.Demand) -> Void) {
        let me = ThreadIdentity.current.rawValue
        let next = lock.locked { () -> (Downstream, Event)? in
            guard drainPending, deliveringThread == me, batchRemaining == 0,
                  let downstream, let event = queue.popFirst() else { return nil }
            return (downstream, event)
        }
        if let (downstream, event) = next {
            deliver(event, to: downstream, requestingMore: requestingMore)
        }
    }

    /// Delivers what is queued, up to ``batchSize`` events, and says whether more are left (the
    /// drain flag stays set: the caller schedules another drain, so other work on the scheduler
    /// runs between batches). Events are taken from the queue a batch at a time, in one critical
    /// section; between deliveries only the `cancelled` flag is read, so a cancel stops delivery
    /// before the next event.
    @inlinable
    package func drain(requestingMore: (Subscribers.Demand) -> Void = { _ in }) -> Bool {
        let me = ThreadIdentity.current.rawValue
        var delivered = 0
        while true {
            // One critical section decides both what to deliver and whether this drain ends: a
            // second look at `drainPending` could see a newer drain's flag and schedule a rival.
            let (target, scheduleAnother) = lock.locked { () -> (Downstream?, Bool) in
                guard let downstream, !queue.isEmpty else {
                    drainPending = false
                    deliveringThread = 0
                    return (nil, false)
                }
                if delivered == HopDelivery.batchSize {
                    deliveringThread = 0
                    return (nil, true)
                }
                let taken = Swift.min(queue.count, HopDelivery.batchSize - delivered)
                for _ in 0..<taken {
                    if let event = queue.popFirst() { batch.append(event) }
                }
                deliveringThread = me
                return (downstream, false)
            }
            guard let downstream = target else { return scheduleAnother }
            defer { batch.removeAll(keepingCapacity: true) }
            batchRemaining = batch.count
            for event in batch {
                guard !cancelled.load(ordering: .relaxed) else { return false }
                delivered += 1
                batchRemaining -= 1
                if deliver(event, to: downstream, requestingMore: requestingMore) { return false }
            }
        }
    }

    /// Hands one event to the downstream; returns whether it was the completion (after which the
    /// downstream has been let go of).
    @inlinable
    @discardableResult
    package func deliver(_ event: Event, to downstream: Downstream,
                          requestingMore: (Subscribers.Demand) -> Void) -> Bool {
        switch event {
        case .value(let value):
            let demand = downstream.receive(value)
            if demand > 0 { requestingMore(demand) }
            return false
        case .completion(let completion):
            let released = releaseForCompletion()
            downstream.receive(completion: completion)
            withExtendedLifetime(released) {}
            return true
        }
    }

    /// The completion is being delivered: nothing more will be, so the downstream and what is
    /// left queued are let go of (returned, to be released outside the lock).
    @inlinable
    package func releaseForCompletion() -> (Downstream?, RingBuffer<Event>) {
        lock.locked {
            defer {
                downstream = nil
                queue = RingBuffer()
                drainPending = false
            }
            return (downstream, queue)
        }
    }

    /// Stops delivery and ends the link: returns the downstream and what was queued, to be
    /// released after unlocking, and the upstream's subscription if it was live, to be
    /// cancelled after unlocking.
    @inlinable
    package func cancelLocked() -> (upstream: Subscription?, released: Released) {
        cancelled.store(true, ordering: .relaxed)
        defer {
            downstream = nil
            queue = RingBuffer()
        }
        return (detachUpstreamLocked(), (downstream, queue))
    }

    /// ``cancelLocked()`` in a critical section of its own; then the upstream is cancelled.
    @inlinable
    package func cancel() {
        let (upstream, released) = lock.locked { cancelLocked() }
        withExtendedLifetime(released) {}
        upstream?.cancel()
    }
}
