import Sluice
extension AsyncSequence where Self: Sendable {
    /// A publisher that publishes the elements of this asynchronous sequence (beyond Combine).
    ///
    /// Each subscription iterates the sequence in its own task, started on the first request,
    /// and pulls an element only while the subscriber has outstanding demand, so a slow
    /// subscriber slows the iteration instead of filling a buffer. The sequence ending finishes
    /// the publisher; an error it throws fails it (its `Failure` type is the sequence's, so an
    /// `AsyncStream` gives a publisher that cannot fail). Cancelling the subscription cancels
    /// the iterating task.
    public var publisher: AsyncSequencePublisher<Self> {
        AsyncSequencePublisher(self)
    }
}

/// A publisher that iterates an asynchronous sequence for each subscriber (beyond Combine).
///
/// Made by `AsyncSequence.publisher`. The iteration runs in an unstructured task per
/// subscription, off any actor, so values reach the subscriber on the task's thread; use
/// `receive(on:)` to deliver them elsewhere.
public struct AsyncSequencePublisher<Base: AsyncSequence & Sendable>: Publisher {
    public typealias Output = Base.Element
    public typealias Failure = Base.Failure

    /// The sequence each subscription iterates.
    public let base: Base

    /// Creates a publisher of the elements of `base`.
    public init(_ base: Base) {
        self.base = base
    }

    /// Hands the subscriber a subscription that starts iterating on its first request.
    public func receive<S: Subscriber>(subscriber: S) where S.Input == Output, S.Failure == Failure {
        subscriber.receive(subscription: AsyncSequenceSubscription(base: base, downstream: subscriber))
    }
}

/// One subscriber's iteration of an asynchronous sequence.
///
/// Only the iterating task calls the downstream, so its signals are serial. The task waits
/// for demand before each `next()`; cancelling cancels it and wakes it if it is waiting.
internal final class AsyncSequenceSubscription<Base: AsyncSequence & Sendable, Downstream: Subscriber>:
    Subscription, CustomStringConvertible, CustomReflectable, CustomPlaygroundDisplayConvertible,
    @unchecked Sendable
    where Downstream.Input == Base.Element, Downstream.Failure == Base.Failure
{
    private enum State {
        /// Subscribed, nothing requested yet: no task.
        case idle
        /// The task is iterating (or about to start).
        case running
        /// Finished, failed or cancelled.
        case terminal
    }

    private let lock = Lock()
    private var state = State.idle
    private var base: Base?
    private var downstream: Downstream?
    private var demand = Subscribers.Demand.none
    private var task: Task<Void, Never>?
    /// The task, waiting for demand.
    private var demandWaiter: CheckedContinuation<Bool, Never>?

    init(base: Base, downstream: Downstream) {
        self.base = base
        self.downstream = downstream
    }

    func request(_ demand: Subscribers.Demand) {
        demand.assertNonZero()
        let (start, waiter) = lock.locked { () -> (Base?, CheckedContinuation<Bool, Never>?) in
            guard case .terminal = state else {
                self.demand += demand
                defer { demandWaiter = nil }
                if case .idle = state {
                    state = .running
                    return (base, demandWaiter)
                }
                return (nil, demandWaiter)
            }
            return (nil, nil)
        }
        waiter?.resume(returning: true)
        guard let start else { return }
        let sequence = start
        // The task's closure must be `Sendable`; the subscription synchronises itself.
        let iterate = UncheckedSendable<() async -> Void>({ [self] in await self.iterate(sequence) })
        let newTask = Task {
            await iterate.value()
        }
        let cancelled = lock.locked { () -> Bool in
            guard case .terminal = state else {
                task = newTask
                return false
            }
            return true
        }
        if cancelled { newTask.cancel() }
    }

    private func iterate(_ sequence: Base) async {
        var iterator = sequence.makeAsyncIterator()
        do throws(Base.Failure) {
            while await waitForDemand() {
                guard let element = try await iterator.next(isolation: nil) else {
                    finish(.finished)
                    return
                }
                guard let target = takeOne() else { return }
                let more = target.receive(element)
                if more > 0 {
                    lock.locked {
                        if case .running = state { demand += more }
                    }
                }
            }
        } catch {
            finish(.failure(error))
        }
    }

    /// Waits until there is demand; `false` once the subscription has ended.
    private func waitForDemand() async -> Bool {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            let answer = lock.locked { () -> Bool? in
                guard case .running = state else { return false }
                if demand > 0 { return true }
                demandWaiter = continuation
                return nil
            }
            if let answer { continuation.resume(returning: answer) }
        }
    }

    /// The downstream, for one value, if the subscription is still live and has demand.
    private func takeOne() -> Downstream? {
        lock.locked { () -> Downstream? in
            guard case .running = state, let downstream, demand > 0 else { return nil }
            demand -= 1
            return downstream
        }
    }

    private func finish(_ completion: Subscribers.Completion<Base.Failure>) {
        let released = lock.locked { () -> (Downstream?, Base?, Task<Void, Never>?) in
            guard case .running = state else { return (nil, nil, nil) }
            state = .terminal
            defer {
                downstream = nil
                base = nil
                task = nil
            }
            return (downstream, base, task)
        }
        released.0?.receive(completion: completion)
        withExtendedLifetime(released) {}
    }

    func cancel() {
        let released = lock.locked { () -> (Downstream?, Base?, Task<Void, Never>?, CheckedContinuation<Bool, Never>?) in
            guard !isTerminal else { return (nil, nil, nil, nil) }
            state = .terminal
            defer {
                downstream = nil
                base = nil
                task = nil
                demandWaiter = nil
                demand = .none
            }
            return (downstream, base, task, demandWaiter)
        }
        released.2?.cancel()
        released.3?.resume(returning: false)
        withExtendedLifetime(released) {}
    }

    private var isTerminal: Bool {
        if case .terminal = state { return true }
        return false
    }

    var description: String { "AsyncSequence" }

    var customMirror: Mirror {
        let (downstream, demand) = lock.locked { (self.downstream, self.demand) }
        return Mirror(self, children: ["downstream": downstream as Any, "demand": demand])
    }

    var playgroundDescription: Any { description }
}
