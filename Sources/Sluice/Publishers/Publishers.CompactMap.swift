extension Publishers {
    /// A publisher that republishes all non-`nil` results of calling a closure with each
    /// received element.
    ///
    /// The upstream's subscription is passed straight through to the downstream. An element
    /// whose result is `nil` is dropped and replaced by a request for one more.
    public struct CompactMap<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// A closure that receives values from the upstream publisher and returns optional values.
        public let transform: (Upstream.Output) -> Output?

        /// Creates a publisher that republishes all non-`nil` results of calling a closure
        /// with each received element.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }

    /// A publisher that republishes all non-`nil` results of calling an error-throwing closure
    /// with each received element.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    public struct TryCompactMap<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// An error-throwing closure that receives values from the upstream publisher and
        /// returns optional values.
        public let transform: (Upstream.Output) throws -> Output?

        /// Creates a publisher that republishes all non-`nil` results of calling an
        /// error-throwing closure with each received element.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output?) {
            self.upstream = upstream
            self.transform = transform
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: TryCompactMapTransform<Upstream, Output>(transform: transform)))
        }
    }
}

extension Publishers.CompactMap {
    /// Passes the upstream's subscription straight through, as Combine's `CompactMap` does; a
    /// `nil` result asks the upstream for one more value in its place.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: PassThroughSubscriber
        where Downstream.Input == Output, Downstream.Failure == Upstream.Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output
        @usableFromInline
        internal typealias Failure = Upstream.Failure

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let transform: (Upstream.Output) -> Output?
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output?) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            if let output = transform(input) {
                return downstream.receive(output)
            }
            return .max(1)
        }

        @usableFromInline
        internal var description: String { "CompactMap" }
    }
}

@usableFromInline
internal struct TryCompactMapTransform<Upstream: Publisher, Output>: ValueTransform {
    @usableFromInline
    internal typealias Failure = Error

    @usableFromInline
    internal let transform: (Upstream.Output) throws -> Output?

    @inlinable
    internal init(transform: @escaping (Upstream.Output) throws -> Output?) {
        self.transform = transform
    }

    @inlinable
    internal var name: String { "TryCompactMap" }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Error> {
        .catching {
            if let output = try transform(input) {
                return .emit(output)
            }
            return .skip
        }
    }
}

extension Publisher {
    /// Calls a closure with each received element and publishes any returned optional that has
    /// a value. A `nil` result is dropped.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Self, T> {
        Publishers.CompactMap(upstream: self, transform: transform)
    }

    /// Calls an error-throwing closure with each received element and publishes any returned
    /// optional that has a value. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryCompactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Self, T> {
        Publishers.TryCompactMap(upstream: self, transform: transform)
    }
}

extension Publishers.CompactMap {
    /// Fuses two compact-maps into one over the same upstream.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) -> T?) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).flatMap(transform) }
    }

    /// Fuses a map after this compact-map into one compact-map over the same upstream.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.CompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.CompactMap(upstream: upstream) { first($0).map(transform) }
    }
}

extension Publishers.TryCompactMap {
    /// Fuses a compact-map after this one into one try-compact-map over the same upstream.
    @inlinable
    public func compactMap<T>(_ transform: @escaping (Output) throws -> T?) -> Publishers.TryCompactMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryCompactMap(upstream: upstream) { try first($0).flatMap(transform) }
    }
}
