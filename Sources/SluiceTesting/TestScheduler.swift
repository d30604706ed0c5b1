import Foundation
import Sluice

/// A scheduler whose clock moves only when the test says: virtual time.
///
/// Nothing scheduled runs until the test calls ``advance(by:)``, ``advance(to:)`` or ``run()``.
/// Actions run in order of their due time, and actions due at the same instant run in the order
/// they were scheduled; work scheduled while advancing runs in the same call if it falls inside
/// the window. `now` never moves backwards: an action scheduled in the past runs at the current
/// time. A repeating action keeps firing every interval until its cancellable is cancelled.
///
/// Its time type is any scheduler's (`TestScheduler<DispatchQueue.SchedulerTimeType,
/// DispatchQueue.SchedulerOptions>`, spelled `TestSchedulerOf<DispatchQueue>` or
/// `DispatchQueue.test`), so it can stand in wherever an `AnyScheduler` of that time type goes.
///
/// Async code shares the same virtual time: ``clock`` is the scheduler as a Swift `Clock`, and
/// the scheduler is a `TaskExecutor`, so a task started with
/// `Task(executorPreference: scheduler)` runs inside the advances, deterministically (see
/// TestScheduler+Clock.swift).
public final class TestScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    private struct Entry {
        var due: SchedulerTimeType
        var sequence: UInt64
        var id: UInt64
        var interval: SchedulerTimeType.Stride?
        var action: () -> Void

        func precedes(_ other: Entry) -> Bool {
            due < other.due || (due == other.due && sequence < other.sequence)
        }
    }

    private let lock = NSLock()
    private var heap: [Entry] = []
    private var nextSequence: UInt64 = 0
    private var nextID: UInt64 = 0
    private var cancelled: Set<UInt64> = []
    private var currentTime: SchedulerTimeType
    /// Tasks that run on this scheduler (as their executor) and sleepers on its clock; see
    /// TestScheduler+Clock.swift.
    internal let asyncState = TestSchedulerAsyncState()

    /// Creates a test scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        currentTime = now
    }

    /// The scheduler's current virtual time.
    public var now: SchedulerTimeType {
        lock.lock()
        defer { lock.unlock() }
        return currentTime
    }

    /// Zero: virtual time is exact.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting to run (a repeating action counts once).
    public var pendingActionCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return heap.lazy.filter { !self.cancelled.contains($0.id) }.count
    }

    /// When the next waiting action is due, if any.
    public var nextDueDate: SchedulerTimeType? {
        lock.lock()
        defer { lock.unlock() }
        return heap.lazy.filter { !self.cancelled.contains($0.id) }.map(\.due).min()
    }

    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(at: nil, interval: nil, action)
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(at: date, interval: nil, action)
    }

    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        let id = enqueue(at: date, interval: interval, action)
        return AnyCancellable { [weak self] in
            guard let self else { return }
            self.lock.lock()
            self.cancelled.insert(id)
            self.lock.unlock()
        }
    }

    @discardableResult
    internal func enqueue(at date: SchedulerTimeType?, interval: SchedulerTimeType.Stride?,
                         _ action: @escaping () -> Void) -> UInt64 {
        lock.lock()
        defer { lock.unlock() }
        nextID += 1
        nextSequence += 1
        let due = date.map { Swift.max($0, currentTime) } ?? currentTime
        push(Entry(due: due, sequence: nextSequence, id: nextID, interval: interval, action: action))
        return nextID
    }

    /// Cancels an action `enqueue` returned the identifier of.
    internal func cancelEntry(_ id: UInt64) {
        lock.lock()
        cancelled.insert(id)
        lock.unlock()
    }

    /// Advances the clock by `stride`, running every action due up to and including the new time.
    ///
    /// Tasks that run on this scheduler (`Task(executorPreference: scheduler)`) run here too,
    /// on the calling thread, until each suspends: before the first action and after every
    /// action, so a task woken from a sleep on ``clock`` runs (and may sleep again inside the
    /// window) before the next action is considered. It returns when nothing is left due and
    /// no such task is ready to run.
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        advance(to: now.advanced(by: stride))
    }

    /// Advances the clock to `instant`, running every action due up to and including it. An
    /// instant in the past runs what is due now and leaves the clock where it is.
    public func advance(to instant: SchedulerTimeType) {
        while true {
            asyncState.runReadyJobs(on: self)
            guard let entry = popDue(before: instant) else { break }
            entry.action()
        }
        lock.lock()
        currentTime = Swift.max(currentTime, instant)
        lock.unlock()
    }

    /// Runs actions, advancing the clock to each one's due time, until none is left (running
    /// tasks on the scheduler in between, as ``advance(to:)`` does).
    ///
    /// A repeating action never lets it finish, so it stops after `maxSteps` actions and reports
    /// a test failure at the caller instead of looping forever.
    public func run(maxSteps: Int = 10_000_000, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                    line: UInt = #line, column: UInt = #column) {
        var steps = 0
        while true {
            asyncState.runReadyJobs(on: self)
            guard let entry = popDue(before: nil) else { break }
            steps += 1
            if steps > maxSteps {
                TestFailure.report(
                    "TestScheduler.run() stopped after \(maxSteps) actions with \(pendingActionCount) still pending: "
                        + "a repeating action or a publisher that keeps rescheduling never lets it finish; use advance(by:) instead",
                    fileID: fileID, filePath: filePath, line: line, column: column)
                return
            }
            entry.action()
        }
    }

    /// Removes the next action due at or before `limit` (any, if `limit` is nil), moves the clock
    /// to its due time, and re-queues it if it repeats.
    private func popDue(before limit: SchedulerTimeType?) -> Entry? {
        lock.lock()
        defer { lock.unlock() }
        while let first = heap.first {
            if cancelled.contains(first.id) {
                _ = pop()
                cancelled.remove(first.id)
                continue
            }
            if let limit, first.due > limit { return nil }
            let entry = pop()
            currentTime = Swift.max(currentTime, entry.due)
            if let interval = entry.interval {
                var next = entry
                next.due = entry.due.advanced(by: interval)
                push(next)
            }
            return entry
        }
        return nil
    }

    // MARK: Binary heap ordered by (due, sequence)

    private func push(_ entry: Entry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private func pop() -> Entry {
        heap.swapAt(0, heap.count - 1)
        let entry = heap.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { break }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
        return entry
    }
}

/// The test scheduler for a given scheduler type: `TestSchedulerOf<DispatchQueue>`.
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<S.SchedulerTimeType, S.SchedulerOptions>

/// The name seed 000 gives the virtual-time scheduler: a test scheduler on dispatch time.
public typealias VirtualTimeScheduler = TestSchedulerOf<DispatchQueue>

extension TestScheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType {
    /// Creates a test scheduler on dispatch time, starting at uptime 1 ns (0 would mean "now" to
    /// Dispatch).
    public convenience init() {
        self.init(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}

extension DispatchQueue {
    /// A new test scheduler with dispatch queue time and options.
    public static var test: TestSchedulerOf<DispatchQueue> {
        TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}

extension RunLoop {
    /// A new test scheduler with run loop time (starting at 1970) and options.
    public static var test: TestSchedulerOf<RunLoop> {
        TestScheduler(now: SchedulerTimeType(Date(timeIntervalSince1970: 0)))
    }
}

extension OperationQueue {
    /// A new test scheduler with operation queue time (starting at 1970) and options.
    public static var test: TestSchedulerOf<OperationQueue> {
        TestScheduler(now: SchedulerTimeType(Date(timeIntervalSince1970: 0)))
    }
}
