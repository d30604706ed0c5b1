extension Publishers {
    /// A publisher that waits until the upstream publisher finishes, then publishes the last
    /// element it received.
    ///
    /// It asks its upstream for an unlimited number of elements; the last one is published,
    /// with `.finished`, once the upstream finishes and the downstream has asked for anything.
    /// An empty upstream publishes only `.finished`.
    public struct Last<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Upstream.Output, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ElementSearch<Upstream, Upstream.Failure>(name: "Last", stopsAtFirstMatch: false) { _ in true }))
        }
    }

    /// A publisher that waits until the upstream publisher finishes, then publishes the last
    /// element it received that satisfies a predicate closure.
    public struct LastWhere<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Upstream.Output, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ElementSearch<Upstream, Upstream.Failure>(
                    name: "LastWhere", stopsAtFirstMatch: false, predicate: predicate)))
        }
    }

    /// A publisher that waits until the upstream publisher finishes, then publishes the last
    /// element it received that satisfies an error-throwing predicate closure.
    ///
    /// If the predicate throws, the upstream is cancelled and the publisher fails with the error.
    public struct TryLastWhere<Upstream: Publisher>: Publisher {
        public typealias Output = Upstream.Output
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that determines whether to publish an element.
        public let predicate: (Upstream.Output) throws -> Bool

        @inlinable
        public init(upstream: Upstream, predicate: @escaping (Upstream.Output) throws -> Bool) {
            self.upstream = upstream
            self.predicate = predicate
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where S.Input == Upstream.Output, S.Failure == Error {
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ElementSearch<Upstream, Error>(name: "TryLastWhere", stopsAtFirstMatch: false, predicate: predicate)))
        }
    }
}

extension Publishers.Last: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams.
    @inlinable
    public static func == (lhs: Publishers.Last<Upstream>, rhs: Publishers.Last<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

extension Publisher {
    /// Publishes the last element of a stream, after the stream finishes.
    @inlinable
    public func last() -> Publishers.Last<Self> {
        Publishers.Last(upstream: self)
    }

    /// Publishes the last element of a stream that satisfies a predicate closure, after the
    /// stream finishes. If no element matches, the publisher finishes without a value.
    @inlinable
    public func last(where predicate: @escaping (Output) -> Bool) -> Publishers.LastWhere<Self> {
        Publishers.LastWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the last element of a stream that satisfies an error-throwing predicate
    /// closure, after the stream finishes. A thrown error cancels the upstream and fails the
    /// stream.
    @inlinable
    public func tryLast(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryLastWhere<Self> {
        Publishers.TryLastWhere(upstream: self, predicate: predicate)
    }
}
