extension Publishers {
    /// A publisher that transforms elements from the upstream publisher by providing the
    /// current element to a closure along with the last value returned by the closure.
    ///
    /// Every element produces one output (the new partial result). The upstream's subscription
    /// is passed straight through to the downstream.
    public struct Scan<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, for the first element.
        public let initialResult: Output

        /// A closure that takes the previous result and the next element, and returns the new
        /// result.
        public let nextPartialResult: (Output, Upstream.Output) -> Output

        /// Creates a publisher that publishes each partial result of accumulating the upstream's
        /// elements with a closure.
        @inlinable
        public init(
            upstream: Upstream,
            initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: Inner(
                downstream: subscriber, initialResult: initialResult, nextPartialResult: nextPartialResult))
        }
    }

    /// A publisher that transforms elements from the upstream publisher by providing the
    /// current element to a failable closure along with the last value returned by the
    /// closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    public struct TryScan<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The previous result, for the first element.
        public let initialResult: Output

        /// An error-throwing closure that takes the previous result and the next element, and
        /// returns the new result.
        public let nextPartialResult: (Output, Upstream.Output) throws -> Output

        /// Creates a publisher that publishes each partial result of accumulating the upstream's
        /// elements with an error-throwing closure.
        @inlinable
        public init(
            upstream: Upstream,
            initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output
        ) {
            self.upstream = upstream
            self.initialResult = initialResult
            self.nextPartialResult = nextPartialResult
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: TryScanTransform<Upstream, Output>(
                    initialResult: initialResult, nextPartialResult: nextPartialResult)))
        }
    }
}

extension Publishers.Scan {
    /// Passes the upstream's subscription straight through, as Combine's `Scan` does. A class,
    /// because it keeps the running result and `receive(_:)` is not mutating; the upstream
    /// calls it serially, so the result needs no lock.
    @usableFromInline
    internal final class Inner<Downstream: Subscriber>: Subscriber, DescribedByName
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let nextPartialResult: (Output, Upstream.Output) -> Output
        @usableFromInline
        internal var result: Output

        @inlinable
        internal init(
            downstream: Downstream,
            initialResult: Output,
            nextPartialResult: @escaping (Output, Upstream.Output) -> Output
        ) {
            self.downstream = downstream
            self.nextPartialResult = nextPartialResult
            result = initialResult
        }

        @inlinable
        internal func receive(subscription: Subscription) {
            downstream.receive(subscription: subscription)
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            result = nextPartialResult(result, input)
            return downstream.receive(result)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Failure>) {
            downstream.receive(completion: completion)
        }

        @usableFromInline
        internal var description: String { "Scan" }

        @usableFromInline
        internal var customMirror: Mirror {
            Mirror(self, children: ["downstream": downstream, "result": result])
        }
    }
}

@usableFromInline
internal struct TryScanTransform<Upstream: Publisher, Output>: ValueTransform {
    @usableFromInline
    internal typealias Failure = Error

    @usableFromInline
    internal let nextPartialResult: (Output, Upstream.Output) throws -> Output
    @usableFromInline
    internal var result: Output

    @inlinable
    internal init(initialResult: Output, nextPartialResult: @escaping (Output, Upstream.Output) throws -> Output) {
        result = initialResult
        self.nextPartialResult = nextPartialResult
    }

    @inlinable
    internal var name: String { "TryScan" }

    /// Combine's `TryScan` passes on values that arrive before its subscription, ignores such a
    /// completion, and ignores a cancel made before the subscription arrives.
    @inlinable
    internal static var beforeSubscription: BeforeSubscriptionPolicy { .process }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Error> {
        .catching {
            result = try nextPartialResult(result, input)
            return .emit(result)
        }
    }

    @inlinable
    internal func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] {
        [
            (label: "downstream", value: downstream as Any),
            (label: "status", value: status),
            (label: "result", value: result),
        ]
    }
}

extension Publisher {
    /// Transforms elements from the upstream publisher by providing the current element to a
    /// closure along with the last value returned by the closure, and publishes each result.
    @inlinable
    public func scan<T>(
        _ initialResult: T,
        _ nextPartialResult: @escaping (T, Output) -> T
    ) -> Publishers.Scan<Self, T> {
        Publishers.Scan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }

    /// Transforms elements from the upstream publisher by providing the current element to an
    /// error-throwing closure along with the last value returned by the closure. A thrown
    /// error cancels the upstream and fails the stream.
    @inlinable
    public func tryScan<T>(
        _ initialResult: T,
        _ nextPartialResult: @escaping (T, Output) throws -> T
    ) -> Publishers.TryScan<Self, T> {
        Publishers.TryScan(upstream: self, initialResult: initialResult, nextPartialResult: nextPartialResult)
    }
}
