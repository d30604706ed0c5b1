import Sluice
import Foundation

/// A type-erasing scheduler that forwards everything, options included, to a scheduler with
/// the same time and options types.
///
/// A view model that stores `AnySchedulerOf<DispatchQueue>` can run on `DispatchQueue.main`
/// in production, on `DispatchQueue.test` (virtual time) in tests, and on
/// `DispatchQueue.immediate` in between. (`UIScheduler` takes no options, so it erases to
/// `AnySchedulerOf<UIScheduler>`, `.shared`.) The closure-based initialiser decorates a scheduler
/// (log, trace, count) without writing a type.
public struct AnyScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    @usableFromInline
    internal let minimumToleranceThunk: () -> SchedulerTimeType.Stride
    @usableFromInline
    internal let nowThunk: () -> SchedulerTimeType
    @usableFromInline
    internal let scheduleImmediately: (SchedulerOptions?, @escaping () -> Void) -> Void
    @usableFromInline
    internal let scheduleDelayed: (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void
    @usableFromInline
    internal let scheduleInterval: (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride,
                                    SchedulerOptions?, @escaping () -> Void) -> Cancellable

    /// Creates a scheduler from closures: one per requirement of `Scheduler`. `now` and
    /// `minimumTolerance` are read afresh on every access.
    public init(
        minimumTolerance: @escaping () -> SchedulerTimeType.Stride,
        now: @escaping () -> SchedulerTimeType,
        scheduleImmediately: @escaping (SchedulerOptions?, @escaping () -> Void) -> Void,
        delayed: @escaping (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerOptions?, @escaping () -> Void) -> Void,
        interval: @escaping (SchedulerTimeType, SchedulerTimeType.Stride, SchedulerTimeType.Stride, SchedulerOptions?,
                             @escaping () -> Void) -> Cancellable
    ) {
        minimumToleranceThunk = minimumTolerance
        nowThunk = now
        self.scheduleImmediately = scheduleImmediately
        scheduleDelayed = delayed
        scheduleInterval = interval
    }

    /// Wraps a scheduler, forwarding its options.
    public init<S: Scheduler>(_ scheduler: S)
        where S.SchedulerTimeType == SchedulerTimeType, S.SchedulerOptions == SchedulerOptions
    {
        if let erased = scheduler as? AnyScheduler<SchedulerTimeType, SchedulerOptions> {
            self = erased
            return
        }
        self.init(
            minimumTolerance: { scheduler.minimumTolerance },
            now: { scheduler.now },
            scheduleImmediately: { scheduler.schedule(options: $0, $1) },
            delayed: { scheduler.schedule(after: $0, tolerance: $1, options: $2, $3) },
            interval: { scheduler.schedule(after: $0, interval: $1, tolerance: $2, options: $3, $4) })
    }

    @inlinable
    public var now: SchedulerTimeType { nowThunk() }

    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride { minimumToleranceThunk() }

    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        scheduleImmediately(options, action)
    }

    @inlinable
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        scheduleDelayed(date, tolerance, options, action)
    }

    @inlinable
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        scheduleInterval(date, interval, tolerance, options, action)
    }
}

/// The type-erased scheduler with a scheduler's time and options types:
/// `AnySchedulerOf<DispatchQueue>`.
public typealias AnySchedulerOf<S: Scheduler> = AnyScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension Scheduler {
    /// Wraps this scheduler with a type eraser.
    public func eraseToAnyScheduler() -> AnyScheduler<SchedulerTimeType, SchedulerOptions> {
        AnyScheduler(self)
    }
}

extension AnyScheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == DispatchQueue.SchedulerOptions {
    /// `DispatchQueue.main`, erased.
    public static var main: Self { AnyScheduler(DispatchQueue.main) }
    /// A global dispatch queue, erased.
    public static func global(qos: DispatchQoS.QoSClass = .default) -> Self { AnyScheduler(DispatchQueue.global(qos: qos)) }
    /// `DispatchQueue.immediate`, erased.
    public static var immediate: Self { AnyScheduler(DispatchQueue.immediate) }
}

extension AnyScheduler where SchedulerTimeType == DispatchQueue.SchedulerTimeType, SchedulerOptions == Never {
    /// `UIScheduler.shared`, erased: inline on the main thread when nothing is queued.
    public static var shared: Self { AnyScheduler(UIScheduler.shared) }
}

extension AnyScheduler where SchedulerTimeType == RunLoop.SchedulerTimeType, SchedulerOptions == RunLoop.SchedulerOptions {
    /// `RunLoop.main`, erased.
    public static var main: Self { AnyScheduler(RunLoop.main) }
    /// `RunLoop.immediate`, erased.
    public static var immediate: Self { AnyScheduler(RunLoop.immediate) }
}

extension AnyScheduler where SchedulerTimeType == OperationQueue.SchedulerTimeType, SchedulerOptions == OperationQueue.SchedulerOptions {
    /// `OperationQueue.main`, erased.
    public static var main: Self { AnyScheduler(OperationQueue.main) }
    /// `OperationQueue.immediate`, erased.
    public static var immediate: Self { AnyScheduler(OperationQueue.immediate) }
}
