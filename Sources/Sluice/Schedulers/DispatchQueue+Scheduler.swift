import Dispatch

extension DispatchQueue: Scheduler {
    /// The scheduler time type used by the dispatch queue.
    public struct SchedulerTimeType: Strideable, Codable, Hashable, Sendable {
        /// The dispatch time represented by this type.
        public var dispatchTime: DispatchTime

        /// Creates a dispatch queue time type instance.
        @inlinable
        public init(_ time: DispatchTime) {
            dispatchTime = time
        }

        /// Returns the distance to another dispatch queue time, in nanoseconds. A distance to or
        /// from `DispatchTime.distantFuture` is `.nanoseconds(.max)`, and so is one too large for
        /// an `Int`, in either direction, as in Combine.
        ///
        /// (Versions of Combine differ here: an early one trapped on a negative distance, and a
        /// third-party suite expects wrapping arithmetic; suites run against today's Combine
        /// found it saturating both ways, which is what this does.)
        @inlinable
        public func distance(to other: SchedulerTimeType) -> Stride {
            let start = dispatchTime.uptimeNanoseconds
            let end = other.dispatchTime.uptimeNanoseconds
            if start == end { return .nanoseconds(0) }
            let future = DispatchTime.distantFuture.uptimeNanoseconds
            if start >= future || end >= future { return .nanoseconds(.max) }
            if end >= start {
                let difference = end - start
                return .nanoseconds(difference > UInt64(Int.max) ? .max : Int(difference))
            }
            let difference = start - end
            return .nanoseconds(difference > UInt64(Int.max) ? .max : -Int(difference))
        }

        /// Returns a dispatch queue scheduler time calculated by advancing this instance's time
        /// by the given interval. Time does not go below its start; `.nanoseconds(.max)` is the
        /// distant future.
        @inlinable
        public func advanced(by n: Stride) -> SchedulerTimeType {
            if n.magnitude == .max { return SchedulerTimeType(.distantFuture) }
            let start = dispatchTime.uptimeNanoseconds
            if n.magnitude >= 0 {
                let (sum, overflow) = start.addingReportingOverflow(UInt64(n.magnitude))
                let future = DispatchTime.distantFuture.uptimeNanoseconds
                return SchedulerTimeType(overflow || sum >= future ? .distantFuture : DispatchTime(uptimeNanoseconds: sum))
            }
            let delta = n.magnitude == .min ? UInt64(Int.max) + 1 : UInt64(-n.magnitude)
            return SchedulerTimeType(DispatchTime(uptimeNanoseconds: start > delta ? start - delta : 1))
        }

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            self.init(DispatchTime(uptimeNanoseconds: try container.decode(UInt64.self)))
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(dispatchTime.uptimeNanoseconds)
        }

        @inlinable
        public static func == (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime.rawValue == rhs.dispatchTime.rawValue
        }

        /// Compares the raw dispatch times directly (Strideable's default would go through
        /// `distance(to:)`, which time-critical code such as a test scheduler's queue cannot afford).
        @inlinable
        public static func < (lhs: SchedulerTimeType, rhs: SchedulerTimeType) -> Bool {
            lhs.dispatchTime.rawValue < rhs.dispatchTime.rawValue
        }

        @inlinable
        public func hash(into hasher: inout Hasher) {
            hasher.combine(dispatchTime.rawValue)
        }

        /// A type that represents the distance between two values, in nanoseconds.
        public struct Stride: SchedulerTimeIntervalConvertible, Comparable, SignedNumeric,
            ExpressibleByFloatLiteral, Hashable, Codable, Sendable
        {
            public typealias FloatLiteralType = Double
            public typealias IntegerLiteralType = Int
            public typealias Magnitude = Int

            /// The value of this time interval in nanoseconds.
            public var magnitude: Int

            /// A `DispatchTimeInterval` created with the value of this type in nanoseconds.
            @inlinable
            public var timeInterval: DispatchTimeInterval { .nanoseconds(magnitude) }

            /// Creates a stride from a dispatch time interval, saturating where the interval does
            /// not fit in nanoseconds (`.never` is `Int.max` nanoseconds).
            @inlinable
            public init(_ timeInterval: DispatchTimeInterval) {
                switch timeInterval {
                case .seconds(let s): magnitude = Stride.saturatingProduct(s, 1_000_000_000)
                case .milliseconds(let ms): magnitude = Stride.saturatingProduct(ms, 1_000_000)
                case .microseconds(let us): magnitude = Stride.saturatingProduct(us, 1_000)
                case .nanoseconds(let ns): magnitude = ns
                case .never: magnitude = .max
                @unknown default: magnitude = .max
                }
            }

            @inlinable
            internal init(nanoseconds: Int) {
                magnitude = nanoseconds
            }

            /// An integer literal counts seconds.
            @inlinable
            public init(integerLiteral value: Int) {
                self = .seconds(value)
            }

            /// A floating-point literal counts seconds.
            @inlinable
            public init(floatLiteral value: Double) {
                self = .seconds(value)
            }

            /// Creates a stride of `source` nanoseconds, if it fits in an `Int`. (Unlike an
            /// integer literal, which counts seconds: Combine's `init(exactly:)` takes the value as
            /// the magnitude.)
            @inlinable
            public init?<T: BinaryInteger>(exactly source: T) {
                guard let nanoseconds = Int(exactly: source) else { return nil }
                magnitude = nanoseconds
            }

            @inlinable
            internal static func saturatingProduct(_ value: Int, _ factor: Int) -> Int {
                let (product, overflow) = value.multipliedReportingOverflow(by: factor)
                if overflow { return value < 0 ? .min : .max }
                return product
            }

            @inlinable
            public static func seconds(_ s: Int) -> Stride { Stride(nanoseconds: saturatingProduct(s, 1_000_000_000)) }

            /// A stride of `s` seconds. As in Combine, a value whose nanoseconds do not fit in an
            /// `Int` (or that is not finite) stops the program, where the integer factories saturate.
            @inlinable
            public static func seconds(_ s: Double) -> Stride {
                Stride(nanoseconds: Int(s * 1_000_000_000))
            }

            @inlinable
            public static func milliseconds(_ ms: Int) -> Stride { Stride(nanoseconds: saturatingProduct(ms, 1_000_000)) }

            @inlinable
            public static func microseconds(_ us: Int) -> Stride { Stride(nanoseconds: saturatingProduct(us, 1_000)) }

            @inlinable
            public static func nanoseconds(_ ns: Int) -> Stride { Stride(nanoseconds: ns) }

            @inlinable
            public static func < (lhs: Stride, rhs: Stride) -> Bool { lhs.magnitude < rhs.magnitude }

            @inlinable
            public static func + (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude + rhs.magnitude) }

            @inlinable
            public static func - (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: lhs.magnitude - rhs.magnitude) }

            /// Multiplying two durations has no meaning; like Combine, the product is zero.
            @inlinable
            public static func * (lhs: Stride, rhs: Stride) -> Stride { Stride(nanoseconds: 0) }

            @inlinable
            public static func += (lhs: inout Stride, rhs: Stride) { lhs = lhs + rhs }

            @inlinable
            public static func -= (lhs: inout Stride, rhs: Stride) { lhs = lhs - rhs }

            @inlinable
            public static func *= (lhs: inout Stride, rhs: Stride) { lhs = lhs * rhs }

            /// Encoded as Combine encodes it: `{"magnitude": nanoseconds}`.
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
        }
    }

    /// Options that affect the operation of the dispatch queue scheduler.
    public struct SchedulerOptions: @unchecked Sendable {
        /// The dispatch queue quality of service.
        public var qos: DispatchQoS
        /// The dispatch queue work item flags.
        public var flags: DispatchWorkItemFlags
        /// The dispatch group, if any, that should be used for performing actions.
        public var group: DispatchGroup?

        /// Creates dispatch queue scheduler options.
        public init(qos: DispatchQoS = .unspecified, flags: DispatchWorkItemFlags = [], group: DispatchGroup? = nil) {
            self.qos = qos
            self.flags = flags
            self.group = group
        }
    }

    /// The minimum tolerance allowed by the scheduler.
    public var minimumTolerance: SchedulerTimeType.Stride { .nanoseconds(0) }

    /// This scheduler's definition of the current moment in time.
    public var now: SchedulerTimeType { SchedulerTimeType(.now()) }

    /// Performs the action asynchronously on the queue, even when called from the queue itself.
    public func schedule(options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedSendable(action)
        let options = options ?? SchedulerOptions()
        if let group = options.group {
            async(group: group, qos: options.qos, flags: options.flags) { work.value() }
        } else {
            async(qos: options.qos, flags: options.flags) { work.value() }
        }
    }

    /// Performs the action on the queue at the given time.
    public func schedule(after date: SchedulerTimeType, tolerance: SchedulerTimeType.Stride,
                         options: SchedulerOptions?, _ action: @escaping () -> Void) {
        let work = UncheckedSendable(action)
        let options = options ?? SchedulerOptions()
        // asyncAfter has no group parameter: the group is entered now and left when the action
        // has run, as async(group:) would.
        let group = options.group
        group?.enter()
        asyncAfter(deadline: date.dispatchTime, qos: options.qos, flags: options.flags) {
            work.value()
            group?.leave()
        }
    }

    /// Performs the action on the queue at the given time and then at every interval, until the
    /// returned cancellable is cancelled. A dispatch timer source carries it.
    @discardableResult
    public func schedule(after date: SchedulerTimeType, interval: SchedulerTimeType.Stride,
                         tolerance: SchedulerTimeType.Stride, options: SchedulerOptions?,
                         _ action: @escaping () -> Void) -> Cancellable {
        let work = UncheckedSendable(action)
        let timer = DispatchSource.makeTimerSource(queue: self)
        // Each firing belongs to the options' group while it runs.
        let group = options?.group
        timer.setEventHandler(qos: options?.qos ?? .unspecified, flags: options?.flags ?? []) {
            group?.enter()
            work.value()
            group?.leave()
        }
        timer.schedule(deadline: date.dispatchTime, repeating: interval.timeInterval, leeway: tolerance.timeInterval)
        timer.resume()
        return AnyCancellable { timer.cancel() }
    }
}
