import Foundation
import Sluice
import SluiceSchedulers
import SluiceTesting

/// Which test scheduler is running the current action: set around every action of a
/// ``tagged(_:as:)`` scheduler, `nil` when code runs directly on the test's thread.
enum Running {
    @TaskLocal static var on: String?
}

/// `scheduler`, erased, with every action it runs marked as running on `name`, so that code
/// can record where it ran (the test schedulers run their actions on the test's own thread,
/// so the thread cannot tell them apart).
func tagged(_ scheduler: TestSchedulerOf<DispatchQueue>, as name: String) -> AnySchedulerOf<DispatchQueue> {
    func mark(_ action: @escaping () -> Void) -> () -> Void {
        { Running.$on.withValue(name) { action() } }
    }
    return AnyScheduler(
        minimumTolerance: { scheduler.minimumTolerance },
        now: { scheduler.now },
        scheduleImmediately: { options, action in scheduler.schedule(options: options, mark(action)) },
        delayed: { date, tolerance, options, action in
            scheduler.schedule(after: date, tolerance: tolerance, options: options, mark(action))
        },
        interval: { date, interval, tolerance, options, action in
            scheduler.schedule(after: date, interval: interval, tolerance: tolerance, options: options, mark(action))
        })
}

/// `RunLoop.main` in virtual time, on the same clock and thread as the virtual main queue.
///
/// On the real main thread, `DispatchQueue.main` and `RunLoop.main` both run their work on one
/// thread: the main run loop services the main queue in all of its common modes, but performs
/// `RunLoop.main`'s blocks only in the default mode, so while it is in its tracking mode
/// (the user dragging a scroll view) those blocks wait and the main queue's run. This models
/// exactly that on top of the test's main-queue scheduler: work scheduled on ``scheduler`` is
/// queued on the main-queue scheduler and, when its turn comes, runs if the run loop is not
/// tracking and is parked if it is; setting ``isTracking`` back to `false` (the drag ends)
/// queues the parked work again, in order, on the main queue. So "nothing runs on
/// `RunLoop.main` while tracking" holds however far the test advances the clock.
final class VirtualMainRunLoop: @unchecked Sendable {
    private let mainQueue: AnySchedulerOf<DispatchQueue>
    private let start: DispatchQueue.SchedulerTimeType
    private let lock = NSLock()
    // Guarded by `lock`.
    private var tracking = false
    private var parked: [() -> Void] = []

    /// The run loop of the main thread whose main queue is `mainQueue`.
    init(mainQueue: AnySchedulerOf<DispatchQueue>) {
        self.mainQueue = mainQueue
        start = mainQueue.now
    }

    /// Whether the run loop is in its tracking mode. Ending it releases the parked work.
    var isTracking: Bool {
        get { lock.withLock { tracking } }
        set {
            let released: [() -> Void] = lock.withLock {
                tracking = newValue
                guard !newValue else { return [] }
                defer { parked = [] }
                return parked
            }
            for action in released { mainQueue.schedule { self.perform(action) } }
        }
    }

    /// How many actions are waiting for the tracking mode to end.
    var parkedCount: Int { lock.withLock { parked.count } }

    private func perform(_ action: @escaping () -> Void) {
        let park = lock.withLock {
            if tracking { parked.append(action) }
            return tracking
        }
        if !park { action() }
    }

    /// The run loop as a scheduler with run-loop time (starting at 1970, like `RunLoop.test`).
    var scheduler: AnySchedulerOf<RunLoop> {
        let start = self.start
        let mainQueue = self.mainQueue
        func dispatchTime(_ time: RunLoop.SchedulerTimeType) -> DispatchQueue.SchedulerTimeType {
            start.advanced(by: .nanoseconds(Int((time.date.timeIntervalSince1970 * 1_000_000_000).rounded())))
        }
        func dispatchStride(_ stride: RunLoop.SchedulerTimeType.Stride) -> DispatchQueue.SchedulerTimeType.Stride {
            .nanoseconds(Int((stride.magnitude * 1_000_000_000).rounded()))
        }
        return AnyScheduler(
            minimumTolerance: { .zero },
            now: {
                RunLoop.SchedulerTimeType(Date(timeIntervalSince1970: Double(start.distance(to: mainQueue.now).magnitude) / 1_000_000_000))
            },
            scheduleImmediately: { _, action in mainQueue.schedule { self.perform(action) } },
            delayed: { date, tolerance, _, action in
                mainQueue.schedule(after: dispatchTime(date), tolerance: dispatchStride(tolerance)) { self.perform(action) }
            },
            interval: { date, interval, tolerance, _, action in
                mainQueue.schedule(after: dispatchTime(date), interval: dispatchStride(interval),
                                   tolerance: dispatchStride(tolerance)) { self.perform(action) }
            })
    }
}
