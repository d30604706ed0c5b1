import Observation
import Sluice

extension Publishers {
    /// A publisher of a value read from `@Observable` state (Swift's Observation framework):
    /// the current value when subscribed, then a new one after each change of what the read
    /// closure read (beyond Combine, whose `@Published` this is the Observation counterpart of).
    ///
    /// ```swift
    /// Publishers.Observed(on: DispatchQueue.main) { model.title }
    ///     .sink { title in label.text = title }
    /// ```
    ///
    /// When and where values arrive:
    ///
    /// - The first value is read on the subscribing thread, during `subscribe`, and delivered
    ///   there as soon as there is demand (a `sink` asks at once, so it has the value before
    ///   `sink` returns).
    /// - A change is announced by Observation on the mutating thread *before* the new value is
    ///   stored (in its `willSet`). So the publisher does not read there: it schedules a read on
    ///   `scheduler`, and the value it sends is read there, on the scheduler's thread, after the
    ///   mutating call. Nothing runs inside the mutating call but that scheduling.
    /// - Changes made before the scheduled read runs are sent as one value, the latest. A value
    ///   the downstream has no demand for waits, and is replaced by newer ones, until demand
    ///   comes; it is then delivered on the thread that requested.
    /// - The closure is run twice per value: once to learn what it reads (and to be told of its
    ///   next change), and again once that observation is in place, so that a change made between
    ///   the two is never missed. Keep it free of side effects.
    ///
    /// `scheduler` must run actions later, not inside `schedule` (a queue, a run loop, a
    /// `TestScheduler`; not `ImmediateScheduler`), or the read would run inside the mutating
    /// call, before the new value is stored. A model changed from several threads must make its
    /// reads wait for a change in progress (hold the lock its getters take across
    /// `withMutation(keyPath:_:)`); otherwise a read scheduled by a change could run before that
    /// change is stored.
    ///
    /// It never completes. Cancelling stops delivery at once; Observation's one-shot observer of
    /// the last read stays registered with the model until its next change, which then does
    /// nothing.
    public struct Observed<Output, Context: Scheduler>: Publisher {
        public typealias Failure = Never

        /// Where values read after a change are read and sent.
        public let scheduler: Context
        /// Reads the value from `@Observable` state; what it reads is observed.
        public let read: () -> Output

        /// Creates a publisher of what `read` returns, read again on `scheduler` after each
        /// change of the observable state it reads.
        public init(on scheduler: Context, _ read: @escaping () -> Output) {
            self.scheduler = scheduler
            self.read = read
        }

        public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Never {
            ObservedSubscription(downstream: subscriber, read: read, scheduler: scheduler).start()
        }
    }
}

/// The subscription of ``Publishers/Observed``: a value waiting for demand, and Sluice's
/// ``DownstreamGate`` (through `package` access) for delivering it, since a request on one
/// thread and a read on the scheduler may both deliver.
internal final class ObservedSubscription<Downstream: Subscriber, Context: Scheduler>:
    ObservationChangeTarget, Subscription, CustomStringConvertible, @unchecked Sendable
{
    typealias Output = Downstream.Input
    typealias Ticket = DownstreamGate<Downstream, Void>.Ticket

    private let gate: DownstreamGate<Downstream, Void>
    private let read: () -> Output
    private let scheduler: Context

    // Guarded by `gate.lock`.
    /// The latest value read and not yet delivered.
    private var pending: Output?
    private var demand = Subscribers.Demand.none
    private var ended = false

    init(downstream: Downstream, read: @escaping () -> Output, scheduler: Context) {
        gate = DownstreamGate(downstream: downstream)
        self.read = read
        self.scheduler = scheduler
        super.init()
    }

    func start() {
        let value = readObserving()
        let replaced = gate.lock.locked { () -> Output? in
            // A read scheduled by a change meanwhile may already have stored a newer value.
            guard pending == nil else { return value }
            pending = value
            return nil
        }
        withExtendedLifetime(replaced) {}
        gate.handOver(self)
    }

    /// Runs `read` observing what it reads, then again once the observer is installed (which
    /// Observation does after the first run returns): the second value is the one to send, so
    /// that a change made in between is not lost.
    private func readObserving() -> Output {
        // Observation keeps the closure until the next change: it holds this subscription
        // weakly, through its non-generic base (a capture of the generic class would capture
        // its type's metadata, which is not `Sendable`).
        let target: ObservationChangeTarget = self
        _ = withObservationTracking(read, onChange: { [weak target] in target?.changed() })
        return read()
    }

    /// Observation's `onChange`: on the mutating thread, before the new value is stored.
    override func changed() {
        guard !gate.lock.locked({ ended }) else { return }
        scheduler.schedule { [weak self] in self?.refresh() }
    }

    /// The scheduled read after a change.
    private func refresh() {
        guard !gate.lock.locked({ ended }) else { return }
        let value = readObserving()
        var replaced: Output? = value
        gate.lock.locked {
            guard !ended else { return }
            swap(&pending, &replaced)
        }
        withExtendedLifetime(replaced) {}
        deliverPending()
    }

    /// Delivers the waiting value if there is demand for it; again if the downstream asked for
    /// more meanwhile and a newer value is waiting.
    private func deliverPending() {
        var more = true
        while more {
            more = false
            let ticket = gate.lock.locked { () -> Ticket in
                guard !ended, demand > 0, let value = pending.take() else { return .none }
                demand -= 1
                return gate.submitLocked(.value(value, ()))
            }
            guard case .deliver = ticket else { return }
            gate.run(ticket) { _, returned, _ in
                guard returned > 0 else { return }
                more = gate.lock.locked { () -> Bool in
                    guard !ended else { return false }
                    demand += returned
                    return pending != nil
                } || more
            }
        }
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let live = gate.lock.locked { () -> Bool in
            guard !ended else { return false }
            self.demand += demand
            return pending != nil
        }
        if live {
            deliverPending()
        }
    }

    func cancel() {
        let released = gate.lock.locked { () -> (DownstreamGate<Downstream, Void>.Detached, Output?)? in
            guard !ended else { return nil }
            ended = true
            return (gate.terminateLocked(), pending.take())
        }
        withExtendedLifetime(released) {}
    }

    var description: String { "Observed" }
}

/// What Observation's `onChange` closure calls: the non-generic face of ``ObservedSubscription``.
internal class ObservationChangeTarget: @unchecked Sendable {
    /// Something the closure read is about to change.
    func changed() {}
}
