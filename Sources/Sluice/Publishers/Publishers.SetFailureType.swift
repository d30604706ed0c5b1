extension Publishers {
    /// A publisher that appears to send a specified failure type.
    ///
    /// The publisher can't actually fail with the specified type: it passes everything from
    /// its never-failing upstream through, subscription included. Use it where an API needs a
    /// publisher with a particular failure type.
    public struct SetFailureType<Upstream: Publisher, Failure: Error>: Publisher where Upstream.Failure == Never {
        public typealias Output = Upstream.Output

        /// The publisher from which this publisher receives elements.
        public let upstream: Upstream

        /// Creates a publisher that appears to send a specified failure type.
        @inlinable
        public init(upstream: Upstream) {
            self.upstream = upstream
        }

        @inlinable
        public func receive<S: Subscriber>(subscriber: S) where Failure == S.Failure, Upstream.Output == S.Input {
            upstream.receive(subscriber: Inner(downstream: subscriber))
        }

        /// Changes the failure type again: one `SetFailureType` over the same upstream.
        @inlinable
        public func setFailureType<E: Error>(to failure: E.Type) -> Publishers.SetFailureType<Upstream, E> {
            Publishers.SetFailureType(upstream: upstream)
        }
    }
}

extension Publishers.SetFailureType: Equatable where Upstream: Equatable {
    /// Two `SetFailureType` publishers are equal if their upstreams are.
    @inlinable
    public static func == (
        lhs: Publishers.SetFailureType<Upstream, Failure>,
        rhs: Publishers.SetFailureType<Upstream, Failure>
    ) -> Bool {
        lhs.upstream == rhs.upstream
    }
}

extension Publishers.SetFailureType {
    /// Passes everything, including the upstream's subscription, straight through.
    @usableFromInline
    internal struct Inner<Downstream: Subscriber>: PassThroughSubscriber
        where Downstream.Input == Upstream.Output, Downstream.Failure == Failure
    {
        @usableFromInline
        internal typealias Input = Upstream.Output

        @usableFromInline
        internal let downstream: Downstream
        @usableFromInline
        internal let combineIdentifier = CombineIdentifier()

        @inlinable
        internal init(downstream: Downstream) {
            self.downstream = downstream
        }

        @inlinable
        internal func receive(_ input: Input) -> Subscribers.Demand {
            downstream.receive(input)
        }

        @inlinable
        internal func receive(completion: Subscribers.Completion<Never>) {
            downstream.receive(completion: .finished)
        }

        @usableFromInline
        internal var description: String { "SetFailureType" }
    }
}

extension Publisher where Failure == Never {
    /// Changes the failure type declared by the upstream publisher. The upstream can't fail,
    /// so nothing else changes.
    @inlinable
    public func setFailureType<E: Error>(to failureType: E.Type) -> Publishers.SetFailureType<Self, E> {
        Publishers.SetFailureType(upstream: self)
    }
}
