extension Publishers {
    /// A publisher that converts any failure from the upstream publisher into a new error.
    ///
    /// Values pass through unchanged, and so does the upstream's subscription.
    public struct MapError<Upstream: Publisher, Failure: Error>: Publisher {
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// The closure that converts the upstream failure into a new error.
        public let transform: (Upstream.Failure) -> Failure

        /// Creates a publisher that converts any failure from the upstream publisher into a
        /// new error.
        @inlinable
        public init(upstream: Upstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            self.transform = transform
        }

        /// Creates a publisher that converts any failure from the upstream publisher into a
        /// new error.
        @inlinable
        public init(upstream: Upstream, _ map: @escaping (Upstream.Failure) -> Failure) {
            self.upstream = upstream
            transform = map
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: Inner(downstream: subscriber, transform: transform))
        }
    }
}

extension Publishers.MapError {
    /// Converts the failure and passes everything else, including the upstream's subscription,
    /// straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: PassThroughSubscriber
        where Downstream.Input == Upstream.Output, Downstream.Failure == Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let transform: (Upstream.Failure) -> Failure
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream, transform: @escaping (Upstream.Failure) -> Failure) {
            self.downstream = downstream
            self.transform = transform
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Upstream.Failure>) {
            switch completion {
            case .finished:
                downstream.receive(completion: .finished)
            case .failure(let error):
                downstream.receive(completion: .failure(transform(error)))
            }
        }

        @usableFromInline
        internal var description: String { "MapError" }
    }
}

extension Publisher {
    /// Converts any failure from the upstream publisher into a new error.
    @inlinable
    public func mapError<E: Error>(_ transform: @escaping (Failure) -> E) -> Publishers.MapError<Self, E> {
        Publishers.MapError(upstream: self, transform: transform)
    }
}
