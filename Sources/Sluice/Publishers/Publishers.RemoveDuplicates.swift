extension Publishers {
    /// A publisher that publishes only elements that don't match the previous element.
    ///
    /// Each element is compared with the last element passed on (the first always passes); a
    /// duplicate is dropped and replaced by a request for one more.
    public struct RemoveDuplicates<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure to evaluate whether two elements are equivalent, for purposes of filtering.
        public let predicate: (Upstream.Output, Upstream.Output) -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous
        /// element, as evaluated by a provided closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: RemoveDuplicatesTransform<Upstream, Upstream.Failure>(
                    name: "RemoveDuplicates", isDuplicate: predicate)))
        }
    }

    /// A publisher that publishes only elements that don't match the previous element, as
    /// evaluated by a provided error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    public struct TryRemoveDuplicates<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure to evaluate whether two elements are equivalent, for
        /// purposes of filtering.
        public let predicate: (Upstream.Output, Upstream.Output) throws -> Bool

        /// Creates a publisher that publishes only elements that don't match the previous
        /// element, as evaluated by a provided error-throwing closure.
        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output, Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Upstream.Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: RemoveDuplicatesTransform<Upstream, Error>(
                    name: "TryRemoveDuplicates", isDuplicate: predicate)))
        }
    }
}

/// `removeDuplicates(by:)` and `tryRemoveDuplicates(by:)`: skip a value that the predicate calls
/// a duplicate of the last value passed on.
@usableFromInline
internal struct RemoveDuplicatesTransform<Upstream: Publisher, Failure: Error>: ValueTransform {
    @usableFromInline
    internal typealias Output = Upstream.Output

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let isDuplicate: (Output, Output) throws -> Bool
    /// The last value passed on; the comparator is not called for the first value.
    @usableFromInline
    internal var last: Output?

    @inlinable
    internal init(name: String, isDuplicate: @escaping (Output, Output) throws -> Bool) {
        self.name = name
        self.isDuplicate = isDuplicate
    }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Failure> {
        .catching {
            if let last, try isDuplicate(last, input) {
                return .skip
            }
            last = input
            return .emit(input)
        }
    }

    @inlinable
    internal func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] {
        [(label: "downstream", value: downstream as Any), (label: "last", value: last as Any)]
    }
}

extension Publisher where Output: Equatable {
    /// Publishes only elements that don't match the previous element.
    @inlinable
    public func removeDuplicates() -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: ==)
    }
}

extension Publisher {
    /// Publishes only elements that don't match the previous element, as evaluated by a
    /// provided closure. The closure receives the last element passed on and the new one.
    @inlinable
    public func removeDuplicates(
        by predicate: @escaping (Output, Output) -> Bool
    ) -> Publishers.RemoveDuplicates<Self> {
        Publishers.RemoveDuplicates(upstream: self, predicate: predicate)
    }

    /// Publishes only elements that don't match the previous element, as evaluated by a
    /// provided error-throwing closure. A thrown error cancels the upstream and fails the
    /// stream.
    @inlinable
    public func tryRemoveDuplicates(
        by predicate: @escaping (Output, Output) throws -> Bool
    ) -> Publishers.TryRemoveDuplicates<Self> {
        Publishers.TryRemoveDuplicates(upstream: self, predicate: predicate)
    }
}
