import Foundation
import Sluice
import Synchronization

/// A scheduler whose clock moves only when the test says: virtual time.
///
/// Nothing scheduled runs until the test calls `advance(by:)`, `advance(to:)` or `run()`.
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
    // The hot paths are @inlinable so that a test's concrete time type specialises them: a
    // million actions cost ~100 ns each rather than ~12 µs of generic comparisons and copies.

    /// What the queue orders: trivially copyable for the usual time types, so moving it moves
    /// no reference counts; the action lives in `slots`.
    @usableFromInline
    internal typealias Key = DueQueue<SchedulerTimeType>.Entry

    @usableFromInline
    internal struct Slot {
        @usableFromInline var id: UInt64
        @usableFromInline var interval: SchedulerTimeType.Stride?
        @usableFromInline var action: () -> Void
        @usableFromInline var cancelled = false
        /// How many times a repeating action has fired.
        @usableFromInline var firings = 0

        @inlinable
        init(id: UInt64, interval: SchedulerTimeType.Stride?, action: @escaping () -> Void) {
            self.id = id
            self.interval = interval
            self.action = action
        }
    }

    // Guarded by `lock`, so the dynamic exclusivity checks are redundant.
    @usableFromInline internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked) internal var queue = DueQueue<SchedulerTimeType>()
    @usableFromInline @exclusivity(unchecked) internal var slots: [Slot?] = []
    @usableFromInline @exclusivity(unchecked) internal var freeSlots: [Int] = []
    @usableFromInline @exclusivity(unchecked) internal var nextSequence: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) internal var nextID: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) internal var currentTime: SchedulerTimeType
    /// `currentTime`'s bits, written with it under the lock, when the time type is a plain
    /// 8-byte value (``timeIsOneWord``): `now` then reads the clock without the lock.
    @usableFromInline internal let currentTimeBits = Atomic<UInt64>(0)
    /// Tasks that run on this scheduler (as their executor) and sleepers on its clock; see
    /// TestScheduler+Clock.swift.
    @usableFromInline
    internal let asyncState = TestSchedulerAsyncState()

    /// Creates a test scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        currentTime = now
        setCurrentTimeLocked(now)
    }

    /// Whether the time type is a plain 8-byte value (the time types of `DispatchQueue`,
    /// `RunLoop` and `OperationQueue` are), which ``currentTimeBits`` can hold.
    @inlinable
    internal static var timeIsOneWord: Bool {
        _isPOD(SchedulerTimeType.self) && MemoryLayout<SchedulerTimeType>.size == MemoryLayout<UInt64>.size
    }

    /// Moves the clock; call with the lock held.
    @inlinable
    internal func setCurrentTimeLocked(_ time: SchedulerTimeType) {
        currentTime = time
        if Self.timeIsOneWord {
            currentTimeBits.store(unsafeBitCast(time, to: UInt64.self), ordering: .releasing)
        }
    }

    /// The scheduler's current virtual time.
    ///
    /// Read without the lock for the usual time types (an operator such as `debounce` reads it
    /// for every value).
    @inlinable
    public var now: SchedulerTimeType {
        if Self.timeIsOneWord {
            return unsafeBitCast(currentTimeBits.load(ordering: .acquiring), to: SchedulerTimeType.self)
        }
        return lock.locked { currentTime }
    }

    /// Zero: virtual time is exact.
    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    /// How many actions are waiting to run (a repeating action counts once).
    public var pendingActionCount: Int {
        lock.locked {
            var count = 0
            queue.forEach { if self.slots[$0.slot]?.cancelled == false { count += 1 } }
            return count
        }
    }

    /// When the next waiting action is due, if any.
    public var nextDueDate: SchedulerTimeType? {
        lock.locked {
            var earliest: SchedulerTimeType?
            queue.forEach { entry in
                guard self.slots[entry.slot]?.cancelled == false else { return }
                if earliest.map({ entry.due < $0 }) ?? true { earliest = entry.due }
            }
            return earliest
        }
    }

    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(at: nil, interval: nil, action)
    }

    @inlinable
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        enqueue(at: date, interval: nil, action)
    }

    @inlinable
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        let entry = enqueue(at: date, interval: interval, action)
        // The `AnyCancellable` itself carries the entry (so a discarded result cancels at once,
        // as Combine's schedulers' do): no object of its own per action. It holds the scheduler
        // strongly: a weak reference gives the scheduler a side table, after which every retain
        // and release of it takes the runtime's slow path (a third of debounce's time on this
        // scheduler went there). So a kept cancellable keeps its scheduler, which holds nothing
        // but its actions. The cancel function captures nothing where this is specialised.
        return AnyCancellable(object: self, place: CancelPlace(index: entry.slot, identifier: entry.id)) { scheduler, place in
            unsafeDowncast(scheduler, to: TestScheduler.self).cancelEntry(EntryHandle(slot: place.index, id: place.identifier))
        }
    }

    /// An action taken out of its slot under the lock, to be let go of after unlocking. A
    /// structure, because `withExtendedLifetime` of a bare closure re-abstracts it, an
    /// allocation per cancel.
    @usableFromInline
    internal struct DroppedAction {
        @usableFromInline var action: () -> Void = {}

        @inlinable
        init() {}
    }

    /// Identifies a queued action: its slot, and the identifier that tells it from a later
    /// action reusing the slot.
    @usableFromInline
    internal struct EntryHandle: Sendable {
        @usableFromInline let slot: Int
        @usableFromInline let id: UInt64

        @inlinable
        init(slot: Int, id: UInt64) {
            self.slot = slot
            self.id = id
        }
    }

    @inlinable
    @discardableResult
    internal func enqueue(at date: SchedulerTimeType?, interval: SchedulerTimeType.Stride?,
                         _ action: @escaping () -> Void) -> EntryHandle {
        lock.locked {
            nextID += 1
            nextSequence += 1
            let due = date.map { Swift.max($0, currentTime) } ?? currentTime
            let slot: Int
            if let free = freeSlots.popLast() {
                slot = free
                slots[slot] = Slot(id: nextID, interval: interval, action: action)
            } else {
                slot = slots.count
                slots.append(Slot(id: nextID, interval: interval, action: action))
            }
            queue.insert(Key(due: due, sequence: nextSequence, slot: slot), scheduledLast: true)
            return EntryHandle(slot: slot, id: nextID)
        }
    }

    /// Cancels an action `enqueue` returned the handle of: it stays in the queue, marked, and is
    /// dropped when it comes to the front.
    @inlinable
    internal func cancelEntry(_ handle: EntryHandle) {
        // The action is dropped now, outside the lock, so what it captures (often the
        // subscription that scheduled it) is released at the cancel, not when the entry comes
        // to the front of the queue. (Set inside the lock, not returned: see `popDue`.)
        var dropped = DroppedAction()
        lock.locked {
            // Moved out and back rather than read in place: reading the action through the
            // optional copied it, a retain and a release per cancel.
            guard var slot = slots[handle.slot].take() else { return }
            if slot.id == handle.id {
                slot.cancelled = true
                swap(&dropped.action, &slot.action)
            }
            slots[handle.slot] = slot
        }
        withExtendedLifetime(dropped) {}
    }

    /// Advances the clock by `stride`, running every action due up to and including the new time.
    ///
    /// Tasks that run on this scheduler (`Task(executorPreference: scheduler)`) run here too,
    /// on the calling thread, until each suspends: before the first action and after every
    /// action, so a task woken from a sleep on ``clock`` runs (and may sleep again inside the
    /// window) before the next action is considered. It returns when nothing is left due and
    /// no such task is ready to run.
    @inlinable
    public func advance(by stride: SchedulerTimeType.Stride = .zero) {
        advance(until: now.advanced(by: stride))
    }

    /// Advances the clock to `instant`, running every action due up to and including it. An
    /// instant in the past runs what is due now and leaves the clock where it is.
    @inlinable
    public func advance(to instant: SchedulerTimeType) {
        advance(until: lock.locked { Swift.max(currentTime, instant) })
    }

    /// `advance(to:)` with the limit already taken (not before the current time). The step that
    /// finds nothing left due moves the clock to the limit, in the same critical section.
    @inlinable
    internal func advance(until limit: SchedulerTimeType) {
        while true {
            guard let action = nextAction(before: limit) else { break }
            action()
        }
    }

    /// Runs actions, advancing the clock to each one's due time, until none is left (running
    /// tasks on the scheduler in between, as `advance(to:)` does).
    ///
    /// A repeating action never lets it finish, so it stops after `maxSteps` actions and reports
    /// a test failure at the caller instead of looping forever.
    @inlinable
    public func run(maxSteps: Int = 10_000_000, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                    line: UInt = #line, column: UInt = #column) {
        var steps = 0
        while true {
            guard let action = nextAction(before: nil) else { break }
            steps += 1
            if steps > maxSteps {
                reportRunStopped(after: maxSteps, fileID: fileID, filePath: filePath, line: line, column: column)
                return
            }
            action()
        }
    }

    // MARK: Async forms, for tasks that wait on the scheduler

    /// Advances the clock by `stride` as `advance(by:)` does, but lets other tasks run before
    /// each action and after the last: a task that sleeps on this scheduler (`sleep(for:)`),
    /// consumes its `timer`, or awaits a publisher scheduled on it reaches its next suspension
    /// before time moves on.
    ///
    /// In async code this is the form that `advance(by:)` resolves to, so it is written with
    /// `await`; the synchronous form stays for synchronous tests.
    ///
    /// It runs in the caller's isolation (`nonisolated(nonsending)`): a task the test started
    /// on its own actor (the main actor, say) runs at the first step, before time moves, since
    /// that actor is free whenever this is suspended. It needs no particular actor, so it does
    /// not depend on the main queue being drained, which on Linux a test process that also uses
    /// `RunLoop.main` cannot count on.
    nonisolated(nonsending)
    public func advance(by stride: SchedulerTimeType.Stride = .zero) async {
        await advance(to: now.advanced(by: stride))
    }

    /// Advances the clock to `instant` as `advance(to:)` does, letting other tasks run before
    /// each action and after the last (see `advance(by:)`).
    nonisolated(nonsending)
    public func advance(to instant: SchedulerTimeType) async {
        let limit = lock.locked { Swift.max(currentTime, instant) }
        while true {
            await Self.letOtherTasksRun()
            guard let action = nextAction(before: limit) else { break }
            action()
        }
    }

    /// Runs actions, advancing the clock to each one's due time, until none is left, letting
    /// other tasks run before each action and after the last, so that a task consuming a
    /// `timer` with `prefix(_:)` finishes and its timer is cancelled before `run()` looks for
    /// more work. Stops with a test failure after `maxSteps` actions, as the synchronous form does.
    nonisolated(nonsending)
    public func run(maxSteps: Int = 10_000_000, fileID: StaticString = #fileID, filePath: StaticString = #filePath,
                    line: UInt = #line, column: UInt = #column) async {
        var steps = 0
        while true {
            await Self.letOtherTasksRun()
            guard let action = nextAction(before: nil) else { break }
            steps += 1
            if steps > maxSteps {
                reportRunStopped(after: maxSteps, fileID: fileID, filePath: filePath, line: line, column: column)
                return
            }
            action()
        }
    }

    /// Hands the thread to other tasks before a step of an async form, `testSchedulerYieldCount` times: each
    /// time a round trip through a task on the global executor, so a task started with `Task {}`
    /// gets there and runs to its next suspension (a sleep registering on this scheduler, a
    /// stream's consumer taking a value). Twenty covers a task that awaits a few hops; the
    /// `SLUICE_TEST_SCHEDULER_YIELDS` environment variable changes it.
    static func letOtherTasksRun() async {
        for _ in 0..<testSchedulerYieldCount {
            await Task.detached(priority: .background) { await Task.yield() }.value
        }
    }

    /// One step of an advance or a run: the ready jobs of tasks on this scheduler run first,
    /// then the next action due by `limit` (any, if nil) is taken, with the clock at its time.
    @inlinable
    internal func nextAction(before limit: SchedulerTimeType?) -> (() -> Void)? {
        if asyncState.mayHaveJobs { asyncState.runReadyJobs(on: self) }
        return popDue(before: limit)
    }

    @usableFromInline
    internal func reportRunStopped(after maxSteps: Int, fileID: StaticString, filePath: StaticString,
                                   line: UInt, column: UInt) {
        SchedulerIssue.report(
            "TestScheduler.run() stopped after \(maxSteps) actions with \(pendingActionCount) still pending: "
                + "a repeating action or a publisher that keeps rescheduling never lets it finish; use advance(by:) instead",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Removes the next action due at or before `limit` (any, if `limit` is nil), moves the clock
    /// to its due time, and re-queues it if it repeats. Returns its action; with none due, moves
    /// the clock to `limit` and returns nil.
    @inlinable
    internal func popDue(before limit: SchedulerTimeType?) -> (() -> Void)? {
        var stalled: (action: () -> Void, interval: SchedulerTimeType.Stride)?
        // Set inside the lock rather than returned from it: a closure returned through the
        // generic `locked` is re-abstracted, an allocation per action.
        var next: (() -> Void)?
        lock.locked {
            while let first = queue.first {
                // The slot is moved out and, if it stays, back: reading it in place copied its
                // action, a retain and a release per action.
                guard var slot = slots[first.slot].take(), !slot.cancelled else {
                    queue.removeFirst()
                    freeSlots.append(first.slot)
                    continue
                }
                if let limit, first.due > limit {
                    slots[first.slot] = slot
                    break
                }
                queue.removeFirst()
                if currentTime < first.due { setCurrentTimeLocked(first.due) }
                guard let interval = slot.interval else {
                    freeSlots.append(first.slot)
                    next = slot.action
                    return
                }
                if interval <= .zero, slot.firings > 0 {
                    // A repeating action without a positive interval, still not cancelled after
                    // its first firing, would come due again at this instant forever. (Debounce
                    // and timeout with a zero interval cancel theirs as it fires: no report.)
                    freeSlots.append(first.slot)
                    stalled = (slot.action, interval)
                    continue
                }
                // Same slot and sequence number: a repeating action keeps its place among
                // actions due at the same instant.
                slot.firings += 1
                next = slot.action
                slots[first.slot] = slot
                queue.insert(Key(due: first.due.advanced(by: interval), sequence: first.sequence, slot: first.slot),
                             scheduledLast: false)
                return
            }
            if let limit, currentTime < limit { setCurrentTimeLocked(limit) }
        }
        if let stalled {
            SchedulerIssue.report("TestScheduler: a repeating action with an interval of \(stalled.interval) fired and was "
                + "not cancelled; it would fire forever at one instant, so it was dropped")
            withExtendedLifetime(stalled.action) {}
        }
        return next
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

/// How many round trips the async forms of `advance` and `run` make before each step; read once
/// (see `TestScheduler.letOtherTasksRun`).
private let testSchedulerYieldCount: Int = {
    let configured = ProcessInfo.processInfo.environment["SLUICE_TEST_SCHEDULER_YIELDS"].flatMap(Int.init)
    return min(max(configured ?? 20, 0), 10_000)
}()
