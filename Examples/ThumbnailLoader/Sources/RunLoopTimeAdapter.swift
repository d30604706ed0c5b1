import Foundation
import Sluice
import SluiceSchedulers

extension AnyScheduler
    where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions
{
    /// A run-loop scheduler (`RunLoop.main`, `RunLoop.test`, or any scheduler with run-loop
    /// time) seen through dispatch time, so that it can stand wherever an
    /// `AnySchedulerOf<DispatchQueue>` is expected.
    ///
    /// Work scheduled to run now goes straight to `scheduler`, so for `receive(on:)`, which only
    /// ever schedules now, the adapter changes nothing but the type. Instants are converted
    /// through an offset fixed when the adapter is made (the dispatch clock's reading and the
    /// run loop scheduler's `now` at that moment are the same instant), so a delay of 100 ms on
    /// the adapter is a delay of 100 ms on `scheduler`, real or virtual. Dispatch options (QoS,
    /// flags, group) have no run-loop equivalent and are dropped.
    public init<RunLoopScheduler: Scheduler>(runLoop scheduler: RunLoopScheduler)
        where RunLoopScheduler.SchedulerTimeType == RunLoop.SchedulerTimeType
    {
        let runLoopAnchor = scheduler.now
        let dispatchAnchor = DispatchQueue.SchedulerTimeType(.now())
        @Sendable func runLoopStride(_ stride: DispatchQueue.SchedulerTimeType.Stride) -> RunLoop.SchedulerTimeType.Stride {
            .seconds(Double(stride.magnitude) / 1_000_000_000)
        }
        // Run-loop time is a `Date`, a Double of seconds since 2001, exact to about 0.1 µs
        // today and coarser far from 2001 (at `RunLoop.test`'s 1970, 99 ms reads back as
        // 98.99998 ms): to the microsecond, a delay reads back as the delay that was set.
        @Sendable func dispatchStride(_ stride: RunLoop.SchedulerTimeType.Stride) -> DispatchQueue.SchedulerTimeType.Stride {
            .microseconds(Int((stride.magnitude * 1_000_000).rounded()))
        }
        @Sendable func runLoopTime(_ time: DispatchQueue.SchedulerTimeType) -> RunLoop.SchedulerTimeType {
            runLoopAnchor.advanced(by: runLoopStride(dispatchAnchor.distance(to: time)))
        }
        self.init(
            minimumTolerance: { dispatchStride(scheduler.minimumTolerance) },
            now: { dispatchAnchor.advanced(by: dispatchStride(runLoopAnchor.distance(to: scheduler.now))) },
            scheduleImmediately: { _, action in scheduler.schedule(options: nil, action) },
            delayed: { date, tolerance, _, action in
                scheduler.schedule(after: runLoopTime(date), tolerance: runLoopStride(tolerance), options: nil, action)
            },
            interval: { date, interval, tolerance, _, action in
                scheduler.schedule(after: runLoopTime(date), interval: runLoopStride(interval),
                                   tolerance: runLoopStride(tolerance), options: nil, action)
            })
    }
}
