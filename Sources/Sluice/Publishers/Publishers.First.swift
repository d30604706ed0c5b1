extension Publishers {
    /// A publisher that publishes the first element of a stream, then finishes.
    ///
    /// It asks its upstream for an unlimited number of elements; the first one cancels the
    /// upstream at once and is published, with `.finished`, as soon as the downstream has asked
    /// for anything. An empty upstream publishes only `.finished`.
    public struct First<Upstream: Publisher>: Publisher {
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
                logic: ElementSearch<Upstream, Upstream.Failure>(name: "First", stopsAtFirstMatch: true) { _ in true }))
        }
    }

    /// A publisher that only publishes the first element of a stream to satisfy a predicate
    /// closure.
    ///
    /// Its subscription describes itself as `"TryFirst"`, as Combine's does.
    public struct FirstWhere<Upstream: Publisher>: Publisher {
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
            // "TryFirst" is Combine's own description for this operator's subscription.
            upstream.receive(subscriber: ReduceSubscription(
                downstream: subscriber,
                logic: ElementSearch<Upstream, Upstream.Failure>(
                    name: "TryFirst", stopsAtFirstMatch: true, predicate: predicate)))
        }
    }

    /// A publisher that only publishes the first element of a stream to satisfy a throwing
    /// predicate closure.
    ///
    /// If the predicate throws, the upstream is cancelled and the publisher fails with the error.
    public struct TryFirstWhere<Upstream: Publisher>: Publisher {
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
                logic: ElementSearch<Upstream, Error>(name: "TryFirstWhere", stopsAtFirstMatch: true, predicate: predicate)))
        }
    }
}

extension Publishers.First: Equatable where Upstream: Equatable {
    /// Returns whether the two publishers have equal upstreams.
    @inlinable
    public static func == (lhs: Publishers.First<Upstream>, rhs: Publishers.First<Upstream>) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

/// `first`, `first(where:)`, `tryFirst(where:)`, and `last`, `last(where:)`, `tryLast(where:)`:
/// keep the element that matches, the first (which ends the stream) or the latest.
@usableFromInline
internal struct ElementSearch<Upstream: Publisher, Failure: Error>: ReduceLogic {
    @usableFromInline
    internal typealias Output = Upstream.Output

    @usableFromInline
    internal let name: String
    @usableFromInline
    internal let predicate: (Output) throws -> Bool
    /// `first`'s: the first match decides, and the upstream is cancelled.
    @usableFromInline
    internal let stopsAtFirstMatch: Bool
    @usableFromInline
    internal var match: Output?

    @inlinable
    internal init(name: String, stopsAtFirstMatch: Bool, predicate: @escaping (Output) throws -> Bool) {
        self.name = name
        self.stopsAtFirstMatch = stopsAtFirstMatch
        self.predicate = predicate
    }

    @inlinable
    internal var result: Output? { match }

    @inlinable
    internal mutating func receive(_ input: Output) -> ReduceStep<Failure> {
        .catching {
            guard try predicate(input) else { return .proceed }
            match = input
            return stopsAtFirstMatch ? .finish : .proceed
        }
    }
}

extension Publisher {
    /// Publishes the first element of a stream, then finishes.
    ///
    /// The upstream is cancelled as soon as the first element arrives. An empty upstream
    /// finishes without a value.
    @inlinable
    public func first() -> Publishers.First<Self> {
        Publishers.First(upstream: self)
    }

    /// Publishes the first element of a stream to satisfy a predicate closure, then finishes.
    ///
    /// The upstream is cancelled at the first match; if there is none, the publisher finishes
    /// without a value.
    @inlinable
    public func first(where predicate: @escaping (Output) -> Bool) -> Publishers.FirstWhere<Self> {
        Publishers.FirstWhere(upstream: self, predicate: predicate)
    }

    /// Publishes the first element of a stream to satisfy a throwing predicate closure, then
    /// finishes. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryFirst(where predicate: @escaping (Output) throws -> Bool) -> Publishers.TryFirstWhere<Self> {
        Publishers.TryFirstWhere(upstream: self, predicate: predicate)
    }
}
