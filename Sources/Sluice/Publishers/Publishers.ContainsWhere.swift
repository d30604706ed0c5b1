extension Publishers {
    /// A publisher that emits a Boolean value upon receiving an element that satisfies the
    /// predicate closure.
    ///
    /// The upstream is cancelled as soon as an element satisfies the predicate and `true` is
    /// published; `false` is published if the upstream finishes first.
    public struct ContainsWhere<Upstream: Publisher>: Publisher {
        public typealias Output = Bool
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether the publisher should consider an element as a
        /// match.
        public let predicate: (Upstream.Output) -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: BooleanSearch<Upstream, Upstream.Failure>(
                    name: "ContainsWhere", decisive: true, predicate: predicate)))
        }
    }

    /// A publisher that emits a Boolean value upon receiving an element that satisfies the
    /// throwing predicate closure.
    ///
    /// If the predicate throws, the upstream is cancelled and the publisher fails with the error.
    public struct TryContainsWhere<Upstream: Publisher>: Publisher {
        public typealias Output = Bool
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether this publisher should emit a
        /// `true` element.
        public let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Bool, S.Failure == Error {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: BooleanSearch<Upstream, Error>(name: "TryContainsWhere", decisive: true, predicate: predicate)))
        }
    }
}

extension Publisher {
    /// Publishes a Boolean value upon receiving an element that satisfies the predicate closure.
    ///
    /// The upstream is cancelled at the first match; `false` is published if the upstream
    /// finishes without one.
    @inlinable
    public func contains(where predicate: @escaping (Output) -> Bool) -> Publishers.ContainsWhere<Self> {
        Publishers.ContainsWhere(upstream: self, predicate: predicate)
    }

    /// Publishes a Boolean value upon receiving an element that satisfies the throwing
    /// predicate closure. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryContains(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryContainsWhere<Self> {
        Publishers.TryContainsWhere(upstream: self, predicate: predicate)
    }
}
