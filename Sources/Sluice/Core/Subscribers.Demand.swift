extension Subscribers {
    /// A requested number of items, sent to a publisher from a subscriber through the
    /// subscription.
    ///
    /// Demand only grows by addition: a subscriber's `request(_:)` and the value its
    /// `receive(_:)` returns are added to what it has already asked for. `.unlimited` absorbs any
    /// addition, subtraction never goes below `.none`, and arithmetic that would overflow
    /// saturates at `.unlimited`.
    @frozen
    public struct Demand: Equatable, Comparable, Hashable, Codable, CustomStringConvertible,
        Sendable
    {
        /// `UInt(Int.max) + 1` stands for unlimited; every finite demand fits in an `Int`.
        @usableFromInline
        internal let rawValue: UInt

        @inlinable
        internal init(rawValue: UInt) {
            self.rawValue = Swift.min(rawValue, Demand.unlimitedRawValue)
        }

        @inlinable
        internal static var unlimitedRawValue: UInt { UInt(Int.max) + 1 }

        /// A request for as many values as the publisher can produce.
        ///
        /// Computed rather than stored (Combine declares a `static let`): a stored static
        /// costs a lazy-initialisation check on every use in a hot path.
        @inlinable
        public static var unlimited: Demand { Demand(rawValue: unlimitedRawValue) }

        /// A request for no elements from the publisher.
        ///
        /// This is equivalent to `Demand.max(0)`.
        @inlinable
        public static var none: Demand { Demand(rawValue: 0) }

        /// Creates a demand for the given maximum number of elements.
        ///
        /// The publisher is free to send fewer than the requested maximum number of elements.
        /// A negative value stops the program, as in Combine.
        @inlinable
        public static func max(_ value: Int) -> Demand {
            precondition(value >= 0, "Subscribers.Demand.max(_:) requires a non-negative value, got \(value)")
            return Demand(rawValue: UInt(value))
        }

        public var description: String {
            self == .unlimited ? "unlimited" : "max(\(rawValue))"
        }

        /// The number of requested values, or `nil` if the demand is `.unlimited`.
        @inlinable
        public var max: Int? {
            rawValue == Demand.unlimitedRawValue ? nil : Int(rawValue)
        }

        // MARK: Arithmetic

        /// Adds two demands. Adding anything to `.unlimited` gives `.unlimited`.
        @inlinable
        public static func + (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRawValue || rhs.rawValue == unlimitedRawValue {
                return .unlimited
            }
            let (sum, overflow) = Int(lhs.rawValue).addingReportingOverflow(Int(rhs.rawValue))
            return overflow ? .unlimited : Demand(rawValue: UInt(sum))
        }

        /// Adds two demands, and assigns the result to the first demand.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Demand) {
            lhs = lhs + rhs
        }

        /// Adds an integer to a demand. Adding a negative integer subtracts, down to `.none`.
        @inlinable
        public static func + (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == unlimitedRawValue { return .unlimited }
            let (sum, overflow) = Int(lhs.rawValue).addingReportingOverflow(rhs)
            if overflow { return rhs < 0 ? .none : .unlimited }
            return Demand(rawValue: UInt(Swift.max(sum, 0)))
        }

        /// Adds an integer to a demand, and assigns the result to the demand.
        @inlinable
        public static func += (lhs: inout Demand, rhs: Int) {
            lhs = lhs + rhs
        }

        /// Multiplies a demand by an integer. `.unlimited` stays `.unlimited`; overflow saturates
        /// at `.unlimited`. A negative product stops the program, as `.max(_:)` of a negative
        /// number does: Combine's multiplication does not clamp as its subtraction does.
        @inlinable
        public static func * (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == unlimitedRawValue { return .unlimited }
            let (product, overflow) = Int(lhs.rawValue).multipliedReportingOverflow(by: rhs)
            if overflow { return .unlimited }
            return .max(product)
        }

        /// Multiplies a demand by an integer, and assigns the result to the demand.
        @inlinable
        public static func *= (lhs: inout Demand, rhs: Int) {
            lhs = lhs * rhs
        }

        /// Subtracts one demand from another.
        ///
        /// Subtracting anything (including `.unlimited`) from `.unlimited` gives `.unlimited`;
        /// subtracting `.unlimited` from a finite demand gives `.none`; a result that would be
        /// negative is `.none`.
        @inlinable
        public static func - (lhs: Demand, rhs: Demand) -> Demand {
            if lhs.rawValue == unlimitedRawValue { return .unlimited }
            if rhs.rawValue == unlimitedRawValue { return .none }
            return lhs.rawValue > rhs.rawValue ? Demand(rawValue: lhs.rawValue - rhs.rawValue) : .none
        }

        /// Subtracts one demand from another, and assigns the result to the first demand.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Demand) {
            lhs = lhs - rhs
        }

        /// Subtracts an integer from a demand. `.unlimited` stays `.unlimited`; a result that
        /// would be negative is `.none`.
        @inlinable
        public static func - (lhs: Demand, rhs: Int) -> Demand {
            if lhs.rawValue == unlimitedRawValue { return .unlimited }
            // Combine answers `.none` when the subtraction overflows, even for a negative `rhs`.
            let (difference, overflow) = Int(lhs.rawValue).subtractingReportingOverflow(rhs)
            if overflow { return .none }
            return Demand(rawValue: UInt(Swift.max(difference, 0)))
        }

        /// Subtracts an integer from a demand, and assigns the result to the demand.
        @inlinable
        public static func -= (lhs: inout Demand, rhs: Int) {
            lhs = lhs - rhs
        }

        // MARK: Comparison with integers (`.unlimited` is greater than every integer)

        @inlinable
        public static func > (lhs: Demand, rhs: Int) -> Bool {
            lhs.rawValue == unlimitedRawValue || (rhs < 0 || lhs.rawValue > UInt(rhs))
        }

        @inlinable
        public static func >= (lhs: Demand, rhs: Int) -> Bool {
            lhs.rawValue == unlimitedRawValue || (rhs < 0 || lhs.rawValue >= UInt(rhs))
        }

        @inlinable
        public static func > (lhs: Int, rhs: Demand) -> Bool {
            !(rhs >= lhs)
        }

        @inlinable
        public static func >= (lhs: Int, rhs: Demand) -> Bool {
            !(rhs > lhs)
        }

        @inlinable
        public static func < (lhs: Demand, rhs: Int) -> Bool {
            !(lhs >= rhs)
        }

        @inlinable
        public static func < (lhs: Int, rhs: Demand) -> Bool {
            rhs > lhs
        }

        @inlinable
        public static func <= (lhs: Demand, rhs: Int) -> Bool {
            !(lhs > rhs)
        }

        @inlinable
        public static func <= (lhs: Int, rhs: Demand) -> Bool {
            rhs >= lhs
        }

        @inlinable
        public static func < (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue < rhs.rawValue
        }

        @inlinable
        public static func <= (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue <= rhs.rawValue
        }

        @inlinable
        public static func >= (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue >= rhs.rawValue
        }

        @inlinable
        public static func > (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue > rhs.rawValue
        }

        // MARK: Equality with integers (`.unlimited` equals no integer)

        @inlinable
        public static func == (lhs: Demand, rhs: Int) -> Bool {
            lhs.rawValue != unlimitedRawValue && rhs >= 0 && lhs.rawValue == UInt(rhs)
        }

        @inlinable
        public static func != (lhs: Demand, rhs: Int) -> Bool {
            !(lhs == rhs)
        }

        @inlinable
        public static func == (lhs: Int, rhs: Demand) -> Bool {
            rhs == lhs
        }

        @inlinable
        public static func != (lhs: Int, rhs: Demand) -> Bool {
            !(rhs == lhs)
        }

        @inlinable
        public static func == (lhs: Demand, rhs: Demand) -> Bool {
            lhs.rawValue == rhs.rawValue
        }

        // MARK: Codable: a single unsigned integer, as Combine encodes it

        public init(from decoder: Decoder) throws {
            let container = try decoder.singleValueContainer()
            self.init(rawValue: try container.decode(UInt.self))
        }

        public func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            try container.encode(rawValue)
        }

        @inlinable
        public func hash(into hasher: inout Hasher) {
            hasher.combine(rawValue)
        }
    }
}

extension Subscribers.Demand {
    /// Stops the program when a subscriber requests nothing, which Combine treats as API misuse.
    @inlinable
    package func assertNonZero(file: StaticString = #file, line: UInt = #line) {
        precondition(rawValue != 0, "API Violation: demand must not be zero", file: file, line: line)
    }
}
