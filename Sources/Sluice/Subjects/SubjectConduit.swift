import Synchronization

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

    /// Lets the subscriber go, once its subscription has ended and no delivery can be using it.
    @inlinable
    package func releaseSubscriber() {
        fatalError("abstract")
    }
}

/// How ``SubjectSubscription`` holds its subscriber: ``BorrowedSubscriber``. A protocol so that
/// the subscription is generic over the holder itself, whose metadata its (unspecialised)
/// deinit then has at hand; a field of type `BorrowedSubscriber<Downstream>?` made every deinit
/// look that type's metadata up, a tenth of subscribing to a subject and cancelling.
///
/// The calls are the holder's own methods: reading the subscriber through a protocol's getter
/// copied it for each call (a retain and a release of every reference it holds).
@usableFromInline
package protocol SubjectSubscriberSlot: ~Copyable {
    associatedtype Downstream: Subscriber
    init(_ downstream: Downstream)
    /// A copy of the subscriber, for the mirror.
    var downstream: Downstream { get }
    func receive(_ input: Downstream.Input) -> Subscribers.Demand
    func receive(completion: Subscribers.Completion<Downstream.Failure>)
}

/// A subscriber held so that it can only be borrowed: a call reads it in place, where a stored
/// variable of a copyable type would be copied for each call (a retain and a release of every
/// reference the subscriber holds: a `map` closure, a `filter` closure, the sink...).
@usableFromInline
package struct BorrowedSubscriber<Downstream: Subscriber>: SubjectSubscriberSlot, ~Copyable {
    @usableFromInline
    package let downstream: Downstream

    @inlinable
    package init(_ downstream: Downstream) {
        self.downstream = downstream
    }

    @inlinable
    @inline(__always)
    package func receive(_ input: Downstream.Input) -> Subscribers.Demand {
        downstream.receive(input)
    }

    @inlinable
    @inline(__always)
    package func receive(completion: Subscribers.Completion<Downstream.Failure>) {
        downstream.receive(completion: completion)
    }
}

/// A subject's subscription for a subscriber of type `Downstream`.
@usableFromInline
package typealias SubjectConduit<Downstream: Subscriber> = SubjectSubscription<BorrowedSubscriber<Downstream>>

/// A subject's subscription for one subscriber, which is also the subject's list entry for it:
/// the subscriber, its demand and the subject's policy for it.
///
/// While the subscription has unlimited demand and nothing owed or backlogged,
/// `takesEveryValue` is set and a value goes straight to the subscriber, with no lock. The
/// subscriber is called in place (``BorrowedSubscriber``), and only the subject's delivering
/// thread calls it. So ending the subscription (cancel or completion) does not let the
/// subscriber go by itself: the subject lets it go once no delivery can be using it, at once if
/// nobody is delivering, otherwise when the delivering thread finishes
/// (``SubjectDelivery/releasesAtOnceLocked(_:)``). After that a subscriber that keeps its
/// subscription keeps nothing else alive. (The one state in which the two refer to each other
/// with nothing else holding either: a `ReplaySubject` subscription whose subject has completed,
/// waiting for demand to deliver its backlog, whose subscriber dropped it without cancelling.
/// It can never be asked for anything again; cancelling ends it.)
///
/// One object rather than a subscription and a list entry beside it: an allocation and its
/// deinit fewer per subscription, and no reference between the two to take and drop.
@usableFromInline
package final class SubjectSubscription<Slot: SubjectSubscriberSlot & ~Copyable>:
    SubjectTargetBase<Slot.Downstream.Input, Slot.Downstream.Failure>, Subscription, DescribedByName,
    @unchecked Sendable
{
    @usableFromInline
    package typealias Downstream = Slot.Downstream
    @usableFromInline
    package typealias Output = Downstream.Input
    @usableFromInline
    package typealias Failure = Downstream.Failure

    @usableFromInline
    package let lock = Lock()
    /// The subscriber, until the subject lets it go; written only when no delivery can be
    /// reading it (see the type's description), and after `isLive` is cleared, which is what
    /// the mirror looks at before reading it.
    @usableFromInline @exclusivity(unchecked)
    package var subscriber: Slot?
    /// Whether the subscription is live: not cancelled, and not completed.
    @usableFromInline @exclusivity(unchecked)
    package var isLive = true
    /// Set and cleared under the lock; read without it by the delivering thread.
    @usableFromInline
    package let takesEveryValue = Atomic<Bool>(false)
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
        subscriber = Slot(downstream)
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
            request: { unsafeDowncast($0, to: SubjectSubscription.self).requestSpecialized($1) },
            cancel: { unsafeDowncast($0, to: SubjectSubscription.self).cancelSpecialized() })
        super.init(offerSpecialized: { target, value in
            unsafeDowncast(target, to: SubjectSubscription.self).offer(value)
        })
    }

    /// Calls the subscriber in place. Only the subject's delivering thread calls it, and the
    /// subject keeps the subscriber until no delivery can be using it.
    @inlinable
    @inline(__always)
    package func receiveInPlace(_ value: Output) -> Subscribers.Demand {
        switch subscriber {
        case .some(let held): return held.receive(value)
        case .none: return .none
        }
    }

    @inlinable
    package func receiveInPlace(completion: Subscribers.Completion<Failure>) {
        switch subscriber {
        case .some(let held): held.receive(completion: completion)
        case .none: break
        }
    }

    /// Whether every value may go straight to the subscriber: the subscription is live, its
    /// demand unlimited, and nothing is owed or backlogged. Call with the lock held after
    /// changing any of those.
    @inlinable
    package func refreshTakesEveryValueLocked() {
        guard isLive else { return }
        let takesEveryValue: Bool
        switch policy {
        case .dropWithoutDemand, .everyValueAfterFirstDemand:
            takesEveryValue = demand == .unlimited
        case .currentValue:
            takesEveryValue = demand == .unlimited && !owesCurrentValue
        case .replay:
            takesEveryValue = demand == .unlimited && backlog.isEmpty
        }
        self.takesEveryValue.store(takesEveryValue, ordering: .releasing)
    }

    @inlinable
    @inline(__always)
    package func offer(_ value: Output) {
        // Acquiring: the subscriber's own writes before it asked for `.unlimited` (on whatever
        // thread) are visible before it is called.
        if takesEveryValue.load(ordering: .acquiring) {
            // Unlimited demand stays unlimited whatever the subscriber answers.
            _ = receiveInPlace(value)
            return
        }
        offerLimited(value)
    }

    /// A value for the subscriber, when it could not take it straight away. Out of line: the
    /// per-value `offer` stays small enough to be inlined into the subject's delivery loop.
    @inlinable
    @inline(never)
    package func offerLimited(_ value: Output) {
        var evicted: Output?
        defer { withExtendedLifetime(evicted) {} }
        let delivers = lock.locked { () -> Bool in
            guard isLive else { return false }
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
        add(receiveInPlace(value))
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
    override package func offerOwed(_ value: Output) {
        let delivers = lock.locked { () -> Bool in
            guard owesCurrentValue, demand > 0, isLive else { return false }
            owesCurrentValue = false
            demand -= 1
            refreshTakesEveryValueLocked()
            return true
        }
        guard delivers else { return }
        add(receiveInPlace(value))
    }

    @inlinable
    override package func finish(_ completion: Subscribers.Completion<Failure>) {
        if case .replay = policy {
            let waits = lock.locked { () -> Bool in
                guard isLive, !backlog.isEmpty else { return false }
                pendingCompletion = ErasedCompletion(completion)
                return true
            }
            if waits { return }
        }
        finishNow(completion)
    }

    /// Ends the subscription with `completion`, then has the subject let the subscriber go.
    /// Only the delivering thread calls it.
    @inlinable
    package func finishNow(_ completion: Subscribers.Completion<Failure>) {
        guard let delivery = release() else { return }
        receiveInPlace(completion: completion)
        if delivery.releasesAtOnce(self) {
            releaseSubscriber()
        }
    }

    @inlinable
    override package func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        lock.locked {
            for value in values {
                backlog.append(value)
            }
            pendingCompletion = completion.map(ErasedCompletion.init)
            refreshTakesEveryValueLocked()
        }
    }

    @inlinable
    override package func drainReplay() {
        while true {
            let step = lock.locked { () -> Output?? in
                guard isLive else { return nil }
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
                add(receiveInPlace(value))
                continue
            }
            let completion = lock.locked { () -> Subscribers.Completion<Failure>? in
                defer { pendingCompletion = nil }
                return pendingCompletion?.completion(failingWith: Failure.self)
            }
            guard let completion else { return }
            finishNow(completion)
            return
        }
    }

    @inlinable
    override package func releaseSubscriber() {
        // No lock: no delivery can be using the subscriber any more, and the mirror reads it
        // only while `isLive`, cleared (under the lock) before this runs.
        _ = subscriber.take()
    }

    /// Ends this subscription, returning the subject's delivery if it was still live. The
    /// subscriber stays until the subject lets it go.
    @inlinable
    @discardableResult
    package func release() -> SubjectDelivery<Output, Failure>? {
        var parent: AnyObject?
        var backlog = RingBuffer<Output>()
        let delivery = lock.locked { () -> SubjectDelivery<Output, Failure>? in
            guard isLive else { return nil }
            isLive = false
            takesEveryValue.store(false, ordering: .releasing)
            swap(&parent, &self.parent)
            swap(&backlog, &self.backlog)
            return self.delivery.take()
        }
        withExtendedLifetime((parent, backlog)) {}
        return delivery
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
        var owed = false
        var replays = false
        let delivery = lock.locked { () -> SubjectDelivery<Output, Failure>? in
            guard isLive else { return nil }
            self.demand += demand
            hasRequested = true
            refreshTakesEveryValueLocked()
            owed = owesCurrentValue
            replays = !backlog.isEmpty || pendingCompletion != nil
            return self.delivery
        }
        guard let delivery else { return }
        delivery.downstreamDemandArrived()
        if owed, case .currentValue(let current) = policy, let value = current() {
            delivery.send(owed: value, to: self)
        }
        if replays {
            delivery.send(replayTo: self)
        }
    }

    @inlinable
    package func cancelSpecialized() {
        guard let delivery = release() else { return }
        if delivery.detach(self) {
            releaseSubscriber()
        }
    }

    @usableFromInline
    package var description: String { name }

    @usableFromInline
    package var customMirror: Mirror {
        var downstream: Downstream?
        let (parent, demand) = lock.locked { () -> (AnyObject?, Subscribers.Demand) in
            if isLive {
                switch subscriber {
                case .some(let held): downstream = held.downstream
                case .none: break
                }
            }
            return (self.parent, self.demand)
        }
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
