extension Publishers {
    /// A publisher that transforms all elements from the upstream publisher with a provided
    /// closure.
    public struct Map<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Upstream.Failure

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) -> Output

        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Upstream.Failure {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }

    /// A publisher that transforms all elements from the upstream publisher with a provided
    /// error-throwing closure.
    ///
    /// If the closure throws, the publisher cancels its upstream and fails with the thrown error.
    public struct TryMap<Upstream: Publisher, Output>: Publisher {
        public typealias Failure = Error

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The error-throwing closure that transforms elements from the upstream publisher.
        public let transform: (Upstream.Output) throws -> Output

        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Output) throws -> Output) {
            self.upstream = upstream
            self.transform = transform
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Output == S.Input, S.Failure == Error {
            upstream.receive(subscriber: TransformSubscription(
                downstream: subscriber,
                transform: TryMapTransform<Upstream, Output>(transform: transform)))
        }
    }
}

extension Publishers.Map {
    /// A subscriber that applies the transform and passes the upstream's subscription straight
    /// through, as Combine's `Map` does: no lock and no object of its own.
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
        internal let transform: (Upstream.Output) -> Output
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, transform: @escaping (Upstream.Output) -> Output) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(transform(input))
        }

        @usableFromInline
        internal var description: String { "Map" }

        @usableFromInline
        internal var customMirror: Mirror { Mirror(self, children: EmptyCollection()) }
    }
}

@usableFromInline
internal struct TryMapTransform<Upstream: Publisher, Output>: ValueTransform {
    @usableFromInline
    internal typealias Failure = Error

    @usableFromInline
    internal let transform: (Upstream.Output) throws -> Output

    @inlinable
    internal init(transform: @escaping (Upstream.Output) throws -> Output) {
        self.transform = transform
    }

    @inlinable
    internal var name: String { "TryMap" }

    /// Combine's `TryMap` forwards a value that arrives before its subscription (returning the
    /// downstream's demand), ignores such a completion, and ignores a cancel made before the
    /// subscription arrives.
    @inlinable
    internal static var beforeSubscription: BeforeSubscriptionPolicy { .process }

    /// Combine's `TryMap` subscription shows no children.
    @inlinable
    internal func mirrorChildren(downstream: Any?, status: String) -> [Mirror.Child] { [] }

    @inlinable
    internal mutating func receive(_ input: Upstream.Output) -> TransformStep<Output, Error> {
        .catching { .emit(try transform(input)) }
    }
}

extension Publisher {
    /// Transforms all elements from the upstream publisher with a provided closure.
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Self, T> {
        Publishers.Map(upstream: self, transform: transform)
    }

    /// Transforms all elements from the upstream publisher with a provided error-throwing
    /// closure. A thrown error cancels the upstream and fails the stream.
    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Self, T> {
        Publishers.TryMap(upstream: self, transform: transform)
    }

    /// Replaces nil elements in the stream with the provided element.
    @inlinable
    public func replaceNil<T>(with output: T) -> Publishers.Map<Self, T> where Output == T? {
        Publishers.Map(upstream: self) { $0 ?? output }
    }
}

extension Publishers.Map {
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.Map<Upstream, T> {
        let first = self.transform
        return Publishers.Map(upstream: upstream) { transform(first($0)) }
    }

    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(first($0)) }
    }
}

extension Publishers.TryMap {
    @inlinable
    public func map<T>(_ transform: @escaping (Output) -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { transform(try first($0)) }
    }

    @inlinable
    public func tryMap<T>(_ transform: @escaping (Output) throws -> T) -> Publishers.TryMap<Upstream, T> {
        let first = self.transform
        return Publishers.TryMap(upstream: upstream) { try transform(try first($0)) }
    }
}
