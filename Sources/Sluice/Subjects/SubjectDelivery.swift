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
    @usableFromInline @exclusivity(unchecked)
    package var upstreamSubscriptions: [Subscription] = []
    /// Whether upstream subscriptions are asked for `.unlimited` as soon as they arrive
    /// (`CurrentValueSubject`) or only once some subscriber has asked for something.
    @usableFromInline
    package let requestsUpstreamEagerly: Bool
    @usableFromInline @exclusivity(unchecked)
    package var hasDownstreamDemand = false
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

    /// Adds a subscription's subscriber to the list, or returns the completion if the subject
    /// has already completed (and ends the subscription, which will not be used).
    @inlinable
    package func attach<Downstream: Subscriber>(_ conduit: SubjectConduit<Downstream>)
        -> Subscribers.Completion<Failure>? where Downstream.Input == Output, Downstream.Failure == Failure
    {
        guard let target = conduit.lock.locked({ conduit.target }) else { return nil }
        var stale: [SubjectTargetBase<Output, Failure>] = []
        let completed = lock.locked { () -> Subscribers.Completion<Failure>? in
            if let completion { return completion }
            stale = targetsWillChangeLocked()
            targets.append(target)
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
        guard let target = conduit.lock.locked({ conduit.target }) else { return (nil, true) }
        var stale: [SubjectTargetBase<Output, Failure>] = []
        let result = lock.locked { () -> (completion: Subscribers.Completion<Failure>?, backlogIsEmpty: Bool) in
            let values = replayBuffer.elements
            target.seedReplay(values, completion: completion)
            if completion == nil {
                stale = targetsWillChangeLocked()
                targets.append(target)
            }
            return (completion, values.isEmpty)
        }
        withExtendedLifetime(stale) {}
        if result.completion != nil, result.backlogIsEmpty {
            conduit.release()
        }
        return result
    }

    /// Records a value being dispatched, for later subscribers; the value pushed out is
    /// returned through `evicted` so that it is released after unlocking.
    @inlinable
    package func recordForReplayLocked(_ event: SubjectEvent<Output, Failure>, evicted: inout Output?) {
        guard replayCapacity > 0, case .value(let value) = event else { return }
        replayBuffer.append(value)
        if replayBuffer.count > replayCapacity {
            evicted = replayBuffer.popFirst()
        }
    }

    @inlinable
    package func detach(_ target: SubjectTargetBase<Output, Failure>) {
        let stale = lock.locked { () -> [SubjectTargetBase<Output, Failure>] in
            guard let index = targets.firstIndex(where: { $0 === target }) else { return [] }
            let stale = targetsWillChangeLocked()
            targets.remove(at: index)
            return stale
        }
        withExtendedLifetime(stale) {}
    }

    /// Call with the lock held before changing `targets`: bumps the version, and makes sure the
    /// owner's copy keeps no removed subscriber alive. If a thread is delivering, it is told to
    /// refresh its copy when it finishes; otherwise the copy is dropped here (before the change,
    /// so that the list is changed in place rather than copied), and the next `send` takes a
    /// new one. Returns the old copy, to release after unlocking.
    @inlinable
    package func targetsWillChangeLocked() -> [SubjectTargetBase<Output, Failure>] {
        targetsVersion.wrappingAdd(1, ordering: .releasing)
        // One operation either pokes the delivering thread or, if nobody was delivering, claims
        // `owner` as `listMaintenance` so that no sender starts from the copy meanwhile.
        guard owner.bitwiseOr(Self.queuedBit, ordering: .acquiringAndReleasing).oldValue == 0 else {
            return []
        }
        defer { owner.store(0, ordering: .releasing) }
        let stale = ownerTargets
        ownerTargets = []
        return stale
    }

    /// Called when a subscriber asks for values.
    @inlinable
    package func downstreamDemandArrived() {
        let upstreams = lock.locked { () -> [Subscription] in
            guard !hasDownstreamDemand else { return [] }
            hasDownstreamDemand = true
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
            return requestsUpstreamEagerly || hasDownstreamDemand
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
        var droppedUpstreams: [Subscription] = []
        var evicted: Output?
        let (accepted, owns, targets) = lock.locked {
            () -> (Bool, Bool, [SubjectTargetBase<Output, Failure>]?) in
            guard completion == nil || evenAfterCompletion else { return (false, false, nil) }
            if isCompletion, case .completion(let completion) = event {
                self.completion = completion
                completed.store(true, ordering: .releasing)
                swap(&droppedUpstreams, &upstreamSubscriptions)
            }
            while true {
                let current = owner.load(ordering: .acquiring)
                if current == 0 {
                    guard owner.compareExchange(expected: 0, desired: me, ordering: .acquiring).exchanged else {
                        continue
                    }
                    recordForReplayLocked(event, evicted: &evicted)
                    return (true, true, self.targets)
                }
                if current & ~Self.queuedBit == me {
                    recordForReplayLocked(event, evicted: &evicted)
                    return (true, false, self.targets)
                }
                if owner.compareExchange(expected: current, desired: current | Self.queuedBit,
                                         ordering: .relaxed).exchanged {
                    pending.append(event)
                    return (true, false, nil)
                }
            }
        }
        withExtendedLifetime((droppedUpstreams, evicted)) {}
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
            let next = lock.locked { () -> (SubjectEvent<Output, Failure>, [SubjectTargetBase<Output, Failure>])? in
                guard !pending.isEmpty else {
                    refreshOwnerTargetsLocked(into: &stale)
                    owner.store(0, ordering: .releasing)
                    return nil
                }
                let event = pending.removeFirst()
                recordForReplayLocked(event, evicted: &evicted)
                return (event, self.targets)
            }
            withExtendedLifetime((evicted, stale)) {}
            guard let (event, targets) = next else { return }
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
                let stale = targetsWillChangeLocked()
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

/// What a subject's list holds for one subscriber, type-erased over the subscriber's type so
/// the subject can keep all of them in one array.
///
/// The subject calls `offerSpecialized` rather than a class method: a generic subclass's
/// overrides are reached through the library's unspecialised vtable, while this function value
/// is created where the concrete subscriber type is known, so each delivery runs specialised.
@usableFromInline
package class SubjectTargetBase<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    package let offerSpecialized: (SubjectTargetBase, Output) -> Void

    @inlinable
    package init(offerSpecialized: @escaping (SubjectTargetBase, Output) -> Void) {
        self.offerSpecialized = offerSpecialized
    }

    @inlinable
    package func offerOwed(_ value: Output) {
        fatalError("abstract")
    }

    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>) {
        fatalError("abstract")
    }

    /// For the replay policy: delivers the backlog as far as demand allows, then a completion
    /// that was waiting for it.
    @inlinable
    package func drainReplay() {
        fatalError("abstract")
    }

    /// For the replay policy: the starting backlog, and the completion if the subject has
    /// already completed. Called under the subject's delivery lock.
    @inlinable
    package func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        fatalError("abstract")
    }
}

/// One subscriber in a subject's list: the subscriber itself, held in a constant, beside its
/// subscription (``SubjectConduit``), which keeps the demand and the policy.
///
/// The subscriber is a constant so that a delivery uses it in place: a stored variable is
/// copied for each call, a retain and a release of every reference the subscriber holds (a
/// `map` closure, a `filter` closure, the sink...). While the subscription has unlimited demand
/// and nothing owed or backlogged, `takesEveryValue` is set and a value goes straight to the
/// subscriber with no lock either. This is safe against a cancel from any thread because a
/// cancel only drops the subscription's reference to this object: the subject's list and the
/// delivering thread's copy of it keep the object, and so the subscriber, alive until the
/// delivery in progress has returned.
@usableFromInline
package final class SubjectTarget<Downstream: Subscriber>:
    SubjectTargetBase<Downstream.Input, Downstream.Failure>, @unchecked Sendable
{
    @usableFromInline
    package typealias Output = Downstream.Input
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    package let downstream: Downstream
    @usableFromInline
    package let conduit: SubjectConduit<Downstream>
    /// Set and cleared under the conduit's lock; read without it by the delivering thread.
    @usableFromInline
    package let takesEveryValue = Atomic<Bool>(false)

    @inlinable
    package init(_ downstream: Downstream, conduit: SubjectConduit<Downstream>) {
        self.downstream = downstream
        self.conduit = conduit
        super.init(offerSpecialized: { target, value in
            unsafeDowncast(target, to: SubjectTarget.self).offer(value)
        })
    }

    @inlinable
    package func offer(_ value: Output) {
        // Acquiring: the subscriber's own writes before it asked for `.unlimited` (on whatever
        // thread) are visible before it is called.
        if takesEveryValue.load(ordering: .acquiring) {
            // Unlimited demand stays unlimited whatever the subscriber answers.
            _ = downstream.receive(value)
            return
        }
        conduit.offer(value, to: self)
    }

    @inlinable
    override package func offerOwed(_ value: Output) {
        conduit.offerOwed(value, to: self)
    }

    @inlinable
    override package func finish(_ completion: Subscribers.Completion<Failure>) {
        conduit.finish(completion, to: self)
    }

    @inlinable
    override package func drainReplay() {
        conduit.drainReplay(to: self)
    }

    @inlinable
    override package func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        conduit.seedReplay(values, completion: completion)
    }
}

/// A subject's subscription for one subscriber: its demand and the subject's policy for it.
/// The subscriber itself sits in ``SubjectTarget``, which this subscription holds until it
/// ends; ending it (cancel or completion) drops that reference, so a subscriber that keeps its
/// subscription afterwards keeps nothing else alive. (The one state in which the two refer to
/// each other with nothing else holding either: a `ReplaySubject` subscription whose subject has
/// completed, waiting for demand to deliver its backlog, whose subscriber dropped it without
/// cancelling. It can never be asked for anything again; cancelling ends it.)
@usableFromInline
package final class SubjectConduit<Downstream: Subscriber>:
    Subscription, DescribedByName,
    @unchecked Sendable
{
    @usableFromInline
    package typealias Output = Downstream.Input
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    package let lock = Lock()
    /// The subject's list entry for this subscriber, until this subscription ends.
    @usableFromInline @exclusivity(unchecked)
    package var target: SubjectTarget<Downstream>?
    @usableFromInline @exclusivity(unchecked)
    package var demand = Subscribers.Demand.none
    /// The subject, until this subscription ends; also what keeps the subject alive while the
    /// subscriber holds its subscription, as in Combine.
    @usableFromInline @exclusivity(unchecked)
    package var parent: AnyObject?
    @usableFromInline @exclusivity(unchecked)
    package var delivery: SubjectDelivery<Output, Failure>?
    /// For the current-value policy: the current value is owed on the next demand.
    @usableFromInline @exclusivity(unchecked)
    package var owesCurrentValue: Bool
    /// For the replay policy: values waiting for demand, oldest first.
    @usableFromInline @exclusivity(unchecked)
    package var backlog = RingBuffer<Output>()
    /// For the replay policy: the subject's completion, waiting for the backlog to be delivered.
    /// Kept without its failure type: a `Subscribers.Completion<Failure>?` field would cost
    /// this class's (unspecialised) deinit a metadata look-up on every subscription.
    @usableFromInline @exclusivity(unchecked)
    package var pendingCompletion: ErasedCompletion?
    /// Whether the subscriber has ever asked for values (for the every-value policy).
    @usableFromInline @exclusivity(unchecked)
    package var hasRequested = false
    @usableFromInline
    package let policy: SubjectDemandPolicy<Output>
    @usableFromInline
    package let name: String
    @usableFromInline
    package let entryPoints: SpecializedEntryPoints

    @inlinable
    package init(_ downstream: Downstream, parent: AnyObject, delivery: SubjectDelivery<Output, Failure>,
                  name: String, policy: SubjectDemandPolicy<Output>) {
        self.parent = parent
        self.delivery = delivery
        self.name = name
        self.policy = policy
        if case .currentValue = policy {
            owesCurrentValue = true
        } else {
            owesCurrentValue = false
        }
        entryPoints = SpecializedEntryPoints(
            request: { unsafeDowncast($0, to: SubjectConduit.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: SubjectConduit.self).cancelSpecialized() })
        target = SubjectTarget(downstream, conduit: self)
    }

    /// Whether every value may go straight to the subscriber: the subscription is live, its
    /// demand unlimited, and nothing is owed or backlogged. Call with the lock held after
    /// changing any of those.
    @inlinable
    package func refreshTakesEveryValueLocked() {
        guard let target else { return }
        let takesEveryValue: Bool
        switch policy {
        case .dropWithoutDemand, .everyValueAfterFirstDemand:
            takesEveryValue = demand == .unlimited
        case .currentValue:
            takesEveryValue = demand == .unlimited && !owesCurrentValue
        case .replay:
            takesEveryValue = demand == .unlimited && backlog.isEmpty
        }
        target.takesEveryValue.store(takesEveryValue, ordering: .releasing)
    }

    /// A value for the subscriber, when `target` could not take it straight away.
    @inlinable
    package func offer(_ value: Output, to target: SubjectTarget<Downstream>) {
        var evicted: Output?
        defer { withExtendedLifetime(evicted) {} }
        let delivers = lock.locked { () -> Bool in
            guard self.target != nil else { return false }
            switch policy {
            case .dropWithoutDemand:
                guard demand > 0 else { return false }
            case .currentValue:
                guard demand > 0, !owesCurrentValue else {
                    owesCurrentValue = true
                    return false
                }
            case .everyValueAfterFirstDemand:
                return hasRequested
            case .replay(let capacity):
                // Behind an undelivered backlog, or without demand: join the backlog.
                guard backlog.isEmpty, demand > 0 else {
                    backlog.append(value)
                    if backlog.count > capacity {
                        evicted = backlog.popFirst()
                    }
                    return false
                }
            }
            demand -= 1
            return true
        }
        guard delivers else { return }
        add(target.downstream.receive(value))
    }

    @inlinable
    package func add(_ additional: Subscribers.Demand) {
        guard additional > 0 else { return }
        lock.locked {
            demand += additional
            refreshTakesEveryValueLocked()
        }
    }

    @inlinable
    package func offerOwed(_ value: Output, to target: SubjectTarget<Downstream>) {
        let delivers = lock.locked { () -> Bool in
            guard owesCurrentValue, demand > 0, self.target != nil else { return false }
            owesCurrentValue = false
            demand -= 1
            refreshTakesEveryValueLocked()
            return true
        }
        guard delivers else { return }
        add(target.downstream.receive(value))
    }

    @inlinable
    package func finish(_ completion: Subscribers.Completion<Failure>, to target: SubjectTarget<Downstream>) {
        if case .replay = policy {
            let waits = lock.locked { () -> Bool in
                guard self.target != nil, !backlog.isEmpty else { return false }
                pendingCompletion = ErasedCompletion(completion)
                return true
            }
            if waits { return }
        }
        guard release() != nil else { return }
        target.downstream.receive(completion: completion)
    }

    @inlinable
    package func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        lock.locked {
            for value in values {
                backlog.append(value)
            }
            pendingCompletion = completion.map(ErasedCompletion.init)
            refreshTakesEveryValueLocked()
        }
    }

    @inlinable
    package func drainReplay(to target: SubjectTarget<Downstream>) {
        while true {
            let step = lock.locked { () -> Output?? in
                guard self.target != nil else { return nil }
                if !backlog.isEmpty {
                    guard demand > 0 else { return nil }
                    demand -= 1
                    defer { refreshTakesEveryValueLocked() }
                    return .some(backlog.popFirst())
                }
                guard pendingCompletion != nil else { return nil }
                return .some(nil)
            }
            guard let step else { return }
            if let value = step {
                add(target.downstream.receive(value))
                continue
            }
            let completion = lock.locked { () -> Subscribers.Completion<Failure>? in
                defer { pendingCompletion = nil }
                return pendingCompletion?.completion(failingWith: Failure.self)
            }
            guard let completion, release() != nil else { return }
            target.downstream.receive(completion: completion)
            return
        }
    }

    /// Ends this subscription, returning the subscriber's list entry and the subject's delivery
    /// if it was still live. The caller releases the entry, after unlocking.
    @inlinable
    @discardableResult
    package func release() -> (SubjectTarget<Downstream>, SubjectDelivery<Output, Failure>?)? {
        let (target, delivery, parent, backlog) = lock.locked {
            () -> (SubjectTarget<Downstream>?, SubjectDelivery<Output, Failure>?, AnyObject?, RingBuffer<Output>) in
            defer {
                self.target = nil
                self.delivery = nil
                self.parent = nil
                self.backlog = RingBuffer()
            }
            self.target?.takesEveryValue.store(false, ordering: .releasing)
            return (self.target, self.delivery, self.parent, self.backlog)
        }
        withExtendedLifetime((parent, backlog)) {}
        guard let target else { return nil }
        return (target, delivery)
    }

    @inlinable
    package func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    package func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    package func requestSpecialized(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (delivery, listed, owed, replays) = lock.locked {
            () -> (SubjectDelivery<Output, Failure>?, SubjectTarget<Downstream>?, Bool, Bool) in
            guard let target else { return (nil, nil, false, false) }
            self.demand += demand
            hasRequested = true
            refreshTakesEveryValueLocked()
            return (self.delivery, target, owesCurrentValue, !backlog.isEmpty || pendingCompletion != nil)
        }
        guard let delivery, let target = listed else { return }
        delivery.downstreamDemandArrived()
        if owed, case .currentValue(let current) = policy, let value = current() {
            delivery.send(owed: value, to: target)
        }
        if replays {
            delivery.send(replayTo: target)
        }
    }

    @inlinable
    package func cancelSpecialized() {
        guard let (target, delivery) = release() else { return }
        delivery?.detach(target)
    }

    @usableFromInline
    package var description: String { name }

    @usableFromInline
    package var customMirror: Mirror {
        let (parent, target, demand) = lock.locked { (self.parent, self.target, self.demand) }
        let downstream = target?.downstream
        if case .everyValueAfterFirstDemand = policy {
            // Combine's `ObservableObjectPublisher` subscription shows only its downstream.
            return Mirror(self, children: ["downstream": downstream as Any])
        }
        return Mirror(self, children: [
            "parent": parent as Any,
            "downstream": downstream as Any,
            "demand": demand,
            "subject": parent as Any,
        ])
    }
}
