extension Publishers {
    /// A publisher that republishes the extreme element of its upstream, as decided by an
    /// ordering closure, when the upstream finishes.
    ///
    /// It keeps the first element it receives, and replaces the kept element with a new one
    /// when `areInIncreasingOrder(new, kept)` returns `true`, as Combine's does (a suite run
    /// against Apple's Combine builds it with `>` and gets the maximum): so an
    /// `areInIncreasingOrder` of `<` keeps the minimum, `>` the maximum, and of equal elements
    /// the one that came first. `max(by:)` builds it with the arguments of its closure swapped.
    /// An empty upstream publishes only `.finished`.
    public struct Comparison<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns `true` if they are in increasing
        /// order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) -> Bool

        @inlinable
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Upstream.Output, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ComparisonKeep<Upstream, Upstream.Failure>(
                    name: "Comparison", areInIncreasingOrder: areInIncreasingOrder)))
        }
    }

    /// A publisher that republishes the extreme element of its upstream, as decided by an
    /// error-throwing ordering closure, when the upstream finishes.
    ///
    /// If the closure throws, the upstream is cancelled and the publisher fails with the error.
    public struct TryComparison<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher that this publisher receives elements from.
        public let upstream: Upstream

        /// A closure that receives two elements and returns `true` if they are in increasing
        /// order.
        public let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool

        @inlinable
        public init(upstream: Upstream, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.areInIncreasingOrder = areInIncreasingOrder
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Upstream.Output, S.Failure == Error {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ComparisonKeep<Upstream, Error>(
                    name: "TryComparison", areInIncreasingOrder: areInIncreasingOrder)))
        }
    }
}

/// `min`/`max` and their `try` forms: keep the first element, replace it when
/// `areInIncreasingOrder(new, kept)`.
@usableFromInline
internal struct ComparisonKeep<Upstream: Publisher, Failure: Error>: ReduceLogic {
    @usableFromInline
    internal typealias Output = Upstream.Output

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let areInIncreasingOrder: (Upstream.Output, Upstream.Output) throws -> Bool
    @usableFromInline
    internal var kept: Output?

    @inlinable
    internal init(name: String, areInIncreasingOrder: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
        self.name = name
        self.areInIncreasingOrder = areInIncreasingOrder
    }

    @inlinable
    internal var result: Output? { kept }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> ReduceStep<Failure> {
        guard let current = kept else {
            // The closure is not called for the first element.
            kept = input
            return .proceed
        }
        return .catching {
            if try areInIncreasingOrder(input, current) {
                kept = input
            }
            return .proceed
        }
    }
}

extension Publisher where Output: Comparable {
    /// Publishes the minimum value received from the upstream publisher, after it finishes.
    ///
    /// Of equal minimal elements, the first one received is published.
    @inlinable
    public func min() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: <)
    }

    /// Publishes the maximum value received from the upstream publisher, after it finishes.
    ///
    /// Of equal maximal elements, the first one received is published.
    @inlinable
    public func max() -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: >)
    }
}

extension Publisher {
    /// Publishes the minimum value received from the upstream publisher, using the provided
    /// ordering closure, after the upstream finishes.
    ///
    /// `areInIncreasingOrder` is called as `(new, kept)`; of equal elements, the first one
    /// received is published.
    @inlinable
    public func min(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the minimum value received from the upstream publisher, using the provided
    /// error-throwing closure to order the items. A thrown error cancels the upstream and fails
    /// the stream.
    @inlinable
    public func tryMin(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self, areInIncreasingOrder: areInIncreasingOrder)
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided
    /// ordering closure, after the upstream finishes.
    ///
    /// `areInIncreasingOrder` is called as `(kept, new)`; of equal elements, the first one
    /// received is published.
    @inlinable
    public func max(by areInIncreasingOrder: @escaping (Output, Output) -> Bool) -> Publishers.Comparison<Self> {
        Publishers.Comparison(upstream: self) { new, kept in areInIncreasingOrder(kept, new) }
    }

    /// Publishes the maximum value received from the upstream publisher, using the provided
    /// error-throwing closure to order the items. A thrown error cancels the upstream and fails
    /// the stream.
    @inlinable
    public func tryMax(by areInIncreasingOrder: @escaping (Output, Output) throws -> Bool) -> Publishers.TryComparison<Self> {
        Publishers.TryComparison(upstream: self) { new, kept in try areInIncreasingOrder(kept, new) }
    }
}
