import Synchronization

/// What a subject's subscribers are sent, in order.
@usableFromInline
package enum SubjectEvent<Output, Failure: Error> {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
    /// A value owed to one subscriber only: `CurrentValueSubject`'s current value on first
    /// demand, delivered in line with what other threads are sending.
    case owed(Output, to: SubjectTargetBase<Output, Failure>)
    /// A replaying subscription's backlog is to be delivered as far as its demand allows
    /// (`ReplaySubject`), in line with what other threads are sending.
    case replay(to: SubjectTargetBase<Output, Failure>)
}

/// How a subject's subscription treats demand.
@usableFromInline
package enum SubjectDemandPolicy<Output> {
    /// A value sent while the subscriber has no demand is dropped for it (`PassthroughSubject`).
    case dropWithoutDemand
    /// The subscriber is owed the current value on its first demand, and again after missing a
    /// value for lack of demand (`CurrentValueSubject`, `@Published`).
    case currentValue(() -> Output?)
    /// Once the subscriber has asked for anything it receives every value
    /// (`ObservableObjectPublisher`, as Combine's does).
    case everyValueAfterFirstDemand
    /// The subscriber starts with the subject's last values as a backlog; a value sent while it
    /// has no demand (or while its backlog is not yet delivered) joins the backlog, which keeps
    /// the newest `capacity` values. The backlog is delivered as demand arrives, even demand
    /// that arrives long after subscribing; a completion waits until the backlog is delivered
    /// (`ReplaySubject`).
    case replay(capacity: Int)
}

/// The machinery every subject shares: the ordered list of subscribers, the completion, the
/// upstream subscriptions handed to `send(subscription:)`, and the gate that serialises delivery.
///
/// Delivery is serial per subject: the thread that finds nobody delivering becomes the owner,
/// delivers, then drains what other threads queued meanwhile (so `send` never blocks on a slow
/// subscriber of another thread, and every subscriber sees one order). A `send` made on the
/// owner thread itself, from inside a subscriber, is delivered at once, nested, as Combine does.
/// No lock is held while a subscriber runs.
///
/// Ownership is an atomic word, so a value sent while nobody is delivering and nothing is
/// queued takes no lock: the sender claims `owner`, delivers to its own copy of the list
/// (`ownerTargets`, refreshed under the lock only when `targetsVersion` says the list changed),
/// and gives `owner` back. Whoever queues an event, or changes the list, sets `queuedBit` on a
/// claimed `owner`; the owner then cannot give it back without the lock, where it drains the
/// queue and refreshes its copy (so a removed subscriber is not kept alive by it).
@usableFromInline
package final class SubjectDelivery<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    package let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    package var targets: [SubjectTargetBase<Output, Failure>] = []
    @usableFromInline @exclusivity(unchecked)
    package var completion: Subscribers.Completion<Failure>?
    /// Set under the lock when the completion is dispatched, which may be after `completion` is
    /// set: a completion sent while another thread delivers waits in `pending` behind the
    /// values sent before it.
    @usableFromInline @exclusivity(unchecked)
    package var completionDispatched = false
    /// The subscriptions the subject was given as a subscriber (`send(subscription:)`), kept
    /// until the subject deinitializes and then cancelled, also after its completion, as Combine
    /// keeps them.
    @usableFromInline @exclusivity(unchecked)
    package var upstreamSubscriptions: [Subscription] = []
    /// Whether upstream subscriptions are asked for `.unlimited` as soon as they arrive
    /// (`CurrentValueSubject`) or only once some subscriber has asked for something.
    @usableFromInline
    package let requestsUpstreamEagerly: Bool
    /// Set, under the lock, once some subscriber has asked for values; it stays set, so that
    /// later subscribers' first requests find it without the lock.
    @usableFromInline
    package let hasDownstreamDemand = Atomic<Bool>(false)
    /// 0 while nobody is delivering; otherwise the delivering thread's identity, with
    /// `queuedBit` set when there is work for it under the lock (queued events, or a changed
    /// list). A thread identity is the address of its thread descriptor, so bit 0 is free.
    @usableFromInline
    package let owner = Atomic<UInt>(0)
    /// Whoever holds `owner` without being a delivering thread: the lock holder dropping the
    /// owner's copy of the list while nobody is delivering (`queuedBit` alone, so that a sender
    /// finds `owner` taken and waits for the lock).
    @usableFromInline
    package static var listMaintenance: UInt { queuedBit }
    @usableFromInline
    package static var queuedBit: UInt { 1 }

    /// The calling thread's identity as an `owner` value.
    @inlinable
    package static var ownerIdentity: UInt {
        let identity = ThreadIdentity.current.rawValue
        assert(identity != 0 && identity & queuedBit == 0, "a thread identity must leave bit 0 free for queuedBit")
        return identity
    }

    @usableFromInline @exclusivity(unchecked)
    package var pending: [SubjectEvent<Output, Failure>] = []
    /// Subscriptions that ended during a delivery, whose subscribers the delivering thread lets
    /// go when it finishes (see ``releasesAtOnceLocked(_:)``).
    @usableFromInline @exclusivity(unchecked)
    package var pendingReleases: [SubjectTargetBase<Output, Failure>] = []
    /// Bumped under the lock whenever `targets` changes.
    @usableFromInline
    package let targetsVersion = Atomic<UInt>(0)
    /// The delivering thread's copy of `targets`, and the version it was taken at; touched only
    /// by the thread that holds `owner`, at the outermost level of its delivery.
    @usableFromInline @exclusivity(unchecked)
    package var ownerTargets: [SubjectTargetBase<Output, Failure>] = []
    @usableFromInline @exclusivity(unchecked)
    package var ownerTargetsVersion: UInt = 0
    /// `completion != nil`, readable by the delivering thread without the lock.
    @usableFromInline
    package let completed = Atomic<Bool>(false)
    /// How many of the last values are kept for subscribers that arrive later (0: none).
    @usableFromInline
    package let replayCapacity: Int
    /// The last `replayCapacity` values, recorded when each is dispatched, so that a subscriber
    /// attached at any moment gets every value exactly once: in its backlog if the value was
    /// dispatched before it attached, live otherwise.
    @usableFromInline @exclusivity(unchecked)
    package var replayBuffer = RingBuffer<Output>()

    @inlinable
    package init(requestsUpstreamEagerly: Bool, replayCapacity: Int = 0) {
        self.requestsUpstreamEagerly = requestsUpstreamEagerly
        self.replayCapacity = replayCapacity
    }

    // MARK: Subscribing

    /// Adds a new subscription to the list, or returns the completion if the subject has
    /// already completed (and ends the subscription, which will not be used).
    @inlinable
    package func attach<Downstream: Subscriber>(_ conduit: SubjectConduit<Downstream>)
        -> Subscribers.Completion<Failure>? where Downstream.Input == Output, Downstream.Failure == Failure
    {
        var stale: [SubjectTargetBase<Output, Failure>] = []
        let completed = lock.locked { () -> Subscribers.Completion<Failure>? in
            if let completion { return completion }
            targetsWillChangeLocked(releasing: &stale)
            targets.append(conduit)
            return nil
        }
        withExtendedLifetime(stale) {}
        if completed != nil {
            conduit.release()
        }
        return completed
    }

    /// Adds a replaying subscription's subscriber and hands it the last values as its backlog,
    /// in the same critical section, so that no value is missed or delivered twice. After
    /// completion the subscriber is not listed but still gets the backlog and the completion
    /// (and with no backlog the subscription ends, unused). Returns the completion, if any, and
    /// whether the backlog is empty.
    @inlinable
    package func attachReplaying<Downstream: Subscriber>(_ conduit: SubjectConduit<Downstream>)
        -> (completion: Subscribers.Completion<Failure>?, backlogIsEmpty: Bool)
        where Downstream.Input == Output, Downstream.Failure == Failure
    {
        var stale: [SubjectTargetBase<Output, Failure>] = []
        let result = lock.locked { () -> (completion: Subscribers.Completion<Failure>?, backlogIsEmpty: Bool) in
            let values = replayBuffer.elements
            // Until the completion is dispatched, values sent before it may still be queued:
            // the subscriber is listed, to receive them, and the completion reaches it after them.
            let completed = completionDispatched ? completion : nil
            conduit.seedReplay(values, completion: completed)
            if completed == nil {
                targetsWillChangeLocked(releasing: &stale)
                targets.append(conduit)
            }
            return (completed, values.isEmpty)
        }
        withExtendedLifetime(stale) {}
        if result.completion != nil, result.backlogIsEmpty {
            conduit.release()
        }
        return result
    }

    /// Records an event being dispatched (with the lock held, in the critical section that
    /// takes the list it goes to): a completion as dispatched, a value for later subscribers;
    /// the value pushed out is returned through `evicted` so that it is released after unlocking.
    @inlinable
    package func recordDispatchLocked(_ event: SubjectEvent<Output, Failure>, evicted: inout Output?) {
        if case .completion = event {
            completionDispatched = true
            return
        }
        guard replayCapacity > 0, case .value(let value) = event else { return }
        replayBuffer.append(value)
        if replayBuffer.count > replayCapacity {
            evicted = replayBuffer.popFirst()
        }
    }

    /// Takes an ended subscription off the list. Returns whether its subscriber may be let go
    /// at once; if not, a delivery is in progress (it may be calling that subscriber, on this
    /// thread or another), and the delivering thread lets it go when it finishes.
    @inlinable
    package func detach(_ entry: SubjectTargetBase<Output, Failure>) -> Bool {
        var stale: [SubjectTargetBase<Output, Failure>] = []
        let releasesNow = lock.locked { () -> Bool in
            guard let index = targets.firstIndex(where: { $0 === entry }) else {
                return releasesAtOnceLocked(entry)
            }
            let delivering = targetsWillChangeLocked(releasing: &stale)
            targets.remove(at: index)
            if delivering {
                pendingReleases.append(entry)
            }
            return !delivering
        }
        withExtendedLifetime(stale) {}
        return releasesNow
    }

    /// For a subscription that has ended and that no list holds any more (the lock held):
    /// returns `true` if nobody is delivering, so that its subscriber may be let go at once (no
    /// delivery can reach it from now on); otherwise keeps it for the delivering thread to let
    /// go when it finishes.
    @inlinable
    package func releasesAtOnceLocked(_ entry: SubjectTargetBase<Output, Failure>) -> Bool {
        // One operation either tells the delivering thread to look under the lock when it
        // finishes, or finds nobody delivering (and then gives back the `listMaintenance` it took).
        guard owner.bitwiseOr(Self.queuedBit, ordering: .acquiringAndReleasing).oldValue == 0 else {
            pendingReleases.append(entry)
            return false
        }
        owner.store(0, ordering: .releasing)
        return true
    }

    /// `releasesAtOnceLocked` for a caller without the lock.
    @inlinable
    package func releasesAtOnce(_ entry: SubjectTargetBase<Output, Failure>) -> Bool {
        lock.locked { releasesAtOnceLocked(entry) }
    }

    /// Call with the lock held before changing `targets`: bumps the version, and makes sure the
    /// owner's copy keeps no removed subscriber alive. If a thread is delivering, it is told to
    /// refresh its copy when it finishes; otherwise the copy is dropped here (before the change,
    /// so that the list is changed in place rather than copied), and the next `send` takes a
    /// new one. The old copy goes into `stale`, to release after unlocking. Returns whether a
    /// thread is delivering.
    @inlinable
    @discardableResult
    package func targetsWillChangeLocked(releasing stale: inout [SubjectTargetBase<Output, Failure>]) -> Bool {
        // Written only under the lock: a load and a store, not a read-modify-write.
        targetsVersion.store(targetsVersion.load(ordering: .relaxed) &+ 1, ordering: .releasing)
        // One operation either pokes the delivering thread or, if nobody was delivering, claims
        // `owner` as `listMaintenance` so that no sender starts from the copy meanwhile.
        guard owner.bitwiseOr(Self.queuedBit, ordering: .acquiringAndReleasing).oldValue == 0 else {
            return true
        }
        defer { owner.store(0, ordering: .releasing) }
        swap(&stale, &ownerTargets)
        return false
    }

    /// Called when a subscriber asks for values.
    @inlinable
    package func downstreamDemandArrived() {
        if hasDownstreamDemand.load(ordering: .acquiring) { return }
        let upstreams = lock.locked { () -> [Subscription] in
            guard !hasDownstreamDemand.load(ordering: .relaxed) else { return [] }
            hasDownstreamDemand.store(true, ordering: .releasing)
            return requestsUpstreamEagerly ? [] : upstreamSubscriptions
        }
        for upstream in upstreams {
            upstream.request(.unlimited)
        }
    }

    @inlinable
    package func add(upstream subscription: Subscription) {
        let request = lock.locked { () -> Bool in
            upstreamSubscriptions.append(subscription)
            return requestsUpstreamEagerly || hasDownstreamDemand.load(ordering: .relaxed)
        }
        if request {
            subscription.request(.unlimited)
        }
    }

    /// Cancels the upstream subscriptions; subjects call it when they deinitialize.
    @inlinable
    package func cancelUpstreams() {
        let upstreams = lock.locked { () -> [Subscription] in
            defer { upstreamSubscriptions = [] }
            return upstreamSubscriptions
        }
        for upstream in upstreams {
            upstream.cancel()
        }
    }

    // MARK: Sending

    /// Sends a value to every subscriber with demand; returns `false` after completion.
    @inlinable
    @discardableResult
    package func send(_ value: Output) -> Bool {
        let me = Self.ownerIdentity
        guard replayCapacity == 0,
              owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
            return enqueueOrDeliver(.value(value), isCompletion: false)
        }
        // Nobody else is delivering and nothing is queued: deliver from this thread's copy of
        // the list, which nothing changes until `finishDelivering`.
        let accepted = !completed.load(ordering: .relaxed)
        if accepted {
            if ownerTargetsVersion != targetsVersion.load(ordering: .acquiring) {
                var stale: [SubjectTargetBase<Output, Failure>] = []
                lock.locked { refreshOwnerTargetsLocked(into: &stale) }
                withExtendedLifetime(stale) {}
            }
            // Through an exclusive (inout) access, which the optimizer does not copy: a plain read
            // of the stored array would retain and release its buffer around the loop. Nothing
            // else touches `ownerTargets` until `finishDelivering`; the first send after a
            // refresh copies the buffer it shares with `targets`, once.
            ownerTargets.withUnsafeMutableBufferPointer { buffer in
                deliver(value, to: UnsafeBufferPointer(buffer))
            }
        }
        finishDelivering(me)
        return accepted
    }

    /// Records the completion and delivers it after everything sent before it.
    /// Returns `false` if the subject had already completed.
    @inlinable
    @discardableResult
    package func send(completion: Subscribers.Completion<Failure>) -> Bool {
        enqueueOrDeliver(.completion(completion), isCompletion: true)
    }

    /// Delivers a value owed to one subscriber, in line with other sends.
    @inlinable
    package func send(owed value: Output, to target: SubjectTargetBase<Output, Failure>) {
        enqueueOrDeliver(.owed(value, to: target), isCompletion: false, evenAfterCompletion: true)
    }

    /// Delivers a replaying subscriber's backlog as far as its demand allows, in line with other
    /// sends (also after completion: the backlog outlives it).
    @inlinable
    package func send(replayTo target: SubjectTargetBase<Output, Failure>) {
        enqueueOrDeliver(.replay(to: target), isCompletion: false, evenAfterCompletion: true)
    }

    /// The delivery gate. Under the lock: refuse after completion, queue the event if another
    /// thread is delivering, or become the delivering thread (staying one, nested, if this thread
    /// already is). The delivering thread then drains what others queued meanwhile.
    @inlinable
    @discardableResult
    package func enqueueOrDeliver(_ event: SubjectEvent<Output, Failure>, isCompletion: Bool,
                                   evenAfterCompletion: Bool = false) -> Bool {
        let me = Self.ownerIdentity
        var evicted: Output?
        let (accepted, owns, targets) = lock.locked {
            () -> (Bool, Bool, [SubjectTargetBase<Output, Failure>]?) in
            guard completion == nil || evenAfterCompletion else { return (false, false, nil) }
            if isCompletion, case .completion(let completion) = event {
                self.completion = completion
                completed.store(true, ordering: .releasing)
                // The upstream subscriptions stay, as Combine's do, until the subject goes
                // (`cancelUpstreams`).
            }
            while true {
                let current = owner.load(ordering: .acquiring)
                if current == 0 {
                    guard owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
                        continue
                    }
                    recordDispatchLocked(event, evicted: &evicted)
                    return (true, true, self.targets)
                }
                if current & ~Self.queuedBit == me {
                    recordDispatchLocked(event, evicted: &evicted)
                    return (true, false, self.targets)
                }
                if owner.compareExchange(expected: current, desired: current | Self.queuedBit,
                                         ordering: .relaxed).exchanged {
                    pending.append(event)
                    return (true, false, nil)
                }
            }
        }
        withExtendedLifetime(evicted) {}
        guard let targets else { return accepted }
        dispatch(event, to: targets)
        if owns {
            finishDelivering(me)
        }
        return accepted
    }

    /// Gives `owner` back: at once if nothing was queued meanwhile, otherwise under the lock
    /// after delivering what was queued and refreshing the copy of the list.
    @inlinable
    @inline(__always)
    package func finishDelivering(_ me: UInt) {
        // One compare-exchange when nothing was queued, inlined into every send; the rest out
        // of line.
        guard !owner.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged else { return }
        finishDeliveringQueued(me)
    }

    /// `finishDelivering` when something was queued, or the list changed, while delivering.
    @inlinable
    @inline(never)
    package func finishDeliveringQueued(_ me: UInt) {
        repeat {
            var evicted: Output?
            var stale: [SubjectTargetBase<Output, Failure>] = []
            var released: [SubjectTargetBase<Output, Failure>] = []
            let next = lock.locked { () -> (SubjectEvent<Output, Failure>, [SubjectTargetBase<Output, Failure>])? in
                guard !pending.isEmpty else {
                    refreshOwnerTargetsLocked(into: &stale)
                    swap(&released, &pendingReleases)
                    owner.store(0, ordering: .releasing)
                    return nil
                }
                let event = pending.removeFirst()
                recordDispatchLocked(event, evicted: &evicted)
                return (event, self.targets)
            }
            withExtendedLifetime((evicted, stale)) {}
            guard let (event, targets) = next else {
                // Listed nowhere now, and nobody is delivering: no delivery can reach them.
                for entry in released {
                    entry.releaseSubscriber()
                }
                return
            }
            dispatch(event, to: targets)
        } while !owner.compareExchange(expected: me, desired: 0, ordering: .releasing).exchanged
    }

    /// Brings the owner's copy of the list up to date if the list has changed since it was
    /// taken, moving the old copy into `stale` to release after unlocking. Call with the lock
    /// and `owner` held.
    @inlinable
    package func refreshOwnerTargetsLocked(into stale: inout [SubjectTargetBase<Output, Failure>]) {
        let version = targetsVersion.load(ordering: .relaxed)
        guard ownerTargetsVersion != version else { return }
        stale = ownerTargets
        ownerTargets = targets
        ownerTargetsVersion = version
    }

    /// `targets` keeps every element alive for the loop, so each is used at +0 rather than
    /// retained and released per delivery (two atomic operations per subscriber).
    @inlinable
    package func deliver(_ value: Output, to targets: [SubjectTargetBase<Output, Failure>]) {
        targets.withUnsafeBufferPointer { buffer in
            deliver(value, to: buffer)
        }
    }

    @inlinable
    package func deliver(_ value: Output, to buffer: UnsafeBufferPointer<SubjectTargetBase<Output, Failure>>) {
        for index in buffer.indices {
            Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef { target in
                target.offerSpecialized(target, value)
            }
        }
    }

    @inlinable
    package func dispatch(_ event: SubjectEvent<Output, Failure>,
                           to targets: [SubjectTargetBase<Output, Failure>]) {
        switch event {
        case .value(let value):
            deliver(value, to: targets)
        case .completion(let completion):
            let (detached, stale) = lock.locked {
                () -> ([SubjectTargetBase<Output, Failure>], [SubjectTargetBase<Output, Failure>]) in
                var stale: [SubjectTargetBase<Output, Failure>] = []
                targetsWillChangeLocked(releasing: &stale)
                let detached = self.targets
                self.targets = []
                return (detached, stale)
            }
            withExtendedLifetime((detached, stale)) {}
            for target in targets {
                target.finish(completion)
            }
        case .owed(let value, let target):
            target.offerOwed(value)
        case .replay(let target):
            target.drainReplay()
        }
    }
}
