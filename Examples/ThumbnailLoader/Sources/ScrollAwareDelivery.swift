import Foundation
import Sluice
import SluiceSchedulers

/// The delivery scheduler that holds results while the user scrolls: a serial queue of
/// delivery actions, drained on the main queue normally and on the run loop while scrolling.
///
/// Why not simply pick a scheduler per scheduled action: Combine's `receive(on:)` schedules
/// each value as its own action. Choosing `DispatchQueue.main` or `RunLoop.main` action by
/// action would let an action queued on the main queue just before scrolling began run during
/// the scroll (the main queue keeps delivering while the run loop tracks), and would let an
/// action sent to the main queue just after scrolling ended overtake results still held by the
/// run loop. So the actions wait here in one FIFO, and one drain at a time runs them: on the
/// main queue, it checks before each action whether scrolling has begun and, if so, moves
/// itself to the run loop, which holds it until the run loop leaves its tracking mode (the
/// hold is the run loop's, as with `RunLoop.main` on Apple platforms; the flag only chooses the scheduler). Results are
/// therefore delivered in the order they were scheduled, and none is delivered from the main
/// queue while `isScrolling` is true.
final class ScrollAwareDelivery: @unchecked Sendable {
    private enum Drain {
        case idle
        case scheduled
    }

    private let delivery: AnySchedulerOf<DispatchQueue>
    private let held: AnySchedulerOf<DispatchQueue>
    private let lock = NSLock()
    // Guarded by `lock`.
    private var scrolling = false
    private var pending: [() -> Void] = []
    private var drain = Drain.idle

    /// A delivery that runs on `delivery`, and on `held` while scrolling.
    init(delivery: AnySchedulerOf<DispatchQueue>, held: AnySchedulerOf<DispatchQueue>) {
        self.delivery = delivery
        self.held = held
    }

    /// Records whether the user is scrolling; from any thread.
    func setScrolling(_ isScrolling: Bool) {
        lock.withLock { scrolling = isScrolling }
    }

    /// The scheduler to hand to `receive(on:)`. Its clock is the delivery scheduler's; delayed
    /// and repeating work waits there and then joins the queue.
    var scheduler: AnySchedulerOf<DispatchQueue> {
        AnyScheduler(
            minimumTolerance: { self.delivery.minimumTolerance },
            now: { self.delivery.now },
            scheduleImmediately: { _, action in self.enqueue(action) },
            delayed: { date, tolerance, options, action in
                self.delivery.schedule(after: date, tolerance: tolerance, options: options) { self.enqueue(action) }
            },
            interval: { date, interval, tolerance, options, action in
                self.delivery.schedule(after: date, interval: interval, tolerance: tolerance, options: options) {
                    self.enqueue(action)
                }
            })
    }

    private func enqueue(_ action: @escaping () -> Void) {
        let start: (scheduler: AnySchedulerOf<DispatchQueue>, onHeld: Bool)? = lock.withLock {
            pending.append(action)
            guard case .idle = drain else { return nil }
            drain = .scheduled
            return scrolling ? (held, true) : (delivery, false)
        }
        guard let start else { return }
        start.scheduler.schedule { self.run(onHeld: start.onHeld) }
    }

    /// Runs the queued actions in order; on the delivery scheduler it stops and moves to the
    /// held one as soon as scrolling has begun.
    private func run(onHeld: Bool) {
        while true {
            enum Step { case done, move, run(() -> Void) }
            let step: Step = lock.withLock {
                if pending.isEmpty {
                    drain = .idle
                    return .done
                }
                if !onHeld && scrolling { return .move }
                return .run(pending.removeFirst())
            }
            switch step {
            case .done:
                return
            case .move:
                held.schedule { self.run(onHeld: true) }
                return
            case .run(let action):
                action()
            }
        }
    }
}
