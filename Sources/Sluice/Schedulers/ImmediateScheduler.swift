/// A scheduler for performing synchronous actions.
///
/// You can only use this scheduler for immediate actions. If you attempt to schedule actions
/// after a specific date, this scheduler ignores the date and performs them immediately; a
/// repeating action runs once.
public struct ImmediateScheduler: Scheduler {
    /// The time type used by the immediate scheduler: every instant is the same instant.
    public struct SchedulerTimeType: Strideable {
        @inlinable
        internal init() {}

        /// Returns the distance to another immediate scheduler time; always zero.
        @inlinable
        public func distance(to other: SchedulerTimeType) -> Stride { 0 }

        /// Adds the specified distance to this instance; the result is the same instant.
        @inlinable
        public func advanced(by n: Stride) -> SchedulerTimeType { self }

        /// The increment by which the immediate scheduler counts time.
        public struct Stride: ExpressibleByFloatLiteral, Comparable, SignedNumeric, Codable,
            SchedulerTimeIntervalConvertible
        {
            public typealias FloatLiteralType = Double
            public typealias IntegerLiteralType = Int
            public typealias Magnitude = Int

            /// The value of this time interval.
            public var magnitude: Int

            /// Creates an immediate scheduler time interval from the given time interval.
            @inlinable
            public init(_ value: Int) { magnitude = value }

            @inlinable
            public init(integerLiteral value: Int) { self.init(value) }

            @inlinable
            public init(floatLiteral value: Double) { self.init(Int(value)) }

            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let value = Int(exactly: source) else { return nil }
                self.init(value)
            }

            @inlinable
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }
            @inlinable
            public static func == (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude == rhs.magnitude }

            private enum CodingKeys: String, CodingKey {
                case magnitude
            }

            public init(from decoder: Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                magnitude = try container.decode(Int.self, forKey: .magnitude)
            }

            public func encode(to encoder: Encoder) throws {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(magnitude, forKey: .magnitude)
            }
            @inlinable
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude * rhs.magnitude) }
            @inlinable
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude + rhs.magnitude) }
            @inlinable
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(lhs.magnitude - rhs.magnitude) }
            @inlinable
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }
            @inlinable
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }
            @inlinable
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            /// Immediate time has no duration: every conversion is zero, as in Combine.
            @inlinable
            public static func seconds(_ s: Int) -> Stride { 0 }
            @inlinable
            public static func seconds(_ s: Double) -> Stride { 0 }
            @inlinable
            public static func milliseconds(_ ms: Int) -> Stride { 0 }
            @inlinable
            public static func microseconds(_ us: Int) -> Stride { 0 }
            @inlinable
            public static func nanoseconds(_ ns: Int) -> Stride { 0 }
        }
    }

    /// A type that defines options accepted by the immediate scheduler.
    public typealias SchedulerOptions = Never

    /// The shared instance of the immediate scheduler.
    // A value with no state; not `Sendable`, as in Combine.
    nonisolated(unsafe) public static let shared = ImmediateScheduler()

    @inlinable
    internal init() {}

    /// The immediate scheduler's definition of the current moment in time.
    @inlinable
    public var now: SchedulerTimeType { SchedulerTimeType() }

    /// The minimum tolerance allowed by the immediate scheduler.
    @inlinable
    public var minimumTolerance: SchedulerTimeType.Stride { 0 }

    /// Performs the action at once.
    @inlinable
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Performs the action at once, ignoring the date.
    @inlinable
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        action()
    }

    /// Performs the action once, at once, and returns a cancellable that does nothing.
    @inlinable
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        action()
        return Subscriptions.empty
    }
}
