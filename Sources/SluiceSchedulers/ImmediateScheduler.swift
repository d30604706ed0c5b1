import Sluice
import Foundation

/// A scheduler that runs every action at once, synchronously, with a clock that stands still,
/// in any scheduler's time type.
///
/// Combine's non-generic `ImmediateScheduler` has a time type of its own, so it cannot stand in
/// for a `DispatchQueue` behind `AnySchedulerOf<DispatchQueue>`; this one can:
/// `AnyScheduler(DispatchQueue.immediate)` makes a model's work synchronous in a test. A
/// repeating action runs once.
public struct ImmediateScheduler<SchedulerTimeType: Strideable, SchedulerOptions>: Scheduler, @unchecked Sendable
    where SchedulerTimeType.Stride: SchedulerTimeIntervalConvertible
{
    /// The scheduler's fixed notion of now.
    public let now: SchedulerTimeType

    /// Creates a scheduler whose clock stands at `now`.
    public init(now: SchedulerTimeType) {
        self.now = now
    }

    public var minimumTolerance: SchedulerTimeType.Stride { .zero }

    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        action()
        return AnyCancellable {}
    }
}

/// The instant scheduler with a scheduler's time and options types.
public typealias ImmediateSchedulerOf<S: Scheduler> = ImmediateScheduler<S.SchedulerTimeType, S.SchedulerOptions>

extension DispatchQueue {
    /// A scheduler with dispatch time that runs everything at once.
    public static var immediate: ImmediateSchedulerOf<DispatchQueue> {
        ImmediateScheduler(now: SchedulerTimeType(DispatchTime(uptimeNanoseconds: 1)))
    }
}

extension RunLoop {
    /// A scheduler with run loop time that runs everything at once.
    public static var immediate: ImmediateSchedulerOf<RunLoop> {
        ImmediateScheduler(now: SchedulerTimeType(Date(timeIntervalSince1970: 0)))
    }
}

extension OperationQueue {
    /// A scheduler with operation queue time that runs everything at once.
    public static var immediate: ImmediateSchedulerOf<OperationQueue> {
        ImmediateScheduler(now: SchedulerTimeType(Date(timeIntervalSince1970: 0)))
    }
}
