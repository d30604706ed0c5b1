import Sluice
import Foundation
import Synchronization

/// A scheduler for the main thread that runs work at once when it can.
///
/// "The main thread" here is where Swift's main actor runs: the main queue, on whichever thread
/// drains it (under `dispatchMain()`, not the process's first thread).
///
/// ``shared`` runs an action immediately when called on the main thread with none of its own
/// actions still queued, and otherwise hops to the main queue, behind what it queued before
/// (so order is kept): RxSwift's `MainScheduler.instance`. ``asynchronous`` always hops:
/// `MainScheduler.asyncInstance`. Both run on the main thread, so a `@MainActor` closure after a
/// `receive(on:)` to either satisfies Swift's main-actor check.
///
/// Its time type is `DispatchQueue`'s and it takes no options (`Never`), as in combine-schedulers:
/// erased, it is an `AnySchedulerOf<UIScheduler>` (``AnyScheduler/shared``), not an
/// `AnySchedulerOf<DispatchQueue>`.
public struct UIScheduler: Scheduler, Sendable {
    public typealias SchedulerTimeType = DispatchQueue.SchedulerTimeType
    public typealias SchedulerOptions = Never

    /// Runs work inline on the main thread when nothing of its own is queued.
    public static let shared = UIScheduler(inline: true)

    /// Always hops to the main queue, even from the main thread.
    public static let asynchronous = UIScheduler(inline: false)

    private let inline: Bool

    /// Actions `shared` has queued on the main queue and not yet run; while there are any, a new
    /// action queues behind them instead of running inline.
    private static let queued = Atomic<Int>(0)

    private init(inline: Bool) {
        self.inline = inline
    }

    public var now: SchedulerTimeType { DispatchQueue.main.now }

    public var minimumTolerance: SchedulerTimeType.Stride { DispatchQueue.main.minimumTolerance }

    public func schedule(options: SchedulerOptions? = nil, _ action: @escaping () -> Void) {
        if inline, MainActorContext.isCurrent, UIScheduler.queued.load(ordering: .acquiring) == 0 {
            action()
            return
        }
        UIScheduler.queued.add(1, ordering: .acquiringAndReleasing)
        DispatchQueue.main.schedule(options: nil) {
            UIScheduler.queued.subtract(1, ordering: .acquiringAndReleasing)
            action()
        }
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions? = nil, _ action: @escaping () -> Void) {
        DispatchQueue.main.schedule(after: date, tolerance: tolerance, options: nil, action)
    }

    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions? = nil,
                         _ action: @escaping () -> Void) -> Cancellable {
        DispatchQueue.main.schedule(after: date, interval: interval, tolerance: tolerance, options: nil, action)
    }
}

extension UIScheduler {
    /// A scheduler with the main queue's time type that runs everything at once.
    public static var immediate: ImmediateSchedulerOf<UIScheduler> {
        ImmediateScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }

    /// A new test scheduler with the main queue's time type and no options.
    public static var test: TestSchedulerOf<UIScheduler> {
        TestScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}
