import Foundation
#if canImport(CoreFoundation)
import CoreFoundation
#endif

extension RunLoop: Scheduler {
    /// The scheduler time type used by the run loop.
    public struct SchedulerTimeType: _DateSchedulerTime {
        /// The date represented by this type.
        public var date: Date

        /// Initializes a run loop scheduler time with the given date.
        public init(_ date: Date) {
            self.date = date
        }

        /// The interval by which run loop times advance, in seconds.
        public struct Stride: _SecondsStride {
            public typealias FloatLiteralType = TimeInterval
            public typealias IntegerLiteralType = TimeInterval
            public typealias Magnitude = TimeInterval

            /// The value of this time interval in seconds.
            public var magnitude: TimeInterval

            /// The value of this time interval in seconds.
            public var timeInterval: TimeInterval { magnitude }

            /// Creates a stride of the given number of seconds.
            public init(_ timeInterval: TimeInterval) { magnitude = timeInterval }
        }
    }

    /// Options that affect the operation of the run loop scheduler (none).
    public struct SchedulerOptions: Sendable {}

    /// The minimum tolerance allowed by the scheduler.
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// This scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(Date()) }

    /// Performs the action the next time the run loop runs in its default mode.
    ///
    /// Only the default mode: while the run loop runs in another mode (a tracking-style mode,
    /// as while a scroll view is dragged), delivery waits, as Combine's `RunLoop` scheduler does.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedSendable(action)
        perform(inModes: [.default]) { work.value() }
        wakeUp()
    }

    /// Wakes the run loop so that a block performed from another thread runs without waiting for
    /// the next unrelated event. Foundation on Linux does not expose a run loop's CFRunLoop, so
    /// the main and current loops are woken directly and any other loop by a timer due now.
    private func wakeUp() {
        if self === RunLoop.main {
            CFRunLoopWakeUp(CFRunLoopGetMain())
        } else if self === RunLoop.current {
            CFRunLoopWakeUp(CFRunLoopGetCurrent())
        } else {
            add(Timer(fire: Date(), interval: 0, repeats: false) { _ in }, forMode: .default)
        }
    }

    /// Performs the action when the run loop, running in its default mode, reaches the date.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedSendable(action)
        let timer = Timer(fire: date.date, interval: 0, repeats: false) { _ in work.value() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
        wakeUp()
    }

    /// Performs the action at the date and then every interval, in the run loop's default mode,
    /// until the returned cancellable is cancelled.
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        let work = UncheckedSendable(action)
        let timer = Timer(fire: date.date, interval: interval.timeInterval, repeats: true) { _ in work.value() }
        timer.tolerance = tolerance.timeInterval
        add(timer, forMode: .default)
        wakeUp()
        let handle = UncheckedSendable(timer)
        return AnyCancellable { handle.value.invalidate() }
    }
}

/// What `RunLoop.SchedulerTimeType` and `OperationQueue.SchedulerTimeType` share: a `Date`,
/// measured in seconds. Not meant to be adopted elsewhere.
public protocol _DateSchedulerTime: Strideable, Codable, Hashable, Sendable where Stride: _SecondsStride {
    var date: Date { get set }
    init(_ date: Date)
}

extension _DateSchedulerTime {
    /// Returns the distance to another time, in seconds.
    public func distance(to other: Self) -> Stride {
        Stride(other.date.timeIntervalSinceReferenceDate - date.timeIntervalSinceReferenceDate)
    }

    /// Returns the time advanced by the given interval.
    public func advanced(by n: Stride) -> Self {
        Self(date.addingTimeInterval(n.timeInterval))
    }
}

/// What `RunLoop.SchedulerTimeType.Stride` and `OperationQueue.SchedulerTimeType.Stride` share:
/// a `TimeInterval` in seconds with the arithmetic, literals and unit conversions of a
/// scheduler stride. Combine declares the two structs separately; Sluice writes their behaviour
/// once, here. Not meant to be adopted elsewhere.
public protocol _SecondsStride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
    ExpressibleByFloatLiteral, Codable, Sendable
    where FloatLiteralType == TimeInterval, IntegerLiteralType == TimeInterval, Magnitude == TimeInterval
{
    var magnitude: TimeInterval { get set }
    var timeInterval: TimeInterval { get }
    init(_ timeInterval: TimeInterval)
}

extension _SecondsStride {
    public init(integerLiteral value: TimeInterval) { self.init(value) }
    public init(floatLiteral value: TimeInterval) { self.init(value) }

    /// Creates a stride of `source` seconds, if it is exactly representable.
    public init?<T: BinaryInteger>(exactly source: T) {
        guard let value = TimeInterval(exactly: source) else { return nil }
        self.init(value)
    }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.magnitude < rhs.magnitude }
    public static func * (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude * rhs.magnitude) }
    public static func + (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude + rhs.magnitude) }
    public static func - (lhs: Self, rhs: Self) -> Self { Self(lhs.magnitude - rhs.magnitude) }
    public static func -= (lhs: inout Self, rhs: Self) { lhs = lhs - rhs }
    public static func *= (lhs: inout Self, rhs: Self) { lhs = lhs * rhs }
    public static func += (lhs: inout Self, rhs: Self) { lhs = lhs + rhs }

    public static func seconds(_ s: Int) -> Self { Self(TimeInterval(s)) }
    public static func seconds(_ s: Double) -> Self { Self(s) }
    public static func milliseconds(_ ms: Int) -> Self { Self(TimeInterval(ms) / 1_000) }
    public static func microseconds(_ us: Int) -> Self { Self(TimeInterval(us) / 1_000_000) }
    public static func nanoseconds(_ ns: Int) -> Self { Self(TimeInterval(ns) / 1_000_000_000) }
}
