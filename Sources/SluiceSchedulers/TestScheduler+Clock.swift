import Foundation
import Synchronization
import Sluice

// MARK: - Tasks on the test scheduler

/// A test scheduler is also a task executor: a task started with
/// `Task(executorPreference: scheduler) { ... }` (and its child tasks) runs only inside
/// ``TestScheduler/advance(by:)``, ``TestScheduler/advance(to:)`` and ``TestScheduler/run(maxSteps:fileID:filePath:line:column:)``,
/// on the thread that calls them, interleaved with the scheduler's actions in virtual-time
/// order. That is what makes async code deterministic under test: when a task's sleep on
/// ``TestScheduler/clock`` ends, the task runs to its next suspension before the scheduler
/// looks at the next action, so a loop of sleeps advances exactly as far as the virtual time
/// allows, with no yielding and no guessing.
///
/// Work such a task hands to other executors (the main actor, another task executor, a
/// completion handler on a dispatch queue) resumes it only at the next advance. Do not run the
/// test's own body on the scheduler (`withTaskExecutorPreference(scheduler)`): nothing would
/// run it until it called `advance` itself.
extension TestScheduler: TaskExecutor {
    /// Queues a job of a task that prefers this scheduler; it runs at the next advance.
    public func enqueue(_ job: consuming ExecutorJob) {
        asyncState.append(UnownedJob(job))
    }
}

// MARK: - Sleeping on the test scheduler

extension TestScheduler {
    /// Suspends the current task until the scheduler's virtual time has advanced by `duration`.
    ///
    /// The wake-up is registered with the scheduler before the task suspends, so an
    /// `advance(by:)` that starts after this call has begun (or, for a task on the scheduler,
    /// the advance that runs the task to this call) sees it. A duration that is not positive
    /// returns at once, as Swift's clocks do. Cancelling the task removes the wake-up and
    /// throws `CancellationError`.
    public func sleep(for duration: SchedulerTimeType.Stride, tolerance: SchedulerTimeType.Stride? = nil,
                      options: SchedulerOptions? = nil) async throws {
        try await sleep(untilTime: now.advanced(by: duration))
    }

    /// Suspends the current task until the scheduler's virtual time reaches `deadline`.
    ///
    /// As ``sleep(for:tolerance:options:)``: registered before the task suspends, immediate for
    /// a deadline that is not in the future, cancellable.
    public func sleep(until deadline: SchedulerTimeType, tolerance: SchedulerTimeType.Stride? = nil,
                      options: SchedulerOptions? = nil) async throws {
        try await sleep(untilTime: deadline)
    }

    /// How many tasks are sleeping on this scheduler (through ``clock`` or `sleep`) right now.
    public var sleeperCount: Int {
        asyncState.sleeperCount
    }

    /// Waits until at least `count` tasks are sleeping on this scheduler.
    ///
    /// For a task that does not run on the scheduler (one the code under test starts itself),
    /// which reaches its sleep on a thread of its own: wait for it to be asleep, then
    /// `advance(by:)`. Returns early if the waiting task is cancelled. A task that runs on
    /// the scheduler does not need this: it reaches its sleep inside the advance.
    public func waitForSleepers(_ count: Int = 1) async {
        await asyncState.waitForSleepers(count)
    }

    /// The one sleep every public form goes through.
    internal func sleep(untilTime deadline: SchedulerTimeType) async throws {
        guard deadline > now else {
            try Task.checkCancellation()
            return
        }
        let sleep = TestSchedulerSleep()
        let state = asyncState
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, Error>) in
                // Synchronous, before the task suspends: the wake-up is an action in the
                // scheduler's queue from here on.
                state.register(sleep, continuation: continuation) { wake in
                    let entry = self.enqueue(at: deadline, interval: nil, wake)
                    return { [weak self] in self?.cancelEntry(entry) }
                }
            }
        } onCancel: {
            state.cancel(sleep)
        }
    }
}

// MARK: - The scheduler as a Clock

/// A scheduler stride that converts to and from Swift's `Duration`, which lets a
/// ``TestScheduler`` of its time type act as a `Clock` (``TestScheduler/clock``).
///
/// The strides of `DispatchQueue`, `RunLoop` and `OperationQueue` conform.
public protocol DurationConvertibleStride: SchedulerTimeIntervalConvertible {
    /// Creates a stride of the given duration (saturating where it does not fit).
    init(duration: Duration)

    /// The stride as a duration.
    var duration: Duration { get }
}

extension DispatchQueue.SchedulerTimeType.Stride: DurationConvertibleStride {
    /// Creates a stride of the given duration, to the nanosecond.
    public init(duration: Duration) {
        let (seconds, attoseconds) = duration.components
        let (wholeNanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow {
            self = .nanoseconds(seconds < 0 ? .min : .max)
        } else {
            let (sum, overflowed) = wholeNanoseconds.addingReportingOverflow(attoseconds / 1_000_000_000)
            self = .nanoseconds(overflowed ? (seconds < 0 ? .min : .max) : Int(sum))
        }
    }

    /// The stride as a duration.
    public var duration: Duration { .nanoseconds(magnitude) }
}

extension RunLoop.SchedulerTimeType.Stride: DurationConvertibleStride {
    /// Creates a stride of the given duration, in seconds.
    public init(duration: Duration) {
        self = .seconds(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// The stride as a duration.
    public var duration: Duration { .seconds(magnitude) }
}

extension OperationQueue.SchedulerTimeType.Stride: DurationConvertibleStride {
    /// Creates a stride of the given duration, in seconds.
    public init(duration: Duration) {
        self = .seconds(Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18)
    }

    /// The stride as a duration.
    public var duration: Duration { .seconds(magnitude) }
}

extension TestScheduler where SchedulerTimeType: Hashable & Sendable, SchedulerTimeType.Stride: DurationConvertibleStride {
    /// This scheduler as a Swift `Clock` measuring `Duration`: one virtual time for async code
    /// that sleeps on a clock and Combine code scheduled on the scheduler.
    ///
    /// Pass it wherever code takes `some Clock<Duration>` or `any Clock<Duration>`. Its `now`
    /// is the scheduler's `now`; a sleep on it is an action on the scheduler, registered before
    /// the sleeping task suspends, so `advance(by:)` wakes it in due-time order with the
    /// scheduler's other actions. Run the code under test on the scheduler
    /// (`Task(executorPreference: scheduler)`) and each advance also runs it, deterministically;
    /// for a task that runs elsewhere, ``waitForSleepers(_:)`` before advancing.
    public var clock: TestSchedulerClock<SchedulerTimeType, SchedulerOptions> {
        TestSchedulerClock(scheduler: self)
    }
}

/// A ``TestScheduler`` seen as a Swift `Clock` (``TestScheduler/clock``).
public struct TestSchedulerClock<SchedulerTimeType: Strideable & Hashable & Sendable, SchedulerOptions>: Clock
    where SchedulerTimeType.Stride: DurationConvertibleStride
{
    public typealias Duration = Swift.Duration

    /// A point in the scheduler's virtual time.
    public struct Instant: InstantProtocol {
        public typealias Duration = Swift.Duration

        /// The scheduler time this instant stands for.
        public var time: SchedulerTimeType

        /// Creates the instant for a scheduler time.
        public init(_ time: SchedulerTimeType) {
            self.time = time
        }

        /// The instant `duration` later (earlier, if negative).
        public func advanced(by duration: Duration) -> Instant {
            Instant(time.advanced(by: SchedulerTimeType.Stride(duration: duration)))
        }

        /// The virtual time from this instant to `other`.
        public func duration(to other: Instant) -> Duration {
            time.distance(to: other.time).duration
        }

        /// Whether `lhs` comes before `rhs`.
        public static func < (lhs: Instant, rhs: Instant) -> Bool {
            lhs.time < rhs.time
        }
    }

    /// The scheduler whose time this clock tells.
    public let scheduler: TestScheduler<SchedulerTimeType, SchedulerOptions>

    /// Creates the clock of a test scheduler.
    public init(scheduler: TestScheduler<SchedulerTimeType, SchedulerOptions>) {
        self.scheduler = scheduler
    }

    /// The scheduler's current virtual time.
    public var now: Instant { Instant(scheduler.now) }

    /// Zero: virtual time is exact.
    public var minimumResolution: Duration { .zero }

    /// Suspends until the scheduler's virtual time reaches `deadline`; at once if it already
    /// has. Throws `CancellationError` (and removes the wake-up) if the task is cancelled.
    public func sleep(until deadline: Instant, tolerance: Duration? = nil) async throws {
        try await scheduler.sleep(untilTime: deadline.time)
    }
}

// MARK: - State

/// One sleep on a test scheduler, guarded by ``TestSchedulerAsyncState``'s lock.
internal final class TestSchedulerSleep: @unchecked Sendable {
    enum State {
        case idle
        /// Asleep; the closure removes the wake-up from the scheduler.
        case sleeping(CheckedContinuation<Void, Error>, removeWakeUp: () -> Void)
        case cancelledEarly
        case ended
    }

    var state = State.idle
}

/// The part of a test scheduler that async code uses: jobs of tasks that run on it, and the
/// tasks sleeping on it. Its lock is taken before the scheduler's own lock, never after.
@usableFromInline
internal final class TestSchedulerAsyncState: @unchecked Sendable {
    private let lock = NSLock()
    private var jobs: [UnownedJob] = []
    /// How many jobs are queued, readable without the lock: the scheduler's loop checks it on
    /// every action and takes the lock only when there may be work.
    private let queuedJobs = Atomic<Int>(0)

    @usableFromInline
    internal var mayHaveJobs: Bool { queuedJobs.load(ordering: .acquiring) > 0 }
    private var sleepers = 0
    private var nextWaiterID: UInt64 = 0
    private var waiters: [(id: UInt64, count: Int, continuation: CheckedContinuation<Void, Never>)] = []
    private var cancelledWaiters: Set<UInt64> = []

    func append(_ job: UnownedJob) {
        lock.lock()
        jobs.append(job)
        queuedJobs.add(1, ordering: .releasing)
        lock.unlock()
    }

    /// Runs queued jobs, in order, until none is left (jobs they queue included).
    @usableFromInline
    func runReadyJobs(on executor: some TaskExecutor) {
        while true {
            lock.lock()
            guard !jobs.isEmpty else {
                lock.unlock()
                return
            }
            let job = jobs.removeFirst()
            queuedJobs.subtract(1, ordering: .releasing)
            lock.unlock()
            job.runSynchronously(on: executor.asUnownedTaskExecutor())
        }
    }

    var sleeperCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return sleepers
    }

    /// Puts `sleep` to sleep: `schedule` enqueues the wake-up action and returns what removes
    /// it again.
    func register(_ sleep: TestSchedulerSleep, continuation: CheckedContinuation<Void, Error>,
                  schedule: (@escaping () -> Void) -> () -> Void) {
        lock.lock()
        if case .cancelledEarly = sleep.state {
            sleep.state = .ended
            lock.unlock()
            continuation.resume(throwing: CancellationError())
            return
        }
        let removeWakeUp = schedule { [weak self] in self?.wake(sleep) }
        sleep.state = .sleeping(continuation, removeWakeUp: removeWakeUp)
        sleepers += 1
        let ready = takeSatisfiedWaiters()
        lock.unlock()
        for waiter in ready { waiter.resume() }
    }

    private func wake(_ sleep: TestSchedulerSleep) {
        lock.lock()
        guard case .sleeping(let continuation, _) = sleep.state else {
            lock.unlock()
            return
        }
        sleep.state = .ended
        sleepers -= 1
        lock.unlock()
        continuation.resume()
    }

    func cancel(_ sleep: TestSchedulerSleep) {
        lock.lock()
        switch sleep.state {
        case .idle:
            sleep.state = .cancelledEarly
            lock.unlock()
        case .sleeping(let continuation, let removeWakeUp):
            sleep.state = .ended
            sleepers -= 1
            removeWakeUp()
            lock.unlock()
            continuation.resume(throwing: CancellationError())
        case .cancelledEarly, .ended:
            lock.unlock()
        }
    }

    func waitForSleepers(_ count: Int) async {
        let id = lock.withLock { () -> UInt64 in
            nextWaiterID += 1
            return nextWaiterID
        }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                lock.lock()
                if sleepers >= count || cancelledWaiters.remove(id) != nil {
                    lock.unlock()
                    continuation.resume()
                    return
                }
                waiters.append((id, count, continuation))
                lock.unlock()
            }
        } onCancel: {
            lock.lock()
            if let index = waiters.firstIndex(where: { $0.id == id }) {
                let waiter = waiters.remove(at: index)
                lock.unlock()
                waiter.continuation.resume()
            } else {
                cancelledWaiters.insert(id)
                lock.unlock()
            }
        }
    }

    /// Removes and returns the waiters the current number of sleepers satisfies. Call with the
    /// lock held.
    private func takeSatisfiedWaiters() -> [CheckedContinuation<Void, Never>] {
        var ready: [CheckedContinuation<Void, Never>] = []
        waiters.removeAll { waiter in
            guard sleepers >= waiter.count else { return false }
            ready.append(waiter.continuation)
            return true
        }
        return ready
    }
}
