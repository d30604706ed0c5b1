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
        /// Cancelled, or run and free: its action has been let go.
        @usableFromInline var cancelled = false
        /// How many times a repeating action has fired.
        @usableFromInline var firings = 0
        /// When it was scheduled, for ``TestScheduler/runningAction``.
        @usableFromInline var scheduledAt: SchedulerTimeType

        /// Marks the slot cancelled (or run and free) and moves its action out, for the caller
        /// to run or to release after unlocking.
        @inlinable
        mutating func retire() -> () -> Void {
            cancelled = true
            var taken: () -> Void = {}
            swap(&taken, &action)
            return taken
        }

        @inlinable
        init(id: UInt64, interval: SchedulerTimeType.Stride?, scheduledAt: SchedulerTimeType, action: @escaping () -> Void) {
            self.id = id
            self.interval = interval
            self.scheduledAt = scheduledAt
            self.action = action
        }
    }

    /// The action being run now, for ``runningAction``: set when an advance takes it, cleared
    /// when the advance finds nothing more due (or runs a task's job instead).
    @usableFromInline
    internal struct Running {
        @usableFromInline var number: Int
        @usableFromInline var id: UInt64
        @usableFromInline var due: SchedulerTimeType
        @usableFromInline var scheduledAt: SchedulerTimeType
        @usableFromInline var interval: SchedulerTimeType.Stride?

        @inlinable
        init(number: Int, id: UInt64, due: SchedulerTimeType, scheduledAt: SchedulerTimeType,
             interval: SchedulerTimeType.Stride?) {
            self.number = number
            self.id = id
            self.due = due
            self.scheduledAt = scheduledAt
            self.interval = interval
        }
    }

    // Guarded by `lock`, so the dynamic exclusivity checks are redundant.
    @usableFromInline internal let lock = Lock()
    @usableFromInline @exclusivity(unchecked) internal var queue = DueQueue<SchedulerTimeType>()
    /// The actions, by slot; a slot is reused once its queue entry is gone. Read and changed
    /// in place: an optional slot moved in and out went through the slot type's generic value
    /// witnesses on every action (a sixth of a debounced value's time).
    @usableFromInline @exclusivity(unchecked) internal var slots: [Slot] = []
    @usableFromInline @exclusivity(unchecked) internal var freeSlots: [Int] = []
    @usableFromInline @exclusivity(unchecked) internal var nextSequence: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) internal var nextID: UInt64 = 0
    @usableFromInline @exclusivity(unchecked) internal var currentTime: SchedulerTimeType
    /// How many actions have been run; the number of the one running now.
    @usableFromInline @exclusivity(unchecked) internal var actionsRun = 0
    @usableFromInline @exclusivity(unchecked) internal var running: Running?
    /// A repeating action taken to run, as it was queued (due at its last firing): it goes back
    /// into the queue, due an interval later, at the next look at the queue
    /// (``requeueRepeatingLocked()``), unless it was cancelled meanwhile. Most repeating actions
    /// are cancelled as they run (debounce's, timeout's) and then never go back: a queue
    /// insertion and removal fewer per firing.
    @usableFromInline @exclusivity(unchecked) internal var repeating: Key?
    /// `currentTime`'s bits, written with it under the lock, when the time type is a plain
    /// 8-byte value (``timeIsOneWord``): `now` then reads the clock without the lock.
    @usableFromInline internal let currentTimeBits = Atomic<UInt64>(0)
    /// Tasks that run on this scheduler (as their executor) and sleepers on its clock; see
    /// TestScheduler+Clock.swift.
    @usableFromInline
    internal let asyncState = TestSchedulerAsyncState()

    /// The instant the scheduler's clock started at (the `now` it was created with).
    ///
    /// SluiceTesting measures every time from here: a timeline's events, a marble publisher's
    /// subscriptions and the times in `expectMarbles`' reports are all durations since the
    /// origin, so one test reads one clock whoever made the recorder or publisher, and when.
    public let origin: SchedulerTimeType

    /// Creates a test scheduler whose clock starts at `now`.
    public init(now: SchedulerTimeType) {
        currentTime = now
        origin = now
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

    /// The virtual time since the scheduler's ``origin``: `300 ms` after `advance(by: .milliseconds(300))`
    /// on a new scheduler.
    public var elapsed: Duration {
        VirtualTime.duration(of: origin.distance(to: now))
    }

    /// How many actions are waiting to run (a repeating action counts once). A cancelled
    /// action is not waiting: it leaves the count when it is cancelled.
    public var pendingActionCount: Int {
        lock.locked {
            requeueRepeatingLocked()
            var count = 0
            queue.forEach { if !self.slots[$0.slot].cancelled { count += 1 } }
            return count
        }
    }

    /// When the next waiting action is due, if any: a ``DueDate``, which prints as the time
    /// since the scheduler's origin (`300 ms`) and holds the scheduler's own date in `date`.
    public var nextDueDate: DueDate? {
        let earliest: SchedulerTimeType? = lock.locked {
            requeueRepeatingLocked()
            var earliest: SchedulerTimeType?
            queue.forEach { entry in
                guard !self.slots[entry.slot].cancelled else { return }
                if earliest.map({ entry.due < $0 }) ?? true { earliest = entry.due }
            }
            return earliest
        }
        return earliest.map(dueDate(of:))
    }

    /// A date on this scheduler's clock, as ``nextDueDate`` gives it: it prints as the time since
    /// the scheduler's ``origin`` (`300 ms`), and `date` is the scheduler's own time value, for
    /// `advance(to:)` and comparisons with `now`.
    public struct DueDate: Comparable, CustomStringConvertible, CustomDebugStringConvertible {
        /// The date, in the scheduler's time type.
        public let date: SchedulerTimeType
        /// The virtual time from the scheduler's origin to the date.
        public let sinceOrigin: Duration

        /// Creates a due date (for comparisons in tests): `date`, `sinceOrigin` after the origin.
        public init(date: SchedulerTimeType, sinceOrigin: Duration) {
            self.date = date
            self.sinceOrigin = sinceOrigin
        }

        /// `300 ms`: the time since the scheduler's origin.
        public var description: String { VirtualTime.format(sinceOrigin) }
        public var debugDescription: String { description }

        public static func < (lhs: DueDate, rhs: DueDate) -> Bool { lhs.date < rhs.date }
        public static func == (lhs: DueDate, rhs: DueDate) -> Bool { lhs.date == rhs.date }
    }

    /// `date` as a ``DueDate`` of this scheduler.
    public func dueDate(of date: SchedulerTimeType) -> DueDate {
        DueDate(date: date, sinceOrigin: VirtualTime.duration(of: origin.distance(to: date)))
    }

    /// The action the scheduler is running on this call stack's advance, if any: which one it
    /// is, when it was scheduled and when it was due. SluiceTesting's recorders note it with each
    /// event, so that a report can show in which order actions due at one instant ran.
    ///
    /// It is `nil` between advances (code the test runs itself) and while a task on the
    /// scheduler runs. Read it from the action's own thread: an advance runs its actions on
    /// the calling thread, one at a time.
    public var runningAction: TestSchedulerAction? {
        guard let running = lock.locked({ self.running }) else { return nil }
        return TestSchedulerAction(number: running.number, schedulingOrder: Int(running.id),
                          scheduledAt: VirtualTime.duration(of: origin.distance(to: running.scheduledAt)),
                          due: VirtualTime.duration(of: origin.distance(to: running.due)),
                          interval: running.interval.map { VirtualTime.duration(of: $0) })
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

    /// Schedules `action` once at `date`, and returns what cancels it: a cancelled action is
    /// dropped at once (what it captures is released, and it no longer counts in
    /// ``pendingActionCount``). For SluiceTesting's marble publishers, whose subscriptions
    /// cancel the events they have scheduled. Unlike Combine's `schedule(after:interval:...)`
    /// result, dropping the returned value does not cancel.
    package func scheduleCancellable(after date: SchedulerTimeType, _ action: @escaping () -> Void) -> Cancellable {
        QueuedAction(scheduler: self, entry: enqueue(at: date, interval: nil, action))
    }

    /// What ``scheduleCancellable(after:_:)`` returns: cancels its entry when told to, and not
    /// when dropped.
    private final class QueuedAction: Cancellable {
        let scheduler: TestScheduler
        let entry: EntryHandle

        init(scheduler: TestScheduler, entry: EntryHandle) {
            self.scheduler = scheduler
            self.entry = entry
        }

        func cancel() {
            scheduler.cancelEntry(entry)
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
                slots[slot] = Slot(id: nextID, interval: interval, scheduledAt: currentTime, action: action)
            } else {
                slot = slots.count
                slots.append(Slot(id: nextID, interval: interval, scheduledAt: currentTime, action: action))
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
            guard slots[handle.slot].id == handle.id, !slots[handle.slot].cancelled else { return }
            dropped.action = slots[handle.slot].retire()
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

    /// Advances the clock to `dueDate` (a ``nextDueDate``), as `advance(to:)` does.
    public func advance(to dueDate: DueDate) {
        advance(to: dueDate.date)
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

    /// Advances the clock to `dueDate` (a ``nextDueDate``), as `advance(to:)` does, letting
    /// other tasks run before each action and after the last.
    nonisolated(nonsending)
    public func advance(to dueDate: DueDate) async {
        await advance(to: dueDate.date)
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

    /// Hands the thread to other tasks before a step of an async form, `configuredTestSchedulerYieldCount` times: each
    /// time a round trip through a task on the global executor, so a task started with `Task {}`
    /// gets there and runs to its next suspension (a sleep registering on this scheduler, a
    /// stream's consumer taking a value). Twenty covers a task that awaits a few hops; the
    /// `SLUICE_TEST_SCHEDULER_YIELDS` environment variable (or combine-schedulers'
    /// `TASK_MEGA_YIELD_COUNT`) changes it.
    static func letOtherTasksRun() async {
        for _ in 0..<configuredTestSchedulerYieldCount {
            await Task.detached(priority: .background) { await Task.yield() }.value
        }
    }

    /// One step of an advance or a run: the ready jobs of tasks on this scheduler run first,
    /// then the next action due by `limit` (any, if nil) is taken, with the clock at its time.
    @inlinable
    internal func nextAction(before limit: SchedulerTimeType?) -> (() -> Void)? {
        if asyncState.mayHaveJobs { runJobs() }
        return popDue(before: limit)
    }

    /// Runs the ready jobs of tasks on the scheduler, which are no action: ``runningAction`` is
    /// `nil` while they run.
    @usableFromInline
    internal func runJobs() {
        lock.locked { running = nil }
        asyncState.runReadyJobs(on: self)
    }

    @usableFromInline
    internal func reportStalled(interval: SchedulerTimeType.Stride) {
        SchedulerIssue.report("TestScheduler: a repeating action with an interval of "
            + "\(VirtualTime.format(VirtualTime.duration(of: interval))) fired and was "
            + "not cancelled; it would fire forever at one instant, so it was dropped")
    }

    @usableFromInline
    internal func reportRunStopped(after maxSteps: Int, fileID: StaticString, filePath: StaticString,
                                   line: UInt, column: UInt) {
        SchedulerIssue.report(
            "TestScheduler.run() stopped after \(maxSteps) actions with \(pendingActionCount) still pending: "
                + "a repeating action or a publisher that keeps rescheduling never lets it finish; use advance(by:) instead",
            fileID: fileID, filePath: filePath, line: line, column: column)
    }

    /// Puts the repeating action that last ran back into the queue, or frees its slot if it was
    /// cancelled while it ran. Called first by everything that looks at the queue, so the
    /// queue is as if it had gone back at once (same due time and sequence number, so the same
    /// place among actions due at the same instant).
    @inlinable
    @inline(__always)
    internal func requeueRepeatingLocked() {
        guard let key = repeating else { return }
        repeating = nil
        if slots[key.slot].cancelled {
            freeSlots.append(key.slot)
        } else if let interval = slots[key.slot].interval {
            // The next due time is worked out only now: a time type's arithmetic can be costly
            // (dispatch time's calls into Dispatch twice).
            queue.insert(Key(due: key.due.advanced(by: interval), sequence: key.sequence, slot: key.slot),
                         scheduledLast: false)
        }
    }

    /// Removes the next action due at or before `limit` (any, if `limit` is nil), moves the clock
    /// to its due time, and keeps it to re-queue if it repeats (``repeating``). Returns its
    /// action; with none due, moves the clock to `limit` and returns nil.
    @inlinable
    internal func popDue(before limit: SchedulerTimeType?) -> (() -> Void)? {
        var stalled: (action: () -> Void, interval: SchedulerTimeType.Stride)?
        // Set inside the lock rather than returned from it: a closure returned through the
        // generic `locked` is re-abstracted, an allocation per action.
        var next: (() -> Void)?
        lock.locked {
            requeueRepeatingLocked()
            while let first = queue.first {
                let index = first.slot
                guard !slots[index].cancelled else {
                    queue.removeFirst()
                    freeSlots.append(index)
                    continue
                }
                if let limit, first.due > limit { break }
                queue.removeFirst()
                if currentTime < first.due { setCurrentTimeLocked(first.due) }
                guard let interval = slots[index].interval else {
                    // Run once: the slot is free from now on, and a late cancel finds it so.
                    freeSlots.append(index)
                    actionsRun += 1
                    running = Running(number: actionsRun, id: slots[index].id, due: first.due,
                                      scheduledAt: slots[index].scheduledAt, interval: nil)
                    next = slots[index].retire()
                    return
                }
                if interval <= .zero, slots[index].firings > 0 {
                    // A repeating action without a positive interval, still not cancelled after
                    // its first firing, would come due again at this instant forever. (Debounce
                    // and timeout with a zero interval cancel theirs as it fires: no report.)
                    freeSlots.append(index)
                    stalled = (slots[index].retire(), interval)
                    continue
                }
                // Same slot and sequence number: a repeating action keeps its place among
                // actions due at the same instant.
                slots[index].firings += 1
                actionsRun += 1
                running = Running(number: actionsRun, id: slots[index].id, due: first.due,
                                  scheduledAt: slots[index].scheduledAt, interval: interval)
                next = slots[index].action
                repeating = first
                return
            }
            running = nil
            if let limit, currentTime < limit { setCurrentTimeLocked(limit) }
        }
        if let stalled {
            reportStalled(interval: stalled.interval)
            withExtendedLifetime(stalled.action) {}
        }
        return next
    }
}

/// An action a ``TestScheduler`` ran, as its ``TestScheduler/runningAction`` describes it.
public struct TestSchedulerAction: Equatable, Sendable, CustomStringConvertible {
    /// Its place in the order the scheduler ran actions: 1 for the first action it ran.
    public let number: Int
    /// Its place in the order actions were scheduled: 1 for the first one scheduled.
    /// Actions due at one instant run in this order.
    public let schedulingOrder: Int
    /// When it was scheduled, since the scheduler's origin.
    public let scheduledAt: Duration
    /// When it was due (this time, for a repeating action), since the scheduler's origin.
    public let due: Duration
    /// A repeating action's interval; `nil` for a one-shot action.
    public let interval: Duration?

    /// Creates the description of an action (for comparisons in tests).
    public init(number: Int, schedulingOrder: Int, scheduledAt: Duration, due: Duration, interval: Duration?) {
        self.number = number
        self.schedulingOrder = schedulingOrder
        self.scheduledAt = scheduledAt
        self.due = due
        self.interval = interval
    }

    /// `action #3 (scheduled at 0, repeating every 5 s)`, `action #4 (scheduled at 0 for 30 s)`:
    /// `#` is its ``schedulingOrder``.
    public var description: String {
        let when = interval.map { ", repeating every \(VirtualTime.format($0))" } ?? " for \(VirtualTime.format(due))"
        return "action #\(schedulingOrder) (scheduled at \(VirtualTime.format(scheduledAt))\(when))"
    }
}

/// The test scheduler for a given scheduler type: `TestSchedulerOf<DispatchQueue>`.
public typealias TestSchedulerOf<S: Scheduler> = TestScheduler<S.SchedulerTimeType, S.SchedulerOptions>

/// A name commonly given to the virtual-time scheduler: a test scheduler on dispatch time.
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
private let configuredTestSchedulerYieldCount = testSchedulerYieldCount(in: ProcessInfo.processInfo.environment)

/// The yield count `environment` sets: `SLUICE_TEST_SCHEDULER_YIELDS`, else combine-schedulers'
/// `TASK_MEGA_YIELD_COUNT` (so a project moving from it keeps its setting), else 20; at most
/// 10,000.
package func testSchedulerYieldCount(in environment: [String: String]) -> Int {
    let configured = environment["SLUICE_TEST_SCHEDULER_YIELDS"].flatMap(Int.init)
        ?? environment["TASK_MEGA_YIELD_COUNT"].flatMap(Int.init)
    return min(max(configured ?? 20, 0), 10_000)
}
