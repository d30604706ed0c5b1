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
                transform: RemoveDuplicatesTransform<Upstream>(isDuplicate: predicate)))
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
                transform: TryRemoveDuplicatesTransform<Upstream>(isDuplicate: predicate)))
        }
    }
}

@usableFromInline
internal struct RemoveDuplicatesTransform<Upstream: Publisher>: ValueTransform {
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Output = Upstream.Output
    @usableFromInline
    internal typealias UpstreamFailure = Upstream.Failure
    @usableFromInline
    internal typealias Failure = Upstream.Failure

    @usableFromInline
    internal let isDuplicate: (Output, Output) -> Bool
    /// The last value passed on; the comparator is not called for the first value.
    @usableFromInline
    internal var last: Output?

    @inlinable
    internal init(isDuplicate: @escaping (Output, Output) -> Bool) {
        self.isDuplicate = isDuplicate
    }

    @inlinable
    internal var name: String { "RemoveDuplicates" }

    @inlinable
    internal mutating func receive(_ input: Input) -> TransformStep<Output, Failure> {
        if let last, isDuplicate(last, input) {
            return .skip
        }
        last = input
        return .emit(input)
    }

    @inlinable
    internal func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] {
        [(label: "downstream", value: downstream as Any), (label: "last", value: last as Any)]
    }
}

@usableFromInline
internal struct TryRemoveDuplicatesTransform<Upstream: Publisher>: ValueTransform {
    @usableFromInline
    internal typealias Input = Upstream.Output
    @usableFromInline
    internal typealias Output = Upstream.Output
    @usableFromInline
    internal typealias UpstreamFailure = Upstream.Failure
    @usableFromInline
    internal typealias Failure = Error

    @usableFromInline
    internal let isDuplicate: (Output, Output) throws -> Bool
    /// The last value passed on; the comparator is not called for the first value.
    @usableFromInline
    internal var last: Output?

    @inlinable
    internal init(isDuplicate: @escaping (Output, Output) throws -> Bool) {
        self.isDuplicate = isDuplicate
    }

    @inlinable
    internal var name: String { "TryRemoveDuplicates" }

    @inlinable
    internal mutating func receive(_ input: Input) -> TransformStep<Output, Error> {
        if let last {
            do {
                if try isDuplicate(last, input) { return .skip }
            } catch {
                return .fail(error)
            }
        }
        last = input
        return .emit(input)
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
