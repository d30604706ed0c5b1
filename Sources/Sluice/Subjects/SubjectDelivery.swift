/// What a subject's subscribers are sent, in order.
@usableFromInline
internal enum SubjectEvent<Output, Failure: Error> {
    case value(Output)
    case completion(Subscribers.Completion<Failure>)
    /// A value owed to one subscriber only: `CurrentValueSubject`'s current value on first
    /// demand, delivered in line with what other threads are sending.
    case owed(Output, to: SubjectConduitBase<Output, Failure>)
    /// A replaying subscription's backlog is to be delivered as far as its demand allows
    /// (`ReplaySubject`), in line with what other threads are sending.
    case replay(to: SubjectConduitBase<Output, Failure>)
}

/// How a subject's subscription treats demand.
@usableFromInline
internal enum SubjectDemandPolicy<Output> {
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

/// The machinery every subject shares: the ordered list of subscriptions, the completion, the
/// upstream subscriptions handed to `send(subscription:)`, and the gate that serialises delivery.
///
/// Delivery is serial per subject: the thread that finds nobody delivering becomes the owner,
/// delivers, then drains what other threads queued meanwhile (so `send` never blocks on a slow
/// subscriber of another thread, and every subscriber sees one order). A `send` made on the
/// owner thread itself, from inside a subscriber, is delivered at once, nested, as Combine does.
/// No lock is held while a subscriber runs.
@usableFromInline
internal final class SubjectDelivery<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var conduits: [SubjectConduitBase<Output, Failure>] = []
    @usableFromInline @exclusivity(unchecked)
    internal var completion: Subscribers.Completion<Failure>?
    @usableFromInline @exclusivity(unchecked)
    internal var upstreamSubscriptions: [Subscription] = []
    /// Whether upstream subscriptions are asked for `.unlimited` as soon as they arrive
    /// (`CurrentValueSubject`) or only once some subscriber has asked for something.
    @usableFromInline
    internal let requestsUpstreamEagerly: Bool
    @usableFromInline @exclusivity(unchecked)
    internal var hasDownstreamDemand = false
    @usableFromInline @exclusivity(unchecked)
    internal var owner: ThreadIdentity?
    @usableFromInline @exclusivity(unchecked)
    internal var pending: [SubjectEvent<Output, Failure>] = []
    /// How many of the last values are kept for subscribers that arrive later (0: none).
    @usableFromInline
    internal let replayCapacity: Int
    /// The last `replayCapacity` values, recorded when each is dispatched, so that a subscriber
    /// attached at any moment gets every value exactly once: in its backlog if the value was
    /// dispatched before it attached, live otherwise.
    @usableFromInline @exclusivity(unchecked)
    internal var replayBuffer = RingBuffer<Output>()

    @inlinable
    internal init(requestsUpstreamEagerly: Bool, replayCapacity: Int = 0) {
        self.requestsUpstreamEagerly = requestsUpstreamEagerly
        self.replayCapacity = replayCapacity
    }

    // MARK: Subscribing

    /// Adds a conduit, or returns the completion if the subject has already completed.
    @inlinable
    internal func attach(_ conduit: SubjectConduitBase<Output, Failure>) -> Subscribers.Completion<Failure>? {
        lock.locked {
            if let completion { return completion }
            conduits.append(conduit)
            return nil
        }
    }

    /// Adds a replaying conduit and hands it the last values as its backlog, in the same
    /// critical section, so that no value is missed or delivered twice. After completion the
    /// conduit is not attached but still gets the backlog and the completion. Returns the
    /// completion, if any, and whether the backlog is empty.
    @inlinable
    internal func attachReplaying(_ conduit: SubjectConduitBase<Output, Failure>)
        -> (completion: Subscribers.Completion<Failure>?, backlogIsEmpty: Bool)
    {
        lock.locked {
            let values = replayBuffer.elements
            conduit.seedReplay(values, completion: completion)
            if completion == nil {
                conduits.append(conduit)
            }
            return (completion, values.isEmpty)
        }
    }

    /// Records a value being dispatched, for later subscribers; the value pushed out is
    /// returned through `evicted` so that it is released after unlocking.
    @inlinable
    internal func recordForReplayLocked(_ event: SubjectEvent<Output, Failure>, evicted: inout Output?) {
        guard replayCapacity > 0, case .value(let value) = event else { return }
        replayBuffer.append(value)
        if replayBuffer.count > replayCapacity {
            evicted = replayBuffer.popFirst()
        }
    }

    @inlinable
    internal func detach(_ conduit: SubjectConduitBase<Output, Failure>) {
        lock.locked {
            if let index = conduits.firstIndex(where: { $0 === conduit }) {
                conduits.remove(at: index)
            }
        }
    }

    /// Called when a subscriber asks for values.
    @inlinable
    internal func downstreamDemandArrived() {
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
    internal func add(upstream subscription: Subscription) {
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
    internal func cancelUpstreams() {
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
    internal func send(_ value: Output) -> Bool {
        enqueueOrDeliver(.value(value), isCompletion: false)
    }

    /// Records the completion and delivers it after everything sent before it.
    /// Returns `false` if the subject had already completed.
    @inlinable
    @discardableResult
    internal func send(completion: Subscribers.Completion<Failure>) -> Bool {
        enqueueOrDeliver(.completion(completion), isCompletion: true)
    }

    /// Delivers a value owed to one conduit, in line with other sends.
    @inlinable
    internal func send(owed value: Output, to conduit: SubjectConduitBase<Output, Failure>) {
        enqueueOrDeliver(.owed(value, to: conduit), isCompletion: false, evenAfterCompletion: true)
    }

    /// Delivers a replaying conduit's backlog as far as its demand allows, in line with other
    /// sends (also after completion: the backlog outlives it).
    @inlinable
    internal func send(replayTo conduit: SubjectConduitBase<Output, Failure>) {
        enqueueOrDeliver(.replay(to: conduit), isCompletion: false, evenAfterCompletion: true)
    }

    /// The delivery gate. Under one lock: refuse after completion, queue the event if another
    /// thread is delivering, or become the delivering thread (staying one, nested, if this thread
    /// already is). The delivering thread then drains what others queued meanwhile.
    @inlinable
    @discardableResult
    internal func enqueueOrDeliver(_ event: SubjectEvent<Output, Failure>, isCompletion: Bool,
                                   evenAfterCompletion: Bool = false) -> Bool {
        let me = ThreadIdentity.current
        var droppedUpstreams: [Subscription] = []
        var evicted: Output?
        let (accepted, nested, conduits) = lock.locked {
            () -> (Bool, Bool, [SubjectConduitBase<Output, Failure>]?) in
            guard completion == nil || evenAfterCompletion else { return (false, false, nil) }
            if isCompletion, case .completion(let completion) = event {
                self.completion = completion
                swap(&droppedUpstreams, &upstreamSubscriptions)
            }
            if let owner {
                if owner != me {
                    pending.append(event)
                    return (true, false, nil)
                }
                recordForReplayLocked(event, evicted: &evicted)
                return (true, true, self.conduits)
            }
            owner = me
            recordForReplayLocked(event, evicted: &evicted)
            return (true, false, self.conduits)
        }
        withExtendedLifetime((droppedUpstreams, evicted)) {}
        guard let conduits else { return accepted }
        dispatch(event, to: conduits)
        if nested { return accepted }
        while true {
            var evictedLater: Output?
            let next = lock.locked { () -> (SubjectEvent<Output, Failure>, [SubjectConduitBase<Output, Failure>])? in
                if pending.isEmpty {
                    owner = nil
                    return nil
                }
                let event = pending.removeFirst()
                recordForReplayLocked(event, evicted: &evictedLater)
                return (event, self.conduits)
            }
            withExtendedLifetime(evictedLater) {}
            guard let (event, conduits) = next else { return accepted }
            dispatch(event, to: conduits)
        }
    }

    @inlinable
    internal func dispatch(_ event: SubjectEvent<Output, Failure>,
                           to conduits: [SubjectConduitBase<Output, Failure>]) {
        switch event {
        case .value(let value):
            // `conduits` keeps every element alive for the loop, so each is used at +0 rather
            // than retained and released per delivery (two atomic operations per subscriber).
            conduits.withUnsafeBufferPointer { buffer in
                for index in buffer.indices {
                    Unmanaged.passUnretained(buffer[index])._withUnsafeGuaranteedRef { conduit in
                        conduit.offerSpecialized(conduit, value)
                    }
                }
            }
        case .completion(let completion):
            let detached = lock.locked { () -> [SubjectConduitBase<Output, Failure>] in
                defer { self.conduits = [] }
                return self.conduits
            }
            withExtendedLifetime(detached) {}
            for conduit in conduits {
                conduit.finish(completion)
            }
        case .owed(let value, let conduit):
            conduit.offerOwed(value)
        case .replay(let conduit):
            conduit.drainReplay()
        }
    }
}

/// A subject's subscription for one subscriber, type-erased over the subscriber's type so the
/// subject can keep all of them in one array.
///
/// The subject calls `offerSpecialized` rather than a class method: a generic subclass's
/// overrides are reached through the library's unspecialised vtable, while this function value
/// is created where the concrete subscriber type is known, so each delivery runs specialised.
@usableFromInline
internal class SubjectConduitBase<Output, Failure: Error>: @unchecked Sendable {
    @usableFromInline
    internal let offerSpecialized: (SubjectConduitBase, Output) -> Void

    @inlinable
    internal init(offerSpecialized: @escaping (SubjectConduitBase, Output) -> Void) {
        self.offerSpecialized = offerSpecialized
    }

    @inlinable
    internal func offer(_ value: Output) {
        fatalError("abstract")
    }

    @inlinable
    internal func offerOwed(_ value: Output) {
        fatalError("abstract")
    }

    @inlinable
    internal func finish(_ completion: Subscribers.Completion<Failure>) {
        fatalError("abstract")
    }

    /// For the replay policy: delivers the backlog as far as demand allows, then a completion
    /// that was waiting for it.
    @inlinable
    internal func drainReplay() {
        fatalError("abstract")
    }

    /// For the replay policy: the starting backlog, and the completion if the subject has
    /// already completed. Called under the subject's delivery lock.
    @inlinable
    internal func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        fatalError("abstract")
    }
}

@usableFromInline
internal final class SubjectConduit<Downstream: Subscriber>:
    SubjectConduitBase<Downstream.Input, Downstream.Failure>, Subscription,
    CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible, @unchecked Sendable
{
    @usableFromInline
    internal typealias Output = Downstream.Input
    @usableFromInline
    internal typealias Failure = Downstream.Failure

    @usableFromInline
    internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked)
    internal var downstream: Downstream?
    @usableFromInline @exclusivity(unchecked)
    internal var demand = Subscribers.Demand.none
    /// The subject, until this subscription ends; also what keeps the subject alive while the
    /// subscriber holds its subscription, as in Combine.
    @usableFromInline @exclusivity(unchecked)
    internal var parent: AnyObject?
    @usableFromInline @exclusivity(unchecked)
    internal var delivery: SubjectDelivery<Output, Failure>?
    /// For the current-value policy: the current value is owed on the next demand.
    @usableFromInline @exclusivity(unchecked)
    internal var owesCurrentValue: Bool
    /// For the replay policy: values waiting for demand, oldest first.
    @usableFromInline @exclusivity(unchecked)
    internal var backlog = RingBuffer<Output>()
    /// For the replay policy: the subject's completion, waiting for the backlog to be delivered.
    @usableFromInline @exclusivity(unchecked)
    internal var pendingCompletion: Subscribers.Completion<Failure>?
    @usableFromInline
    internal let policy: SubjectDemandPolicy<Output>
    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let entryPoints: SpecializedEntryPoints

    @inlinable
    internal init(_ downstream: Downstream, parent: AnyObject, delivery: SubjectDelivery<Output, Failure>,
                  name: String, policy: SubjectDemandPolicy<Output>) {
        self.downstream = downstream
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
        super.init(offerSpecialized: { conduit, value in
            unsafeDowncast(conduit, to: SubjectConduit.self).offer(value)
        })
    }

    @inlinable
    override internal func offer(_ value: Output) {
        var evicted: Output?
        defer { withExtendedLifetime(evicted) {} }
        guard let downstream = lock.locked({ () -> Downstream? in
            guard let downstream else { return nil }
            switch policy {
            case .dropWithoutDemand:
                guard demand > 0 else { return nil }
            case .currentValue:
                guard demand > 0, !owesCurrentValue else {
                    owesCurrentValue = true
                    return nil
                }
            case .everyValueAfterFirstDemand:
                guard hasRequested else { return nil }
                return downstream
            case .replay(let capacity):
                // Behind an undelivered backlog, or without demand: join the backlog.
                guard backlog.isEmpty, demand > 0 else {
                    backlog.append(value)
                    if backlog.count > capacity {
                        evicted = backlog.popFirst()
                    }
                    return nil
                }
            }
            demand -= 1
            return downstream
        }) else { return }
        let additional = downstream.receive(value)
        if additional > 0 {
            lock.locked { demand += additional }
        }
    }

    /// Whether the subscriber has ever asked for values (for the every-value policy).
    @usableFromInline @exclusivity(unchecked)
    internal var hasRequested = false

    @inlinable
    override internal func offerOwed(_ value: Output) {
        guard let downstream = lock.locked({ () -> Downstream? in
            guard owesCurrentValue, demand > 0, let downstream else { return nil }
            owesCurrentValue = false
            demand -= 1
            return downstream
        }) else { return }
        let additional = downstream.receive(value)
        if additional > 0 {
            lock.locked { demand += additional }
        }
    }

    @inlinable
    override internal func finish(_ completion: Subscribers.Completion<Failure>) {
        if case .replay = policy {
            let waits = lock.locked { () -> Bool in
                guard downstream != nil, !backlog.isEmpty else { return false }
                pendingCompletion = completion
                return true
            }
            if waits { return }
        }
        guard let (downstream, _) = release() else { return }
        downstream.receive(completion: completion)
    }

    @inlinable
    override internal func seedReplay(_ values: [Output], completion: Subscribers.Completion<Failure>?) {
        lock.locked {
            for value in values {
                backlog.append(value)
            }
            pendingCompletion = completion
        }
    }

    @inlinable
    override internal func drainReplay() {
        while true {
            let step = lock.locked { () -> (Downstream, Output?)? in
                guard let downstream else { return nil }
                if !backlog.isEmpty {
                    guard demand > 0 else { return nil }
                    demand -= 1
                    return (downstream, backlog.popFirst())
                }
                guard pendingCompletion != nil else { return nil }
                return (downstream, nil)
            }
            guard let (downstream, value) = step else { return }
            if let value {
                let additional = downstream.receive(value)
                if additional > 0 {
                    lock.locked { demand += additional }
                }
                continue
            }
            let completion = lock.locked { () -> Subscribers.Completion<Failure>? in
                defer { pendingCompletion = nil }
                return pendingCompletion
            }
            guard let completion, let (target, _) = release() else { return }
            target.receive(completion: completion)
            return
        }
    }

    /// Ends this subscription, returning the subscriber and the subject's delivery if it was
    /// still live.
    @inlinable
    internal func release() -> (Downstream, SubjectDelivery<Output, Failure>?)? {
        let (downstream, delivery, parent, backlog) = lock.locked {
            () -> (Downstream?, SubjectDelivery<Output, Failure>?, AnyObject?, RingBuffer<Output>) in
            defer {
                self.downstream = nil
                self.delivery = nil
                self.parent = nil
                self.backlog = RingBuffer()
            }
            return (self.downstream, self.delivery, self.parent, self.backlog)
        }
        withExtendedLifetime((parent, backlog)) {}
        guard let downstream else { return nil }
        return (downstream, delivery)
    }

    @inlinable
    internal func request(_ demand: Subscribers.Demand) {
        entryPoints.request(self, demand)
    }

    @inlinable
    internal func cancel() {
        entryPoints.cancel(self)
    }

    @inlinable
    internal func requestSpecialized(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (delivery, owed, replays) = lock.locked { () -> (SubjectDelivery<Output, Failure>?, Bool, Bool) in
            guard downstream != nil else { return (nil, false, false) }
            self.demand += demand
            hasRequested = true
            return (self.delivery, owesCurrentValue, !backlog.isEmpty || pendingCompletion != nil)
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
    internal func cancelSpecialized() {
        guard let (_, delivery) = release() else { return }
        delivery?.detach(self)
    }

    @usableFromInline
    internal var description: String { name }

    @usableFromInline
    internal var customMirror: Mirror {
        let (parent, downstream, demand) = lock.locked { (self.parent, self.downstream, self.demand) }
        return Mirror(self, children: [
            "parent": parent as Any,
            "downstream": downstream as Any,
            "demand": demand,
            "subject": parent as Any,
        ])
    }

    @usableFromInline
    internal var playgroundDescription: Any { description }
}
